/**
 * The bazaar endpoints on simulator data: history backfilled through the real ingestion
 * path (ingestHistory), rolled up by the jobs, then read back over HTTP. Checks the
 * naming end to end: buyPrice is the lowest sell offer (upstream buy_summary[0]).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { ingestHistory } from '../../../src/ingest/history.ts';
import { BazaarHistoryJobs } from '../../../src/jobs/bazaar-history.ts';
import { createLogger } from '../../../src/logger.ts';
import { Market } from '../../../src/simulator/market.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0); // createTestApp's clock
const HOUR = 3_600_000;

describeEachBackend('bazaar endpoints on simulator history', (fixture) => {
  let t: TestApp;
  const market = new Market({ seed: 7, auctions: 50, generationSeconds: 60, bazaarSeconds: 20, products: 12 }, NOW);

  before(async () => {
    t = await createTestApp({ store: fixture().store, dataSource: 'simulator' });
    const ctx = testIngestContext({ store: t.store, clock: t.clock, source: 'simulator' });
    // 6 hours: 5-minute snapshots before the last hour, 20-second ones within it.
    await ingestHistory(market.backfill(NOW - 6 * HOUR, NOW + 1, { auctionsEnded: false }), ctx);
    await new BazaarHistoryJobs({ store: t.store, clock: new ManualClock(NOW), logger: createLogger('silent') }).runOnce();
  });
  after(() => t.close());

  it('snapshot: prices, counts and both books as upstream reported them', async () => {
    const payload = market.bazaarAt(NOW);
    const product = Object.values(payload.products)[3]!;
    const res = await t.app.inject(`/api/bazaar/${product.product_id.toLowerCase()}/snapshot`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.productId, product.product_id);
    assert.equal(body.timeStamp, new Date(payload.lastUpdated).toISOString());
    assert.equal(body.buyPrice, product.buy_summary[0]!.pricePerUnit, 'buyPrice = lowest sell offer');
    assert.equal(body.sellPrice, product.sell_summary[0]!.pricePerUnit, 'sellPrice = highest buy order');
    assert.ok(body.buyPrice >= body.sellPrice);
    assert.equal(body.buyMovingWeek, Math.round(product.quick_status.buyMovingWeek));
    assert.deepEqual(body.buyOrders, product.buy_summary.map((l) => ({ amount: l.amount, pricePerUnit: l.pricePerUnit, orders: l.orders })));
    assert.deepEqual(body.sellOrders, product.sell_summary.map((l) => ({ amount: l.amount, pricePerUnit: l.pricePerUnit, orders: l.orders })));
  });

  it("history status: how far each resolution reaches, as a JSON string", async () => {
    const id = Object.keys(market.bazaarAt(NOW).products)[0]!;
    const res = await t.app.inject(`/api/bazaar/item/history/${id.toLowerCase()}/status`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const text = res.json() as string;
    assert.equal(typeof text, 'string');
    const iso = '\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z';
    assert.match(text, new RegExp(`^${id} history: 20s ${iso} – ${iso}; 5m ${iso} – ${iso} \\(\\d+ buckets\\); 2h ${iso} – ${iso} \\(\\d+ buckets\\)`), text);
    // The 5-minute rollup covers the six hours backfilled: about 72 buckets, the first six hours back.
    const fiveMinutes = /5m (\S+) – (\S+) \((\d+) buckets\)/.exec(text)!;
    assert.ok(Number(fiveMinutes[3]) >= 70 && Number(fiveMinutes[3]) <= 73, text);
    assert.ok(Math.abs(Date.parse(fiveMinutes[1]!) - (NOW - 6 * HOUR)) <= 5 * 60_000, text);
    const unknown = await t.app.inject('/api/bazaar/item/history/NOT_A_PRODUCT/status');
    assert.equal(unknown.statusCode, 404);
    assert.equal((await t.app.inject('/api/bazaar/item/history/BAD%20TAG!/status')).statusCode, 400);
  });

  it('hour, day and week history answer from the backfilled data', async () => {
    const id = Object.keys(market.bazaarAt(NOW).products)[0]!;
    const hour = (await t.app.inject(`/api/bazaar/${id}/history/hour`)).json();
    assert.ok(hour.length >= 170 && hour.length <= 181, `${hour.length} points`);
    const day = (await t.app.inject(`/api/bazaar/${id}/history/day`)).json();
    assert.ok(day.length >= 70 && day.length <= 73, `${day.length} 5-minute points over 6 hours of data`);
    const week = (await t.app.inject(`/api/bazaar/${id}/history/week`)).json();
    assert.ok(week.length >= 3 && week.length <= 4, `${week.length} 2-hour points`);
    for (const points of [hour, day, week]) {
      for (const p of points) assert.ok(p.minBuy <= p.buy && p.buy <= p.maxBuy && p.minSell <= p.sell && p.sell <= p.maxSell, JSON.stringify(p));
      const times = points.map((p: { timestamp: string }) => Date.parse(p.timestamp));
      assert.deepEqual(times, [...times].sort((a, b) => a - b));
    }
    assert.equal(hour[hour.length - 1].buy, market.bazaarAt(NOW).products[id]!.buy_summary[0]!.pricePerUnit);
  });
});
