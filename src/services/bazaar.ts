/**
 * What the bazaar routes ask: a product's price history at one resolution, its snapshot at a time
 * (with both order books while they are kept) and its export. Every answer says when the product
 * was never seen, so each face can answer that its own way.
 */
import type { BazaarHistoryReads } from './bazaar-history.ts';
import type { BazaarExportReads } from './bazaar-export.ts';
import { decodeBook, type BookLevel } from '../domain/bazaar-book.ts';
import { RESOLUTION_MS, type HistoryPoint, type Resolution } from '../domain/bazaar-history.ts';
import { graphResultWire, quickStatusWire, type GraphResultWire, type StorageQuickStatusWire } from '../domain/bazaar-wire.ts';
import type { Clock } from '../clock.ts';
import type { BazaarFeed } from '../market/bazaar-feed.ts';
import type { BazaarRepository } from '../store/repositories/bazaar.ts';
import type { BazaarHistoryRepository } from '../store/repositories/bazaar-history.ts';
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
  /** the 20-second rows, or a 5-minute rollup's first values */
  source: 'rows' | 'rollup';
}

/** A history window ending now: `hour` (20-second points), `day` (5-minute), `week` (2-hour). */
export interface FixedWindow {
  name: string;
  resolution: Resolution;
  spanMs: number;
}

/** The product was never seen, or was seen but has no snapshot at or before the time asked. */
/** What `historyStatus` finds per resolution (oldest first): times in epoch ms; `count` null for the snapshots (not counted). */
export type HistoryStatus = Array<{ resolution: Resolution; oldest: number; newest: number; count: number | null }>;

export type BazaarMiss = { miss: 'unknown_product' } | { miss: 'no_snapshot' };

/** What BazaarService reads: snapshots, history and the export's pages. */
export type BazaarStore = BazaarHistoryReads & BazaarExportReads & {
  readonly bazaar: Pick<BazaarRepository, 'snapshotAt'>;
  readonly bazaarHistory: Pick<BazaarHistoryRepository, 'productExists' | 'oldestSnapshotOf' | 'rollupSpan' | 'rollupAt'>;
};

export class BazaarService {
  constructor(
    private readonly store: BazaarStore,
    private readonly clock: Clock,
    /** where the bazaar feed stands (the spine's projection); without it no current answer is kept */
    private readonly feed?: BazaarFeed,
  ) {}

  /** The generation of the bazaar feed the current answers are built from: it moves with every stored snapshot. */
  feedGeneration(): number {
    return this.feed?.version ?? 0;
  }

  /** Whether a current answer kept at this generation may be served from memory now (never without the feed view). */
  currentServable(): boolean {
    return this.feed?.servable() ?? false;
  }

  /**
   * The current snapshot answer (the newest snapshot at or before now, StorageQuickStatus), and
   * whether it may be kept until the next snapshot: only when it comes from the 20-second rows (a
   * rollup's values are not kept) and no newer snapshot is already stored.
   */
  async snapshotNow(productId: string): Promise<{ value: StorageQuickStatusWire; keep: boolean } | BazaarMiss> {
    const now = this.clock.now();
    const answer = await this.snapshotAt(productId, now);
    if ('miss' in answer) return answer;
    const value = quickStatusWire(productId, answer.row, answer.instantBuySide, answer.instantSellSide);
    return { value, keep: answer.source === 'rows' && (this.feed?.mayKeep(now) ?? false) };
  }

  /**
   * The points at the window's resolution for the buckets starting in [now - span, now]
   * (GraphResult), kept until the oldest point leaves the window. Rollup rows and the
   * not-yet-rolled tail give the same points (services/bazaar-history.ts), so the rollup job
   * rolling a bucket does not change the answer.
   */
  async windowNow(productId: string, window: FixedWindow): Promise<{ value: GraphResultWire[]; validUntil: number; keep: boolean } | BazaarMiss> {
    const now = this.clock.now();
    const points = await this.history(productId, window.resolution, now - window.spanMs, now + 1);
    if ('miss' in points) return points;
    // The oldest point leaves the window once now - span passes its time (20-second points) or the
    // end of its bucket (whole buckets: readHistory starts at the bucket holding now - span).
    const validUntil = points.length === 0 ? Number.POSITIVE_INFINITY : points[0]!.ts + window.spanMs + (window.resolution === '20s' ? 1 : RESOLUTION_MS[window.resolution]);
    return { value: points.map(graphResultWire), validUntil, keep: this.feed?.mayKeep(now) ?? false };
  }

  /** Points at `resolution` for the buckets starting in [from, to), oldest first; a miss when the product was never seen. */
  async history(productId: string, resolution: Resolution, from: number, to: number): Promise<HistoryPoint[] | BazaarMiss> {
    const points = await readHistory(this.store, productId, resolution, from, to);
    if (points.length === 0 && !(await this.store.bazaarHistory.productExists(productId))) return { miss: 'unknown_product' };
    return points;
  }

  /**
   * How far the product's history reaches at each resolution: the 20-second snapshots (oldest and
   * newest), then each rollup's first and last bucket and how many it holds; a miss when never seen.
   */
  async historyStatus(productId: string): Promise<HistoryStatus | BazaarMiss> {
    if (!(await this.store.bazaarHistory.productExists(productId))) return { miss: 'unknown_product' };
    const out: HistoryStatus = [];
    const oldest = await this.store.bazaarHistory.oldestSnapshotOf(productId);
    const newest = await this.store.bazaar.snapshotAt(productId, this.clock.now());
    if (oldest !== undefined && newest) out.push({ resolution: '20s', oldest, newest: Number(newest.ts), count: null });
    for (const resolution of ['5m', '2h', '1d'] as const) {
      const span = await this.store.bazaarHistory.rollupSpan(resolution, productId);
      if (span) out.push({ resolution, ...span });
    }
    return out;
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
      return { row, instantBuySide: book?.sellOffers ?? null, instantSellSide: book?.buyOrders ?? null, source: 'rows' };
    }
    // Older than the kept 20-second rows: the 5-minute row's first snapshot, without books.
    const rolled = await this.store.bazaarHistory.rollupAt('5m', productId, at);
    if (rolled) return { row: rolled, instantBuySide: null, instantSellSide: null, source: 'rollup' };
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
