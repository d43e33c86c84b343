/**
 * Player profiles a request asked for (the craft profit list's `?player=`): the route records the
 * request here, the ingest poller fetches the profile from upstream and stores what the filter
 * reads, and the route reads it back. One row per player (a fetch returns all of a player's
 * profiles), so a repeated request never adds a row.
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, type AnyDb } from './column-types.ts';

export function m016ProfileRequests(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('profile_requests')
        .addColumn('player_uuid', 'text', (c) => c.primaryKey())
        .addColumn('requested_at', big, (c) => c.notNull())
        .addColumn('fetched_at', big)
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('profiles', 'text')
        .execute();
      await db.schema.createIndex('profile_requests_requested').on('profile_requests').column('requested_at').execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('profile_requests').execute();
    },
  };
}
