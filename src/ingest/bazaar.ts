/**
 * Bazaar snapshots: quick status and both order books of every product. Upstream's
 * names are inverted: `buy_summary` holds sell offers (what an instant buy fills
 * against) and `sell_summary` holds buy orders. skymarket stores buyPrice = instant-buy
 * price (lowest sell offer) and sellPrice = instant-sell price (highest buy order).
 * An order book is stored only when it differs from the product's previous one.
 */
import { decodeBook, encodeBook, sameBook, type OrderBook } from '../domain/bazaar-book.ts';
import type { BazaarSnapshotsTable } from '../store/schema.ts';
import { SkipLog, type IngestContext } from './context.ts';
import { check, type UpstreamProduct } from './upstream.ts';

export interface SnapshotResult {
  lastUpdated: number;
  products: number;
  booksStored: number;
  skipped: Record<string, number>;
}

export class BazaarIngester {
  private lastUpdated = 0;
  private books: Map<string, OrderBook> | undefined;

  constructor(private readonly ctx: IngestContext) {}

  async pollOnce(): Promise<SnapshotResult | 'unchanged'> {
    if (!this.books) {
      this.books = new Map();
      for (const [product, data] of await this.ctx.store.bazaar.latestBooks()) {
        try {
          this.books.set(product, decodeBook(data));
        } catch {
          // An unreadable stored book just means the next one is stored in full.
        }
      }
      this.lastUpdated = (await this.ctx.store.feeds.get('bazaar'))?.lastUpdated ?? 0;
    }
    const res = await this.ctx.client.getJson('/v2/skyblock/bazaar');
    if (!check.bazaar.Check(res.body)) throw new Error('bazaar: malformed envelope');
    const payload = res.body;
    if (payload.lastUpdated <= this.lastUpdated) {
      this.ctx.metrics.cycles.inc({ feed: 'bazaar', outcome: 'unchanged' });
      return 'unchanged';
    }
    const skips = new SkipLog(this.ctx, 'bazaar');
    const rows: BazaarSnapshotsTable[] = [];
    const changedBooks = new Map<string, OrderBook>();
    for (const [key, raw] of Object.entries(payload.products)) {
      if (!check.product.Check(raw)) {
        skips.skip('invalid', { product: key });
        continue;
      }
      const book = orderBook(raw);
      const previous = this.books.get(raw.product_id);
      const changed = !previous || !sameBook(previous, book);
      if (changed) changedBooks.set(raw.product_id, book);
      rows.push(snapshotRow(raw, payload.lastUpdated, changed ? encodeBook(book) : null));
    }
    await this.ctx.store.bazaar.insertSnapshot(rows, {
      name: 'bazaar',
      lastUpdated: payload.lastUpdated,
      storedAt: this.ctx.clock.now(),
      records: rows.length,
      source: this.ctx.source,
    });
    for (const [product, book] of changedBooks) this.books.set(product, book);
    this.lastUpdated = payload.lastUpdated;
    this.ctx.metrics.records.inc({ feed: 'bazaar', outcome: 'stored' }, rows.length);
    this.ctx.metrics.cycles.inc({ feed: 'bazaar', outcome: 'applied' });
    this.ctx.metrics.lastSuccess.set({ feed: 'bazaar' }, this.ctx.clock.now() / 1000);
    return { lastUpdated: payload.lastUpdated, products: rows.length, booksStored: changedBooks.size, skipped: skips.counts };
  }
}

export function orderBook(p: UpstreamProduct): OrderBook {
  return {
    buyOrders: p.sell_summary.map((l) => ({ amount: l.amount, pricePerUnit: l.pricePerUnit, orders: l.orders })),
    sellOffers: p.buy_summary.map((l) => ({ amount: l.amount, pricePerUnit: l.pricePerUnit, orders: l.orders })),
  };
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
