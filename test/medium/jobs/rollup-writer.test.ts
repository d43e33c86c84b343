/**
 * One writer for the price and sales rollups: the market's views (the flip engine, the price
 * routes) only read them; the jobs (jobs/index.ts, the jobs leader) roll hours and days and record
 * the lowest BINs, from the market's view in role all or from the store in role jobs, to the same
 * figures. On SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HOUR_MS } from '../../../src/domain/prices.ts';
import { Jobs } from '../../../src/jobs/index.ts';
import { LowestBins, storeBins, viewBins, type ActiveBinSource } from '../../../src/jobs/price-rollups.ts';
import { createLogger } from '../../../src/logger.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

async function lowestOf(source: ActiveBinSource, now: number) {
  const lowest = new LowestBins();
  for await (const chunk of source(now)) for (const l of chunk) lowest.add(l);
  return lowest.cells().sort((a, b) => (a.tag + a.variant < b.tag + b.variant ? -1 : 1));
}

describeEachBackend('rollups: one writer', (fixture) => {
  let t: TestApp;
  let now: number;
  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    now = t.clock.now();
    const pet = (tier: string, exp: string, price: number, over = {}) =>
      listing(now, { tag: 'PET_BEE', item_name: '[Lvl 1] Bee', tier, starting_bid: price, flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': tier, 'petInfo.exp': exp }, enchantments: {}, ...over });
    await storeGeneration(t.store, now - 60_000, [
      listing(now, { starting_bid: 900_000_000 }),
      listing(now, { starting_bid: 800_000_000, highest_bid: 810_000_000 }), // has a bid: not a BIN price
      listing(now, { starting_bid: 700_000_000, end_at: now - 1000 }), // ended
      listing(now, { tag: 'ENCHANTED_DIAMOND', item_name: 'Enchanted Diamond', starting_bid: 64_000, count: 64, enchantments: {} }),
      // The same unit price twice: both sources keep the same listing.
      listing(now, { tag: 'ENCHANTED_DIAMOND', item_name: 'Enchanted Diamond', starting_bid: 1000, count: 1, enchantments: {}, uuid: 'f'.repeat(32) }),
      listing(now, { tag: 'ENCHANTED_DIAMOND', item_name: 'Enchanted Diamond', starting_bid: 1000, count: 1, enchantments: {}, uuid: 'e'.repeat(32) }),
      pet('EPIC', '0', 2_000_000),
      pet('LEGENDARY', '0', 5_000_000),
      pet('LEGENDARY', '30000000', 9_000_000),
    ]);
    await storeSales(t.store, now, [sale(now, 5 * HOUR_MS, { sold_price: 950_000_000 }), sale(now, 3 * HOUR_MS, { sold_price: 990_000_000 }), sale(now, 30 * 60_000, { sold_price: 1_000_000_000 })]);
    await t.app.market.activeAuctions.ready();
  });
  after(() => t.close());

  test('the market writes nothing: flips computed over stored sales leave the rollups and the lowest-BIN record untouched', async () => {
    await t.app.market.flips.refresh(true);
    await t.app.inject('/api/item/price/HYPERION/history/day');
    assert.equal((await t.store.saleRollups.state()).rolledTo, 0, 'sales not rolled up by the flip engine');
    assert.deepEqual(await t.store.priceRollups.state(), { rolledTo: 0, daysTo: 0 }, 'prices not rolled up by the market');
    assert.deepEqual(await t.store.priceRollups.binHours('HYPERION', '', 0, now + HOUR_MS), [], 'no lowest BIN recorded by the market');
  });

  test('the lowest BINs read from the store (role jobs) equal those of the market view (role all)', async () => {
    const fromView = await lowestOf(viewBins(t.app.market.activeAuctions), now);
    const fromStore = await lowestOf(storeBins(t.store), now);
    assert.deepEqual(fromStore, fromView);
    const hyperion = fromView.find((b) => b.tag === 'HYPERION')!;
    assert.equal(hyperion.lowest, 900_000_000, 'listings with bids and ended listings do not count');
    const diamond = fromView.find((b) => b.tag === 'ENCHANTED_DIAMOND')!;
    assert.deepEqual([diamond.lowest, diamond.uuid], [1000, 'e'.repeat(32)], 'a tie goes to the first listing cheapest-first');
    const bee = new Map(fromView.filter((b) => b.tag === 'PET_BEE').map((b) => [b.variant, b.lowest]));
    assert.deepEqual([bee.get(''), bee.get('EPIC'), bee.get('LEGENDARY')], [2_000_000, 2_000_000, 5_000_000], 'per price variant');
  });

  test('the jobs leader rolls sales and prices up and records the lowest BINs of the hour', async () => {
    const jobs = new Jobs({ store: t.store, clock: t.clock, logger: createLogger('silent'), activeBins: storeBins(t.store) });
    jobs.start();
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const sales = await t.store.saleRollups.state();
        const prices = await t.store.priceRollups.state();
        const bins = await t.store.priceRollups.binHours('HYPERION', '', 0, now + HOUR_MS);
        if (sales.rolledTo > 0 && prices.rolledTo > now - 2 * HOUR_MS && bins.length > 0) {
          assert.equal(bins[0]!.lowest, 900_000_000);
          assert.equal(bins[0]!.at, Math.floor(now / HOUR_MS) * HOUR_MS);
          const hours = await t.store.priceRollups.hours('HYPERION', '', 0, now);
          assert.deepEqual(hours.map((h) => h.count), [1, 1], 'both closed hours with a sale rolled up');
          break;
        }
        assert.ok(Date.now() < deadline, `rollups written by the jobs within 30 s (sales ${sales.rolledTo}, prices ${prices.rolledTo}, bins ${bins.length})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await jobs.stop();
    }
  });
});
