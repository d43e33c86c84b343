/**
 * Price movers over HTTP (`GET /api/prices/change`), on SQLite and PostgreSQL: auction items from
 * sales of known prices (averages per item over 24 hours and 30 days, the lowest BIN per item),
 * bazaar products from the simulator's bazaar history; the home page's movers from the same service.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DAY_MS, HOUR_MS } from '../../../src/domain/prices.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { fillFromSimulator, SIM_START, type SimMarket } from '../../helpers/sim-market.ts';

interface Drop {
  monthly: number;
  recent: number;
  tag: string;
  volume: number;
  lastUpdated: string;
  now: number;
}

describeEachBackend('price movers', (fixture) => {
  let t: TestApp;
  let sim: SimMarket;
  let product: string;

  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    // A tag of our own with sales of known prices: two in the last day (one a stack of 4), one 10 days ago.
    const tag = 'TEST_MOVER_SWORD';
    await storeSales(t.store, SIM_START - 60_000, [
      sale(SIM_START, 3 * HOUR_MS, { tag, item_name: 'Mover Sword', sold_price: 100, count: 1 }),
      sale(SIM_START, 5 * HOUR_MS, { tag, item_name: 'Mover Sword', sold_price: 800, count: 4 }),
      sale(SIM_START, 10 * DAY_MS, { tag, item_name: 'Mover Sword', sold_price: 1100, count: 1 }),
    ]);
    // 40 products (the simulator keeps every group): a day and more of history for each of ~1,500 products
    // made this the costliest medium file, and the movers are computed per product alike.
    sim = await fillFromSimulator(t.store, { auctions: 200, historyHours: 30, detailedMinutes: 20, generations: 1, products: 40 });
    t.clock.set(sim.clock.now());
    const now = t.clock.now();
    product = Object.keys(sim.sim.market.bazaar().products)[0]!;
    await storeGeneration(t.store, now - 30_000, [
      listing(now, { tag, item_name: 'Mover Sword', starting_bid: 360, count: 4 }),
      listing(now, { tag, item_name: 'Mover Sword', starting_bid: 95, count: 1 }),
    ]);
    await t.app.market.activeAuctions.ready();
    await priceRollupsOf(t).tick(now);
    t.app.market.flips.setOptions({ bucketMs: 60_000, mayorMinChange: 0.001, auctionsMinIntervalMs: 0 });
    await t.app.market.flips.refresh();
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  const changes = async (query: string) => {
    const res = await t.app.inject(`/api/prices/change?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as Record<string, Drop>;
  };

  test('auction items: mean sale price per item over 24 hours and 30 days, sales of the day, the lowest BIN per item', async () => {
    const got = await changes('itemTags=TEST_MOVER_SWORD');
    const d = got['TEST_MOVER_SWORD']!;
    // 24 h: 100, and 800 for 4 items (200 each): (100 + 200) / 2; 30 days: (100 + 200 + 1100) / 3.
    assert.equal(d.recent, 150);
    assert.equal(d.monthly, Math.round((1400 / 3) * 100) / 100);
    assert.equal(d.volume, 2, 'two sales in the last 24 hours');
    assert.equal(d.now, 90, 'the cheapest per item: 360 for 4');
    assert.equal(d.tag, 'TEST_MOVER_SWORD');
    assert.equal(d.lastUpdated, new Date(t.clock.now()).toISOString());
  });

  test('bazaar products: instant-buy now, the means of the history, the moving week per day', async () => {
    const got = await changes(`itemTags=${product}`);
    const d = got[product]!;
    const snap = (await t.store.bazaar.snapshotAt(product, t.clock.now()))!;
    assert.equal(d.now, Math.round(snap.buy_price * 100) / 100);
    assert.equal(d.lastUpdated, new Date(Number(snap.ts)).toISOString());
    assert.equal(d.volume, Math.round(Number(snap.buy_moving_week) / 7));
    assert.ok(d.recent > 0 && d.monthly > 0);
    // The simulated prices wander around one level: the averages are of the same order as now.
    assert.ok(d.recent / d.now > 0.5 && d.recent / d.now < 2, JSON.stringify(d));
  });

  test('many tags, repeated or comma-separated, aliases accepted, unknown left out; bad input is 400', async () => {
    const both = await changes(`itemTags=${product}&itemTags=test_mover_sword&itemTags=NOT_TRADED_ANYWHERE`);
    assert.deepEqual(Object.keys(both).sort(), [product, 'TEST_MOVER_SWORD'].sort());
    assert.deepEqual(await changes(`itemTags=${product},TEST_MOVER_SWORD`), both);
    for (const bad of ['', 'itemTags=BAD%20TAG!', `itemTags=${Array.from({ length: 101 }, (_, i) => `T${i}`).join(',')}`]) {
      const res = await t.app.inject(`/api/prices/change?${bad}`);
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
      assert.ok(res.json().slug, res.body);
    }
  });

  test('the home page shows the bazaar movers of the same service', async () => {
    const movers = t.app.services.priceChanges.bazaarMovers(8);
    assert.ok(movers.length > 0);
    const home = await t.app.inject('/');
    assert.equal(home.statusCode, 200);
    for (const m of movers) assert.ok(home.body.includes(m.name), m.name);
  });
});
