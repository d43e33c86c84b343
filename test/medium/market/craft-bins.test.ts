/**
 * The crafting view prices auction-only ingredients from the in-memory active-auctions view:
 * a new cheaper BIN committed by ingestion changes the craft profit at the next read, without
 * the crafting view querying the auctions table or re-reading the bazaar.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { ActiveAuctionsView } from '../../../src/market/active-auctions.ts';
import { CraftMarket } from '../../../src/market/craft.ts';
import type { Store } from '../../../src/store/index.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { offerRow } from '../../helpers/bazaar.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { craft, game } from '../../helpers/craft.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

/** Counts calls of the store reads the crafting view could make. */
function spy(store: Store) {
  const calls = { lowestBins: 0, latestBazaar: 0, activeListings: 0, election: 0 };
  const wrap = <T extends object>(obj: T, name: keyof T & string, key: keyof typeof calls) => {
    const fn = (obj[name] as (...a: unknown[]) => unknown).bind(obj);
    (obj as Record<string, unknown>)[name] = (...args: unknown[]) => {
      calls[key]++;
      return fn(...args);
    };
  };
  wrap(store.marketPrices, 'lowestBins', 'lowestBins');
  wrap(store.marketPrices, 'latestBazaar', 'latestBazaar');
  wrap(store.auctionQueries, 'activeListingChunks', 'activeListings');
  wrap(store.elections, 'latest', 'election');
  return calls;
}

describeEachBackend('crafting view with the active-auctions view', (fixture) => {
  it('a new cheaper BIN changes the craft profit without a store read of auctions or bazaar', async () => {
    const { store } = fixture();
    const clock = new ManualClock(NOW);
    // HELMET = 1 HELM_CORE (auction only) + 10 WHEAT (bazaar); HELMET sells on the bazaar.
    const data = game([craft('HELMET', { HELM_CORE: 1, WHEAT: 10 })]);
    const row = (product: string, offer: number, ts = NOW) => offerRow(product, ts, offer);
    await store.bazaar.insertSnapshot([row('HELMET', 20_000), row('WHEAT', 5)], { name: 'bazaar', lastUpdated: NOW, storedAt: NOW, records: 2, source: 'simulator' });
    await storeGeneration(store, NOW, [listing(NOW, { tag: 'HELM_CORE', item_name: 'Helm Core', starting_bid: 9_000 }), listing(NOW, { tag: 'HELM_CORE', item_name: 'Helm Core', starting_bid: 12_000 })]);

    const view = new ActiveAuctionsView(store, clock);
    try {
      const market = new CraftMarket({ store, game: data, clock, activeBins: view });
      const first = (await market.current()).profits.find((p) => p.itemId === 'HELMET');
      assert.ok(first, 'HELMET is profitable');
      assert.equal(first.craftCost, 9_000 + 10 * 5);
      const calls = spy(store);

      // Ingestion commits a generation with a cheaper Helm Core; the store's change event reaches the view.
      const cheap = listing(NOW, { tag: 'HELM_CORE', item_name: 'Helm Core', starting_bid: 6_500 });
      await storeGeneration(store, NOW + 60_000, [cheap]);
      clock.advance(60_000);
      const state = await market.current();
      const second = state.profits.find((p) => p.itemId === 'HELMET')!;
      assert.equal(second.craftCost, 6_500 + 10 * 5);
      assert.equal(Math.round((second.profit - first.profit) * 10) / 10, 2_500);
      assert.equal(state.prices.lowestBins('HELM_CORE')![0]!.uuid, cheap.uuid);
      assert.deepEqual(calls, { lowestBins: 0, latestBazaar: 0, activeListings: 0, election: 0 }, 'BINs from memory; bazaar rows and mayor reused');

      // Nothing moved: the same state, no rebuild.
      assert.equal(await market.current(), state);
      // A new bazaar snapshot re-reads the bazaar (and only that).
      await store.bazaar.insertSnapshot([row('HELMET', 21_000, NOW + 120_000), row('WHEAT', 5, NOW + 120_000)], { name: 'bazaar', lastUpdated: NOW + 120_000, storedAt: NOW + 120_000, records: 2, source: 'simulator' });
      const third = (await market.current()).profits.find((p) => p.itemId === 'HELMET')!;
      assert.ok(third.sellPrice > second.sellPrice, `${third.sellPrice} vs ${second.sellPrice}`);
      assert.deepEqual(calls, { lowestBins: 0, latestBazaar: 1, activeListings: 0, election: 0 });
    } finally {
      view.close();
    }
  });
});
