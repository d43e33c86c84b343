/**
 * Bazaar price history: bucket maths shared by the rollup jobs, the history endpoints and
 * the export. Pure: no I/O; callers pass the time.
 *
 * Naming: `buy` / buyPrice is the instant-buy price (the lowest sell offer); `sell` /
 * sellPrice is the instant-sell price (the highest buy order).
 *
 * A bucket's row keeps the bucket's FIRST snapshot (prices, volumes, moving weeks, order
 * counts), the min/max of both prices over the bucket and how many snapshots it holds.
 * Rows are composable: aggregating 5-minute rows into 2-hour buckets gives the same result
 * as aggregating the 20-second snapshots directly.
 */

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Stored resolutions: 20-second snapshots and the three rollups. */
export type Resolution = '20s' | '5m' | '2h' | '1d';
export type RollupResolution = Exclude<Resolution, '20s'>;

export const RESOLUTION_MS: Record<Resolution, number> = {
  '20s': 20 * SECOND,
  '5m': 5 * MINUTE,
  '2h': 2 * HOUR,
  '1d': DAY,
};

export const ROLLUPS: readonly RollupResolution[] = ['5m', '2h', '1d'];

/** 20-second snapshots are kept this long; 5-minute rollups forever. */
export const RAW_RETENTION_MS = 14 * DAY;

/** Longest range /history answers (daily points: at most ~4,000 of them). */
export const MAX_HISTORY_RANGE_MS = 4000 * DAY;

/** One history point: a single snapshot (samples = 1) or a bucket of them. */
export interface HistoryPoint {
  /** snapshot time, or bucket start (UTC epoch ms) */
  ts: number;
  buy: number;
  sell: number;
  minBuy: number;
  maxBuy: number;
  minSell: number;
  maxSell: number;
  buyVolume: number;
  sellVolume: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  buyOrders: number;
  sellOrders: number;
  samples: number;
}

/** The start of the UTC-aligned bucket of `bucketMs` containing `ts`. */
export function bucketStart(ts: number, bucketMs: number): number {
  return Math.floor(ts / bucketMs) * bucketMs;
}

/**
 * Folds points (any order; snapshots or finer buckets) into buckets of `bucketMs`, oldest
 * first: first values from the earliest point, min of mins, max of maxes, sum of samples.
 */
export function aggregate(points: readonly HistoryPoint[], bucketMs: number): HistoryPoint[] {
  const sorted = isSorted(points) ? points : [...points].sort((a, b) => a.ts - b.ts);
  const out: HistoryPoint[] = [];
  let current: HistoryPoint | undefined;
  for (const p of sorted) {
    const start = bucketStart(p.ts, bucketMs);
    if (!current || current.ts !== start) {
      current = { ...p, ts: start };
      out.push(current);
      continue;
    }
    current.minBuy = Math.min(current.minBuy, p.minBuy);
    current.maxBuy = Math.max(current.maxBuy, p.maxBuy);
    current.minSell = Math.min(current.minSell, p.minSell);
    current.maxSell = Math.max(current.maxSell, p.maxSell);
    current.samples += p.samples;
  }
  return out;
}

function isSorted(points: readonly HistoryPoint[]): boolean {
  for (let i = 1; i < points.length; i++) if (points[i]!.ts < points[i - 1]!.ts) return false;
  return true;
}

/**
 * The resolution /history uses for [start, end): 20-second points up to 1 hour (while the
 * range lies within the 14 days of kept snapshots), 5-minute up to 1 day, 2-hour up to
 * 7 days, daily beyond. Point counts stay bounded: ≤ 181, ≤ 289, ≤ 85, ≤ 4,001.
 */
export function historyResolution(start: number, end: number, now: number): Resolution {
  const length = end - start;
  if (length <= HOUR && start >= rawHorizon(now)) return '20s';
  if (length <= DAY) return '5m';
  if (length <= 7 * DAY + 15 * MINUTE) return '2h';
  return '1d';
}

/** The oldest time for which 20-second snapshots are kept (aligned to a 5-minute bucket). */
export function rawHorizon(now: number): number {
  return bucketStart(now - RAW_RETENTION_MS, RESOLUTION_MS['5m']);
}

/**
 * Buckets that start before this are complete: no snapshot for them can still arrive.
 * `graceMs` covers the delay between upstream's lastUpdated and our storing it.
 */
export function completeBefore(now: number, resolution: RollupResolution, graceMs: number): number {
  return bucketStart(now - graceMs, RESOLUTION_MS[resolution]);
}
