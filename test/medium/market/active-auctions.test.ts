import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { compileFilters } from '../../../src/domain/filters.ts';
import { ActiveAuctionsView } from '../../../src/market/active-auctions.ts';
import { Store } from '../../../src/store/index.ts';
import { listing, realRows, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend, openTestStore } from '../../helpers/databases.ts';
import { waitUntil } from '../../helpers/wait.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import type { ChangeSource } from '../../../src/spine/index.ts';
import { Followers } from '../../../src/spine/follower.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const all = compileFilters({}).test;

describeEachBackend('active auctions view', (fixture) => {
  it('loads the store, serves lowest BIN cheapest first, and follows generations and sales on the spine', async () => {
    const { store } = fixture();
    const clock = new ManualClock(NOW);
    const cheap = listing(NOW, { starting_bid: 100 });
    const mid = listing(NOW, { starting_bid: 500, enchantments: { sharpness: 6 } });
    const withBid = listing(NOW, { starting_bid: 50, bin: false, highest_bid: 60 });
    const auction = listing(NOW, { starting_bid: 10, bin: false });
    const ended = listing(NOW, { starting_bid: 1, end_at: NOW - 1 });
    const other = listing(NOW, { tag: 'TERMINATOR', starting_bid: 5 });
    await storeGeneration(store, NOW - 60_000, [cheap, mid, withBid, auction, ended, other]);

    const view = new ActiveAuctionsView(store, clock);
    try {
      await view.ready();
      assert.equal(view.size, 6);
      assert.deepEqual(
        view.lowestBin('HYPERION', all, 10).map((l) => l.uuid),
        [cheap.uuid, mid.uuid],
        'only unended BIN auctions without bids, cheapest first',
      );
      assert.deepEqual(view.lowestBin('HYPERION', compileFilters({ sharpness: '6' }).test, 10).map((l) => l.uuid), [mid.uuid]);
      assert.deepEqual(view.lowestBin('HYPERION', all, 1, 1).map((l) => l.uuid), [mid.uuid], 'offset');
      assert.deepEqual(view.lowestBin('NOPE', all, 10), []);
      assert.ok(view.hasItemUid(cheap.item_uid!));

      // Next generation: cheap is gone, a cheaper one appears, mid changes price.
      const cheaper = listing(NOW, { starting_bid: 50 });
      const version = view.version;
      await storeGeneration(store, NOW, [cheaper, { ...mid, starting_bid: 40, last_updated: NOW }], [], [cheap.uuid]);
      assert.ok(view.version > version, 'the event reached the view');
      assert.deepEqual(view.lowestBin('HYPERION', all, 10).map((l) => [l.uuid, l.startingBid]), [
        [mid.uuid, 40],
        [cheaper.uuid, 50],
      ]);
      assert.ok(!view.hasItemUid(cheap.item_uid!));

      // A sale from auctions_ended removes the listing at once.
      await storeSales(store, NOW + 1, [sale(NOW, 0, { uuid: mid.uuid, item_uid: mid.item_uid })]);
      assert.deepEqual(view.lowestBin('HYPERION', all, 10).map((l) => l.uuid), [cheaper.uuid]);
      assert.equal(view.get(mid.uuid), undefined);

      // Time passes: ended listings disappear from reads without a generation.
      clock.set(NOW + 2 * 86_400_000);
      assert.deepEqual(view.lowestBin('HYPERION', all, 10), []);
      assert.equal(view.random(), undefined);
    } finally {
      view.close();
    }
  });

  it('filterAll orders by end and pages; lowSupply reports thin tags with their two cheapest BINs', async () => {
    const { store } = fixture();
    const clock = new ManualClock(NOW);
    const view = new ActiveAuctionsView(store, clock);
    try {
      await view.ready();
      const a = listing(NOW, { tag: 'RARE_THING', starting_bid: 300, end_at: NOW + 3000 });
      const b = listing(NOW, { tag: 'RARE_THING', starting_bid: 200, end_at: NOW + 1000 });
      const c = listing(NOW, { tag: 'RARE_THING', starting_bid: 100, end_at: NOW + 2000, tier: 'EPIC' });
      await storeGeneration(store, NOW + 10_000, [a, b, c]);
      const rare = compileFilters({ ItemId: 'RARE_THING' }).test;
      assert.deepEqual(view.filterAll(rare, 10).map((l) => l.uuid), [b.uuid, c.uuid, a.uuid]);
      assert.deepEqual(view.filterAll(rare, 1, 1).map((l) => l.uuid), [c.uuid]);
      assert.deepEqual(view.filterAll(compileFilters({ ItemId: 'RARE_THING', Rarity: 'EPIC' }).test, 10).map((l) => l.uuid), [c.uuid]);
      const low = view.lowSupply(20).find((s) => s.tag === 'RARE_THING');
      assert.equal(low?.supply, 3);
      assert.equal(low?.lowest?.uuid, c.uuid);
      assert.equal(low?.secondLowest?.uuid, b.uuid);
    } finally {
      view.close();
    }
  });
});

