import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  aggregate,
  bucketStart,
  completeBefore,
  DAY,
  historyResolution,
  HOUR,
  MINUTE,
  rawHorizon,
  RESOLUTION_MS,
  type HistoryPoint,
} from '../../../src/domain/bazaar-history.ts';

const T0 = Date.UTC(2026, 10, 20, 0, 0, 0);

function snap(ts: number, buy: number, sell: number, extra: Partial<HistoryPoint> = {}): HistoryPoint {
  return {
    ts,
    buy,
    sell,
    minBuy: buy,
    maxBuy: buy,
    minSell: sell,
    maxSell: sell,
    buyVolume: Math.round(buy * 10),
    sellVolume: Math.round(sell * 10),
    buyMovingWeek: 1000 + ts / 20_000,
    sellMovingWeek: 2000 + ts / 20_000,
    buyOrders: 3,
    sellOrders: 4,
    samples: 1,
    ...extra,
  };
}

describe('bazaar history bucket maths', () => {
  it('aligns buckets to UTC boundaries', () => {
    const t = Date.UTC(2026, 10, 20, 13, 47, 39, 500);
    assert.equal(bucketStart(t, RESOLUTION_MS['5m']), Date.UTC(2026, 10, 20, 13, 45));
    assert.equal(bucketStart(t, RESOLUTION_MS['2h']), Date.UTC(2026, 10, 20, 12, 0));
    assert.equal(bucketStart(t, RESOLUTION_MS['1d']), Date.UTC(2026, 10, 20));
    assert.equal(bucketStart(Date.UTC(2026, 10, 20, 13, 45), RESOLUTION_MS['5m']), Date.UTC(2026, 10, 20, 13, 45));
  });

  it('keeps the first snapshot and the min/max of each 5-minute bucket', () => {
    const points = [
      snap(T0 + 0, 10, 8),
      snap(T0 + 20_000, 12, 7),
      snap(T0 + 40_000, 9, 9),
      snap(T0 + 5 * MINUTE, 20, 18), // next bucket
      snap(T0 + 5 * MINUTE + 280_000, 19, 19),
    ];
    const buckets = aggregate(points, RESOLUTION_MS['5m']);
    assert.equal(buckets.length, 2);
    const [a, b] = buckets;
    assert.deepEqual(
      { ts: a!.ts, buy: a!.buy, sell: a!.sell, minBuy: a!.minBuy, maxBuy: a!.maxBuy, minSell: a!.minSell, maxSell: a!.maxSell, samples: a!.samples },
      { ts: T0, buy: 10, sell: 8, minBuy: 9, maxBuy: 12, minSell: 7, maxSell: 9, samples: 3 },
    );
    assert.equal(a!.buyVolume, 100, 'volumes come from the first snapshot');
    assert.equal(a!.buyMovingWeek, points[0]!.buyMovingWeek);
    assert.deepEqual([b!.ts, b!.buy, b!.minBuy, b!.maxBuy, b!.minSell, b!.maxSell, b!.samples], [T0 + 5 * MINUTE, 20, 19, 20, 18, 19, 2]);
  });

  it('takes first values by time even when points arrive unordered', () => {
    const buckets = aggregate([snap(T0 + 40_000, 9, 9), snap(T0, 10, 8), snap(T0 + 20_000, 12, 7)], RESOLUTION_MS['5m']);
    assert.equal(buckets.length, 1);
    assert.equal(buckets[0]!.buy, 10);
    assert.equal(buckets[0]!.sell, 8);
  });

  it('is composable: 20s → 5m → 2h → 1d equals 20s → 1d', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const points: HistoryPoint[] = [];
    // 30 hours of 20-second snapshots with gaps
    for (let ts = T0 - 3 * HOUR; ts < T0 + 27 * HOUR; ts += 20_000) {
      if (rand() < 0.1) continue;
      points.push(snap(ts, Math.round(rand() * 1000) / 10, Math.round(rand() * 1000) / 10));
    }
    for (const target of ['2h', '1d'] as const) {
      const direct = aggregate(points, RESOLUTION_MS[target]);
      const viaFive = aggregate(aggregate(points, RESOLUTION_MS['5m']), RESOLUTION_MS[target]);
      assert.deepEqual(viaFive, direct, target);
    }
    const days = aggregate(points, DAY);
    assert.deepEqual(aggregate(aggregate(points, RESOLUTION_MS['2h']), DAY), days);
    assert.deepEqual(days.map((d) => d.ts), [T0 - DAY, T0, T0 + DAY]);
    assert.equal(days.reduce((n, d) => n + d.samples, 0), points.length);
    const inDay = points.filter((p) => p.ts >= T0 && p.ts < T0 + DAY);
    assert.equal(days[1]!.maxBuy, Math.max(...inDay.map((p) => p.buy)));
    assert.equal(days[1]!.minSell, Math.min(...inDay.map((p) => p.sell)));
    assert.equal(days[1]!.buy, inDay[0]!.buy);
  });

  it('an empty input is an empty result', () => {
    assert.deepEqual(aggregate([], RESOLUTION_MS['5m']), []);
  });

  it('picks the resolution by range length with bounded point counts', () => {
    const now = T0;
    assert.equal(historyResolution(now - HOUR, now, now), '20s');
    assert.equal(historyResolution(now - HOUR - 1, now, now), '5m');
    assert.equal(historyResolution(now - 20 * DAY, now - 20 * DAY + 30 * MINUTE, now), '5m', 'no 20 s rows beyond 14 days');
    assert.equal(historyResolution(now - DAY, now, now), '5m');
    assert.equal(historyResolution(now - 7 * DAY, now, now), '2h');
    assert.equal(historyResolution(now - 8 * DAY, now, now), '1d');
    assert.equal(historyResolution(now - 400 * DAY, now, now), '1d');
  });

  it('knows which buckets are complete and where 20-second data ends', () => {
    const now = Date.UTC(2026, 10, 20, 13, 5, 10);
    assert.equal(completeBefore(now, '5m', 30_000), Date.UTC(2026, 10, 20, 13, 0));
    assert.equal(completeBefore(now + 30_000, '5m', 30_000), Date.UTC(2026, 10, 20, 13, 5));
    assert.equal(completeBefore(now, '2h', 30_000), Date.UTC(2026, 10, 20, 12, 0));
    assert.equal(completeBefore(now, '1d', 30_000), Date.UTC(2026, 10, 20));
    assert.equal(rawHorizon(now), Date.UTC(2026, 10, 6, 13, 5));
  });
});
