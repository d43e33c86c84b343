/**
 * market/events.ts on hand-made changes published to the store's spine: which events each change gives (new, sold,
 * expired, cancelled after the wait, lowest-BIN moves per variant, bazaar products that moved),
 * each sale told once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { MarketEvents } from '../../../src/market/events.ts';
import { Store } from '../../../src/store/index.ts';
import type { AuctionsTable, BazaarSnapshotsTable } from '../../../src/store/schema.ts';
import type { DraftEvent } from '../../../src/domain/stream-events.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { waitUntil } from '../../helpers/wait.ts';
import { toRecord } from '../../../src/store/repositories/auction-queries.ts';

const T0 = Date.UTC(2026, 10, 22, 12);

function row(uuid: string, over: Partial<AuctionsTable> = {}): AuctionsTable {
  return {
    uuid,
    tag: 'HYPERION',
    item_name: 'Hyperion',
    count: 1,
    seller: 'seller',
    profile_id: 'profile',
    coop: '[]',
    start_at: T0,
    end_at: T0 + 3_600_000,
    starting_bid: 1000,
    highest_bid: 0,
    bin: true,
    tier: 'LEGENDARY',
    category: 'WEAPON',
    reforge: null,
    item_uid: null,
    item_created_at: null,
    enchantments: '{}',
    flat_nbt: '{}',
    item_bytes: null,
    state: 'active',
    last_updated: T0,
    sold_price: null,
    buyer: null,
    sold_at: null,
    buyer_profile: null,
    ...over,
  } as AuctionsTable;
}

describe('market events', () => {
  const dir = tempDir('events');
  let store: Store;
  const clock = new ManualClock(T0);
  let events: MarketEvents;
  let batches: DraftEvent[][] = [];
  const auctions = (upserted: AuctionsTable[], removed: string[] = [], sales: Array<{ uuid: string; price: number; buyer: string; at: number }> = []) => {
    batches = [];
    store.changes.publish({ kind: 'auctions', lastUpdated: clock.now(), upserted: upserted.map(toRecord), removed, sales });
    return batches[0]!;
  };
  const topics = (batch: DraftEvent[]) => batch.map((e) => e.topic);

  before(async () => {
    store = await Store.open({ dataDir: dir.path });
    events = new MarketEvents(store, clock, { pendingMs: 120_000 });
    events.emitter.on('batch', (b) => batches.push(b));
    await events.start();
  });
  after(async () => {
    events.stop();
    await store.close();
    dir.remove();
  });

  it('the first generation on an empty store is the baseline: indexed, told only by its generation event', () => {
    const batch = auctions([row('z0', { tag: 'BASELINE_ITEM', starting_bid: 10 }), row('z1', { tag: 'BASELINE_ITEM', starting_bid: 20 })]);
    assert.deepEqual(topics(batch), ['generation']);
    const generation = batch[0]! as Extract<DraftEvent, { topic: 'generation' }>;
    assert.deepEqual(generation.counts, { new: 0, sold: 0, ended: 0, lbinChanged: 0, baseline: 2, active: 2 });
    // Indexed: the next change of its lowest BIN is told against it.
    const next = auctions([row('z0', { tag: 'BASELINE_ITEM', starting_bid: 15 })]);
    assert.deepEqual(topics(next), ['lbin.changed', 'generation']);
    const lbin = next[0]! as Extract<DraftEvent, { topic: 'lbin.changed' }>;
    assert.deepEqual([lbin.oldPrice, lbin.newPrice, lbin.listing?.uuid], [10, 15, 'z0']);
  });

  it('new listings are auction.new, the cheapest BIN per tag is lbin.changed, then generation', () => {
    const batch = auctions([row('a', { starting_bid: 1000 }), row('b', { starting_bid: 900 }), row('c', { starting_bid: 5000, bin: false })]);
    assert.deepEqual(topics(batch), ['auction.new', 'auction.new', 'auction.new', 'lbin.changed', 'generation']);
    const lbin = batch[3]! as Extract<DraftEvent, { topic: 'lbin.changed' }>;
    assert.deepEqual([lbin.tag, lbin.variant, lbin.oldPrice, lbin.newPrice, lbin.listing?.uuid], ['HYPERION', null, null, 900, 'b']);
    const generation = batch[4]! as Extract<DraftEvent, { topic: 'generation' }>;
    assert.deepEqual(generation.counts, { new: 3, sold: 0, ended: 0, lbinChanged: 1, active: 5 });
  });

  it('a listing seen again is not new; a price change that moves the lowest BIN is told', () => {
    const batch = auctions([row('a', { starting_bid: 800 })]);
    assert.deepEqual(topics(batch), ['lbin.changed', 'generation']);
    const lbin = batch[0]! as Extract<DraftEvent, { topic: 'lbin.changed' }>;
    assert.deepEqual([lbin.oldPrice, lbin.newPrice, lbin.listing?.uuid], [900, 800, 'a']);
  });

  it('a sale with bids is auction.sold once; an auction gone past its end is expired', () => {
    clock.set(T0 + 2 * 3_600_000);
    const batch = auctions([], ['c', 'b'], [{ uuid: 'c', price: 6000, buyer: 'buyer', at: clock.now() }]);
    assert.deepEqual(topics(batch), ['auction.sold', 'auction.ended', 'generation']);
    const sold = batch[0]! as Extract<DraftEvent, { topic: 'auction.sold' }>;
    assert.deepEqual([sold.uuid, sold.tag, sold.price, sold.buyer, sold.seller], ['c', 'HYPERION', 6000, 'buyer', 'seller']);
    assert.equal((batch[1] as Extract<DraftEvent, { topic: 'auction.ended' }>).reason, 'expired');
    // The ended feed reports the same sale again: nothing new.
    batches = [];
    store.changes.publish({ kind: 'auctions_ended', lastUpdated: clock.now(), upserted: [], removed: ['c'], sales: [{ uuid: 'c', price: 6000, buyer: 'buyer', at: clock.now() }] });
    assert.deepEqual(topics(batches[0]!), ['generation']);
  });

  it('a BIN that leaves early waits for its sale: sold when the ended feed reports it, cancelled when it does not', () => {
    auctions([row('d', { end_at: T0 + 10 * 3_600_000, starting_bid: 700 }), row('e', { end_at: T0 + 10 * 3_600_000, starting_bid: 750 })]);
    const left = auctions([], ['d', 'e']);
    assert.deepEqual(topics(left), ['lbin.changed', 'generation'], 'neither sold nor ended yet');
    batches = [];
    store.changes.publish({ kind: 'auctions_ended', lastUpdated: clock.now(), upserted: [], removed: ['d'], sales: [{ uuid: 'd', price: 700, buyer: 'x', at: clock.now(), tag: 'HYPERION', seller: 'seller', bin: true }] });
    assert.deepEqual(topics(batches[0]!), ['auction.sold', 'generation']);
    assert.notEqual((batches[0]![0] as Extract<DraftEvent, { topic: 'auction.sold' }>).item, null, 'the sold event carries the listing it was');
    clock.advance(60_000);
    assert.deepEqual(topics(auctions([])), ['generation'], 'still waiting');
    clock.advance(61_000);
    const late = auctions([]);
    assert.deepEqual(topics(late), ['auction.ended', 'generation']);
    assert.equal((late[0] as Extract<DraftEvent, { topic: 'auction.ended' }>).uuid, 'e');
    assert.equal((late[0] as Extract<DraftEvent, { topic: 'auction.ended' }>).reason, 'cancelled');
  });

  it('pets keep a lowest BIN per rarity and level band', () => {
    const pet = (uuid: string, tier: string, exp: number, price: number) =>
      row(uuid, { tag: 'PET_ENDER_DRAGON', tier, starting_bid: price, end_at: clock.now() + 3_600_000, flat_nbt: JSON.stringify({ 'petInfo.type': 'ENDER_DRAGON', 'petInfo.tier': tier, 'petInfo.exp': String(exp) }) });
    const batch = auctions([pet('p1', 'EPIC', 0, 100), pet('p2', 'LEGENDARY', 0, 200), pet('p3', 'LEGENDARY', 30_000_000, 300)]);
    const lbins = batch.filter((e): e is Extract<DraftEvent, { topic: 'lbin.changed' }> => e.topic === 'lbin.changed').map((e) => `${e.variant}=${e.newPrice}`);
    assert.deepEqual(lbins.sort(), ['EPIC=100', 'LEGENDARY:LVL100=300', 'LEGENDARY=200']);
  });

  it('bazaar: only products that moved, with the top of a changed book', () => {
    const snap = (product: string, buy: number): BazaarSnapshotsTable => ({ product_id: product, ts: clock.now(), buy_price: buy, sell_price: buy - 1, buy_volume: 10, sell_volume: 10, buy_moving_week: 100, sell_moving_week: 100, buy_orders: 1, sell_orders: 1, book: null });
    batches = [];
    store.changes.publish({ kind: 'bazaar', ts: clock.now(), products: [snap('A', 10), snap('B', 20)], books: {} });
    assert.deepEqual(batches[0]!.map((e) => (e.topic === 'bazaar.changed' ? e.product : e.topic)), ['A', 'B', 'generation']);
    batches = [];
    const level = (p: number) => ({ amount: 1, pricePerUnit: p, orders: 1 });
    store.changes.publish({ kind: 'bazaar', ts: clock.now(), products: [snap('A', 10), snap('B', 21)], books: { A: { buyOrders: [9, 8, 7, 6, 5, 4].map(level), sellOffers: [level(10)] } } });
    const changed = batches[0]!.filter((e): e is Extract<DraftEvent, { topic: 'bazaar.changed' }> => e.topic === 'bazaar.changed');
    assert.deepEqual(changed.map((e) => e.product), ['A', 'B']);
    assert.equal(changed[0]!.topBuyOrders?.length, 5);
    assert.equal(changed[1]!.topBuyOrders, null);
    batches = [];
    store.changes.publish({ kind: 'bazaar', ts: clock.now(), products: [snap('A', 10), snap('B', 21)], books: {} });
    assert.deepEqual(topics(batches[0]!), ['generation']);
    // A replayed snapshot of an hour ago (the demo's history) is not pushed.
    batches = [];
    store.changes.publish({ kind: 'bazaar', ts: clock.now() - 3_600_000, products: [snap('A', 99)], books: {} });
    assert.equal(batches.length, 0);
  });
});

describe('market events: a large baseline is indexed after its change, in slices', () => {
  const dir = tempDir('events-baseline');
  let store: Store;
  const clock = new ManualClock(T0);
  let events: MarketEvents;
  let batches: DraftEvent[][] = [];
  const N = 5_001;
  const publish = (upserted: AuctionsTable[]) => {
    batches = [];
    store.changes.publish({ kind: 'auctions', lastUpdated: clock.now(), upserted: upserted.map(toRecord), removed: [], sales: [] });
    return batches[0]!;
  };
  // Tag i % 50, price 1000 + i: the cheapest of tag k is listing k at 1000 + k.
  const baseline = () => Array.from({ length: N }, (_, i) => row(`u${i}`, { tag: `ITEM_${i % 50}`, starting_bid: 1000 + i }));

  before(async () => {
    store = await Store.open({ dataDir: dir.path });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  for (const next of ['after its slices', 'before its slices are done'] as const) {
    it(`told at once by its generation event; the next change is told against all of it (${next})`, async () => {
      events = new MarketEvents(store, clock, { pendingMs: 120_000 });
      events.emitter.on('batch', (b) => batches.push(b));
      await events.start();
      try {
        const batch = publish(baseline());
        assert.deepEqual(topics(batch), ['generation']);
        assert.deepEqual((batch[0] as Extract<DraftEvent, { topic: 'generation' }>).counts, { new: 0, sold: 0, ended: 0, lbinChanged: 0, baseline: N, active: N });
        assert.equal(events.baselineLeft, N, 'nothing indexed inside the publish');
        if (next === 'after its slices') {
          await waitUntil(() => events.baselineLeft === 0, 30_000, 'the baseline indexed');
        }
        // Listing 7 (the cheapest of ITEM_7) gets cheaper; a new listing undercuts ITEM_8's cheapest.
        const moved = publish([row('u7', { tag: 'ITEM_7', starting_bid: 5 }), row('new', { tag: 'ITEM_8', starting_bid: 6 })]);
        assert.equal(events.baselineLeft, 0);
        const lbins = moved.filter((e): e is Extract<DraftEvent, { topic: 'lbin.changed' }> => e.topic === 'lbin.changed').map((e) => `${e.tag} ${e.oldPrice}→${e.newPrice}`);
        assert.deepEqual(lbins.sort(), ['ITEM_7 1007→5', 'ITEM_8 1008→6']);
        assert.deepEqual(topics(moved).filter((t) => t === 'auction.new'), ['auction.new'], 'only the new listing is new');
        assert.equal(events.size, N + 1);
      } finally {
        events.stop();
      }
    });
  }
});

function topics(batch: DraftEvent[]): string[] {
  return batch.map((e) => e.topic);
}
