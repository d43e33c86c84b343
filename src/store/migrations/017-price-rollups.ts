/**
 * Price rollups (issue 24; domain/prices.ts): per tag and price variant, per hour and per day,
 * kept forever: the source of price history, the 2-day summary and the bulk averages.
 *
 * - `price_hours`: one row per (tag, variant, hour): count (sales), items (sum of stack sizes),
 *   coins (sum of whole sale prices), sum, min, max of prices per unit, and the price digest (float64 little-endian, ascending).
 *   variant '' is the whole tag; a tag with price variants (pets, runes, potions) also has a
 *   row per variant.
 * - `price_days`: the same per UTC day, merged from the day's hours once the day is rolled up.
 * - `price_bin_hours`: the lowest BIN (price per unit, its auction) per (tag, variant, hour), as
 *   the active view saw it during the hour; `price_bin_days` the lowest of each closed day.
 * - `price_rollup_state`: every hour before `rolled_to` is rolled up (0 = not started), every day
 *   before `days_to` too.
 *
 * The migration creates the tables; the rollup (market/price-rollups.ts) starts at the first
 * stored sale and catches up hour by hour, resumable and with the event loop served between
 * hours, instead of holding start-up for as long as a pass over every stored sale takes.
 */
import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

export function m017PriceRollups(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  // SQLite: clustered by the primary key (tag, variant, time), so one tag's hours of a range sit on
  // a few adjacent pages rather than one page per hour rolled (measured: a week of hours read 2.2×
  // slower at 90 days of history than at 7 with a rowid table, the pages no longer cached).
  const withoutRowid = <T extends { modifyEnd(s: ReturnType<typeof sql>): T }>(b: T): T => (dialect === 'sqlite' ? b.modifyEnd(sql`without rowid`) : b);
  return {
    async up(db: AnyDb) {
      for (const [table, time] of [
        ['price_hours', 'hour'],
        ['price_days', 'day'],
      ] as const) {
        await withoutRowid(
          db.schema
            .createTable(table)
            .addColumn('tag', 'text', (c) => c.notNull())
            .addColumn('variant', 'text', (c) => c.notNull())
            .addColumn(time, big, (c) => c.notNull())
            .addColumn('count', 'integer', (c) => c.notNull())
            .addColumn('items', big, (c) => c.notNull())
            .addColumn('coins', double, (c) => c.notNull())
            .addColumn('sum', double, (c) => c.notNull())
            .addColumn('min', double, (c) => c.notNull())
            .addColumn('max', double, (c) => c.notNull())
            .addColumn('prices', blob, (c) => c.notNull())
            .addPrimaryKeyConstraint(`${table}_pk`, ['tag', 'variant', time]),
        ).execute();
        // Rolling and re-rolling a period touches every tag of it.
        await db.schema.createIndex(`${table}_${time}`).on(table).column(time).execute();
      }
      // PostgreSQL keeps rows in insertion order (an hour of every tag at a time): a covering index
      // in key order lets a tag's range be read by an index-only scan from adjacent leaf pages.
      if (dialect === 'postgres') {
        await sql`create index price_hours_cover on price_hours (tag, variant, hour) include (count, items, coins, sum, min, max, prices)`.execute(db);
      }
      for (const [table, time] of [
        ['price_bin_hours', 'hour'],
        ['price_bin_days', 'day'],
      ] as const) {
        await withoutRowid(
          db.schema
            .createTable(table)
            .addColumn('tag', 'text', (c) => c.notNull())
            .addColumn('variant', 'text', (c) => c.notNull())
            .addColumn(time, big, (c) => c.notNull())
            .addColumn('lowest', double, (c) => c.notNull())
            .addColumn('uuid', 'text', (c) => c.notNull())
            .addPrimaryKeyConstraint(`${table}_pk`, ['tag', 'variant', time]),
        ).execute();
        await db.schema.createIndex(`${table}_${time}`).on(table).column(time).execute();
      }
      await db.schema
        .createTable('price_rollup_state')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('rolled_to', big, (c) => c.notNull())
        .addColumn('days_to', big, (c) => c.notNull())
        .execute();
      await db.insertInto('price_rollup_state').values({ id: 1, rolled_to: 0, days_to: 0 }).execute();
    },
    async down(db: AnyDb) {
      for (const t of ['price_rollup_state', 'price_bin_days', 'price_bin_hours', 'price_days', 'price_hours']) await db.schema.dropTable(t).execute();
    },
  };
}
