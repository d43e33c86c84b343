/**
 * A running skymarket on simulator data for the page tests, the browser tests and the
 * screenshots: the real app over a real store, filled through the real ingestion path, the
 * flips computed, listening on 127.0.0.1.
 */
import type { Store } from '../../src/store/index.ts';
import { createTestApp, type TestApp } from './app.ts';
import { fillFromSimulator, type SimMarket } from './sim-market.ts';

export interface WebSite {
  t: TestApp;
  sim: SimMarket;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** an auction item with sales and BIN listings, a pet with several rarities, and a bazaar product */
  item: string;
  pet: string | undefined;
  product: string;
  close(): Promise<void>;
}

export async function startWebSite(options: { store?: Store; listen?: boolean; auctions?: number; historyHours?: number } = {}): Promise<WebSite> {
  const t = await createTestApp({ ...(options.store ? { store: options.store } : {}), dataSource: 'simulator', env: { FLIPS_POLL_MS: '0' } });
  const sim = await fillFromSimulator(t.store, { historyHours: options.historyHours ?? 6, detailedMinutes: 60, generations: 3, auctions: options.auctions ?? 1500 });
  t.clock.set(sim.clock.now());
  await t.app.market.flips.refresh();
  // The catalog refreshes on store events in the background: read it once it has the ingested items.
  await t.app.market.catalog.refresh();
  const origin = options.listen === false ? '' : await t.app.listen({ host: '127.0.0.1', port: 0 });
  // The item with the most sales in the last week that has a BIN listed; a pet likewise.
  const since = t.clock.now() - 7 * 86_400_000;
  const counts = new Map<string, number>();
  const tags = [...t.app.market.activeAuctions.tags()];
  for (const tag of tags) {
    let n = 0;
    for await (const rows of t.store.auctionQueries.soldLeanChunks(tag, since, { max: 60 })) n += rows.length;
    counts.set(tag, n);
  }
  const ranked = tags.filter((tag) => t.app.market.activeAuctions.lowestBin(tag, () => true, 1).length > 0).sort((a, b) => counts.get(b)! - counts.get(a)!);
  const item = ranked.find((tag) => !tag.startsWith('PET_'))!;
  const pet = ranked.find((tag) => tag.startsWith('PET_'));
  const product = t.app.services.items.bazaarTags().find((tag) => tag.startsWith('ENCHANTED_')) ?? t.app.services.items.bazaarTags()[0];
  if (item === undefined || product === undefined) throw new Error(`simulator site: no item (${item}) or bazaar product (${product}) to show`);
  return {
    t,
    sim,
    origin,
    item,
    pet,
    product,
    async close() {
      await sim.close();
      await t.close();
    },
  };
}
