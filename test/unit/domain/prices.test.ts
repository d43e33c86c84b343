/**
 * domain/prices.ts: the price variant key, bucketing and the cells' exactness (a property test
 * compares cells, merged days and points with a brute-force recomputation from raw sales).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  bucketOf,
  cellOf,
  DAY_MS,
  HOUR_MS,
  mergeCells,
  medianOf,
  modeOf,
  petLevelBand,
  PointBuilder,
  priceVariantKey,
  RANGE_BUCKETS,
  rangeStart,
  summaryOf,
  type PricedSale,
} from '../../../src/domain/prices.ts';
import { DIGEST_SIZE, digestPoints, weightedMedian } from '../../../src/domain/sales-rollup.ts';

describe('price variant key', () => {
  test('pets: rarity and level band', () => {
    assert.equal(priceVariantKey({ tag: 'PET_BEE', tier: 'LEGENDARY', flatNbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '0' } }), 'LEGENDARY');
    assert.equal(priceVariantKey({ tag: 'PET_BEE', tier: 'LEGENDARY', flatNbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '30000000' } }), 'LEGENDARY+100');
    assert.equal(priceVariantKey({ tag: 'PET_BEE', tier: 'EPIC', flatNbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'EPIC', 'petInfo.exp': '100' } }), 'EPIC');
    // The pet data's tier wins over the item's (a tier boost shows one rarity higher).
    assert.equal(priceVariantKey({ tag: 'PET_BEE', tier: 'MYTHIC', flatNbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '0' } }), 'LEGENDARY');
    assert.equal(priceVariantKey({ tag: 'PET_BEE', tier: 'RARE', flatNbt: {} }), 'RARE');
    assert.equal(petLevelBand(1), '');
    assert.equal(petLevelBand(99), '');
    assert.equal(petLevelBand(100), '+100');
    assert.equal(petLevelBand(150), '+100');
    assert.equal(petLevelBand(200), '+200');
    const golden = priceVariantKey({ tag: 'PET_GOLDEN_DRAGON', tier: 'LEGENDARY', flatNbt: { 'petInfo.type': 'GOLDEN_DRAGON', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '1000000000' } });
    assert.equal(golden, 'LEGENDARY+200');
  });

  test('runes and potions by level; everything else one variant', () => {
    assert.equal(priceVariantKey({ tag: 'RUNE_BLOOD_2', tier: 'RARE', flatNbt: { 'runes.BLOOD_2': '3' } }), '3');
    assert.equal(priceVariantKey({ tag: 'UNIQUE_RUNE_RAINBOW', tier: 'LEGENDARY', flatNbt: { 'runes.RAINBOW': '1' } }), '1');
    assert.equal(priceVariantKey({ tag: 'POTION_SPEED', tier: 'COMMON', flatNbt: { potion_level: '5' } }), '5');
    assert.equal(priceVariantKey({ tag: 'POTION_SPEED', tier: 'COMMON', flatNbt: {} }), '');
    assert.equal(priceVariantKey({ tag: 'HYPERION', tier: 'LEGENDARY', flatNbt: { upgrade_level: '5' } }), '');
    assert.equal(priceVariantKey({ tag: 'ENCHANTMENT_ULTIMATE_WISE_5', tier: 'COMMON', flatNbt: {} }), '');
  });

});

describe('ranges and buckets', () => {
  test('bucket sizes give a few hundred points at most', () => {
    assert.deepEqual(
      Object.fromEntries(Object.entries(RANGE_BUCKETS).map(([k, v]) => [k, v.span === null ? null : v.span / v.bucket])),
      { day: 24, week: 84, month: 30, full: null },
    );
  });
  test('a range starts at the first whole bucket after now − span', () => {
    const now = Date.UTC(2026, 10, 22, 12, 30);
    assert.equal(rangeStart('day', now), Date.UTC(2026, 10, 21, 13));
    assert.equal(rangeStart('week', now), Date.UTC(2026, 10, 15, 14));
    assert.equal(rangeStart('month', now), Date.UTC(2026, 9, 24));
    assert.equal(rangeStart('full', now), 0);
    assert.equal(bucketOf(Date.UTC(2026, 0, 1, 5, 59), 2 * HOUR_MS), Date.UTC(2026, 0, 1, 4));
  });
});

/** Brute force: the plain median of a list. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const saleArb = (start: number, span: number) =>
  fc.record({
    price: fc.integer({ min: 1, max: 1_000 }).map((p) => p * 1000),
    count: fc.integer({ min: 1, max: 64 }),
    at: fc.integer({ min: start, max: start + span - 1 }),
  });

describe('cells against brute force', () => {
  const start = Date.UTC(2026, 10, 20);

  test('a cell: count, items, coins, sum, min, max exact; median exact up to DIGEST_SIZE sales', () => {
    fc.assert(
      fc.property(fc.array(saleArb(start, HOUR_MS), { minLength: 1, maxLength: 80 }), (sales) => {
        const c = cellOf(sales)!;
        assert.equal(c.count, sales.length);
        assert.equal(c.items, sales.reduce((s, x) => s + x.count, 0));
        assert.equal(c.coins, sales.reduce((s, x) => s + x.price * x.count, 0));
        assert.equal(c.sum, sales.reduce((s, x) => s + x.price, 0));
        assert.equal(c.min, Math.min(...sales.map((s) => s.price)));
        assert.equal(c.max, Math.max(...sales.map((s) => s.price)));
        const m = medianOf([c])!;
        if (sales.length <= DIGEST_SIZE) assert.equal(m, median(sales.map((s) => s.price)));
        else {
          assert.ok(m >= c.min && m <= c.max);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a day merged from its hours: totals exact; median exact while every hour and the day hold all prices', () => {
    fc.assert(
      fc.property(fc.array(saleArb(start, DAY_MS), { minLength: 1, maxLength: 60 }), (sales) => {
        const byHour = new Map<number, PricedSale[]>();
        for (const s of sales) byHour.set(bucketOf(s.at, HOUR_MS), [...(byHour.get(bucketOf(s.at, HOUR_MS)) ?? []), s]);
        const hours = [...byHour.values()].map((l) => cellOf(l)!);
        const day = mergeCells(hours)!;
        const direct = cellOf(sales)!;
        assert.equal(day.count, direct.count);
        assert.equal(day.items, direct.items);
        assert.equal(day.coins, direct.coins);
        assert.equal(day.min, direct.min);
        assert.equal(day.max, direct.max);
        assert.ok(Math.abs(day.sum - direct.sum) < 1e-6);
        const exactHours = hours.every((h) => h.count <= DIGEST_SIZE);
        if (exactHours) assert.equal(medianOf(hours), median(sales.map((s) => s.price)));
        if (sales.length <= DIGEST_SIZE) assert.deepEqual(Array.from(day.prices), sales.map((s) => s.price).sort((a, b) => a - b));
        else assert.equal(day.prices.length, DIGEST_SIZE);
      }),
      { numRuns: 300 },
    );
  });

  test('points: each bucket equals its sales recomputed; lowest BIN the minimum recorded', () => {
    fc.assert(
      fc.property(
        fc.array(saleArb(start, 7 * DAY_MS), { minLength: 0, maxLength: 120 }),
        fc.array(fc.record({ at: fc.integer({ min: start, max: start + 7 * DAY_MS - 1 }), price: fc.integer({ min: 1, max: 10_000 }) }), { maxLength: 40 }),
        (sales, bins) => {
          const size = 2 * HOUR_MS;
          const b = new PointBuilder(size);
          // As the service does: hourly cells, then buckets of two hours.
          const byHour = new Map<number, PricedSale[]>();
          for (const s of sales) byHour.set(bucketOf(s.at, HOUR_MS), [...(byHour.get(bucketOf(s.at, HOUR_MS)) ?? []), s]);
          for (const [h, l] of byHour) b.addCell(h, cellOf(l)!);
          for (const x of bins) b.addLowestBin(x.at, x.price);
          const points = b.points();
          const expectedBuckets = new Set([...sales.map((s) => bucketOf(s.at, size)), ...bins.map((x) => bucketOf(x.at, size))]);
          assert.equal(points.length, expectedBuckets.size);
          for (let i = 1; i < points.length; i++) assert.ok(points[i - 1]!.time < points[i]!.time);
          for (const p of points) {
            const t = Date.parse(p.time);
            const inBucket = sales.filter((s) => bucketOf(s.at, size) === t);
            const binsIn = bins.filter((x) => bucketOf(x.at, size) === t);
            assert.equal(p.lowestBin, binsIn.length ? Math.min(...binsIn.map((x) => x.price)) : null);
            assert.equal(p.sales, inBucket.length);
            assert.equal(p.items, inBucket.reduce((s, x) => s + x.count, 0));
            assert.equal(p.volume, p.items);
            if (inBucket.length === 0) continue;
            assert.equal(p.min, Math.min(...inBucket.map((s) => s.price)));
            assert.equal(p.max, Math.max(...inBucket.map((s) => s.price)));
            assert.ok(Math.abs(p.avg - inBucket.reduce((s, x) => s + x.price, 0) / inBucket.length) < 1e-6);
            const hourCounts = new Map<number, number>();
            for (const s of inBucket) hourCounts.set(bucketOf(s.at, HOUR_MS), (hourCounts.get(bucketOf(s.at, HOUR_MS)) ?? 0) + 1);
            if ([...hourCounts.values()].every((n) => n <= DIGEST_SIZE)) assert.equal(p.median, median(inBucket.map((s) => s.price)));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  test('medianOf and modeOf (a walk over few digests, a merge of many) equal the weighted median and mode of their points', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 1, max: 50 }).map((p) => p * 100), { minLength: 1, maxLength: 100 }), { minLength: 1, maxLength: 60 }), (groups) => {
        const cells = groups.map((g) => cellOf(g.map((price, i) => ({ price, count: 1, at: i })))!);
        const points = cells.flatMap((c) => digestPoints(c.count, c.prices));
        assert.equal(medianOf(cells), weightedMedian(points));
        // Mode by brute force: the heaviest price, the lowest of (near) ties.
        const weights = new Map<number, number>();
        for (const p of points) weights.set(p.price, (weights.get(p.price) ?? 0) + p.weight);
        const heaviest = Math.max(...weights.values());
        const mode = Math.min(...[...weights].filter(([, w]) => w > heaviest - 1e-9).map(([price]) => price));
        assert.equal(modeOf(cells), mode);
        const summary = summaryOf(cells);
        assert.equal(summary.median, weightedMedian(points));
        assert.equal(summary.mode, mode);
        assert.equal(summary.volume, groups.reduce((n, g) => n + g.length, 0));
      }),
      { numRuns: 500 },
    );
  });

  test('summary: mode is the most frequent price (lowest of ties), zeros when nothing sold', () => {
    assert.deepEqual(summaryOf([]), { min: 0, median: 0, mean: 0, mode: 0, volume: 0, max: 0 });
    const c = cellOf([100, 200, 200, 300, 300, 50].map((price, i) => ({ price, count: 1, at: i })))!;
    assert.equal(modeOf([c]), 200);
    assert.deepEqual(summaryOf([c]), { min: 50, median: 200, mean: 1150 / 6, mode: 200, volume: 6, max: 300 });
  });
});
