/**
 * Sold history partitioned by month on PostgreSQL (issue 24, point a; docs/storage.md "Time
 * partitioning of `auctions`"). SQLite stays as it is (its reads are bounded by their indexes).
 *
 * - `auction_keys (uuid primary key, month)`: one row per auction, the month it is filed under,
 *   fixed the first time either feed writes it and never rewritten. PostgreSQL cannot keep `uuid`
 *   unique on a partitioned table (a unique constraint must contain the partition key), so this
 *   small table keeps it: every write path inserts its new uuids here first (conflicts do nothing),
 *   reads back each uuid's month and writes the auction row with that month.
 * - `auctions` becomes `partition by range (month)`, primary key (uuid, month), one partition per
 *   month present (`auctions_m202611` holds 202611 ≤ month < 202612) plus `auctions_default`,
 *   which catches a row whose month has no partition (the write paths create the partition of a
 *   new month before writing, store/repositories/auctions.ts, so it stays empty). Every secondary
 *   index is recreated as it was (read from the catalog), on each partition.
 * - `month` is `yyyymm` of the UTC month of the auction's start (the listing's `start`, or the
 *   start estimated for a sale first seen in auctions_ended), of its end when no start is stored
 *   (store/auction-months.ts `auctionMonth`, inlined here so this migration keeps its meaning).
 *
 * Copy and swap in the migration's one transaction: keys filled from the rows, the old table
 * renamed, the partitioned table created LIKE it (column defaults, NOT NULLs, storage: `item_bytes`
 * stays EXTERNAL), rows copied, the old table dropped, then the primary key and indexes built once
 * over the copied rows. Needs room for a second copy of the table while it runs; nothing
 * references `auctions` by foreign key. Down copies back into one unpartitioned table.
 */
import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import type { AnyDb } from './column-types.ts';

/** `yyyymm` of the UTC month of an epoch-ms expression (as store/auction-months.ts `monthOf`). */
const MONTH_OF = (ms: string) =>
  sql.raw(`(extract(year from to_timestamp((${ms}) / 1000.0) at time zone 'UTC') * 100 + extract(month from to_timestamp((${ms}) / 1000.0) at time zone 'UTC'))::int4`);

const nextMonth = (m: number) => (m % 100 === 12 ? (Math.floor(m / 100) + 1) * 100 + 1 : m + 1);

/** The table's secondary index definitions (not the primary key), as the catalog gives them. */
async function secondaryIndexes(db: AnyDb): Promise<string[]> {
  const { rows } = await sql<{ definition: string }>`select i.indexdef as definition from pg_indexes i
    join pg_class c on c.relname = i.indexname and c.relnamespace = (select oid from pg_namespace where nspname = i.schemaname)
    join pg_index x on x.indexrelid = c.oid
    where i.schemaname = current_schema() and i.tablename = 'auctions' and not x.indisprimary
    order by i.indexname`.execute(db);
  // A partitioned table's index reads `ON ONLY t`, which would build it on no partition.
  return rows.map((r) => r.definition.replace(/ ON ONLY /, ' ON '));
}

/** Renames `auctions` and its primary key (whose name the new table's key takes). */
async function renameWithKey(db: AnyDb, name: string): Promise<void> {
  const { rows } = await sql<{ name: string }>`select conname as name from pg_constraint where conrelid = 'auctions'::regclass and contype = 'p'`.execute(db);
  await sql`alter table auctions rename to ${sql.table(name)}`.execute(db);
  for (const key of rows) await sql`alter table ${sql.table(name)} rename constraint ${sql.ref(key.name)} to ${sql.ref(`${name}_pkey`)}`.execute(db);
}

export function m019AuctionPartitions(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'postgres') return;
      const indexes = await secondaryIndexes(db);
      await sql`create table auction_keys (uuid text primary key, month int4 not null)`.execute(db);
      await sql`insert into auction_keys (uuid, month) select uuid, ${MONTH_OF('coalesce(start_at, end_at)')} from auctions`.execute(db);
      await renameWithKey(db, 'auctions_unpartitioned');
      await sql`create table auctions (like auctions_unpartitioned including defaults including constraints including storage, month int4 not null)
        partition by range (month)`.execute(db);
      const { rows: months } = await sql<{ month: number }>`select distinct month from auction_keys order by month`.execute(db);
      for (const { month } of months) {
        await sql`create table ${sql.table(`auctions_m${month}`)} partition of auctions for values from (${sql.lit(month)}) to (${sql.lit(nextMonth(month))})`.execute(db);
      }
      await sql`create table auctions_default partition of auctions default`.execute(db);
      await sql`insert into auctions select a.*, k.month from auctions_unpartitioned a join auction_keys k on k.uuid = a.uuid`.execute(db);
      await sql`drop table auctions_unpartitioned`.execute(db);
      await sql`alter table auctions add constraint auctions_pkey primary key (uuid, month)`.execute(db);
      for (const definition of indexes) await sql.raw(definition).execute(db);
      // Planner statistics for the copied rows now (autovacuum analyzes partitions, never the
      // partitioned table); an empty table is left to the first load (store/repositories/auctions.ts).
      if (months.length > 0) await sql`analyze auctions, auction_keys`.execute(db);
    },
    async down(db: AnyDb) {
      if (dialect !== 'postgres') return;
      const indexes = await secondaryIndexes(db);
      await renameWithKey(db, 'auctions_partitioned');
      await sql`create table auctions (like auctions_partitioned including defaults including constraints including storage)`.execute(db);
      await sql`alter table auctions drop column month`.execute(db);
      const { rows: columns } = await sql<{ name: string }>`select attname as name from pg_attribute
        where attrelid = 'auctions'::regclass and attnum > 0 and not attisdropped order by attnum`.execute(db);
      const list = sql.join(columns.map((c) => sql.ref(c.name)));
      await sql`insert into auctions (${list}) select ${list} from auctions_partitioned`.execute(db);
      await sql`drop table auctions_partitioned`.execute(db); // and its partitions
      await sql`drop table auction_keys`.execute(db);
      await sql`alter table auctions add constraint auctions_pkey primary key (uuid)`.execute(db);
      for (const definition of indexes) await sql.raw(definition).execute(db);
    },
  };
}
