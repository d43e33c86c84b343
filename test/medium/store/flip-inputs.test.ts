import assert from 'node:assert/strict';
import { it } from 'node:test';
import { encodeBook } from '../../../src/domain/bazaar-book.ts';
import type { AuctionsTable, BazaarSnapshotsTable } from '../../../src/store/schema.ts';
import { FlipEngine } from '../../../src/market/flips.ts';
import { ManualClock } from '../../../src/clock.ts';
import { listing } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { waitUntil } from '../../helpers/wait.ts';

const T = Date.UTC(2026, 10, 23, 10, 0, 0);
const MIN = 60_000;

function snap(product: string, ts: number, buy: number, sell: number, week: number, book: Uint8Array | null = null): BazaarSnapshotsTable {
  return { product_id: product, ts, buy_price: buy, sell_price: sell, buy_volume: 1, sell_volume: 1, buy_moving_week: week, sell_moving_week: week, buy_orders: 1, sell_orders: 1, book };
}

const auction = (uuid: string, over: Partial<AuctionsTable>) =>
  listing(T, { uuid, tag: 'SWORD', item_name: 'Sword', end_at: T + 60 * MIN, starting_bid: 1000, enchantments: { sharpness: 5 }, flat_nbt: { rarity_upgrades: '1' }, ...over });

