import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  analyzeSales,
  emptyAnalysis,
  SalesAnalysis,
  speedCategory,
  SPEED_BUCKETS,
  TOP_SELLERS,
  upperMedian,
  VOLUME_BUCKETS,
  type AnalysisResult,
  type AnalysisSale,
} from '../../../src/domain/analysis.ts';

const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);

function sale(price: number, sellMinutes: number | null, over: Partial<AnalysisSale> = {}): AnalysisSale {
  const end = over.end ?? T0;
  return { price, count: 1, start: sellMinutes === null ? null : end - sellMinutes * 60_000, end, bin: true, seller: 's1', ...over };
}

describe('analyzeSales', () => {
  test('no sales: the all-zero result with empty lists', () => {
    assert.deepEqual(analyzeSales([], 7), emptyAnalysis());
    assert.equal(emptyAnalysis().totalSales, 0);
  });

  test('central values, spread, BIN share, sales per day', () => {
    const sales = [
      sale(100, 10),
      sale(200, 20, { bin: false, seller: 's2' }),
      sale(300, 30),
      sale(400, 40, { seller: 's2' }),
    ];
    const r = analyzeSales(sales, 2);
    assert.equal(r.totalSales, 4);
    assert.equal(r.avgPrice, 250);
    assert.equal(r.medianPrice, 300, 'upper middle');
    assert.equal(r.minPrice, 100);
    assert.equal(r.maxPrice, 400);
    // sample standard deviation of 100,200,300,400
    assert.equal(r.priceStdDev, Math.round(Math.sqrt(50000 / 3) * 100) / 100);
    assert.equal(r.priceCoeffVariation, Math.round((Math.sqrt(50000 / 3) / 250) * 10000) / 10000);
    assert.equal(r.binPercentage, 75);
    assert.equal(r.salesPerDay, 2);
    assert.equal(r.avgSellTimeSeconds, 25 * 60);
    assert.equal(r.medianSellTimeSeconds, 30 * 60);
    assert.deepEqual(r.topSellers, [
      { seller: 's1', count: 2, percentage: 50 },
      { seller: 's2', count: 2, percentage: 50 },
    ]);
  });

  test('per-unit prices: a stack of 10 for 1000 is 100 each', () => {
    assert.equal(analyzeSales([sale(1000, 5, { count: 10 })], 1).avgPrice, 100);
  });

  test('volume buckets cover [min, max] in 15 equal parts and count every sale', () => {
    const sales = Array.from({ length: 30 }, (_, i) => sale(100 + i * 10, 5));
    const r = analyzeSales(sales, 7);
    assert.equal(r.volumeBuckets.length, 15);
    assert.equal(r.volumeBuckets[0]!.minPrice, 100);
    assert.equal(r.volumeBuckets[14]!.maxPrice, 390);
    assert.equal(r.volumeBuckets.reduce((a, b) => a + b.count, 0), 30);
  });

  test('sell-speed buckets classify against the median sell time; unknown sell times are left out', () => {
    const sales = [sale(100, 1), sale(100, 1), sale(500, 10), sale(1000, 100), sale(1000, null)];
    const r = analyzeSales(sales, 7);
    assert.equal(r.medianSellTimeSeconds, 600);
    const cats = Object.fromEntries(r.sellSpeedBuckets.map((b) => [b.avgPrice, [b.speedCategory, b.sampleCount]]));
    assert.deepEqual(cats[100], ['FAST', 2]);
    assert.deepEqual(cats[500], ['SLOW', 1], 'exactly the median: not below 1x');
    assert.deepEqual(cats[1000], ['VERY_SLOW', 1]);
    assert.equal(r.sellSpeedBuckets.reduce((a, b) => a + b.sampleCount, 0), 4);
  });

  test('hourly breakdown by UTC hour of the sale', () => {
    const r = analyzeSales([sale(100, 10, { end: T0 + 3 * 3_600_000 }), sale(300, 20, { end: T0 + 3 * 3_600_000 + 60_000 })], 1);
    assert.equal(r.hourlyBreakdown.length, 24);
    assert.deepEqual(r.hourlyBreakdown[3], { hour: 3, count: 2, avgPrice: 200, avgSellTimeSeconds: 900 });
    assert.equal(r.hourlyBreakdown[4]!.count, 0);
  });

  test('helpers', () => {
    assert.equal(upperMedian([1, 2, 3, 4]), 3);
    assert.equal(upperMedian([]), 0);
    assert.equal(speedCategory(10, 100), 'FAST');
    assert.equal(speedCategory(60, 100), 'MED');
    assert.equal(speedCategory(150, 100), 'SLOW');
    assert.equal(speedCategory(200, 100), 'VERY_SLOW');
  });
});

describe('SalesAnalysis (incremental) against the previous all-at-once implementation', () => {
  const saleArb = fc.record({
    price: fc.oneof(fc.integer({ min: 0, max: 2_000_000_000 }), fc.double({ min: 0, max: 1e10, noNaN: true, noDefaultInfinity: true }).map((p) => (Object.is(p, -0) ? 0 : p))),
    count: fc.integer({ min: 0, max: 64 }),
    start: fc.option(fc.integer({ min: T0 - 90 * 86_400_000, max: T0 }), { nil: null }),
    end: fc.oneof(fc.integer({ min: T0 - 90 * 86_400_000, max: T0 + 86_400_000 }), fc.double({ min: -1e13, max: 1e13, noNaN: true })),
    bin: fc.boolean(),
    seller: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
  });

  test('same result, field for field, for any sales in any order', () => {
    fc.assert(
      fc.property(fc.array(saleArb, { maxLength: 400 }), fc.integer({ min: 1, max: 365 }), (sales, days) => {
        assert.deepStrictEqual(analyzeSales(sales, days), referenceAnalysis(sales, days));
      }),
      { numRuns: 300 },
    );
  });

  test('same result over 50,000 sales with repeated prices, many sellers and unknown sell times; added one at a time', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const sales: AnalysisSale[] = Array.from({ length: 50_000 }, (_, i) => {
      const end = T0 - Math.floor(rnd() * 90 * 86_400_000);
      return {
        price: i % 7 === 0 ? 1_000_000 : Math.round(rnd() * 5e8) + rnd(),
        count: 1 + (i % 3),
        start: i % 11 === 0 ? null : end - Math.floor(rnd() * 14 * 86_400_000),
        end,
        bin: rnd() < 0.8,
        seller: `s${Math.floor(rnd() * 20_000)}`,
      };
    });
    const acc = new SalesAnalysis();
    for (const s of sales) acc.add(s);
    assert.equal(acc.size, 50_000);
    const expected = referenceAnalysis(sales, 90);
    assert.deepStrictEqual(acc.result(90), expected);
    assert.equal(expected.volumeBuckets.length, VOLUME_BUCKETS);
    assert.ok(expected.sellSpeedBuckets.length <= SPEED_BUCKETS);
    assert.equal(expected.topSellers.length, TOP_SELLERS);
  });
});

// The implementation before SalesAnalysis (commit f8b489e), kept verbatim as the reference the
// incremental one must match exactly, field for field and bit for bit.
const round2 = (n: number) => Math.round(n * 100) / 100;
const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
function bucketOf(price: number, min: number, max: number, n: number): number {
  if (max <= min) return 0;
  return Math.min(n - 1, Math.floor(((price - min) / (max - min)) * n));
}

function referenceAnalysis(sales: readonly AnalysisSale[], days: number): AnalysisResult {
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