describe('active auctions view as a projection of the spine (another process\'s writes)', () => {
  const dir = tempDir('view');
  let writer: Store;
  let reader: Store;
  before(async () => {
    writer = await Store.open({ dataDir: dir.path });
    reader = await Store.open({ dataDir: dir.path });
  });
  after(async () => {
    await writer.close();
    await reader.close();
    dir.remove();
  });

  it('applies the writer\'s changes without reading the store, and resynchronises from the store on a hole', async () => {
    const clock = new ManualClock(NOW);
    // The transport between the two: the writer's numbered changes, handed over one by one (or
    // dropped on the way, as a lost message would be).
    let drop = false;
    const spine: ChangeSource = {
      head: () => writer.changes.head(),
      subscribe: (from, handler) => writer.changes.subscribe(from, (event) => drop || handler(event)),
    };
    const followers = new Followers();
    const view = new ActiveAuctionsView(reader, clock, { changes: spine, followers });
    try {
      const first = listing(NOW, { starting_bid: 7 });
      await storeGeneration(writer, NOW - 1000, [first]);
      await view.ready();
      assert.deepEqual(view.lowestBin('HYPERION', all, 10).map((x) => x.uuid), [first.uuid], 'the first load reads the store');
      const loaded = view.listingsLoaded;
      assert.equal(loaded, 1);

      const second = listing(NOW, { starting_bid: 5 });
      await storeGeneration(writer, NOW, [second]);
      await storeSales(writer, NOW + 1, [sale(NOW, 0, { uuid: first.uuid })]);
      assert.deepEqual(view.lowestBin('HYPERION', all, 10).map((x) => x.uuid), [second.uuid], 'both changes applied');
      assert.equal(view.listingsLoaded, loaded, 'no listing read from the store');
      const seq = view.seq;
      assert.equal(seq, writer.changes.last);
      assert.equal(followers.resyncCount(), 0);

      // A change is lost on the way: the next one shows the hole, and the view reloads from the store.
      drop = true;
      const third = listing(NOW, { starting_bid: 3 });
      await storeGeneration(writer, NOW + 2, [third]);
      drop = false;
      assert.equal(view.get(third.uuid), undefined, 'the lost change never arrived');
      const fourth = listing(NOW, { starting_bid: 4 });
      await storeGeneration(writer, NOW + 3, [fourth]);
      await waitUntil(() => followers.behind().length === 0 && view.get(third.uuid) !== undefined, 2000, 'the view to catch up with the spine');
      assert.deepEqual(view.lowestBin('HYPERION', all, 10).map((x) => x.uuid), [third.uuid, fourth.uuid, second.uuid]);
      assert.deepEqual(followers.all[0]!.resyncs, { 'seq-jump': 1 });
      assert.equal(view.listingsLoaded, loaded + 3, 'the resync read the active listings once');
      assert.equal(view.seq, seq + 2);
    } finally {
      view.close();
    }
  });
});


