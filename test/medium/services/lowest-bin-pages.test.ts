/**
 * The lowest-BIN pages: the unfiltered first page of a tag as data from the auctions service
 * (services/auctions.ts firstLowestBinPage, nbtData decoded once per auction by
 * market/auction-nbt.ts), prepared as the route declares it in the registry of prepared answers
 * (http/prepared-answers.ts): kept while the view's generation is unchanged and none of the page's
 * listings has ended, served from memory only for tags the loaded view lists.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { ActiveAuctionsView } from '../../../src/market/active-auctions.ts';
import { AuctionNbt } from '../../../src/market/auction-nbt.ts';
import { PreparedAnswers } from '../../../src/http/prepared-answers.ts';
import { AuctionService, LOWEST_BIN_COUNT } from '../../../src/services/auctions.ts';
import { listing, realRows, storeGeneration } from '../../helpers/auctions.ts';
import { openTestStore } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

it('a page is built once, served while current, and rebuilt after a change or when a listing on it ends', async () => {
  const { store, close } = await openTestStore('sqlite');
  const clock = new ManualClock(NOW);
  const view = new ActiveAuctionsView(store, clock);
  try {
    const soon = listing(NOW, { starting_bid: 100, end_at: NOW + 60_000 });
    const later = listing(NOW, { starting_bid: 200, end_at: NOW + 3_600_000 });
    const many = Array.from({ length: LOWEST_BIN_COUNT + 2 }, (_, i) => listing(NOW, { tag: 'MANY', starting_bid: 1000 + i }));
    await storeGeneration(store, NOW, [soon, later, ...many]);
    const itemNbtOf = store.auctionQueries.itemNbtOf.bind(store.auctionQueries);
    let nbtReads = 0;
    store.auctionQueries.itemNbtOf = (uuids) => {
      nbtReads += uuids.length;
      return itemNbtOf(uuids);
    };
    const auctions = new AuctionService({ store, clock, market: { activeAuctions: view, auctionNbt: new AuctionNbt(store) } });
    // As api/auctions.ts declares the kind.
    const kind = new PreparedAnswers({
      name: 'lowest-bin-page',
      generation: () => auctions.listingsGeneration(),
      servable: (tag) => auctions.listsTag(tag),
      build: async (tag: string) => {
        const page = await auctions.firstLowestBinPage(tag);
        return { value: page.auctions, validUntil: page.validUntil };
      },
    }, () => clock.now());
    const pages = {
      current: (tag: string) => kind.current(tag)?.plain,
      page: async (tag: string) => (await kind.get(tag, undefined))!.plain,
    };

    assert.equal(pages.current('HYPERION'), undefined, 'nothing before the view is loaded');
    await view.ready();
    assert.equal(pages.current('HYPERION'), undefined, 'nothing before the page is built');
    const body = await pages.page('HYPERION');
    assert.deepEqual((JSON.parse(body.toString()) as Array<{ uuid: string }>).map((a) => a.uuid), [soon.uuid, later.uuid]);
    assert.equal(pages.current('HYPERION'), body, 'the same bytes while current');
    assert.equal(await pages.page('HYPERION'), body);
    assert.equal(pages.current('NO_SUCH_TAG'), undefined, 'only tags the view lists');
    assert.equal(JSON.parse((await pages.page('MANY')).toString()).length, LOWEST_BIN_COUNT);

    // The soonest listing on the page ends: the page could change, so it is built again.
    clock.set(NOW + 60_000);
    assert.equal(pages.current('HYPERION'), undefined);
    const builds = kind.builds;
    const after = await pages.page('HYPERION');
    assert.equal(kind.builds - builds, 1, 'built once');
    assert.deepEqual((JSON.parse(after.toString()) as Array<{ uuid: string }>).map((a) => a.uuid), [later.uuid]);

    // A new generation changes the view: built again, nbtData of known auctions not read again.
    const reads = nbtReads;
    const cheaper = listing(NOW, { starting_bid: 50, end_at: NOW + 3_600_000 });
    await storeGeneration(store, NOW + 60_000, [cheaper, later, ...many], [], [soon.uuid]);
    assert.equal(pages.current('HYPERION'), undefined);
    assert.deepEqual((JSON.parse((await pages.page('HYPERION')).toString()) as Array<{ uuid: string }>).map((a) => a.uuid), [cheaper.uuid, later.uuid]);
    assert.equal(nbtReads - reads, 1, 'only the new auction read its item');
  } finally {
    view.close();
    await close();
  }
});

it('AuctionNbt decodes the stored item of each auction once, {} for an item it cannot read', async () => {
  const { store, close } = await openTestStore('sqlite');
  try {
    const { listings } = realRows(NOW);
    const real = listings.slice(0, 3);
    const plain = listing(NOW); // its item bytes hold no item
    await storeGeneration(store, NOW, [...real, plain]);
    const nbt = new AuctionNbt(store);
    const first = await nbt.of([...real.map((r) => r.uuid), plain.uuid, 'f'.repeat(32)]);
    for (const r of real) assert.ok(first.get(r.uuid)?.data, `nbtData of ${r.uuid}`);
    assert.deepEqual(first.get(plain.uuid), {});
    assert.deepEqual(first.get('f'.repeat(32)), {});
    const again = await nbt.of([real[0]!.uuid]);
    assert.equal(again.get(real[0]!.uuid), first.get(real[0]!.uuid), 'kept, not decoded again');
  } finally {
    await close();
  }
});
