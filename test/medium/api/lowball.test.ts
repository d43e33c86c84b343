import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOWBALL_RETENTION_MS } from '../../../src/store/repositories/lowball.ts';
import { runModRetention } from '../../../src/jobs/mod-retention.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

const ALICE = '0123456789abcdef0123456789abcdef';
const BOB = 'fedcba9876543210fedcba9876543210';
const offerId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('lowball endpoints', () => {
  let t: TestApp;
  let alice: string;
  let bob: string;
  let carol: string;
  let t0: number;
  before(async () => {
    t = await createTestApp();
    t0 = t.clock.now();
    const a = await t.store.accounts.create({ tier: 'free', now: t0 });
    const b = await t.store.accounts.create({ tier: 'free', now: t0 });
    carol = (await t.store.accounts.create({ tier: 'free', now: t0 })).token;
    alice = a.token;
    bob = b.token;
    await t.store.modLinks.link(a.account.id, ALICE, 'Alice', 'operator', t0);
    await t.store.modLinks.link(b.account.id, BOB, 'Bob', 'operator', t0);
    for (let i = 0; i < 25; i++) {
      await t.store.lowball.create({
        offerId: offerId(i),
        accountId: i < 22 ? a.account.id : b.account.id,
        playerUuid: i < 22 ? ALICE : BOB,
        itemTag: i % 2 ? 'HYPERION' : 'ASPECT_OF_THE_END',
        itemName: 'Thing',
        itemCount: 1,
        askingPrice: 1000 + i,
        filters: { reforge: i % 4 === 1 ? 'heroic' : 'fabled' },
        auctionJson: i === 0 ? '{"tag":"ASPECT_OF_THE_END"}' : null,
        lore: null,
        createdAt: t0 - (25 - i) * 60_000,
      });
    }
  });
  after(() => t.close());

  const req = (method: 'GET' | 'DELETE', url: string, token?: string) =>
    t.app.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('own: 401 without a token, 400 without a verified account', async () => {
    const res = await req('GET', '/api/lowball/own');
    assert.equal(res.statusCode, 401);
    assert.match(res.json().message, /Authorization: Bearer/);
    const unlinked = await req('GET', '/api/lowball/own', carol);
    assert.equal(unlinked.statusCode, 400);
    assert.equal(unlinked.json().slug, 'no_verified_account');
  });

  it('own: newest first, default limit 20, cursor pagination by before', async () => {
    const page1 = await req('GET', '/api/lowball/own', alice);
    assert.equal(page1.statusCode, 200);
    assert.equal(page1.headers['cache-control'], 'no-store');
    const offers = page1.json() as Array<Record<string, unknown>>;
    assert.equal(offers.length, 20);
    assert.equal(offers[0]!.askingPrice, 1021);
    assert.deepEqual(Object.keys(offers[0]!).sort(), ['askingPrice', 'createdAt', 'filters', 'itemCount', 'itemName', 'itemTag', 'minecraftAccount', 'offerId', 'userId']);
    assert.equal(offers[0]!.minecraftAccount, '01234567-89ab-cdef-0123-456789abcdef');
    assert.equal(typeof offers[0]!.filters, 'string');
    const last = offers.at(-1)!;
    const page2 = (await req('GET', `/api/lowball/own?before=${encodeURIComponent(String(last.createdAt))}&limit=5`, alice)).json() as Array<Record<string, unknown>>;
    assert.deepEqual(page2.map((o) => o.askingPrice), [1001, 1000]);
    // An offer stored before apiAuctionJson was a whole SaveAuction reads as one: the item, the asking price as a BIN for the offer's life.
    const item = JSON.parse(String(page2[1]!.apiAuctionJson));
    const created = Date.parse(String(page2[1]!.createdAt));
    assert.deepEqual(
      { tag: item.tag, uuid: item.uuid, startingBid: item.startingBid, bin: item.bin, highestBidAmount: item.highestBidAmount, anvilUses: item.anvilUses, category: item.category, tier: item.tier, reforge: item.reforge },
      { tag: 'ASPECT_OF_THE_END', uuid: null, startingBid: 1000, bin: true, highestBidAmount: 0, anvilUses: 0, category: 'UNKNOWN', tier: 'UNKNOWN', reforge: 'None' },
    );
    assert.equal(Date.parse(item.end) - Date.parse(item.start), LOWBALL_RETENTION_MS);
    assert.equal(Date.parse(item.start), created);
    assert.ok(!('lore' in page2[1]!), 'lore is omitted when null');
  });

  it('rejects bad limits and cursors with 400 problems', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1e309', 'before=yesterday']) {
      const res = await req('GET', `/api/lowball/own?${q}`, alice);
      assert.equal(res.statusCode, 400, q);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
    }
    for (const q of ['limit=101', 'limit=1e309', 'before=notadate']) assert.equal((await req('GET', `/api/lowball/item/HYPERION?${q}`)).statusCode, 400, q);
    assert.equal((await req('GET', '/api/lowball/item/bad%20tag')).statusCode, 400);
    const tooMany = Array.from({ length: 13 }, (_, i) => `f${i}=x`).join('&');
    assert.equal((await req('GET', `/api/lowball/item/HYPERION?${tooMany}`)).statusCode, 400);
  });

  it('item: public, case-insensitive tag, filters on attributes, cached 30 s', async () => {
    const res = await req('GET', '/api/lowball/item/hyperion?limit=100');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['cache-control']), /max-age=30/);
    const all = res.json() as Array<{ askingPrice: number; filters: string }>;
    assert.equal(all.length, 12);
    assert.ok(all.every((o, i) => i === 0 || o.askingPrice < all[i - 1]!.askingPrice));
    const heroic = (await req('GET', '/api/lowball/item/HYPERION?Reforge=HEROIC')).json() as Array<{ filters: string }>;
    assert.equal(heroic.length, 6);
    assert.ok(heroic.every((o) => JSON.parse(o.filters).reforge === 'heroic'));
    assert.deepEqual((await req('GET', '/api/lowball/item/NOTHING_HERE')).json(), []);
  });

  it('item: a tag with offers is never 404, whatever the filters; the public listing hides the account id (issue 21 items 10, 13)', async () => {
    await t.store.items.upsertMany([{ tag: 'HYPERION', name: 'Hyperion', tier: null, category: null, npcSellPrice: null }], t0);
    const account = (await t.store.accounts.create({ tier: 'free', now: t0 })).account;
    await t.store.lowball.create({
      offerId: offerId(50), accountId: account.id, playerUuid: BOB, itemTag: 'PET_LION', itemName: 'Lion', itemCount: 1, askingPrice: 5,
      filters: { reforge: 'none' }, auctionJson: null, lore: null, createdAt: t0 - 1000,
    });
    const none = await req('GET', '/api/lowball/item/PET_LION?reforge=heroic');
    assert.equal(none.statusCode, 200, none.body);
    assert.deepEqual(none.json(), []);
    assert.equal((await req('GET', '/api/lowball/item/PET_NOTHING')).statusCode, 404, 'a tag nobody knows is still 404');
    const listed = (await req('GET', '/api/lowball/item/PET_LION')).json() as Array<Record<string, unknown>>;
    assert.equal(listed.length, 1);
    assert.ok('userId' in listed[0]!, 'the field stays (wire shape)');
    assert.equal(listed[0]!.userId, null);
    assert.equal(listed[0]!.minecraftAccount, 'fedcba98-7654-3210-fedc-ba9876543210');
    const own = (await req('GET', '/api/lowball/own', alice)).json() as Array<Record<string, unknown>>;
    assert.match(String(own[0]!.userId), /^\d+$/);
    await t.store.lowball.deleteOwn(account.id, offerId(50), t0);
  });

  it('delete: only own offers; another account gets 404 as if it did not exist', async () => {
    assert.equal((await req('DELETE', `/api/lowball/offer/${offerId(3)}`)).statusCode, 401);
    assert.equal((await req('DELETE', '/api/lowball/offer/not-a-uuid', alice)).statusCode, 400);
    const foreign = await req('DELETE', `/api/lowball/offer/${offerId(3)}`, bob);
    const missing = await req('DELETE', `/api/lowball/offer/${offerId(99)}`, bob);
    assert.equal(foreign.statusCode, 404);
    assert.equal(missing.statusCode, 404);
    assert.equal(foreign.json().slug, missing.json().slug);
    const ok = await req('DELETE', `/api/lowball/offer/${offerId(3)}`, alice);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), { offerId: offerId(3), deleted: true });
    assert.equal((await req('DELETE', `/api/lowball/offer/${offerId(3)}`, alice)).statusCode, 404);
  });

  it('never returns offers after 7 days, and retention deletes them', async () => {
    // The newest offer was created 1 minute before t0: 7 days later everything has expired.
    t.clock.set(t0 + LOWBALL_RETENTION_MS);
    assert.deepEqual((await req('GET', '/api/lowball/own', alice)).json(), []);
    assert.deepEqual((await req('GET', '/api/lowball/item/HYPERION')).json(), []);
    assert.equal((await req('DELETE', `/api/lowball/offer/${offerId(5)}`, alice)).statusCode, 404);
    assert.equal((await runModRetention(t.store, t.clock.now())).offers, 24);
    t.clock.set(t0);
  });
});
