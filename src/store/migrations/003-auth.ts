import type { ColumnDefinitionBuilder, Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, type AnyDb } from './column-types.ts';

/**
 * Accounts (tier + expiry), player API keys and partner tokens. Credentials are stored
 * only as SHA-256 hashes (hex), unique, so a lookup is one index probe.
 */
export function m003Auth(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  // An integer key the database assigns: identity on PostgreSQL, rowid alias on SQLite.
  const id = (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'integer', id)
        .addColumn('name', 'text')
        .addColumn('tier', 'text', (c) => c.notNull())
        .addColumn('tier_expires_at', big)
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('revoked_at', big)
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'integer', id)
        .addColumn('player_uuid', 'text', (c) => c.notNull())
        .addColumn('profile_uuid', 'text')
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .addColumn('revoked_at', big)
        .execute();
      await db.schema.createIndex('api_keys_player').on('api_keys').column('player_uuid').execute();

      await db.schema
        .createTable('partner_tokens')
        .addColumn('id', 'integer', id)
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('revoked_at', big)
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('partner_tokens').execute();
      await db.schema.dropTable('api_keys').execute();
      await db.schema.dropTable('accounts').execute();
    },
  };
}
