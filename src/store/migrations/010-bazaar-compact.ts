/**
 * Compact bazaar snapshots (issue 5: 14 days × 1,500 products within 10 GB).
 *
 * - `bazaar_products` numbers the products once; snapshot rows carry the integer instead of the
 *   text id (in the row and in the key).
 * - `bazaar_snapshot_rows` replaces the `bazaar_snapshots` table, keyed (product, ts), without
 *   the separate ts index: every reader goes by product (readers over all products seek each
 *   product's key range), and retention deletes per product by key range.
 * - `bazaar_book_keyframes` holds full order books; a snapshot's `book` is NULL (unchanged since
 *   the product's previous row), a full book (rows from before this migration, carried-forward
 *   books) or a delta from a keyframe (src/domain/bazaar-book-delta.ts).
 * - `bazaar_snapshots` becomes a read-only view with the old columns, so readers that filter by
 *   product_id keep working.
 *
 * Existing rows are copied (their books are full books, still valid); the old table is dropped.
 */
import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

const QUICK_COLUMNS = 'buy_price, sell_price, buy_volume, sell_volume, buy_moving_week, sell_moving_week, buy_orders, sell_orders';

export function m010BazaarCompact(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  const withoutRowid = <T extends { modifyEnd(s: ReturnType<typeof sql>): T }>(b: T): T => (dialect === 'sqlite' ? b.modifyEnd(sql`without rowid`) : b);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('bazaar_products')
        .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => c.primaryKey())
        .addColumn('product_id', 'text', (c) => c.notNull().unique())
        .execute();

      // Eight-byte columns first, then four-byte ones: no alignment padding on PostgreSQL.
      await withoutRowid(
        db.schema
          .createTable('bazaar_snapshot_rows')
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
          .addPrimaryKeyConstraint('bazaar_snapshot_rows_pk', ['product', 'ts']),
      ).execute();

      await withoutRowid(
        db.schema
          .createTable('bazaar_book_keyframes')
          .addColumn('ts', big, (c) => c.notNull())
          .addColumn('product', 'integer', (c) => c.notNull())
          .addColumn('book', blob, (c) => c.notNull())
          .addPrimaryKeyConstraint('bazaar_book_keyframes_pk', ['product', 'ts']),
      ).execute();

      await sql`insert into bazaar_products (product_id) select distinct product_id from bazaar_snapshots order by product_id`.execute(db);
      await sql`insert into bazaar_snapshot_rows (ts, ${sql.raw(QUICK_COLUMNS)}, product, book)
        select s.ts, ${sql.raw(QUICK_COLUMNS.replace(/(\w+)/g, 's.$1'))}, p.id, s.book
        from bazaar_snapshots s join bazaar_products p on p.product_id = s.product_id
        order by p.id, s.ts`.execute(db);
      await db.schema.dropTable('bazaar_snapshots').execute();
      await sql`create view bazaar_snapshots as
        select p.product_id, r.ts, ${sql.raw(QUICK_COLUMNS.replace(/(\w+)/g, 'r.$1'))}, r.book
        from bazaar_snapshot_rows r join bazaar_products p on p.id = r.product`.execute(db);
    },
    async down(db: AnyDb) {
      // The old layout (migration 002). Lossy for books: delta rows keep bytes the old code
      // cannot read (it then stores its next book in full).
      await withoutRowid(
        db.schema
          .createTable('bazaar_snapshots_old')
          .addColumn('product_id', 'text', (c) => c.notNull())
          .addColumn('ts', big, (c) => c.notNull())
          .addColumn('buy_price', double, (c) => c.notNull())
          .addColumn('sell_price', double, (c) => c.notNull())
          .addColumn('buy_volume', big, (c) => c.notNull())
          .addColumn('sell_volume', big, (c) => c.notNull())
          .addColumn('buy_moving_week', big, (c) => c.notNull())
          .addColumn('sell_moving_week', big, (c) => c.notNull())
          .addColumn('buy_orders', 'integer', (c) => c.notNull())
          .addColumn('sell_orders', 'integer', (c) => c.notNull())
          .addColumn('book', blob)
          .addPrimaryKeyConstraint('bazaar_snapshots_pk', ['product_id', 'ts']),
      ).execute();
      await sql`insert into bazaar_snapshots_old (product_id, ts, ${sql.raw(QUICK_COLUMNS)}, book)
        select product_id, ts, ${sql.raw(QUICK_COLUMNS)}, book from bazaar_snapshots order by product_id, ts`.execute(db);
      await sql`drop view bazaar_snapshots`.execute(db);
      for (const table of ['bazaar_book_keyframes', 'bazaar_snapshot_rows', 'bazaar_products']) await db.schema.dropTable(table).execute();
      await sql`alter table bazaar_snapshots_old rename to bazaar_snapshots`.execute(db);
      await db.schema.createIndex('bazaar_snapshots_ts').on('bazaar_snapshots').column('ts').execute();
    },
  };
}
