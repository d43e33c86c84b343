/**
 * Who asked for a profile fetch (issue 45 item 5): the queue of profile requests is capped per
 * client as well as in total, so one client with random `?player=` uuids cannot fill it for everyone.
 */
import type { Migration } from 'kysely';
import type { AnyDb } from './column-types.ts';

export function m020ProfileRequestClient(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('profile_requests').addColumn('requested_by', 'text').execute();
      await db.schema.createIndex('profile_requests_requested_by').on('profile_requests').column('requested_by').execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropIndex('profile_requests_requested_by').execute();
      await db.schema.alterTable('profile_requests').dropColumn('requested_by').execute();
    },
  };
}
