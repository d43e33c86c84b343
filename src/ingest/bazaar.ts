/**
 * Bazaar snapshots: quick status and both order books of every product. Upstream's
 * names are inverted: `buy_summary` holds sell offers (what an instant buy fills
 * against) and `sell_summary` holds buy orders. skymarket stores buyPrice = instant-buy
 * price (lowest sell offer) and sellPrice = instant-sell price (highest buy order).
 * An order book is stored only when it differs from the product's previous one, and then as a
 * delta from the product's base book when that delta is at most half the base's size. Otherwise,
 * if the product's last stored book was a delta (a calm book that drifted), the book becomes a
 * new keyframe (a row of bazaar_book_keyframes) and the row gets an empty delta; if it was not
 * (first book, or a book rewritten tick after tick), the full book is stored in the row and
 * becomes the base, turning into a keyframe only when a delta against it is stored. So a book
 * rewritten every tick never costs a keyframe (see docs/storage.md).
 */
import { decodeBook, encodeBook, sameBook, type OrderBook } from '../domain/bazaar-book.ts';
import { encodeBookDelta } from '../domain/bazaar-book-delta.ts';
import type { KeyframeRow } from '../store/repositories/bazaar-books.ts';
import type { BazaarSnapshotsTable } from '../store/schema.ts';
import { feedSource, SkipLog, type IngestContext } from './context.ts';
import { check, isProduct, type UpstreamProduct } from './upstream.ts';

export interface SnapshotResult {
  lastUpdated: number;
  products: number;
  booksStored: number;
  skipped: Record<string, number>;
}

export class BazaarIngester {
  private lastUpdated = 0;
  private books: Map<string, OrderBook> | undefined;
  /** per product, the book deltas are written against (none yet after a start) */
  private readonly bases = new Map<string, Base>();

  constructor(
    private readonly ctx: IngestContext,
    private readonly options: { fresh?: boolean } = {},
  ) {}

  async pollOnce(): Promise<SnapshotResult | 'unchanged'> {
    const res = await this.ctx.client.getJson('/v2/skyblock/bazaar');
    return this.apply(res.body);
  }

  /** Stores one bazaar payload (fetched live, or replayed history in time order). */
  async apply(body: unknown): Promise<SnapshotResult | 'unchanged'> {
    await this.loadBooks();
    if (!check.bazaar.Check(body)) throw new Error('bazaar: malformed envelope');
    const payload = body;
    if (payload.lastUpdated <= this.lastUpdated) {
      this.ctx.metrics.cycles.inc({ feed: 'bazaar', outcome: 'unchanged' });
      return 'unchanged';
    }
    const books = this.books!;

    const skips = new SkipLog(this.ctx, 'bazaar');
    const rows: BazaarSnapshotsTable[] = [];
    const changedBooks = new Map<string, OrderBook>();
    const keyframes: KeyframeRow[] = [];
    const newBases = new Map<string, Base>();
    const ts = payload.lastUpdated;
    for (const [key, raw] of Object.entries(payload.products)) {
      if (!isProduct(raw)) {
        skips.skip('invalid', { product: key });
        continue;
      }
      const book = orderBook(raw);
      const previous = books.get(raw.product_id);
      const changed = !previous || !sameBook(previous, book);
      let stored: Uint8Array | null = null;
      if (changed) {
        changedBooks.set(raw.product_id, book);
        const base = this.bases.get(raw.product_id);
        const delta = base && ts > base.ts ? encodeBookDelta(base.book, book, ts - base.ts, base.full.length / 2) : undefined;
        if (delta) {
          stored = delta;
          if (!base!.keyframe) keyframes.push({ product_id: raw.product_id, ts: base!.ts, book: base!.full, decoded: base!.book });
          if (!base!.keyframe || !base!.lastWasDelta) newBases.set(raw.product_id, { ...base!, keyframe: true, lastWasDelta: true });
        } else if (base?.lastWasDelta) {
          const full = encodeBook(book);
          keyframes.push({ product_id: raw.product_id, ts, book: full, decoded: book });
          stored = encodeBookDelta(book, book, 0);
          // An empty delta does not count as one: should the next book be rewritten too, it goes in full into its row.
          newBases.set(raw.product_id, { book, ts, full, keyframe: true, lastWasDelta: false });
        } else {
          stored = encodeBook(book);
          newBases.set(raw.product_id, { book, ts, full: stored, keyframe: false, lastWasDelta: false });
        }
      }
      rows.push(snapshotRow(raw, ts, stored));
    }
    // Marks the start of the write window (crash-consistency tests kill the process after it).
    this.ctx.logger.debug({ feed: 'bazaar', lastUpdated: payload.lastUpdated, products: rows.length }, 'writing bazaar snapshot');
    await this.ctx.store.bazaar.insertSnapshot(
      rows,
      {
        name: 'bazaar',
        lastUpdated: payload.lastUpdated,
        storedAt: this.ctx.clock.now(),
        records: rows.length,
        source: feedSource(this.ctx),
      },
      keyframes,
      changedBooks,
    );
    for (const [product, book] of changedBooks) books.set(product, book);
    for (const [product, base] of newBases) this.bases.set(product, base);
    this.lastUpdated = payload.lastUpdated;
    this.ctx.metrics.records.inc({ feed: 'bazaar', outcome: 'stored' }, rows.length);
    this.ctx.metrics.cycles.inc({ feed: 'bazaar', outcome: 'applied' });
    this.ctx.metrics.lastSuccess.set({ feed: 'bazaar' }, this.ctx.clock.now() / 1000);
    return { lastUpdated: payload.lastUpdated, products: rows.length, booksStored: changedBooks.size, skipped: skips.counts };
  }

