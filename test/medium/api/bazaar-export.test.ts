import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { encodeBook, type OrderBook } from '../../../src/domain/bazaar-book.ts';
import { aggregate, DAY, HOUR, MINUTE, RESOLUTION_MS } from '../../../src/domain/bazaar-history.ts';
import type { Tier } from '../../../src/domain/tiers.ts';
import { BazaarHistoryJobs } from '../../../src/jobs/bazaar-history.ts';
import { createLogger } from '../../../src/logger.ts';
import type { BazaarSnapshotsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { insert, point, rows } from '../../helpers/bazaar.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { unzip } from '../../helpers/unzip.ts';
import { exportJson } from '../../../src/services/bazaar-export.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0); // createTestApp's clock
const P = 'ENCHANTED_GOLD';
const iso = (ms: number) => new Date(ms).toISOString();

interface ExportRow {
  productId: string;
  timeStamp: string;
  buyPrice: number;
  sellPrice: number;
  buyVolume: number;
  sellVolume: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  buyOrdersCount: number;
  sellOrdersCount: number;
  minBuy: number;
  maxBuy: number;
  minSell: number;
  maxSell: number;
  count: number;
  buyOrders?: unknown;
  sellOrders?: unknown;
}

const BOOK_1: OrderBook = { buyOrders: [{ amount: 10, pricePerUnit: 5.5, orders: 1 }], sellOffers: [{ amount: 64, pricePerUnit: 6.1, orders: 2 }] };
const BOOK_2: OrderBook = { buyOrders: [], sellOffers: [{ amount: 1, pricePerUnit: 7, orders: 1 }] };

describeEachBackend('bazaar export', (fixture) => {
  let t: TestApp;
  // 20 days: one snapshot every 2 minutes (sparse, quick to insert and page through; 2 or 3 to a 5-minute row),
  // the last 2 hours every 20 seconds
  const data: BazaarSnapshotsTable[] = [...rows(P, NOW - 20 * DAY, NOW - 2 * HOUR, 2 * MINUTE, 21), ...rows(P, NOW - 2 * HOUR, NOW, 20_000, 22)];
  const bookAt1 = data.findIndex((r) => r.ts >= NOW - 15 * DAY); // before the 14-day horizon: must be carried forward
  const bookAt2 = data.length - 30;
  data[bookAt1]!.book = encodeBook(BOOK_1);
  data[bookAt2]!.book = encodeBook(BOOK_2);

  const token = async (tier: Tier) => (await t.store.accounts.create({ tier })).token;
  const exportOf = (query: string, bearer?: string) =>
    t.app.inject({ method: 'GET', url: `/api/bazaar/${P}/export${query}`, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  const rowsOf = (body: Buffer): ExportRow[] => {
    const entries = unzip(body);
    assert.deepEqual(entries.map((e) => e.name), [`${P}.json`], 'exactly one file named {itemTag}.json');
    return JSON.parse(entries[0]!.data.toString('utf8'));
  };

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    await insert(t.store, data);
    // Roll up and apply retention: 20-second rows older than 14 days are gone, 5-minute rows stay.
    await new BazaarHistoryJobs({ store: t.store, clock: new ManualClock(NOW), logger: createLogger('silent') }).runOnce();
  });
  after(() => t.close());

  it('needs a token; Free and Starter Premium have no access', async () => {
    const none = await exportOf('');
    assert.equal(none.statusCode, 401);
    assert.match(none.json().message, /Authorization: Bearer/);
    for (const tier of ['free', 'starter_premium'] as const) {
      const res = await exportOf('', await token(tier));
      assert.equal(res.statusCode, 403, tier);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.match(res.json().detail, /Premium/);
    }
  });

  it('by default streams the last 14 days of 20-second rows as {itemTag}.json inside a zip', async () => {
    const res = await exportOf('', await token('premium'));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/zip');
    assert.match(String(res.headers['content-disposition']), new RegExp(`filename="${P}.zip"`));
    const got = rowsOf(res.rawPayload);
    const expected = data.filter((r) => r.ts >= NOW - 14 * DAY && r.ts <= NOW);
    assert.equal(got.length, expected.length);
    assert.ok(got.every((r) => r.count === 1 && r.productId === P && !('buyOrders' in r)));
    const last = expected[expected.length - 1]!;
    assert.deepEqual(got[got.length - 1], {
      productId: P,
      timeStamp: iso(last.ts),
      buyPrice: last.buy_price,
      sellPrice: last.sell_price,
      buyVolume: last.buy_volume,
      sellVolume: last.sell_volume,
      buyMovingWeek: last.buy_moving_week,
      sellMovingWeek: last.sell_moving_week,
      buyOrdersCount: last.buy_orders,
      sellOrdersCount: last.sell_orders,
      minBuy: last.buy_price,
      maxBuy: last.buy_price,
      minSell: last.sell_price,
      maxSell: last.sell_price,
      count: 1,
    });
  });

  it('uses 5-minute rows before the last 14 days, oldest first, within [start, end]', async () => {
    const start = NOW - 17 * DAY;
    const end = NOW - 13 * DAY;
    const res = await exportOf(`?start=${iso(start)}&end=${iso(end)}`, await token('premium'));
    assert.equal(res.statusCode, 200);
    const got = rowsOf(res.rawPayload);
    const horizon = NOW - 14 * DAY;
    const five = aggregate(data.map(point), RESOLUTION_MS['5m']).filter((p) => p.ts >= start && p.ts < horizon);
    const twenty = data.filter((r) => r.ts >= horizon && r.ts <= end);
    assert.equal(got.length, five.length + twenty.length);
    const old = got.slice(0, five.length);
    assert.deepEqual(
      old.map((r) => [r.timeStamp, r.buyPrice, r.minBuy, r.maxBuy, r.minSell, r.maxSell, r.count]),
      five.map((p) => [iso(p.ts), p.buy, p.minBuy, p.maxBuy, p.minSell, p.maxSell, p.samples]),
    );
    assert.deepEqual(got.slice(five.length).map((r) => r.timeStamp), twenty.map((r) => iso(r.ts)));
    const times = got.map((r) => Date.parse(r.timeStamp));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
  });

  it('fullOrderBook includes both books on every 20-second row, carried forward from the last change', async () => {
    const res = await exportOf(`?start=${iso(NOW - HOUR)}&fullOrderBook=true`, await token('premium'));
    assert.equal(res.statusCode, 200);
    const got = rowsOf(res.rawPayload);
    const changeAt = iso(data[bookAt2]!.ts);
    const i = got.findIndex((r) => r.timeStamp === changeAt);
    assert.ok(i > 0);
    // instant-buy side = sell offers, instant-sell side = buy orders
    assert.deepEqual(got[i - 1]!.buyOrders, BOOK_1.sellOffers);
    assert.deepEqual(got[i - 1]!.sellOrders, BOOK_1.buyOrders);
    assert.deepEqual(got[0]!.buyOrders, BOOK_1.sellOffers, 'the book stored 15 days ago is carried forward');
    assert.deepEqual(got[i]!.buyOrders, BOOK_2.sellOffers);
    assert.deepEqual(got[got.length - 1]!.sellOrders, BOOK_2.buyOrders);
  });

  it('Premium reaches 180 days back, Premium+ all history', async () => {
    const old = `?start=${iso(NOW - 181 * DAY)}&end=${iso(NOW - 170 * DAY)}`;
    const premium = await exportOf(old, await token('premium'));
    assert.equal(premium.statusCode, 403);
    assert.match(premium.json().detail, /180 days.*Premium\+/);
    const plus = await exportOf(old, await token('premium_plus'));
    assert.equal(plus.statusCode, 200);
    assert.deepEqual(rowsOf(plus.rawPayload), []);
    const inside = await exportOf(`?start=${iso(NOW - 179 * DAY)}&end=${iso(NOW - 170 * DAY)}`, await token('premium'));
    assert.equal(inside.statusCode, 200);
  });

  it('rejects bad input with 400/404 problems without charging the budget', async () => {
    const bearer = await token('premium');
    const cases: Array<[string, number, string]> = [
      [`?start=${iso(NOW)}&end=${iso(NOW - HOUR)}`, 400, 'invalid_range'],
      ['?start=last-week', 400, 'invalid_date'],
      ['?fullOrderBook=maybe', 400, 'validation_failed'],
    ];
    for (const [query, status, slug] of cases) {
      const res = await exportOf(query, bearer);
      assert.equal(res.statusCode, status, query);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      if (slug !== 'validation_failed') assert.equal(res.json().slug, slug);
    }
    const unknown = await t.app.inject({ url: '/api/bazaar/NOT_A_PRODUCT/export', headers: { authorization: `Bearer ${bearer}` } });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().slug, 'item_not_found');
    for (let i = 0; i < 5; i++) assert.equal((await exportOf(`?start=${iso(NOW - MINUTE)}`, bearer)).statusCode, 200, `export ${i + 1}`);
  });

  it('cost limiter: 5 units per 5 minutes per account, a full order book costs 3', async () => {
    const bearer = await token('premium_plus');
    const q = `?start=${iso(NOW - MINUTE)}`;
    assert.equal((await exportOf(`${q}&fullOrderBook=true`, bearer)).statusCode, 200); // 3
    assert.equal((await exportOf(q, bearer)).statusCode, 200); // 4
    const full = await exportOf(`${q}&fullOrderBook=true`, bearer); // 7 > 5
    assert.equal(full.statusCode, 429);
    assert.equal(full.headers['content-type'], 'application/problem+json');
    assert.ok(Number(full.headers['retry-after']) > 0);
    assert.equal((await exportOf(q, bearer)).statusCode, 200, 'the refused request was not charged'); // 5
    const over = await exportOf(q, bearer);
    assert.equal(over.statusCode, 429);
    assert.match(over.json().detail, /5 units per 5m/);
    // Another account has its own budget.
    assert.equal((await exportOf(q, await token('premium'))).statusCode, 200);
    // The window passes.
    t.clock.advance(5 * MINUTE);
    assert.equal((await exportOf(q, bearer)).statusCode, 200);
    t.clock.set(NOW);
  });

  it('pages through the rows without losing or repeating any, whatever the page size', async () => {
    const collect = async (pageSize: number, fullOrderBook: boolean, pageChunks?: number) => {
      let text = '';
      for await (const chunk of exportJson(t.store, { productId: P, start: NOW - 15 * DAY, end: NOW, now: NOW, fullOrderBook, pageSize, pageChunks })) text += chunk;
      return JSON.parse(text) as ExportRow[];
    };
    for (const full of [false, true]) {
      const big = await collect(100_000, full, 10_000);
      const small = await collect(7, full, 1);
      assert.ok(big.length > 1000);
      assert.deepEqual(small, big, `fullOrderBook=${full}`);
      if (!full) assert.deepEqual(await collect(7, full, 3), big, 'pages of three chunks');
    }
  });
});
