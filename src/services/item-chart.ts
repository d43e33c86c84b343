/**
 * An auction item's price chart from its real sales, bucketed here: per bucket the sales' count,
 * min, max, mean and median (of the price per item). The web face's item page draws it.
 *
 * Interim source: the sold auctions themselves (store.auctionQueries), newest first, at most
 * MAX_CHART_SALES of them, so a long range of a busy item shows its newest sales only (the answer
 * says so in `capped`). The price-history service of issue 24 (hourly rollups per variant, kept
 * forever) is the intended source; when it lands, `history` reads it instead and the cap goes.
 */
import type { AuctionService } from './auctions.ts';
import { soldSubject } from './auctions.ts';
import type { Store } from '../store/index.ts';
import type { Clock } from '../clock.ts';

export const ITEM_RANGES = ['day', 'week', 'month', 'all'] as const;
export type ItemRange = (typeof ITEM_RANGES)[number];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Window and bucket of each range. `all` reaches back a year. */
export const ITEM_RANGE_SPEC: Record<ItemRange, { windowMs: number; bucketMs: number }> = {
  day: { windowMs: DAY, bucketMs: HOUR },
  week: { windowMs: 7 * DAY, bucketMs: 4 * HOUR },
  month: { windowMs: 30 * DAY, bucketMs: DAY },
  all: { windowMs: 365 * DAY, bucketMs: DAY },
};

/** Sales read per chart at most (newest first). */
export const MAX_CHART_SALES = 3000;

export interface ItemChartPoint {
  /** bucket start, UTC epoch ms */
  time: number;
  min: number;
  max: number;
  avg: number;
  median: number;
  /** sales in the bucket */
  volume: number;
}

export interface ItemChart {
  tag: string;
  range: ItemRange;
  from: number;
  to: number;
  bucketMs: number;
  points: ItemChartPoint[];
  /** sales read */
  sales: number;
  /** true when MAX_CHART_SALES stopped the read: older buckets of the range are missing */
  capped: boolean;
  /** the filters applied (the variant), by name */
  filters: Record<string, string>;
}

export class ItemChartService {
  constructor(private readonly deps: { store: Store; clock: Clock; auctions: AuctionService }) {}

  /** The chart of a known tag (UnknownTagError otherwise; FilterError for a bad filter). */
  async history(tag: string, range: ItemRange, filters: Record<string, string> = {}): Promise<ItemChart> {
    const { store, clock, auctions } = this.deps;
    const spec = ITEM_RANGE_SPEC[range];
    const to = clock.now();
    const from = to - spec.windowMs;
    await auctions.knownTags.require(tag);
    const sales: Array<{ t: number; p: number }> = [];
    if (Object.keys(filters).length === 0) {
      for await (const rows of store.auctionQueries.soldLeanChunks(tag, from, { max: MAX_CHART_SALES })) {
        for (const r of rows) sales.push({ t: r.end, p: r.price / Math.max(1, r.count) });
      }
    } else {
      const filter = await auctions.compile(filters);
      for await (const rows of store.auctionQueries.soldChunks({ tag, since: from }, { max: MAX_CHART_SALES * 4 })) {
        for (const r of rows) {
          if (!filter.test(soldSubject(r))) continue;
          sales.push({ t: r.soldAt ?? r.end, p: (r.soldPrice ?? r.highestBid) / Math.max(1, r.count) });
        }
        if (sales.length >= MAX_CHART_SALES) break;
      }
    }
    const capped = sales.length >= MAX_CHART_SALES;
    return { tag, range, from, to, bucketMs: spec.bucketMs, points: bucketSales(sales, spec.bucketMs), sales: sales.length, capped, filters };
  }
}

/** Sales (any order) into buckets of `bucketMs`, oldest first. */
export function bucketSales(sales: ReadonlyArray<{ t: number; p: number }>, bucketMs: number): ItemChartPoint[] {
  const buckets = new Map<number, number[]>();
  for (const s of sales) {
    const start = Math.floor(s.t / bucketMs) * bucketMs;
    let prices = buckets.get(start);
    if (!prices) buckets.set(start, (prices = []));
    prices.push(s.p);
  }
  return [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([time, prices]) => {
      prices.sort((a, b) => a - b);
      const n = prices.length;
      const mid = n >> 1;
      const median = n % 2 ? prices[mid]! : (prices[mid - 1]! + prices[mid]!) / 2;
      let sum = 0;
      for (const p of prices) sum += p;
      return { time, min: prices[0]!, max: prices[n - 1]!, avg: Math.round(sum / n), median: Math.round(median), volume: n };
    });
}
