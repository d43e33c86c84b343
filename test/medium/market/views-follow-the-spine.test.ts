/**
 * The views that had freshness timers follow the spine instead (issue 41): the bulk price files
 * are rebuilt after each change the active-auctions view applies, the item catalog after each
 * auctions generation and each `items` resource change, the craft view after each snapshot or
 * generation. No timer: nothing is rebuilt while nothing changes, and a change is enough.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { builtinGameData } from '../../../src/gamedata/builtin.ts';
import { createLogger } from '../../../src/logger.ts';
import { ActiveAuctionsView } from '../../../src/market/active-auctions.ts';
import { BulkPrices } from '../../../src/market/bulk-prices.ts';
import { ItemCatalog } from '../../../src/market/item-catalog.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { openTestStore } from '../../helpers/databases.ts';
import { waitUntil } from '../../helpers/wait.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

it('the bulk files and the item catalog are rebuilt by the changes the view applies, and only by them', async () => {
  const { store, close } = await openTestStore('sqlite');
  const clock = new ManualClock(NOW);
  const logger = createLogger('silent');
  const view = new ActiveAuctionsView(store, clock);
  const bulk = new BulkPrices({ store, view, clock, logger });
  const catalog = new ItemCatalog({
    store,
    game: builtinGameData(),
    clock,
    logger,
    activeCounts: () => view.supplyByTag(),
    listingsChanged: (listener) => view.onChange(listener),
    changes: store.changes,
  });
  try {
    await storeGeneration(store, NOW, [listing(NOW, { tag: 'HYPERION', starting_bid: 100 })]);
    await view.ready();
    bulk.start();
    await catalog.start();
    await waitUntil(() => bulk.latest() !== undefined, 10_000, 'the first build after the load');
    const first = bulk.latest()!;
    assert.deepEqual(first.files['neu/lowestbin'].value, { HYPERION: 100 });
    const catalogBuilds = catalog.builds;

    // A generation: the view applies it, the files and the catalog follow without a request.
    await storeGeneration(store, NOW + 60_000, [listing(NOW, { tag: 'HYPERION', starting_bid: 90 }), listing(NOW, { tag: 'ASPECT_OF_THE_END', starting_bid: 5 })]);
    await waitUntil(() => bulk.latest() !== first, 10_000, 'the files rebuilt after the generation');
    assert.deepEqual(bulk.latest()!.files['neu/lowestbin'].value, { ASPECT_OF_THE_END: 5, HYPERION: 90 });
    await waitUntil(() => catalog.builds > catalogBuilds, 10_000, 'the catalog rebuilt after the generation');
    await waitUntil(() => catalog.get('ASPECT_OF_THE_END')?.activeListings === 1, 10_000, 'the catalog counts the new listing');

    // An items resource change rebuilds the catalog (its names); the files do not move.
    const files = bulk.latest();
    const before = catalog.builds;
    store.changes.publish({ kind: 'resource', resource: 'items', lastUpdated: NOW + 61_000 });
    await waitUntil(() => catalog.builds > before, 10_000, 'the catalog rebuilt after the items change');
    assert.equal(bulk.latest(), files, 'a resource change is not the listings');

    // Nothing changes: nothing is rebuilt (no timer). A second look after the event loop turned.
    const settled = { files: bulk.latest(), builds: catalog.builds };
    await new Promise((r) => setImmediate(r));
    assert.equal(bulk.latest(), settled.files);
    assert.equal(catalog.builds, settled.builds);
  } finally {
    catalog.close();
    bulk.close();
    view.close();
    await close();
  }
});
