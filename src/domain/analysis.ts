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
const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

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

/** Analyses `sales` over a window of `days` days. */
export function analyzeSales(sales: readonly AnalysisSale[], days: number): AnalysisResult {
  if (sales.length === 0) return emptyAnalysis();
  const unit = sales.map((s) => ({
    price: s.price / Math.max(1, s.count),
    sellSeconds: s.start === null ? null : Math.max(0, (s.end - s.start) / 1000),
    end: s.end,
    bin: s.bin,
    seller: s.seller,
  }));
  const prices = unit.map((u) => u.price).sort((a, b) => a - b);
  const minPrice = prices[0]!;
  const maxPrice = prices[prices.length - 1]!;
  const avgPrice = mean(prices);
  const sellTimes = unit.flatMap((u) => (u.sellSeconds === null ? [] : [u.sellSeconds])).sort((a, b) => a - b);
  const medianSell = upperMedian(sellTimes);
  const variance = prices.length < 2 ? 0 : prices.reduce((acc, p) => acc + (p - avgPrice) ** 2, 0) / (prices.length - 1);
  const std = Math.sqrt(variance);

  const volume = Array.from({ length: VOLUME_BUCKETS }, () => [] as number[]);
  const speed = Array.from({ length: SPEED_BUCKETS }, () => ({ prices: [] as number[], times: [] as number[] }));
  const hours = Array.from({ length: 24 }, () => ({ prices: [] as number[], times: [] as number[] }));
  const sellers = new Map<string, number>();
  let bins = 0;
  for (const u of unit) {
    volume[bucketOf(u.price, minPrice, maxPrice, VOLUME_BUCKETS)]!.push(u.price);
    const hour = hours[new Date(u.end).getUTCHours()]!;
    hour.prices.push(u.price);
    if (u.sellSeconds !== null) {
      const b = speed[bucketOf(u.price, minPrice, maxPrice, SPEED_BUCKETS)]!;
      b.prices.push(u.price);
      b.times.push(u.sellSeconds);
      hour.times.push(u.sellSeconds);
    }
    if (u.bin) bins++;
    sellers.set(u.seller, (sellers.get(u.seller) ?? 0) + 1);
  }
  const width = (n: number) => (maxPrice - minPrice) / n;
  const bounds = (i: number, n: number) => ({
    minPrice: round2(minPrice + width(n) * i),
    maxPrice: round2(i === n - 1 ? maxPrice : minPrice + width(n) * (i + 1)),
  });

  return {
    volumeBuckets: volume.map((ps, i) => ({ ...bounds(i, VOLUME_BUCKETS), avgPrice: round2(mean(ps)), count: ps.length })),
    sellSpeedBuckets: speed.flatMap((b, i) => {
      if (b.times.length === 0) return [];
      const avgTime = mean(b.times);
      return [
        {
          ...bounds(i, SPEED_BUCKETS),
          avgPrice: round2(mean(b.prices)),
          avgSellTimeSeconds: round2(avgTime),
          speedCategory: speedCategory(avgTime, medianSell),
          sampleCount: b.times.length,
        },
      ];
    }),
    totalSales: sales.length,
    avgSellTimeSeconds: round2(mean(sellTimes)),
    medianSellTimeSeconds: round2(medianSell),
    avgPrice: round2(avgPrice),
    medianPrice: round2(upperMedian(prices)),
    minPrice: round2(minPrice),
    maxPrice: round2(maxPrice),
    binPercentage: round2((bins / sales.length) * 100),
    salesPerDay: round2(sales.length / Math.max(1, days)),
    hourlyBreakdown: hours.map((h, hour) => ({
      hour,
      count: h.prices.length,
      avgPrice: round2(mean(h.prices)),
      avgSellTimeSeconds: round2(mean(h.times)),
    })),
    priceStdDev: round2(std),
    priceCoeffVariation: avgPrice === 0 ? 0 : Math.round((std / avgPrice) * 10000) / 10000,
    topSellers: [...sellers.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, TOP_SELLERS)
      .map(([seller, count]) => ({ seller, count, percentage: round2((count / sales.length) * 100) })),
  };
}
