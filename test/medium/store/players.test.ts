/** The players repository (what the mod uploads per player) on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MAX_FLIPS_PER_PLAYER } from '../../../src/store/repositories/players.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const P1 = '0123456789abcdef0123456789abcdef';
const P2 = 'fedcba9876543210fedcba9876543210';

describeEachBackend('players repository', (fixture) => {
  it('merges extracted state per field and keeps fields a later upload does not carry', async () => {
    const { store } = fixture();
    await store.players.mergeState(P1, null, { purse: 1000, bits: 5, heartOfTheMountain: { tier: 3, perks: { mining_speed: 10 } } }, T0);
    const merged = await store.players.mergeState(P1, 'aa'.repeat(16), { purse: 2500, composter: { fuelStored: 10 } }, T0 + 1000);
    assert.deepEqual(merged.state, { purse: 2500, bits: 5, heartOfTheMountain: { tier: 3, perks: { mining_speed: 10 } }, composter: { fuelStored: 10 } });
    const read = await store.players.state(P1);
    assert.deepEqual(read, { playerUuid: P1, profileUuid: 'aa'.repeat(16), state: merged.state, updatedAt: T0 + 1000 });
    assert.equal(await store.players.state(P2), undefined);
  });

  it('replaces bazaar orders per player and keeps players apart', async () => {
    const { store } = fixture();
    const order = { isSell: true, itemTag: 'ENCHANTED_DIAMOND', itemName: 'Enchanted Diamond', amount: 64, filled: 10, pricePerUnit: 1234.5, created: T0, customers: [{ playerName: 'Bob', amount: 10, timeStamp: T0 + 5 }] };
    await store.players.replaceOrders(P1, [order, { ...order, isSell: false, itemTag: 'WHEAT', customers: null }], T0);
    await store.players.replaceOrders(P2, [order], T0);
    assert.equal((await store.players.orders(P1)).length, 2);
    await store.players.replaceOrders(P1, [{ ...order, filled: 64 }], T0 + 1);
    const orders = await store.players.orders(P1);
    assert.deepEqual(orders, [{ ...order, filled: 64, uploadedAt: T0 + 1 }]);
    assert.equal((await store.players.orders(P2)).length, 1);
    await store.players.replaceOrders(P1, [], T0 + 2);
    assert.deepEqual(await store.players.orders(P1), []);
  });

  it('stores flips once, in coins × 10, newest first, capped per player', async () => {
    const { store } = fixture();
    const flip = { itemTag: 'WHEAT', itemName: 'Wheat', amount: 100, buyPrice: 2.35, sellPrice: 3.1, soldAt: T0 };
    assert.equal(await store.players.addFlips(P1, [flip, { ...flip, soldAt: T0 + 60_000 }]), 2);
    assert.equal(await store.players.addFlips(P1, [flip]), 0, 'a repeated flip is not stored twice');
    const flips = await store.players.flips(P1);
    assert.deepEqual(flips.map((f) => f.soldAt), [T0 + 60_000, T0]);
    assert.equal(flips[0]!.buyTimesTen, 24);
    assert.equal(flips[0]!.sellTimesTen, 31);
    const many = Array.from({ length: MAX_FLIPS_PER_PLAYER + 5 }, (_, i) => ({ ...flip, soldAt: T0 + 120_000 + i }));
    await store.players.addFlips(P2, many);
    const kept = await store.players.flips(P2);
    assert.equal(kept.length, MAX_FLIPS_PER_PLAYER);
    assert.equal(kept.at(-1)!.soldAt, T0 + 120_000 + 5);
  });
});