describeEachBackend('flip inputs repository', (fixture) => {
  it('reads snapshots, counters, price buckets, catalog, elections and auction rows', async () => {
    const { store } = fixture();
    const feed = (ts: number) => ({ name: 'bazaar' as const, lastUpdated: ts, storedAt: ts, records: 2, source: 'simulator' as const });
    const book = encodeBook({ buyOrders: [{ amount: 5, pricePerUnit: 9, orders: 1 }], sellOffers: [{ amount: 7, pricePerUnit: 11, orders: 2 }] });
    await store.bazaar.insertSnapshot([snap('A', T - 70 * MIN, 10, 8, 1000, book), snap('B', T - 70 * MIN, 100, 90, 500)], feed(T - 70 * MIN));
    await store.bazaar.insertSnapshot([snap('A', T - 10 * MIN, 12, 8, 1100), snap('B', T - 10 * MIN, 110, 90, 520)], feed(T - 10 * MIN));
    await store.bazaar.insertSnapshot([snap('A', T, 14, 9, 1200), snap('B', T, 120, 95, 540)], feed(T));
    const repo = store.flipInputs;
    assert.equal(await repo.latestSnapshotTs(), T);
    const after = await repo.snapshotsAfter(T - 10 * MIN);
    assert.deepEqual(after.map((r) => [r.productId, r.ts, r.buyPrice, r.buyMovingWeek]).sort(), [['A', T, 14, 1200], ['B', T, 120, 540]]);
    const counters = await repo.countersSince(T - 10 * MIN);
    assert.equal(counters.length, 4);
    assert.ok(counters[0]!.ts <= counters[3]!.ts);
    const buckets = (await repo.priceBuckets(T - 2 * 3_600_000, 3_600_000)).filter((b) => b.productId === 'A').sort((a, b) => a.bucket - b.bucket);
    assert.deepEqual(buckets.map((b) => [b.bucket % 3_600_000, b.price]), [[0, 10], [0, 12], [0, 14]]);
    await store.bazaar.insertSnapshot([snap('A', T + 20_000, 16, 9, 1200)], feed(T + 20_000));
    const merged = (await repo.priceBuckets(T, 3_600_000)).find((b) => b.productId === 'A')!;
    assert.equal(merged.price, 15, 'mean of the bucket');

    await store.items.upsertMany([{ tag: 'A', name: 'Aa', tier: null, category: null, npcSellPrice: 20 }], T);
    assert.deepEqual(await repo.catalog(), [{ tag: 'A', name: 'Aa', npcSellPrice: 20 }]);
    await store.elections.upsert({ year: 2, mayorKey: 'paul', mayorName: 'Paul', payload: { current: { candidates: [{ name: 'Diana', votes: 5 }] } }, updatedAt: T });
    await store.elections.upsert({ year: 1, mayorKey: 'diana', mayorName: 'Diana', payload: {}, updatedAt: T - 3_600_000 });
    const elections = await repo.elections();
    assert.deepEqual(elections.map((e) => [e.year, e.mayorName, e.lastSeen]), [[1, 'Diana', T - 3_600_000], [2, 'Paul', T]]);
    assert.deepEqual(elections[1]!.payload, { current: { candidates: [{ name: 'Diana', votes: 5 }] } });

    const gen = { name: 'auctions' as const, lastUpdated: T, storedAt: T, records: 3, source: 'simulator' as const };
    await store.auctions.applyGeneration({
      listings: [
        auction('1'.repeat(32), {}),
        auction('2'.repeat(32), { bin: false }),
        auction('3'.repeat(32), { end_at: T - MIN }),
        auction('4'.repeat(32), { state: 'sold', sold_price: 3000, sold_at: T - 5 * MIN, count: 2 }),
      ],
      bids: [],
      departed: [],
      feed: gen,
    });
    const bins = await repo.activeBins(['SWORD'], T);
    assert.deepEqual(bins.map((b) => [b.uuid[0], b.price, b.enchantments, b.flatNbt]), [['1', 1000, { sharpness: 5 }, { rarity_upgrades: '1' }]]);
    const sold = await repo.soldBetween(T - 10 * MIN);
    assert.deepEqual(sold.map((s) => [s.uuid[0], s.price, s.at]), [['4', 1500, T - 5 * MIN]]);
  });

  it('the engine recomputes when a new snapshot arrives, and only then', async () => {
    const { store } = fixture();
    const clock = new ManualClock(T);
    const engine = new FlipEngine(store, clock, undefined, { pollMs: 0 });
    const T2 = T + 3_600_000;
    const feed = (ts: number) => ({ name: 'bazaar' as const, lastUpdated: ts, storedAt: ts, records: 1, source: 'simulator' as const });
    clock.set(T2);
    await store.bazaar.insertSnapshot([snap('X', T2, 110, 100, 168 * 10)], feed(T2));
    await engine.refresh();
    const first = engine.bazaar!;
    const x = () => engine.bazaar!.spread.find((f) => f.flip.itemTag === 'X')!;
    assert.equal(x().flip.buyPrice, 110);
    assert.equal(first.snapshotAt, T2);
    clock.advance(20_000);
    await engine.refresh();
    assert.equal(engine.bazaar, first, 'unchanged feeds: no recomputation');
    await store.bazaar.insertSnapshot([snap('X', T2 + 20_000, 111, 100, 168 * 10)], feed(T2 + 20_000));
    await engine.refresh();
    assert.notEqual(engine.bazaar, first);
    assert.equal(x().flip.buyPrice, 111);
    assert.equal(engine.bazaar!.computedAt, T2 + 20_000);
    assert.equal(engine.lastUpdate, T2 + 20_000);
    // Open orders the mod reports take residual capacity (hook; empty until the mod channel lands).
    const free = engine.residual(1).find((r) => r.itemTag === 'X')!;
    assert.equal(free.takenByOpenOrders, 0);
    engine.setOptions({ openOrders: () => new Map([['X', { buyOrderUnits: 4, sellOfferUnits: 0 }]]) });
    const taken = engine.residual(2).find((r) => r.itemTag === 'X')!;
    assert.equal(taken.capacity, 20);
    assert.equal(taken.remainingCapacity, 16);
  });

  it('residual capacity subtracts the open orders players uploaded through the mod', async () => {
    const { store } = fixture();
    const T3 = T + 2 * 3_600_000;
    const clock = new ManualClock(T3);
    const order = (isSell: boolean, amount: number, filled: number) => ({ isSell, itemTag: 'Y', itemName: null, amount, filled, pricePerUnit: 100, created: T3 - MIN, customers: null });
    await store.players.replaceOrders('b'.repeat(32), [order(false, 10, 3), order(true, 5, 5), order(false, 100, 0)], T3);
    await store.players.replaceOrders('c'.repeat(32), [order(true, 8, 2)], T3 - 5 * 3_600_000); // too old
    const units = await store.flipInputs.openOrderUnits(T3 - 3_600_000);
    assert.deepEqual(units.get('Y'), { buyOrderUnits: 107, sellOfferUnits: 0 });
    await store.bazaar.insertSnapshot([snap('Y', T3, 110, 100, 168 * 200)], { name: 'bazaar', lastUpdated: T3, storedAt: T3, records: 1, source: 'simulator' });
    const engine = new FlipEngine(store, clock, undefined, { pollMs: 0 });
    await engine.refresh();
    const y = engine.residual(1).find((r) => r.itemTag === 'Y')!;
    assert.equal(y.capacity, 200);
    assert.equal(y.takenByOpenOrders, 107);
    assert.equal(y.remainingCapacity, 93);
  });

  it('started on the spine, the engine recomputes when a snapshot is committed, without a poll', async () => {
    const { store } = fixture();
    const clock = new ManualClock(T);
    const engine = new FlipEngine(store, clock, undefined, { pollMs: 3_600_000, changes: store.changes });
    const T2 = T + 5 * 3_600_000; // after the other tests' snapshots in this store
    const feed = (ts: number) => ({ name: 'bazaar' as const, lastUpdated: ts, storedAt: ts, records: 1, source: 'simulator' as const });
    clock.set(T2);
    try {
      engine.start();
      await store.bazaar.insertSnapshot([snap('SPINE_X', T2, 110, 100, 168 * 10)], feed(T2));
      const x = () => engine.bazaar?.spread.find((f) => f.flip.itemTag === 'SPINE_X');
      await waitUntil(() => x()?.flip.buyPrice === 110, 10_000, 'the flips of the new snapshot');
      await store.bazaar.insertSnapshot([snap('SPINE_X', T2 + 20_000, 111, 100, 168 * 10)], feed(T2 + 20_000));
      await waitUntil(() => x()?.flip.buyPrice === 111, 10_000, 'the flips of the new snapshot');
    } finally {
      await engine.stop();
    }
  });
});