  /**
   * The newest stored book per product is the base for storing only changed books.
   * `fresh` ingesters (history replay) start from nothing instead: their first row per product carries a full book.
   */
  private async loadBooks(): Promise<void> {
    if (this.books) return;
    this.books = new Map();
    if (this.options.fresh) return;
    for (const [product, data] of await this.ctx.store.bazaar.latestBooks()) {
      try {
        this.books.set(product, decodeBook(data));
      } catch {
        // An unreadable stored book just means the next one is stored in full.
      }
    }
    this.lastUpdated = (await this.ctx.store.feeds.get('bazaar'))?.lastUpdated ?? 0;
  }
}

/** The book a product's deltas are written against. */
interface Base {
  book: OrderBook;
  ts: number;
  /** its full encoding */
  full: Uint8Array;
  /** stored in bazaar_book_keyframes (else only in its own row, in full) */
  keyframe: boolean;
  /** the product's last stored book was a delta */
  lastWasDelta: boolean;
}

/**
 * The product's book over upstream's own (checked) level objects: copying 1,500 × ~60 levels
 * per snapshot showed up in the ingest profile and doubled what the collector had to move.
 * Nothing writes to a book's levels once built.
 */
export function orderBook(p: UpstreamProduct): OrderBook {
  return { buyOrders: p.sell_summary, sellOffers: p.buy_summary };
}

export function snapshotRow(p: UpstreamProduct, ts: number, book: Uint8Array | null): BazaarSnapshotsTable {
  const q = p.quick_status;
  return {
    product_id: p.product_id,
    ts,
    // Top of book where there is one: quick_status prices are a top-2% average, not a price one can trade at.
    buy_price: p.buy_summary[0]?.pricePerUnit ?? q.buyPrice,
    sell_price: p.sell_summary[0]?.pricePerUnit ?? q.sellPrice,
    buy_volume: Math.round(q.buyVolume),
    sell_volume: Math.round(q.sellVolume),
    buy_moving_week: Math.round(q.buyMovingWeek),
    sell_moving_week: Math.round(q.sellMovingWeek),
    buy_orders: Math.round(q.buyOrders),
    sell_orders: Math.round(q.sellOrders),
    book,
  };
}
