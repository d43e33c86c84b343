/**
 * Item price analysis over a window of sales: price distribution (volume buckets),
 * sell speed by price (sell-speed buckets against the median sell time), central
 * values, spread, BIN share, sales per day, hourly breakdown and top sellers.
 * Prices are per unit (sale price / stack size). Pure: no I/O.
 */

export interface AnalysisSale {
  /** total sale price in coins */
  price: number;
  count: number;
  /** when the auction started (epoch ms); null when unknown (sales first seen in auctions_ended) */
  start: number | null;
  /** when it sold (epoch ms) */
  end: number;
  bin: boolean;
  seller: string;
}

export type SpeedCategory = 'FAST' | 'MED' | 'SLOW' | 'VERY_SLOW';

export interface VolumeBucket {
  minPrice: number;
  maxPrice: number;
  avgPrice: number;
  count: number;
}

export interface SellSpeedBucket {
  minPrice: number;
  maxPrice: number;
  avgPrice: number;
  avgSellTimeSeconds: number;
  speedCategory: SpeedCategory;
  sampleCount: number;
}

export interface HourlyBucket {
  hour: number;
  count: number;
  avgPrice: number;
  avgSellTimeSeconds: number;
}

export interface TopSeller {
  seller: string;
  count: number;
  percentage: number;
}

export interface AnalysisResult {
  volumeBuckets: VolumeBucket[];
  sellSpeedBuckets: SellSpeedBucket[];
  totalSales: number;
  avgSellTimeSeconds: number;
  medianSellTimeSeconds: number;
  avgPrice: number;
  medianPrice: number;
  minPrice: number;
  maxPrice: number;
  binPercentage: number;
  salesPerDay: number;
  hourlyBreakdown: HourlyBucket[];
  priceStdDev: number;
  priceCoeffVariation: number;
  topSellers: TopSeller[];
}

/**
 * Multi-enchantment books (tag ENCHANTED_BOOK) analysed over more than this many days
 * ignore the filters, as the reference does: over long windows their sales are read by tag only.
 */
export const ENCHANTED_BOOK_FILTER_DAYS = 7;

/** Whether an analysis of `tag` over `days` days ignores the caller's filters. */
export function analysisIgnoresFilters(tag: string, days: number): boolean {
  return tag === 'ENCHANTED_BOOK' && days > ENCHANTED_BOOK_FILTER_DAYS;
}

const HOUR_MS = 3_600_000;

export const VOLUME_BUCKETS = 15;
export const SPEED_BUCKETS = 10;
export const TOP_SELLERS = 5;

/** The all-zero result of a window without sales. */
export function emptyAnalysis(): AnalysisResult {
  return {
    volumeBuckets: [],
    sellSpeedBuckets: [],
    totalSales: 0,
    avgSellTimeSeconds: 0,
    medianSellTimeSeconds: 0,
    avgPrice: 0,
    medianPrice: 0,
    minPrice: 0,
    maxPrice: 0,
    binPercentage: 0,
    salesPerDay: 0,
    hourlyBreakdown: [],
    priceStdDev: 0,
    priceCoeffVariation: 0,
    topSellers: [],
  };
}

