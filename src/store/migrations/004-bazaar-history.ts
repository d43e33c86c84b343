import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

/** Rollup tables of bazaar history; each row is one (product, bucket start). */
export const BAZAAR_ROLLUP_TABLES = ['bazaar_5m', 'bazaar_2h', 'bazaar_1d'] as const;

/**
 * Bazaar history rollups (5-minute, 2-hour and daily buckets: the bucket's first values
 * plus min/max of both prices and the sample count) and the rollup jobs' progress marks.
 * 20-second rows stay in bazaar_snapshots (migration 002) for 14 days; 5-minute rows are kept forever.
 */
export function m004BazaarHistory(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  return {
    async up(db: AnyDb) {
      for (const table of BAZAAR_ROLLUP_TABLES) {
        let create = db.schema
          .createTable(table)
          .addColumn('product_id', 'text', (c) => c.notNull())
          // bucket start, UTC epoch ms
          .addColumn('ts', big, (c) => c.notNull())
          // first snapshot of the bucket
          .addColumn('buy_price', double, (c) => c.notNull())
          .addColumn('sell_price', double, (c) => c.notNull())
          .addColumn('buy_volume', big, (c) => c.notNull())
          .addColumn('sell_volume', big, (c) => c.notNull())
          .addColumn('buy_moving_week', big, (c) => c.notNull())
          .addColumn('sell_moving_week', big, (c) => c.notNull())
          .addColumn('buy_orders', 'integer', (c) => c.notNull())
          .addColumn('sell_orders', 'integer', (c) => c.notNull())
          // extremes over the bucket
          .addColumn('min_buy', double, (c) => c.notNull())
          .addColumn('max_buy', double, (c) => c.notNull())
          .addColumn('min_sell', double, (c) => c.notNull())
          .addColumn('max_sell', double, (c) => c.notNull())
          .addColumn('samples', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pk`, ['product_id', 'ts']);
        if (dialect === 'sqlite') create = create.modifyEnd(sql`without rowid`);
        await create.execute();
      }
      // The 2-hour and daily jobs read 5-minute rows by time across all products.
      await db.schema.createIndex('bazaar_5m_ts').on('bazaar_5m').column('ts').execute();

      await db.schema
        .createTable('bazaar_rollup_state')
        .addColumn('resolution', 'text', (c) => c.primaryKey())
        // every bucket starting before this is rolled up
        .addColumn('done_until', big, (c) => c.notNull())
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('bazaar_rollup_state').execute();
      for (const table of BAZAAR_ROLLUP_TABLES) await db.schema.dropTable(table).execute();
    },
  };
}
