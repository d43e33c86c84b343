import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { runModRetention } from '../../src/jobs/mod-retention.ts';
import { LINK_CHALLENGE_TTL_MS } from '../../src/store/repositories/mod-links.ts';
import { LOWBALL_RETENTION_MS } from '../../src/store/repositories/lowball.ts';
import { MAX_FLIPS_PER_PLAYER } from '../../src/store/repositories/players.ts';
import { DATA_UPLOAD_RETENTION_MS } from '../../src/store/repositories/data-uploads.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const P1 = '0123456789abcdef0123456789abcdef';
const P2 = 'fedcba9876543210fedcba9876543210';

describeEachBackend('mod store', (fixture) => {
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

  it('records player names, finds them case-insensitively and follows renames', async () => {
    const { store } = fixture();
    await store.playerNames.record([{ playerUuid: P1, name: 'Technoblade' }, { playerUuid: P2, name: 'Dream' }, { playerUuid: P1, name: 'Technoblade' }], 'mod', T0);
    assert.equal((await store.playerNames.findByName('technoBLADE'))?.playerUuid, P1);
    await store.playerNames.record([{ playerUuid: P1, name: 'Techno2' }], 'mod', T0 + 1);
    assert.equal(await store.playerNames.findByName('Technoblade'), undefined);
    assert.deepEqual(await store.playerNames.findByName('techno2'), { playerUuid: P1, name: 'Techno2', source: 'mod', seenAt: T0 + 1 });
    const names = await store.playerNames.namesOf([P1, P2, 'ab'.repeat(16)]);
    assert.deepEqual([...names.entries()].sort(), [[P1, 'Techno2'], [P2, 'Dream']]);
  });

  it('a hint never replaces a confirmed name nor takes it over; a confirmed name replaces a hint (issue 21)', async () => {
    const { store } = fixture();
    const P3 = 'cd'.repeat(16);
    await store.playerNames.record([{ playerUuid: P1, name: 'AliceReal' }], 'self', T0 + 10);
    await store.playerNames.record([{ playerUuid: P1, name: 'Renamed' }, { playerUuid: P3, name: 'ALICEREAL' }], 'mod', T0 + 20);
    assert.equal((await store.playerNames.namesOf([P1])).get(P1), 'AliceReal');
    assert.equal(await store.playerNames.findByName('Renamed'), undefined);
    assert.equal((await store.playerNames.findByName('alicereal'))?.playerUuid, P1);
    assert.equal((await store.playerNames.namesOf([P3])).get(P3), undefined);
    // A stale hint row sharing the name loses to the confirmed one however recent it is.
    await store.playerNames.record([{ playerUuid: P2, name: 'Bob' }], 'mod', T0 + 30);
    await store.playerNames.record([{ playerUuid: P3, name: 'Bob' }], 'operator', T0 + 25);
    assert.equal((await store.playerNames.findByName('bob'))?.playerUuid, P3);
    await store.playerNames.record([{ playerUuid: P2, name: 'Bobby' }], 'self', T0 + 40);
    assert.equal((await store.playerNames.namesOf([P2])).get(P2), 'Bobby');
  });

  it('pages lowball offers newest first by account and by tag, filters, ownership and retention', async () => {
    const { store } = fixture();
    const base = { playerUuid: P1, itemName: 'Hyperion', itemCount: 1, auctionJson: null, lore: null };
    for (let i = 0; i < 5; i++) {
      await store.lowball.create({ ...base, offerId: `00000000-0000-4000-8000-00000000000${i}`, accountId: 1, itemTag: 'HYPERION', askingPrice: 1e9 + i, filters: { reforge: i % 2 ? 'heroic' : 'fabled', stars: String(i) }, createdAt: T0 + i * 1000 });
    }
    await store.lowball.create({ ...base, offerId: 'other-account', accountId: 2, playerUuid: P2, itemTag: 'HYPERION', askingPrice: 5, filters: null, createdAt: T0 + 10_000 });
    const page1 = await store.lowball.byAccount(1, { limit: 2, now: T0 + 20_000 });
    assert.deepEqual(page1.map((o) => o.askingPrice), [1e9 + 4, 1e9 + 3]);
    const page2 = await store.lowball.byAccount(1, { limit: 2, now: T0 + 20_000, before: page1.at(-1)!.createdAt });
    assert.deepEqual(page2.map((o) => o.askingPrice), [1e9 + 2, 1e9 + 1]);
    assert.equal((await store.lowball.byTag('HYPERION', { limit: 10, now: T0 + 20_000 })).length, 6);
    const heroic = await store.lowball.byTag('HYPERION', { limit: 10, now: T0 + 20_000 }, { Reforge: 'HEROIC' });
    assert.deepEqual(heroic.map((o) => o.filters?.['stars']), ['3', '1']);
    const one = await store.lowball.byTag('HYPERION', { limit: 1, now: T0 + 20_000 }, { reforge: 'fabled' });
    assert.deepEqual(one.map((o) => o.filters?.['stars']), ['4']);

    // The database pre-filter treats % _ ! literally, ignores case, and never hides an exact match.
    await store.lowball.create({ ...base, offerId: 'special', accountId: 3, itemTag: 'RUNE_X', askingPrice: 1, filters: { Note: '50%_off!', Skin: 'Été' }, createdAt: T0 });
    await store.lowball.create({ ...base, offerId: 'plain', accountId: 3, itemTag: 'RUNE_X', askingPrice: 2, filters: { Note: '50xyoff!' }, createdAt: T0 + 1 });
    const byNote = async (f: Record<string, string>) => (await store.lowball.byTag('RUNE_X', { limit: 10, now: T0 + 20_000 }, f)).map((o) => o.offerId);
    assert.deepEqual(await byNote({ note: '50%_OFF!' }), ['special']);
    assert.deepEqual(await byNote({ note: '50' }), []);
    assert.deepEqual(await byNote({ skin: 'été' }), ['special']);
    // A value the pre-filter lets through under another key is dropped by the exact check; the scan goes on past it.
    for (let i = 0; i < 30; i++) {
      await store.lowball.create({ ...base, offerId: `decoy-${String(i).padStart(2, '0')}`, accountId: 3, itemTag: 'RUNE_Y', askingPrice: 1, filters: { other: '7', stars: '1' }, createdAt: T0 + 100 + i });
    }
    await store.lowball.create({ ...base, offerId: 'real', accountId: 3, itemTag: 'RUNE_Y', askingPrice: 1, filters: { stars: '7' }, createdAt: T0 });
    assert.deepEqual((await store.lowball.byTag('RUNE_Y', { limit: 2, now: T0 + 20_000 }, { stars: '7' })).map((o) => o.offerId), ['real']);
    assert.equal(await store.lowball.deleteOwn(2, page1[0]!.offerId, T0 + 20_000), false, 'another account cannot delete');
    assert.equal(await store.lowball.deleteOwn(1, page1[0]!.offerId, T0 + 20_000), true);
    assert.equal(await store.lowball.get(page1[0]!.offerId, T0 + 20_000), undefined);

    // Expiry: invisible right after 7 days, deleted by retention.
    const after = T0 + LOWBALL_RETENTION_MS + 1500;
    assert.deepEqual((await store.lowball.byAccount(1, { limit: 10, now: after })).map((o) => o.askingPrice), [1e9 + 3, 1e9 + 2]);
    const r = await runModRetention(store, after);
    assert.equal(r.offers, 35);
    assert.equal((await store.lowball.byTag('HYPERION', { limit: 10, now: after })).length, 3);
  });

  it('links an account when ingestion sees the challenge bid from the right player in time', async () => {
    const { store } = fixture();
    const c = await store.modLinks.startChallenge(7, P1, 'Alice', T0);
    assert.ok(c.amount >= 1000 && c.amount <= 99_999);
    const c2 = await store.modLinks.startChallenge(8, P2, null, T0);
    assert.notEqual(c.amount, c2.amount);
    // wrong bidder, wrong amount, bid placed before the challenge: no link
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P2, amount: c.amount, placed_at: T0 + 1 }], T0 + 2), []);
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P1, amount: c.amount + 1, placed_at: T0 + 1 }], T0 + 2), []);
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P1, amount: c.amount, placed_at: T0 - 1 }], T0 + 2), []);
    assert.equal(await store.modLinks.linkOf(7), undefined);
    const dashed = `${P1.slice(0, 8)}-${P1.slice(8, 12)}-${P1.slice(12, 16)}-${P1.slice(16, 20)}-${P1.slice(20)}`;
    const linked = await store.modLinks.linkFromBids([{ bidder: dashed, amount: c.amount, placed_at: T0 + 5 }], T0 + 10);
    assert.equal(linked.length, 1);
    assert.deepEqual(await store.modLinks.linkOf(7), { accountId: 7, playerUuid: P1, playerName: 'Alice', linkedAt: T0 + 10, method: 'bid' });
    assert.equal(await store.modLinks.challengeOf(7, T0 + 10), undefined, 'the challenge closes once used');
    // An expired challenge no longer links, and retention drops it.
    const late = T0 + LINK_CHALLENGE_TTL_MS + 1;
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P2, amount: c2.amount, placed_at: late - 2 }], late), []);
    assert.equal((await runModRetention(store, late)).challenges, 1);
    // Operator link replaces the earlier one.
    await store.modLinks.link(7, P2, null, 'operator', late);
    assert.equal((await store.modLinks.linkOf(7))?.playerUuid, P2);
  });

  it('stores data uploads and drops them after retention', async () => {
    const { store } = fixture();
    await store.dataUploads.add({ id: 'u1', requestId: 'r1', kind: 'auctions_page', bytes: 2, body: '{}', receivedAt: T0 });
    assert.equal((await store.dataUploads.get('u1'))?.kind, 'auctions_page');
    assert.equal((await store.dataUploads.recent('auctions_page', 5)).length, 1);
    assert.equal((await runModRetention(store, T0 + DATA_UPLOAD_RETENTION_MS + 1)).uploads, 1);
    assert.equal(await store.dataUploads.get('u1'), undefined);
  });

  it('indexes data uploads by kind and time, for the newest uploads of one kind', async () => {
    const { store } = fixture();
    const db = store.kysely as import('kysely').Kysely<any>;
    const names =
      store.dialect === 'postgres'
        ? (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'data_uploads'`.execute(db)).rows
        : (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'data_uploads'`.execute(db)).rows;
    assert.ok(names.some((r) => r.name === 'data_uploads_kind_received'), JSON.stringify(names));
    for (let i = 0; i < 6; i++) {
      await store.dataUploads.add({ id: `k${i}`, requestId: `r${i}`, kind: i % 2 ? 'npc_shop' : 'other', bytes: 2, body: '{}', receivedAt: T0 + i });
    }
    assert.deepEqual((await store.dataUploads.recent('npc_shop', 2)).map((u) => u.id), ['k5', 'k3']);
  });
});
