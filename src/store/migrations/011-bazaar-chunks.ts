/**
 * Time-chunked bazaar snapshots (issue 5: ingest CPU, PostgreSQL bytes per row).
 *
 * - `bazaar_recent_rows` receives new snapshots: the columns of migration 010's
 *   `bazaar_snapshot_rows`, keyed (ts, product) so a snapshot's 1,500 rows append to the end of
 *   the table instead of landing in 1,500 products' key ranges, plus an index (product, ts)
 *   for one product's reads. It holds the open window(s) only: a few thousand rows per product
 *   at most.
 * - `bazaar_snapshot_chunks` holds every closed window (domain/bazaar-chunk.ts, CHUNK_MS): one
 *   row per product per window, keyed (product, start), whose payload packs the window's rows
 *   column-wise (books as stored: null, full, or a delta from a keyframe). The compaction job
 *   (BazaarHistoryJobs) moves closed windows from the recent rows into chunks.
 * - Existing rows move into `bazaar_recent_rows` unchanged; the first compaction run packs them
 *   (it catches up window by window). `bazaar_snapshots` stays a view, now over the recent rows.
 */
import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { decodeChunk } from '../../domain/bazaar-chunk.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

const QUICK_COLUMNS = 'buy_price, sell_price, buy_volume, sell_volume, buy_moving_week, sell_moving_week, buy_orders, sell_orders';
const ROW_COLUMNS = `ts, ${QUICK_COLUMNS}, product, book`;

export function m011BazaarChunks(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  const withoutRowid = <T extends { modifyEnd(s: ReturnType<typeof sql>): T }>(b: T): T => (dialect === 'sqlite' ? b.modifyEnd(sql`without rowid`) : b);
  // Migration 010's row layout, under another name and key.
  const rowsTable = (db: AnyDb, name: string, key: Array<'ts' | 'product'>) =>
    withoutRowid(
      db.schema
        .createTable(name)
        .addColumn('ts', big, (c) => c.notNull())
        .addColumn('buy_price', double, (c) => c.notNull())
        .addColumn('sell_price', double, (c) => c.notNull())
        .addColumn('buy_volume', big, (c) => c.notNull())
        .addColumn('sell_volume', big, (c) => c.notNull())
        .addColumn('buy_moving_week', big, (c) => c.notNull())
        .addColumn('sell_moving_week', big, (c) => c.notNull())
        .addColumn('product', 'integer', (c) => c.notNull())
        .addColumn('buy_orders', 'integer', (c) => c.notNull())
        .addColumn('sell_orders', 'integer', (c) => c.notNull())
        .addColumn('book', blob)
        .addPrimaryKeyConstraint(`${name}_pk`, key),
    ).execute();
  const view = (db: AnyDb, table: string) =>
    sql`create view bazaar_snapshots as
      select p.product_id, r.ts, ${sql.raw(QUICK_COLUMNS.replace(/(\w+)/g, 'r.$1'))}, r.book
      from ${sql.table(table)} r join bazaar_products p on p.id = r.product`.execute(db);

  return {
    async up(db: AnyDb) {
      await rowsTable(db, 'bazaar_recent_rows', ['ts', 'product']);
      await db.schema.createIndex('bazaar_recent_rows_product').on('bazaar_recent_rows').columns(['product', 'ts']).execute();
      // A rowid table on SQLite (not WITHOUT ROWID): payloads of a few KB then fill table pages
      // instead of spilling into overflow pages, as records of an index b-tree would.
      await db.schema
        .createTable('bazaar_snapshot_chunks')
        .addColumn('start', big, (c) => c.notNull())
        .addColumn('first_ts', big, (c) => c.notNull())
        .addColumn('last_ts', big, (c) => c.notNull())
        .addColumn('product', 'integer', (c) => c.notNull())
        .addColumn('row_count', 'integer', (c) => c.notNull())
        .addColumn('payload', blob, (c) => c.notNull())
        .addPrimaryKeyConstraint('bazaar_snapshot_chunks_pk', ['product', 'start'])
        .execute();
      // Payloads are deflated already: PostgreSQL need not try to compress them again.
      if (dialect === 'postgres') await sql`alter table bazaar_snapshot_chunks alter column payload set storage external`.execute(db);

      await sql`insert into bazaar_recent_rows (${sql.raw(ROW_COLUMNS)}) select ${sql.raw(ROW_COLUMNS)} from bazaar_snapshot_rows order by ts, product`.execute(db);
      await sql`drop view bazaar_snapshots`.execute(db);
      await db.schema.dropTable('bazaar_snapshot_rows').execute();
      await view(db, 'bazaar_recent_rows');
    },
    async down(db: AnyDb) {
      // Back to migration 010's single table: the recent rows and every chunk's rows.
      await rowsTable(db, 'bazaar_snapshot_rows', ['product', 'ts']);
      await sql`insert into bazaar_snapshot_rows (${sql.raw(ROW_COLUMNS)}) select ${sql.raw(ROW_COLUMNS)} from bazaar_recent_rows order by product, ts`.execute(db);
      let after = { product: -1, start: -1 };
      for (;;) {
        const chunks = await sql<{ product: number; start: number; payload: Uint8Array }>`select product, start, payload from bazaar_snapshot_chunks
          where product > ${after.product} or (product = ${after.product} and start > ${after.start}) order by product, start limit 200`.execute(db);
        if (chunks.rows.length === 0) break;
        for (const c of chunks.rows) {
          const rows = decodeChunk(c.payload).map((r) => ({ ...r, product: Number(c.product) }));
          for (let i = 0; i < rows.length; i += 500) {
            await db.insertInto('bazaar_snapshot_rows').values(rows.slice(i, i + 500)).onConflict((oc) => oc.columns(['product', 'ts']).doNothing()).execute();
          }
        }
        const last = chunks.rows[chunks.rows.length - 1]!;
        after = { product: Number(last.product), start: Number(last.start) };
      }
      await sql`drop view bazaar_snapshots`.execute(db);
      await db.schema.dropTable('bazaar_snapshot_chunks').execute();
      await db.schema.dropTable('bazaar_recent_rows').execute();
      await view(db, 'bazaar_snapshot_rows');
    },
  };
}
