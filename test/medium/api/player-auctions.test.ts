/** A player's auctions, bids and name, and players by name, over HTTP on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const SELLER = 'a'.repeat(32);
const BIDDER = 'd'.repeat(32);
const HOUR = 3_600_000;

describeEachBackend('player auctions and bids', (fixture) => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    const now = t.clock.now();
    // 25 sales of the seller, one an hour apart (the newest an hour ago), every third a Necron's Handle, and 3 listings of another player.
    const sales = Array.from({ length: 25 }, (_, i) =>
      sale(now, (i + 1) * HOUR, { uuid: `${String(i).padStart(2, '0')}${'e'.repeat(30)}`, seller: SELLER, ...(i % 3 === 0 ? { tag: 'NECRON_HANDLE', item_name: "Necron's Handle", tier: 'EPIC' } : {}) }),
    );
    await storeSales(t.store, now, sales);
    const active = [listing(now, { uuid: 'f'.repeat(32), seller: SELLER, end_at: now + 2 * HOUR, bin: false, starting_bid: 500 }), ...[1, 2, 3].map((i) => listing(now, { uuid: `${i}${'0'.repeat(31)}`, seller: 'b'.repeat(32) }))];
    await storeGeneration(t.store, now, active, [
      { auction_uuid: 'f'.repeat(32), amount: 600, bidder: BIDDER, profile_id: null, placed_at: now - 1000 },
      { auction_uuid: 'f'.repeat(32), amount: 900, bidder: BIDDER, profile_id: null, placed_at: now - 500 },
    ]);
    await t.store.playerNames.record([{ playerUuid: SELLER, name: 'SellerSam' }, { playerUuid: BIDDER, name: 'BidderBo' }, { playerUuid: 'b'.repeat(32), name: 'Sellbot' }], 'upstream', now);
  });
  after(() => t.close());

  test('auctions: ten per page, newest end first, in the AuctionResult shape', async () => {
    const page0 = (await t.app.inject(`/api/player/${SELLER}/auctions`)).json() as Array<Record<string, unknown>>;
    assert.equal(page0.length, 10);
    assert.deepEqual(Object.keys(page0[0]!), ['auctionId', 'highestBid', 'itemName', 'tag', 'end', 'startingBid', 'bin']);
    assert.equal(page0[0]!.auctionId, 'f'.repeat(32), 'the active listing ends last');
    assert.equal(page0[1]!.auctionId, `00${'e'.repeat(30)}`);
    const page2 = (await t.app.inject(`/api/player/${SELLER}/auctions?page=2`)).json() as unknown[];
    assert.equal(page2.length, 6);
    const dashed = `${SELLER.slice(0, 8)}-${SELLER.slice(8, 12)}-${SELLER.slice(12, 16)}-${SELLER.slice(16, 20)}-${SELLER.slice(20)}`;
    assert.deepEqual((await t.app.inject(`/api/player/${dashed.toUpperCase()}/auctions`)).json(), page0);
  });

  test('auctions with a filter page through the matches only', async () => {
    const handles = (await t.app.inject(`/api/player/${SELLER}/auctions?Rarity=EPIC`)).json() as Array<{ tag: string }>;
    assert.equal(handles.length, 9);
    assert.ok(handles.every((h) => h.tag === 'NECRON_HANDLE'));
    const bad = await t.app.inject(`/api/player/${SELLER}/auctions?NoSuchFilter=1`);
    assert.equal(bad.statusCode, 400);
  });

  test('bids carry the highest own bid', async () => {
    const bids = (await t.app.inject(`/api/player/${BIDDER}/bids`)).json() as Array<Record<string, unknown>>;
    assert.equal(bids.length, 1);
    assert.equal(bids[0]!.auctionId, 'f'.repeat(32));
    assert.equal(bids[0]!.highestOwnBid, 900);
    assert.deepEqual((await t.app.inject(`/api/player/${SELLER}/bids`)).json(), []);
  });

  test('name, and players by the start of their name', async () => {
    const name = await t.app.inject(`/api/player/${SELLER}/name`);
    assert.equal(name.statusCode, 200);
    assert.equal(name.body, '"SellerSam"');
    assert.equal((await t.app.inject(`/api/player/${'9'.repeat(32)}/name`)).statusCode, 404);
    assert.deepEqual((await t.app.inject('/api/search/player/sel')).json(), [
      { name: 'SellerSam', uuid: SELLER, hitCount: 0 },
      { name: 'Sellbot', uuid: 'b'.repeat(32), hitCount: 0 },
    ].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1)));
  });

  test('names in bulk: uuid → name for the players seen, keyed as asked; bounded and validated', async () => {
    const dashed = `${BIDDER.slice(0, 8)}-${BIDDER.slice(8, 12)}-${BIDDER.slice(12, 16)}-${BIDDER.slice(16, 20)}-${BIDDER.slice(20)}`;
    const res = await t.app.inject({ method: 'POST', url: '/api/player/names', payload: [SELLER, dashed, '9'.repeat(32)] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { [SELLER]: 'SellerSam', [dashed]: 'BidderBo' });
    assert.deepEqual((await t.app.inject({ method: 'POST', url: '/api/player/names', payload: [] })).json(), {});
    for (const bad of [['not-a-uuid'], [SELLER, 'g'.repeat(32)], Array.from({ length: 1001 }, () => SELLER), { uuids: [SELLER] }, [42]]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/player/names', payload: bad as object });
      assert.equal(r.statusCode, 400, r.body);
      assert.ok(r.json().slug, r.body);
      assert.ok(r.body.length < 1024);
    }
  });

  test('sold-auctions export: SoldAuction[] of every sale, for Premium+ accounts that verified the player only', async () => {
    const now = t.clock.now();
    const own = await t.store.accounts.create({ tier: 'premium_plus', now });
    await t.store.modLinks.link(own.account.id, SELLER, 'SellerSam', 'operator', now);
    const other = await t.store.accounts.create({ tier: 'premium_plus', now });
    await t.store.modLinks.link(other.account.id, BIDDER, 'BidderBo', 'operator', now);
    const free = await t.store.accounts.create({ tier: 'premium', now });
    await t.store.modLinks.link(free.account.id, SELLER, 'SellerSam', 'operator', now);
    const get = (token: string | null, player = SELLER) =>
      t.app.inject({ url: `/api/player/${player}/auctions/export`, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const res = await get(own.token);
    assert.equal(res.statusCode, 200, res.body);
    const sold = res.json() as Array<{ uuid: string; auctioneerId: string; end: string; id: number }>;
    assert.equal(sold.length, 25, 'every sale, not the active listing');
    assert.ok(sold.every((s) => s.auctioneerId === SELLER && typeof s.id === 'number'));
    assert.equal(sold[0]!.uuid, `00${'e'.repeat(30)}`, 'newest first');
    assert.equal((await get(null)).statusCode, 401);
    assert.equal((await get(free.token)).statusCode, 403, 'below Premium+');
    const notOwn = await get(other.token);
    assert.equal(notOwn.statusCode, 403);
    assert.equal(notOwn.json().slug, 'player_not_verified');
    assert.equal((await get(own.token, 'xyz')).statusCode, 400);
  });

  test('bad input is a small 400', async () => {
    for (const url of [`/api/player/xyz/auctions`, `/api/player/${'g'.repeat(32)}/bids`, `/api/player/${SELLER}1/name`, '/api/search/player/a%20b', `/api/search/player/${'a'.repeat(17)}`, `/api/player/${SELLER}/auctions?page=-1`]) {
      const res = await t.app.inject(url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.ok(res.body.length < 1024);
    }
  });
});