describeEachBackend('active auctions view: binRows for the attribute flips', (fixture) => {
  it('returns the same rows as the store query the flips read before (bids, ended, non-BIN, missing start)', async () => {
    const { store } = fixture();
    const view = new ActiveAuctionsView(store, new ManualClock(NOW));
    try {
      const rows = [
        listing(NOW, { starting_bid: 100, flat_nbt: { rarity_upgrades: '1', hot_potato_count: '10' }, reforge: 'withered' }),
        listing(NOW, { starting_bid: 200, highest_bid: 200 }), // a BIN already bought: still active until the next generation
        listing(NOW, { starting_bid: 300, bin: false }),
        listing(NOW, { starting_bid: 400, end_at: NOW - 1 }),
        listing(NOW, { starting_bid: 500, start_at: null, enchantments: {} }),
        listing(NOW, { tag: 'TERMINATOR', starting_bid: 600, count: 3, tier: null }),
        listing(NOW, { tag: 'UNASKED', starting_bid: 700 }),
      ];
      await storeGeneration(store, NOW, rows);
      await storeSales(store, NOW + 1, [sale(NOW, 0, { tag: 'HYPERION' })]);
      await view.ready();
      const tags = ['HYPERION', 'TERMINATOR', 'NOT_LISTED'];
      const byUuid = (a: { uuid: string }, b: { uuid: string }) => (a.uuid < b.uuid ? -1 : 1);
      const fromStore = (await store.flipInputs.activeBins(tags, NOW)).sort(byUuid);
      const fromView = view.binRows(tags, NOW).sort(byUuid);
      assert.equal(fromStore.length, 4);
      assert.deepEqual(fromView, fromStore);

      // Unchanged listings keep their row object (the flips cache what they derive from it); a changed one gets a new row.
      const again = new Map(view.binRows(tags, NOW).map((r) => [r.uuid, r]));
      for (const r of fromView) assert.equal(again.get(r.uuid), r, 'same object while unchanged');
      const changed = { ...rows[0]!, starting_bid: 90, last_updated: NOW + 2 };
      await storeGeneration(store, NOW + 2, [changed]);
      const after = new Map(view.binRows(tags, NOW).map((r) => [r.uuid, r]));
      assert.equal(after.get(changed.uuid)!.price, 90);
      assert.notEqual(after.get(changed.uuid), again.get(changed.uuid));
      assert.equal(after.get(rows[1]!.uuid), again.get(rows[1]!.uuid));
    } finally {
      view.close();
    }
  });
});

describe('active auctions view on the real 2022 pages', () => {
  it('holds every auction and its lowest BIN matches a direct computation over the raw pages', async () => {
    const { store, close } = await openTestStore('sqlite');
    const view = new ActiveAuctionsView(store, new ManualClock(NOW));
    try {
      const { listings, bids, raw } = realRows(NOW);
      await storeGeneration(store, NOW, listings, bids);
      await view.ready();
      assert.equal(view.size, raw.length);
      // The most listed tag, computed from the decoded rows, checked against the raw upstream fields.
      const counts = new Map<string, number>();
      for (const l of listings) counts.set(l.tag, (counts.get(l.tag) ?? 0) + 1);
      const [tag] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
      const tagOf = new Map(listings.map((l) => [l.uuid, l.tag]));
      const expected = raw
        .filter((a) => tagOf.get(a.uuid.toLowerCase()) === tag && a.bin === true && !(a.bids ?? []).length && a.end > NOW)
        .sort((a, b) => a.starting_bid - b.starting_bid || a.end - b.end || (a.uuid < b.uuid ? -1 : 1))
        .slice(0, 10)
        .map((a) => a.starting_bid);
      assert.ok(expected.length > 0, `tag ${tag} has BIN auctions`);
      assert.deepEqual(view.lowestBin(tag, all, 10).map((l) => l.startingBid), expected);
    } finally {
      view.close();
      await close();
    }
  });

  it('binRows equals the store query over every real tag', async () => {
    const { store, close } = await openTestStore('sqlite');
    const view = new ActiveAuctionsView(store, new ManualClock(NOW));
    try {
      const { listings, bids } = realRows(NOW);
      await storeGeneration(store, NOW, listings, bids);
      await view.ready();
      const tags = [...new Set(listings.map((l) => l.tag))];
      const byUuid = (a: { uuid: string }, b: { uuid: string }) => (a.uuid < b.uuid ? -1 : 1);
      const fromStore = (await store.flipInputs.activeBins(tags, NOW)).sort(byUuid);
      assert.ok(fromStore.length > 1000, `${fromStore.length} active BINs`);
      assert.deepEqual(view.binRows(tags, NOW).sort(byUuid), fromStore);
    } finally {
      view.close();
      await close();
    }
  });
});
