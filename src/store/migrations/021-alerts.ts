/**
 * Alerts (issue 47): an account's notification targets, its subscriptions (what to watch), the
 * routes linking subscriptions to targets (the established PublicSubscription), and the outbox of
 * deliveries: one row per alert and target, unique on (alert_key, target_id), so an alert evaluated
 * twice is stored once and a restart loses nothing that was due.
 */
import type { ColumnDefinitionBuilder, Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, type AnyDb } from './column-types.ts';

export function m021Alerts(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const id = (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement();
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('alert_targets')
        .addColumn('id', 'integer', id)
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('notify_when', 'integer', (c) => c.notNull())
        /** the HMAC secret of a WEBHOOK target (shown to the owner once, at creation) */
        .addColumn('secret', 'text')
        .addColumn('use_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failing_since', big)
        .addColumn('last_error', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('alert_targets_account').on('alert_targets').column('account_id').execute();
      await db.schema
        .createTable('alert_subscriptions')
        .addColumn('id', 'integer', id)
        .addColumn('account_id', 'integer', (c) => c.notNull())
        /** JSON AlertSpec (domain/alerts/spec.ts) */
        .addColumn('spec', 'text', (c) => c.notNull())
        .addColumn('min_interval_ms', big, (c) => c.notNull())
        /** JSON array of target ids; NULL: the routes, else every target notified ALWAYS */
        .addColumn('target_ids', 'text')
        /** JSON of the established Listener it was created as (GET /api/notifications/listeners), NULL for skymarket's own */
        .addColumn('listener', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('alert_subscriptions_account').on('alert_subscriptions').column('account_id').execute();
      await db.schema
        .createTable('alert_routes')
        .addColumn('id', 'integer', id)
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('source_type', 'text', (c) => c.notNull())
        .addColumn('source_regex', 'text')
        /** JSON array of TargetLink */
        .addColumn('targets', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('alert_routes_account').on('alert_routes').column('account_id').execute();
      await db.schema
        .createTable('alert_deliveries')
        .addColumn('id', 'integer', id)
        .addColumn('alert_key', 'text', (c) => c.notNull())
        .addColumn('target_id', 'integer', (c) => c.notNull())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('subscription_id', 'integer')
        /** JSON AlertBody */
        .addColumn('body', 'text', (c) => c.notNull())
        /** pending | delivered | failed */
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', big, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('delivered_at', big)
        .addColumn('last_error', 'text')
        .addUniqueConstraint('alert_deliveries_key_target', ['alert_key', 'target_id'])
        .execute();
      await db.schema.createIndex('alert_deliveries_due').on('alert_deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('alert_deliveries_account').on('alert_deliveries').columns(['account_id', 'created_at']).execute();
    },
    async down(db: AnyDb) {
      for (const table of ['alert_deliveries', 'alert_routes', 'alert_subscriptions', 'alert_targets']) await db.schema.dropTable(table).execute();
    },
  };
}
