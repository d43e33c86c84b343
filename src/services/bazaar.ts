/**
 * What the bazaar routes ask: a product's price history at one resolution, its snapshot at a time
 * (with both order books while they are kept) and its export. Every answer says when the product
 * was never seen, so each face can answer that its own way.
 */
import { decodeBook, type BookLevel } from '../domain/bazaar-book.ts';
import type { HistoryPoint, Resolution } from '../domain/bazaar-history.ts';
import type { Store } from '../store/index.ts';
import type { BazaarSnapshotsTable } from '../store/schema.ts';
import { exportJson, type ExportOptions } from './bazaar-export.ts';
import { readHistory } from './bazaar-history.ts';
import { foldCandles, type BazaarCandle } from '../domain/bazaar-candles.ts';

export const CANDLE_RANGES = ['hour', 'day', 'week', 'month'] as const;
export type CandleRange = (typeof CANDLE_RANGES)[number];

const MIN = 60_000;
/**
 * Each candle range: its window, candle size and the finer rows the candles are folded from
 * (domain/bazaar-candles.ts): 20-second snapshots for Hour and Day (exact closes), 5-minute rows
 * for Week and Month (beyond the 14 days of kept snapshots; close = the last 5-minute row's first snapshot).
 */
export const CANDLE_SPEC: Record<CandleRange, { windowMs: number; candleMs: number; source: Resolution }> = {
  hour: { windowMs: 60 * MIN, candleMs: MIN, source: '20s' },
  day: { windowMs: 24 * 60 * MIN, candleMs: 15 * MIN, source: '20s' },
  week: { windowMs: 7 * 24 * 60 * MIN, candleMs: 2 * 60 * MIN, source: '5m' },
  month: { windowMs: 30 * 24 * 60 * MIN, candleMs: 12 * 60 * MIN, source: '5m' },
};

/** A stored snapshot's quick-status columns (a snapshot row, or a rollup's first values). */
export type QuickStatusSource = Omit<BazaarSnapshotsTable, 'product_id' | 'book'>;

/**
 * The snapshot at a time: the 20-second row with its books (`instantBuySide` = sell offers,
 * `instantSellSide` = buy orders; null where no book is kept), or before the kept rows the
 * 5-minute rollup's first values without books.
 */
export interface SnapshotAnswer {
  row: QuickStatusSource;
  instantBuySide: BookLevel[] | null;
  instantSellSide: BookLevel[] | null;
}

/** The product was never seen, or was seen but has no snapshot at or before the time asked. */
export type BazaarMiss = { miss: 'unknown_product' } | { miss: 'no_snapshot' };

export class BazaarService {
  constructor(private readonly store: Store) {}

  /** Points at `resolution` for the buckets starting in [from, to), oldest first; a miss when the product was never seen. */
  async history(productId: string, resolution: Resolution, from: number, to: number): Promise<HistoryPoint[] | BazaarMiss> {
    const points = await readHistory(this.store, productId, resolution, from, to);
    if (points.length === 0 && !(await this.store.bazaarHistory.productExists(productId))) return { miss: 'unknown_product' };
    return points;
  }

  /** Real OHLC candles of a range ending at `to` (see CANDLE_SPEC), oldest first; a miss when the product was never seen. */
  async candles(productId: string, range: CandleRange, to: number): Promise<BazaarCandle[] | BazaarMiss> {
    const spec = CANDLE_SPEC[range];
    const from = Math.floor((to - spec.windowMs) / spec.candleMs) * spec.candleMs;
    const points = await this.history(productId, spec.source, from, to + 1);
    if ('miss' in points) return points;
    return foldCandles(points, spec.candleMs);
  }

  async snapshotAt(productId: string, at: number): Promise<SnapshotAnswer | BazaarMiss> {
    const row = await this.store.bazaar.snapshotAt(productId, at);
    if (row) {
      const book = row.book ? decodeBook(row.book) : undefined;
      return { row, instantBuySide: book?.sellOffers ?? null, instantSellSide: book?.buyOrders ?? null };
    }
    // Older than the kept 20-second rows: the 5-minute row's first snapshot, without books.
    const rolled = await this.store.bazaarHistory.rollupAt('5m', productId, at);
    if (rolled) return { row: rolled, instantBuySide: null, instantSellSide: null };
    if (!(await this.store.bazaarHistory.productExists(productId))) return { miss: 'unknown_product' };
    return { miss: 'no_snapshot' };
  }

  /**
   * The export's JSON, a page at a time (services/bazaar-export.ts), or a miss when the product was
   * never seen. Nothing is read before the caller starts consuming it.
   */
  async export(options: ExportOptions): Promise<AsyncGenerator<Buffer> | BazaarMiss> {
    if (!(await this.store.bazaarHistory.productExists(options.productId))) return { miss: 'unknown_product' };
    return exportJson(this.store, options);
  }
}
