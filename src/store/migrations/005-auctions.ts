import type { ColumnDefinitionBuilder, Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, type AnyDb } from './column-types.ts';

/**
 * Archive export jobs (POST /api/auctions/tag/{tag}/archive/export): one row per
 * requested export, worked off by the jobs role (Pending → InProgress → Done | Failed).
 */
export function m005Auctions(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const json = dialect === 'postgres' ? 'jsonb' : 'text';
  const id = (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('export_jobs')
        .addColumn('id', 'integer', id)
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('item_tag', 'text', (c) => c.notNull())
        .addColumn('flags', 'text', (c) => c.notNull())
        .addColumn('filters', json, (c) => c.notNull())
        .addColumn('columns', json, (c) => c.notNull())
        .addColumn('webhook_url', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('requested_at', big, (c) => c.notNull())
        .addColumn('started_at', big)
        .addColumn('completed_at', big)
        .addColumn('row_count', 'integer')
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('export_jobs_status').on('export_jobs').columns(['status', 'requested_at']).execute();
      await db.schema.createIndex('export_jobs_account').on('export_jobs').columns(['account_id', 'status']).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('export_jobs').execute();
    },
  };
}
