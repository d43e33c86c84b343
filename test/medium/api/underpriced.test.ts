/**
 * GET /api/flip/auctions on simulator data, on SQLite and PostgreSQL. The seeded market's
 * generations flow through the market's events into the underpriced service (the live path): every
 * listing it lists obeys the rule and the ranking. Then two active BIN listings it did not list,
 * with a value resting on comparable sales, are told to it as a generation's new listings, one
 * asking half its value and one above it (the prices are set in the events; the values are the
 * real valuation's): only the first joins, with its value, confidence and comparables' key, and it
 * leaves when it sells. Bad query parameters are 400s.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { parseEventId, type DraftEvent } from '../../../src/domain/stream-events.ts';
import type { UpstreamAuction } from '../../../src/ingest/upstream.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import type { SimMarket } from '../../helpers/sim-market.ts';
import { fillValuedMarket } from '../../helpers/valued-market.ts';
import { waitUntil } from '../../helpers/wait.ts';

interface Row {
  uuid: string;
  tag: string;
  price: number;
  value: number;
  valueAfterFees: number;
  profit: number;
  percentBelow: number;
  confidence: number;
  comparables: number;
  medianKey: string;
}

describeEachBackend('underpriced listings', (fixture) => {
  let t: TestApp;
  let sim: SimMarket;
  let page: UpstreamAuction[];

  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    ({ sim, page } = await fillValuedMarket(t));
    await t.app.ready();
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('lists the seeded generations\' underpriced listings by the rule, highest expected profit first', async () => {
    const { rule } = t.app.services.underpriced;
    const rows = (await get('/api/flip/auctions?limit=500').then((r) => r.json())) as Row[];
    assert.ok(rows.length > 0, 'the simulator lists some BINs below their value');
    for (const [i, r] of rows.entries()) {
      assert.ok(r.comparables >= rule.minComparables, `${r.uuid}: ${r.comparables} comparables`);
      assert.ok(r.price <= r.valueAfterFees * (1 - rule.minShare) + 1, `${r.uuid}: ${r.price} vs ${r.valueAfterFees}`);
      assert.ok(r.percentBelow >= rule.minShare * 100 - 0.1);
      if (i > 0) assert.ok(rows[i - 1]!.profit >= r.profit, 'ranked by expected profit');
    }
  });

  it('lists the listing asking half its value, not the one above it, ranked with its value and key; a sale removes it', async () => {
    const services = t.app.services;
    const valued: Array<{ a: UpstreamAuction; value: number }> = [];
    const listed = new Set(services.underpriced.ranked({ limit: 10_000 }).map((l) => l.uuid));
    for (const a of page) {
      if (!a.bin || valued.length >= 2 || listed.has(a.uuid)) continue;
      const lv = await services.valuation.valueListing(a.uuid);
      if (lv?.value && lv.valued.valuation.comparables.count >= services.underpriced.rule.minComparables) valued.push({ a, value: lv.value });
    }
    assert.equal(valued.length, 2, 'two listings of the seeded market have a value on enough comparables');
    const [cheap, dear] = valued as [(typeof valued)[number], (typeof valued)[number]];
    const event = (x: (typeof valued)[number], price: number): DraftEvent =>
      ({ topic: 'auction.new', time: t.clock.now(), uuid: x.a.uuid, tag: 'X', variant: null, bin: true, startingBid: price, highestBid: 0, seller: x.a.auctioneer, start: x.a.start, end: x.a.end, price, item: { itemName: x.a.item_name, count: 1, tier: null, reforge: null, itemUid: null, itemCreatedAt: null, enchantments: {}, flatNbt: {} } }) as unknown as DraftEvent;
    const cheapPrice = Math.floor(cheap.value / 2);
    const hub = t.context.streamHub!;
    const lastBefore = hub.lastId();
    await services.underpriced.prepare([event(cheap, cheapPrice), event(dear, Math.ceil(dear.value * 1.2)), { topic: 'generation', time: t.clock.now(), feed: 'auctions', lastUpdated: t.clock.now(), counts: {} }]);

    // The kept listing is told on the live feed as `auction.underpriced`.
    await waitUntil(() => hub.lastId() !== lastBefore, 10_000, 'the auction.underpriced batch');
    const resumed = hub.resume(parseEventId(lastBefore!)!);
    assert.equal(resumed.gap, false);
    const told = resumed.gap ? [] : resumed.batches.flatMap((b) => b.events.map((e) => e.event())).filter((e) => e.topic === 'auction.underpriced');
    assert.deepEqual(told.map((e) => e.topic === 'auction.underpriced' && [e.uuid, e.price]), [[cheap.a.uuid, cheapPrice]]);

    const res = await get('/api/flip/auctions');
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.ok(res.headers['x-computed-at']);
    const rows = res.json() as Row[];
    const uuids = rows.map((r) => r.uuid);
    assert.ok(uuids.includes(cheap.a.uuid) && !uuids.includes(dear.a.uuid), 'the listing at half its value joins, the one above it does not');
    const row = rows.find((r) => r.uuid === cheap.a.uuid)!;
    assert.equal(row.price, cheapPrice);
    assert.equal(row.value, Math.round(cheap.value));
    assert.ok(row.valueAfterFees < row.value);
    assert.ok(Math.abs(row.profit - (row.valueAfterFees - cheapPrice)) <= 1);
    assert.ok(row.percentBelow >= 40, `${row.percentBelow} % below`);
    assert.ok(row.confidence > 0 && row.confidence <= 1);
    assert.ok(row.comparables >= services.underpriced.rule.minComparables);
    assert.ok(row.medianKey.length > 0);

    const richer = (await get(`/api/flip/auctions?limit=500&minProfit=${row.profit + 1}`).then((r) => r.json())) as Row[];
    assert.ok(richer.every((r) => r.profit > row.profit) && !richer.some((r) => r.uuid === cheap.a.uuid));
    assert.deepEqual(await get('/api/flip/auctions?tag=NO_SUCH_TAG').then((r) => r.json()), []);

    const before = rows.length;
    await services.underpriced.prepare([{ topic: 'auction.sold', time: t.clock.now(), uuid: cheap.a.uuid, tag: 'X', variant: null, price: cheapPrice, bin: true, buyer: 'b', seller: null } as unknown as DraftEvent]);
    const afterSale = (await get('/api/flip/auctions').then((r) => r.json())) as Row[];
    assert.ok(!afterSale.some((r) => r.uuid === cheap.a.uuid), 'a sold listing leaves the list');
    assert.equal(afterSale.length, Math.min(100, before) - (before > 100 ? 0 : 1));
  });

  it('answers bad query parameters with a 400 problem', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=x', 'minProfit=-1', 'tag=%3Cscript%3E', `tag=${'A'.repeat(65)}`]) {
      const res = await get(`/api/flip/auctions?${q}`);
      assert.equal(res.statusCode, 400, `${q}: ${res.statusCode}`);
      assert.match(String(res.headers['content-type']), /problem\+json/);
    }
  });
});
