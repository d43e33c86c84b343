/**
 * Sales rolled up per variant and hour (domain/sales-rollup.ts): what the auction-driven flips read
 * instead of every sale, so a restart on weeks of history holds the variants, not the sales.
 *
 * - `sale_variants`: one row per (kind, key): `attr` (the attribute flips' full variant), `mayor`
 *   (the mayor flips' variant), `tag`. `sales_7d` / `sales_14d` count the variant's rolled-up sales
 *   in the hours from the state's `aged_7d` / `aged_14d` on, kept current as hours are rolled in and
 *   age out, so the variants worth reading are found through an index instead of a scan.
 * - `sale_hours`: one row per variant and hour: count, sum, min, max and the price digest
 *   (float64 little-endian, ascending). `attr` and `mayor` hours are kept 14 days, `tag` hours forever.
 * - `sale_rollup_state`: one row: every hour before `rolled_to` is rolled up (0 = not started).
 * - `auctions_sold_at`: sales by time (the rollup reads one hour at a time).
 */
import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

export function m012SaleRollups(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('sale_variants')
        .addColumn('id', 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
        )
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('tag', 'text', (c) => c.notNull())
        .addColumn('item_name', 'text', (c) => c.notNull())
        .addColumn('mods', 'text')
        .addColumn('sales_7d', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sales_14d', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('sale_variants_key').on('sale_variants').columns(['kind', 'key']).unique().execute();
      await db.schema.createIndex('sale_variants_7d').on('sale_variants').columns(['kind', 'sales_7d']).execute();
      await db.schema.createIndex('sale_variants_14d').on('sale_variants').columns(['kind', 'sales_14d']).execute();
      // Each tag's most sold variant (mayor flips) without a scan of every variant.
      await db.schema.createIndex('sale_variants_tag_14d').on('sale_variants').columns(['kind', 'tag', 'sales_14d']).execute();
      await db.schema
        .createTable('sale_hours')
        .addColumn('variant', 'integer', (c) => c.notNull())
        .addColumn('hour', big, (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('sum', double, (c) => c.notNull())
        .addColumn('min', double, (c) => c.notNull())
        .addColumn('max', double, (c) => c.notNull())
        .addColumn('prices', blob, (c) => c.notNull())
        .addPrimaryKeyConstraint('sale_hours_pk', ['variant', 'hour'])
        .execute();
      await db.schema.createIndex('sale_hours_hour').on('sale_hours').columns(['hour', 'variant']).execute();
      await db.schema
        .createTable('sale_rollup_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('rolled_to', big, (c) => c.notNull())
        .addColumn('aged_7d', big, (c) => c.notNull())
        .addColumn('aged_14d', big, (c) => c.notNull())
        .execute();
      await db.insertInto('sale_rollup_state').values({ id: 1, rolled_to: 0, aged_7d: 0, aged_14d: 0 }).execute();
      await db.schema.createIndex('auctions_sold_at').on('auctions').column('sold_at').where(sql.ref('state'), '=', 'sold').execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropIndex('auctions_sold_at').execute();
      await db.schema.dropTable('sale_rollup_state').execute();
      await db.schema.dropTable('sale_hours').execute();
      await db.schema.dropTable('sale_variants').execute();
    },
  };
}
