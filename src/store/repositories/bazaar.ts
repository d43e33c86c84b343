import { sql, type Kysely } from 'kysely';
import type { OrderBook } from '../../domain/bazaar-book.ts';
import type { Dialect } from '../db.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import type { BazaarBookKeyframesTable, BazaarSnapshotsTable, Database } from '../schema.ts';
import type { BazaarBooks, KeyframeRow } from './bazaar-books.ts';
import type { FeedRepository, FeedState } from './feeds.ts';
import { BazaarRows } from './bazaar-rows.ts';
import type { InProcessSpine } from '../../spine/in-process.ts';

const KEYFRAMES: BulkSpec<BazaarBookKeyframesTable> = {
  table: 'bazaar_book_keyframes',
  columns: { ts: 'int8', product: 'int4', book: 'bytea' },
  conflict: { target: ['product', 'ts'], update: 'nothing' },
};

export class BazaarRepository {
  /** where the rows live: recent rows and chunks (migration 011) */
  readonly rows: BazaarRows;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly feeds: FeedRepository,
    readonly books: BazaarBooks,
    /** the spine: each committed snapshot is published to it (domain/market-change.ts) */
    private readonly changes: InProcessSpine,
  ) {
    this.rows = new BazaarRows(db, dialect);
  }

  /**
   * Stores one snapshot of every product atomically, with the keyframes its book deltas refer
   * to (rows' books: null = unchanged, a full book, or a delta from one of `keyframes` or an
   * earlier keyframe of the product).
   */
  async insertSnapshot(rows: BazaarSnapshotsTable[], feed: FeedState, keyframes: KeyframeRow[] = [], changedBooks: ReadonlyMap<string, OrderBook> = new Map()): Promise<void> {
    // Numbered outside the transaction: a number handed out is never taken back.
    const numbers = await this.books.numbersFor(rows.map((r) => r.product_id));
    // Built field by field: object rest/spread per row showed up in the ingest profile.
    const stored = rows.map((r) => ({
      ts: r.ts,
      buy_price: r.buy_price,
      sell_price: r.sell_price,
      buy_volume: r.buy_volume,
      sell_volume: r.sell_volume,
      buy_moving_week: r.buy_moving_week,
      sell_moving_week: r.sell_moving_week,
      buy_orders: r.buy_orders,
      sell_orders: r.sell_orders,
      product: numbers.get(r.product_id)!,
      book: r.book,
    }));
    const frames = keyframes.map((k) => ({ ts: k.ts, product: numbers.get(k.product_id)!, book: k.book }));
    await this.db.transaction().execute(async (trx) => {
      if (frames.length > 0) await bulkInsert(trx, this.dialect, KEYFRAMES, frames);
      await this.rows.insert(trx, stored);
      await this.feeds.record(feed, trx);
    });
    for (const k of keyframes) if (k.decoded) this.books.remember(numbers.get(k.product_id)!, k.ts, k.decoded);
    // The bazaar feed view (market/bazaar-feed.ts: the prepared answers' generation) and the live feeds (market/events.ts) follow.
    if (this.changes.subscribers === 0) return;
    this.changes.publish({
      kind: 'bazaar',
      ts: feed.lastUpdated,
      products: rows.map((r) => ({
        product_id: r.product_id,
        ts: r.ts,
        buy_price: r.buy_price,
        sell_price: r.sell_price,
        buy_volume: r.buy_volume,
        sell_volume: r.sell_volume,
        buy_moving_week: r.buy_moving_week,
        sell_moving_week: r.sell_moving_week,
        buy_orders: r.buy_orders,
        sell_orders: r.sell_orders,
      })),
      books: Object.fromEntries(changedBooks),
    });
  }

  /** The newest stored order book of every product (full encoding): the base for storing only changed books. */
  async latestBooks(): Promise<Map<string, Uint8Array>> {
    // Per product: the recent rows' newest book (a backward scan of its index range that stops at
    // the first stored book), else the newest chunk's (every chunk's first row carries one).
    const newest = (column: 'ts' | 'book') =>
      sql.raw(`(select b.${column} from bazaar_recent_rows b where b.product = p.id and b.book is not null order by b.ts desc limit 1)`);
    const rows = await sql<{ id: number; product_id: string; ts: number | null; book: Uint8Array | null }>`
      select p.id, p.product_id, ${newest('ts')} as ts, ${newest('book')} as book from bazaar_products p`.execute(this.db);
    const stored: Array<{ product_id: string; ts: number; book: Uint8Array | null }> = [];
    for (const r of rows.rows) {
      const found = r.book ? { ts: Number(r.ts), book: r.book } : await this.rows.bookAtOrBefore(Number(r.id), Number.MAX_SAFE_INTEGER);
      if (found) stored.push({ product_id: r.product_id, ...found });
    }
    const resolved = await this.books.resolve(stored);
    return new Map(resolved.filter((r) => r.book).map((r) => [r.product_id, r.book!]));
  }

  /** The snapshot at or just before `ts`, with its order book resolved (null when none stored). */
  async snapshotAt(productId: string, ts: number): Promise<(BazaarSnapshotsTable & { book: Uint8Array | null }) | undefined> {
    const product = await this.books.numberOf(productId);
    if (product === undefined) return undefined;
    const row = await this.rows.lastAtOrBefore(product, ts);
    if (!row) return undefined;
    const { product: _, ...rest } = row;
    const snapshot = { ...rest, product_id: productId };
    // A delta is relative to the row that stored it: resolve the book row, not the snapshot.
    const bookRow = snapshot.book ? { ts: snapshot.ts, book: snapshot.book } : await this.bookRowAt(product, snapshot.ts);
    const [resolved] = await this.books.resolve([{ product_id: productId, ts: bookRow?.ts ?? snapshot.ts, book: bookRow?.book ?? null }]);
    return { ...snapshot, book: resolved!.book };
  }

  /**
   * The newest instant-buy price of each product (enchantment book values), from packed and
   * recent rows alike: a product no longer listed keeps its last price.
   */
  async latestBuyPrices(productIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const id of new Set(productIds)) {
      const product = await this.books.numberOf(id);
      const row = product === undefined ? undefined : await this.rows.lastAtOrBefore(product, Number.MAX_SAFE_INTEGER);
      if (row) out.set(id, Number(row.buy_price));
    }
    return out;
  }

  /** The newest stored (possibly delta) book of a product at or before `ts`, unresolved. */
  async bookRowAt(product: number, ts: number): Promise<{ ts: number; book: Uint8Array } | undefined> {
    return this.rows.bookAtOrBefore(product, ts);
  }

  /** Time of the newest stored snapshot. */
  async newestTs(): Promise<number | null> {
    return this.rows.newestTs();
  }

  async count(): Promise<number> {
    return this.rows.count();
  }
}
