import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import type { BazaarBookKeyframesTable, BazaarSnapshotRowsTable, BazaarSnapshotsTable, Database } from '../schema.ts';
import type { BazaarBooks, KeyframeRow } from './bazaar-books.ts';
import type { FeedRepository, FeedState } from './feeds.ts';

const SNAPSHOTS: BulkSpec<BazaarSnapshotRowsTable> = {
  table: 'bazaar_snapshot_rows',
  columns: {
    ts: 'int8',
    buy_price: 'float8',
    sell_price: 'float8',
    buy_volume: 'int8',
    sell_volume: 'int8',
    buy_moving_week: 'int8',
    sell_moving_week: 'int8',
    product: 'int4',
    buy_orders: 'int4',
    sell_orders: 'int4',
    book: 'bytea',
  },
  // The same upstream snapshot stored twice (a retry, a restart) is a no-op.
  conflict: { target: ['product', 'ts'], update: 'nothing' },
};

const KEYFRAMES: BulkSpec<BazaarBookKeyframesTable> = {
  table: 'bazaar_book_keyframes',
  columns: { ts: 'int8', product: 'int4', book: 'bytea' },
  conflict: { target: ['product', 'ts'], update: 'nothing' },
};

export class BazaarRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly feeds: FeedRepository,
    readonly books: BazaarBooks,
  ) {}

  /**
   * Stores one snapshot of every product atomically, with the keyframes its book deltas refer
   * to (rows' books: null = unchanged, a full book, or a delta from one of `keyframes` or an
   * earlier keyframe of the product).
   */
  async insertSnapshot(rows: BazaarSnapshotsTable[], feed: FeedState, keyframes: KeyframeRow[] = []): Promise<void> {
    // Numbered outside the transaction: a number handed out is never taken back.
    const numbers = await this.books.numbersFor(rows.map((r) => r.product_id));
    const stored = rows.map((r) => {
      const { product_id, ...rest } = r;
      return { ...rest, product: numbers.get(product_id)! };
    });
    const frames = keyframes.map((k) => ({ ts: k.ts, product: numbers.get(k.product_id)!, book: k.book }));
    await this.db.transaction().execute(async (trx) => {
      if (frames.length > 0) await bulkInsert(trx, this.dialect, KEYFRAMES, frames);
      await bulkInsert(trx, this.dialect, SNAPSHOTS, stored);
      await this.feeds.record(feed, trx);
    });
    for (const k of keyframes) if (k.decoded) this.books.remember(numbers.get(k.product_id)!, k.ts, k.decoded);
  }

  /** The newest stored order book of every product (full encoding): the base for storing only changed books. */
  async latestBooks(): Promise<Map<string, Uint8Array>> {
    // Two scalar subqueries per product, each a backward key-range scan that stops at the first stored book.
    const newest = (column: 'ts' | 'book') =>
      sql.raw(`(select b.${column} from bazaar_snapshot_rows b where b.product = p.id and b.book is not null order by b.ts desc limit 1)`);
    const rows = await sql<{ product_id: string; ts: number | null; book: Uint8Array | null }>`
      select p.product_id, ${newest('ts')} as ts, ${newest('book')} as book from bazaar_products p`.execute(this.db);
    const resolved = await this.books.resolve(rows.rows.filter((r) => r.book).map((r) => ({ ...r, ts: Number(r.ts) })));
    return new Map(resolved.filter((r) => r.book).map((r) => [r.product_id, r.book!]));
  }

  /** The snapshot at or just before `ts`, with its order book resolved (null when none stored). */
  async snapshotAt(productId: string, ts: number): Promise<(BazaarSnapshotsTable & { book: Uint8Array | null }) | undefined> {
    const product = await this.books.numberOf(productId);
    if (product === undefined) return undefined;
    const row = await this.db
      .selectFrom('bazaar_snapshot_rows')
      .selectAll()
      .where('product', '=', product)
      .where('ts', '<=', ts)
      .orderBy('ts', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    const { product: _, ...rest } = row;
    const snapshot = { ...rest, product_id: productId, ts: Number(row.ts) };
    // A delta is relative to the row that stored it: resolve the book row, not the snapshot.
    const bookRow = snapshot.book ? { ts: snapshot.ts, book: snapshot.book } : await this.bookRowAt(product, snapshot.ts);
    const [resolved] = await this.books.resolve([{ product_id: productId, ts: bookRow?.ts ?? snapshot.ts, book: bookRow?.book ?? null }]);
    return { ...snapshot, book: resolved!.book };
  }

  /** The newest stored (possibly delta) book of a product at or before `ts`, unresolved. */
  async bookRowAt(product: number, ts: number): Promise<{ ts: number; book: Uint8Array } | undefined> {
    const row = await this.db
      .selectFrom('bazaar_snapshot_rows')
      .select(['ts', 'book'])
      .where('product', '=', product)
      .where('ts', '<=', ts)
      .where('book', 'is not', null)
      .orderBy('ts', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.book ? { ts: Number(row.ts), book: row.book } : undefined;
  }

  /** Time of the newest stored snapshot (one index probe per product: there is no ts index). */
  async newestTs(): Promise<number | null> {
    const row = await sql<{ ts: number | null }>`select max((select r.ts from bazaar_snapshot_rows r where r.product = p.id order by r.ts desc limit 1)) as ts from bazaar_products p`.execute(this.db);
    const ts = row.rows[0]?.ts;
    return ts === null || ts === undefined ? null : Number(ts);
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('bazaar_snapshot_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