/** Upper middle of a sorted list (the established service's median), 0 when empty. */
export function upperMedian(sorted: readonly number[]): number {
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function speedCategory(sellTimeSeconds: number, medianSeconds: number): SpeedCategory {
  if (medianSeconds <= 0) return sellTimeSeconds <= 0 ? 'FAST' : 'VERY_SLOW';
  const ratio = sellTimeSeconds / medianSeconds;
  if (ratio < 0.5) return 'FAST';
  if (ratio < 1) return 'MED';
  if (ratio < 2) return 'SLOW';
  return 'VERY_SLOW';
}

/** Index of the equal-width bucket of `price` in [min, max] split into `n`. */
function bucketOf(price: number, min: number, max: number, n: number): number {
  if (max <= min) return 0;
  return Math.min(n - 1, Math.floor(((price - min) / (max - min)) * n));
}

/** Analyses `sales` over a window of `days` days (in the order given: the averages sum in that order). */
export function analyzeSales(sales: readonly AnalysisSale[], days: number): AnalysisResult {
  const acc = new SalesAnalysis();
  for (const s of sales) acc.add(s);
  return acc.result(days);
}

/**
 * The analysis built one sale at a time: sales are added as they are read (in chunks, between
 * which the caller may let other work run) and `result` does the rest in a few passes over
 * typed arrays, a few milliseconds for 50,000 sales. Gives exactly what analyzing the same
 * sales in the same order at once gives: every sum adds the same numbers in the same order.
 */
export class SalesAnalysis {
  /** per-unit prices, in the order added */
  private prices = new Float64Array(1024);
  /** sell time in seconds, NaN when the start is unknown */
  private sellSeconds = new Float64Array(1024);
  /** UTC hour of each sale */
  private hours = new Uint8Array(1024);
  private n = 0;
  private bins = 0;
  private readonly sellers = new Map<string, number>();

  get size(): number {
    return this.n;
  }

  add(s: AnalysisSale): void {
    if (this.n === this.prices.length) this.grow();
    const i = this.n++;
    this.prices[i] = s.price / Math.max(1, s.count);
    this.sellSeconds[i] = s.start === null ? Number.NaN : Math.max(0, (s.end - s.start) / 1000);
    // new Date(end).getUTCHours(), without a Date per sale
    this.hours[i] = (((Math.floor(Math.trunc(s.end) / HOUR_MS) % 24) + 24) % 24);
    if (s.bin) this.bins++;
    this.sellers.set(s.seller, (this.sellers.get(s.seller) ?? 0) + 1);
  }

  private grow(): void {
    const size = this.prices.length * 2;
    const prices = new Float64Array(size);
    prices.set(this.prices);
    const sellSeconds = new Float64Array(size);
    sellSeconds.set(this.sellSeconds);
    const hours = new Uint8Array(size);
    hours.set(this.hours);
    this.prices = prices;
    this.sellSeconds = sellSeconds;
    this.hours = hours;
  }

  result(days: number): AnalysisResult {
    const n = this.n;
    if (n === 0) return emptyAnalysis();
    const unit = this.prices.subarray(0, n);
    const secs = this.sellSeconds.subarray(0, n);
    const hourOf = this.hours.subarray(0, n);
    // A typed array sorts numerically, as (a, b) => a - b does.
    const prices = unit.slice().sort();
    const minPrice = prices[0]!;
    const maxPrice = prices[n - 1]!;
    const avgPrice = sumOf(prices) / n;
    let timed = 0;
    for (let i = 0; i < n; i++) if (!Number.isNaN(secs[i]!)) timed++;
    const sellTimes = new Float64Array(timed);
    for (let i = 0, j = 0; i < n; i++) if (!Number.isNaN(secs[i]!)) sellTimes[j++] = secs[i]!;
    sellTimes.sort();
    const medianSell = timed === 0 ? 0 : sellTimes[Math.floor(timed / 2)]!;
    let squares = 0;
    for (let i = 0; i < n; i++) squares += (prices[i]! - avgPrice) ** 2;
    const std = Math.sqrt(n < 2 ? 0 : squares / (n - 1));

    const volume = Array.from({ length: VOLUME_BUCKETS }, () => ({ sum: 0, count: 0 }));
    const speed = Array.from({ length: SPEED_BUCKETS }, () => ({ prices: 0, times: 0, count: 0 }));
    const hours = Array.from({ length: 24 }, () => ({ prices: 0, count: 0, times: 0, timed: 0 }));
    for (let i = 0; i < n; i++) {
      const price = unit[i]!;
      const v = volume[bucketOf(price, minPrice, maxPrice, VOLUME_BUCKETS)]!;
      v.sum += price;
      v.count++;
      const hour = hours[hourOf[i]!]!;
      hour.prices += price;
      hour.count++;
      const t = secs[i]!;
      if (!Number.isNaN(t)) {
        const b = speed[bucketOf(price, minPrice, maxPrice, SPEED_BUCKETS)]!;
        b.prices += price;
        b.times += t;
        b.count++;
        hour.times += t;
        hour.timed++;
      }
    }
    const width = (k: number) => (maxPrice - minPrice) / k;
    const bounds = (i: number, k: number) => ({
      minPrice: round2(minPrice + width(k) * i),
      maxPrice: round2(i === k - 1 ? maxPrice : minPrice + width(k) * (i + 1)),
    });
    const avg = (sum: number, count: number) => (count === 0 ? 0 : sum / count);

    return {
      volumeBuckets: volume.map((b, i) => ({ ...bounds(i, VOLUME_BUCKETS), avgPrice: round2(avg(b.sum, b.count)), count: b.count })),
      sellSpeedBuckets: speed.flatMap((b, i) => {
        if (b.count === 0) return [];
        const avgTime = b.times / b.count;
        return [
          {
            ...bounds(i, SPEED_BUCKETS),
            avgPrice: round2(b.prices / b.count),
            avgSellTimeSeconds: round2(avgTime),
            speedCategory: speedCategory(avgTime, medianSell),
            sampleCount: b.count,
          },
        ];
      }),
      totalSales: n,
      avgSellTimeSeconds: round2(avg(sumOf(sellTimes), timed)),
      medianSellTimeSeconds: round2(medianSell),
      avgPrice: round2(avgPrice),
      medianPrice: round2(prices[Math.floor(n / 2)]!),
      minPrice: round2(minPrice),
      maxPrice: round2(maxPrice),
      binPercentage: round2((this.bins / n) * 100),
      salesPerDay: round2(n / Math.max(1, days)),
      hourlyBreakdown: hours.map((h, hour) => ({
        hour,
        count: h.count,
        avgPrice: round2(avg(h.prices, h.count)),
        avgSellTimeSeconds: round2(avg(h.times, h.timed)),
      })),
      priceStdDev: round2(std),
      priceCoeffVariation: avgPrice === 0 ? 0 : Math.round((std / avgPrice) * 10000) / 10000,
      topSellers: topSellers(this.sellers, TOP_SELLERS).map(([seller, count]) => ({ seller, count, percentage: round2((count / n) * 100) })),
    };
  }
}

function sumOf(xs: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i]!;
  return sum;
}

/** Most frequent first, ties by seller id: the first `k` of that order, without sorting them all. */
function topSellers(counts: ReadonlyMap<string, number>, k: number): Array<[string, number]> {
  const before = (a: [string, number], b: [string, number]) => b[1] < a[1] || (b[1] === a[1] && a[0] < b[0]);
  const top: Array<[string, number]> = [];
  for (const entry of counts) {
    if (top.length === k && !before(entry, top[k - 1]!)) continue;
    let at = top.length === k ? k - 1 : top.length;
    while (at > 0 && before(entry, top[at - 1]!)) {
      top[at] = top[at - 1]!;
      at--;
    }
    top[at] = entry;
  }
  return top;
}
