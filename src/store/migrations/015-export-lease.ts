/**
 * Export jobs hold a lease (issue 21): a worker renews `heartbeat_at` while it runs a job; a job
 * left InProgress by a worker that died (its lease expired) goes back to Pending, or fails once
 * `attempts` says it already took several workers down, and stops counting toward the queue cap.
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, type AnyDb } from './column-types.ts';

export function m015ExportLease(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('export_jobs').addColumn('heartbeat_at', bigintType(dialect)).execute();
      await db.schema.alterTable('export_jobs').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
    async down(db: AnyDb) {
      await db.schema.alterTable('export_jobs').dropColumn('attempts').execute();
      await db.schema.alterTable('export_jobs').dropColumn('heartbeat_at').execute();
    },
  };
}
