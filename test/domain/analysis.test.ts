import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyzeSales, emptyAnalysis, speedCategory, upperMedian, type AnalysisSale } from '../../src/domain/analysis.ts';

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
