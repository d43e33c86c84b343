import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { encodeBook, type OrderBook } from '../../../src/domain/bazaar-book.ts';
import { aggregate, bucketStart, DAY, HOUR, MINUTE, RESOLUTION_MS, type Resolution } from '../../../src/domain/bazaar-history.ts';
import { BazaarHistoryJobs } from '../../../src/jobs/bazaar-history.ts';
import { createLogger } from '../../../src/logger.ts';
import type { BazaarSnapshotsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { insert, point, rows } from '../../helpers/bazaar.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0); // createTestApp's clock
const P = 'ENCHANTED_DIAMOND';
const OLD = 'INK_SACK:3';

interface Graph {
  minBuy: number;
  maxBuy: number;
  buy: number;
  minSell: number;
  maxSell: number;
  sell: number;
  buyVolume: number;
  sellVolume: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  timestamp: string;
}

function wire(data: BazaarSnapshotsTable[], res: Resolution, from: number, to: number): Graph[] {
  const pts = res === '20s' ? data.map(point) : aggregate(data.map(point), RESOLUTION_MS[res]);
  return pts
    .filter((p) => p.ts >= from && p.ts < to)
    .map((p) => ({
      minBuy: p.minBuy,
      maxBuy: p.maxBuy,
      buy: p.buy,
      minSell: p.minSell,
      maxSell: p.maxSell,
      sell: p.sell,
      buyVolume: p.buyVolume,
      sellVolume: p.sellVolume,
      buyMovingWeek: p.buyMovingWeek,
      sellMovingWeek: p.sellMovingWeek,
      timestamp: new Date(p.ts).toISOString(),
    }));
}

const BOOK_A: OrderBook = {
  buyOrders: [{ amount: 100, pricePerUnit: 150.1, orders: 2 }],
  sellOffers: [{ amount: 64, pricePerUnit: 160.5, orders: 1 }, { amount: 640, pricePerUnit: 161, orders: 5 }],
};
const BOOK_B: OrderBook = { buyOrders: [{ amount: 5, pricePerUnit: 151, orders: 1 }], sellOffers: [] };

describeEachBackend('bazaar API', (fixture) => {
  let t: TestApp;
  // 9 days of P: 20-second rows for the last 26 hours, one a minute before (sparse, quick to insert)
  const data = [...rows(P, NOW - 9 * DAY, NOW - 26 * HOUR, MINUTE, 11), ...rows(P, NOW - 26 * HOUR, NOW + 1, 20_000, 12)];
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    return { status: res.statusCode, body: res.json(), headers: res.headers };
  };

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    const withBooks = data.map((r) => ({ ...r }));
    const last = withBooks.length - 1;
    withBooks[last - 10]!.book = encodeBook(BOOK_A); // later rows: unchanged book
    withBooks[last - 2]!.book = encodeBook(BOOK_B);
    await insert(t.store, withBooks);
    // OLD: only 5-minute history (its 20-second rows are gone): roll up, then delete them.
    await insert(t.store, rows(OLD, NOW - 40 * DAY, NOW - 39 * DAY, 20_000, 13));
    const jobs = new BazaarHistoryJobs({ store: t.store, clock: new ManualClock(NOW - 3 * HOUR), logger: createLogger('silent') });
    await jobs.runOnce(); // rollups lag 3 hours behind: history must add the tail itself
    await t.store.bazaarHistory.deleteSnapshotsBefore(NOW - 30 * DAY);
  });
  after(() => t.close());

  it('hour: every 20-second snapshot of the last hour, oldest first', async () => {
    const res = await get(`/api/bazaar/${P}/history/hour`);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 180);
    assert.deepEqual(res.body, wire(data, '20s', NOW - HOUR, NOW + 1));
    assert.match(String(res.headers['cache-control']), /max-age=10/);
  });

  it('day: 5-minute buckets of the last day, from rollups plus the live tail', async () => {
    const res = await get(`/api/bazaar/${P}/history/day`);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 288);
    assert.deepEqual(res.body, wire(data, '5m', NOW - DAY, NOW + 1));
  });

  it('week: 2-hour buckets of the last week', async () => {
    const res = await get(`/api/bazaar/${P}/history/week`);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 84);
    assert.deepEqual(res.body, wire(data, '2h', NOW - 7 * DAY, NOW + 1));
    const one = res.body[40] as Graph;
    assert.ok(one.minBuy <= one.buy && one.buy <= one.maxBuy && one.minSell <= one.sell && one.sell <= one.maxSell);
  });

  it('custom ranges pick the resolution by length', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[number, number, Resolution]> = [
      [NOW - 50 * MINUTE, NOW - 20 * MINUTE, '20s'],
      [NOW - 20 * HOUR, NOW - 8 * HOUR, '5m'],
      [NOW - 5 * DAY, NOW - 2 * DAY, '2h'],
      [NOW - 9 * DAY, NOW, '1d'],
    ];
    for (const [start, end, res] of cases) {
      const got = await get(`/api/bazaar/${P}/history?start=${iso(start)}&end=${iso(end)}`);
      assert.equal(got.status, 200, res);
      const from = res === '20s' ? start : bucketStart(start, RESOLUTION_MS[res]);
      assert.deepEqual(got.body, wire(data, res, from, end + 1), res);
      assert.ok(got.body.length > 0);
    }
    // Zone-less times are UTC; a date alone is midnight UTC.
    const zoneless = await get(`/api/bazaar/${P}/history?start=2026-11-22T11:00:00&end=2026-11-22T11:30:00`);
    assert.deepEqual(zoneless.body, wire(data, '20s', NOW - HOUR, NOW - 30 * MINUTE + 1));
    const days = await get(`/api/bazaar/${P}/history?start=2026-11-15&end=2026-11-22`);
    assert.equal(days.status, 200);
    assert.equal(days.body[0].timestamp, '2026-11-15T00:00:00.000Z');
  });

  it('an empty range is [] and the product is matched case-insensitively', async () => {
    const res = await get(`/api/bazaar/enchanted_diamond/history?start=2020-01-01T00:00:00Z&end=2020-01-01T00:00:00Z`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, []);
    const old = await get(`/api/bazaar/${P}/history?start=2021-01-01T00:00:00Z&end=2021-01-02T00:00:00Z`);
    assert.deepEqual(old.body, []);
  });

  it('history older than 14 days comes from 5-minute rows', async () => {
    const start = new Date(NOW - 40 * DAY).toISOString();
    const end = new Date(NOW - 40 * DAY + 30 * MINUTE).toISOString();
    const res = await get(`/api/bazaar/${encodeURIComponent(OLD)}/history?start=${start}&end=${end}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 7, '5-minute buckets of 30 minutes, both ends included');
    assert.equal(res.body[0].timestamp, new Date(NOW - 40 * DAY).toISOString());
  });

  it('404 for an unknown product, 400 for bad tags, dates and ranges', async () => {
    for (const url of [`/api/bazaar/NOPE_NOT_A_PRODUCT/history/hour`, `/api/bazaar/NOPE/history/week`, `/api/bazaar/NOPE/snapshot`]) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.json().slug, 'item_not_found');
    }
    const cases: Array<[string, string]> = [
      [`/api/bazaar/BAD%20TAG!/history/hour`, 'invalid_tag'],
      [`/api/bazaar/${P}/history?start=yesterday`, 'invalid_date'],
      [`/api/bazaar/${P}/history?start=2026-13-45T00:00:00Z`, 'invalid_date'],
      [`/api/bazaar/${P}/history?start=2026-11-22T00:00:00Z&end=2026-11-21T00:00:00Z`, 'invalid_range'],
      [`/api/bazaar/${P}/history?start=2000-01-01&end=2026-11-21`, 'range_too_long'],
      [`/api/bazaar/${P}/snapshot?timestamp=12%3A00`, 'invalid_date'],
    ];
    for (const [url, slug] of cases) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      if (slug !== 'validation_failed') assert.equal(res.json().slug, slug, url);
      assert.ok(res.json().detail.length > 0);
    }
  });

  it('snapshot: the newest at or before the time, with both order books', async () => {
    const res = await get(`/api/bazaar/${P}/snapshot`);
    assert.equal(res.status, 200);
    const last = data[data.length - 1]!;
    assert.deepEqual(res.body, {
      productId: P,
      buyPrice: last.buy_price,
      buyVolume: last.buy_volume,
      buyMovingWeek: last.buy_moving_week,
      buyOrdersCount: last.buy_orders,
      sellPrice: last.sell_price,
      sellVolume: last.sell_volume,
      sellMovingWeek: last.sell_moving_week,
      sellOrdersCount: last.sell_orders,
      timeStamp: new Date(last.ts).toISOString(),
      // the instant-buy side is the sell offers, the instant-sell side the buy orders
      buyOrders: BOOK_B.sellOffers,
      sellOrders: BOOK_B.buyOrders,
    });
    // Between the two stored books: the earlier book, carried by rows stored as "unchanged".
    const mid = data[data.length - 5]!;
    const earlier = await get(`/api/bazaar/${P.toLowerCase()}/snapshot?timestamp=${new Date(mid.ts + 5_000).toISOString()}`);
    assert.equal(earlier.body.timeStamp, new Date(mid.ts).toISOString());
    assert.deepEqual(earlier.body.buyOrders, BOOK_A.sellOffers);
    assert.deepEqual(earlier.body.sellOrders, BOOK_A.buyOrders);
    // Before any stored book: null books.
    const noBook = await get(`/api/bazaar/${P}/snapshot?timestamp=${new Date(NOW - 2 * HOUR).toISOString()}`);
    assert.equal(noBook.status, 200);
    assert.equal(noBook.body.buyOrders, null);
  });

  it('snapshot older than the kept 20-second rows comes from the 5-minute row; before any data is 404', async () => {
    const at = NOW - 40 * DAY + 7 * MINUTE;
    const res = await get(`/api/bazaar/${encodeURIComponent(OLD)}/snapshot?timestamp=${new Date(at).toISOString()}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.timeStamp, new Date(NOW - 40 * DAY + 5 * MINUTE).toISOString());
    assert.equal(res.body.buyOrders, null);
    const before = await get(`/api/bazaar/${P}/snapshot?timestamp=2020-01-01T00:00:00Z`);
    assert.equal(before.status, 404);
    assert.equal(before.body.slug, 'no_snapshot');
  });

  it('appears in the OpenAPI document', async () => {
    const doc = (await get('/api/openapi.json')).body;
    for (const path of ['/api/bazaar/{itemTag}/history/hour', '/api/bazaar/{itemTag}/history', '/api/bazaar/{itemTag}/snapshot']) {
      assert.ok(doc.paths[path]?.get, path);
      assert.deepEqual(doc.paths[path].get.tags, ['bazaar']);
    }
  });
});
