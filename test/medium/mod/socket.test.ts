/**
 * The mod channel end to end: a real WebSocket client on a listening app links its
 * account through a bid that real auctions ingestion sees, uploads every kind of data,
 * creates a lowball offer and an API key, and reads everything back over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import { LIMITS } from '../../../src/mod/messages.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { FakeUpstream } from '../../helpers/fake-upstream.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { componentDiamonds, legacyHyperion, ModClient } from './helpers.ts';

const PLAYER = '0123456789abcdef0123456789abcdef';
const PLAYER_DASHED = '01234567-89ab-cdef-0123-456789abcdef';
const PROFILE = 'aa'.repeat(16);
const SELLER = 'bb'.repeat(16);

describe('mod socket', () => {
  let t: TestApp;
  let url: string;
  let token: string;
  let otherToken: string;
  const upstream = new FakeUpstream();

  before(async () => {
    t = await createTestApp();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address.replace('http', 'ws')}/modsocket`;
    token = (await t.store.accounts.create({ tier: 'free', now: t.clock.now() })).token;
    otherToken = (await t.store.accounts.create({ tier: 'free', now: t.clock.now() })).token;
    await upstream.start();
  });
  after(async () => {
    await upstream.stop();
    await t.close();
  });

  /** Serves one auctions generation carrying `bids` on one auction and runs real ingestion over it. */
  async function ingestBids(bids: Array<{ bidder: string; amount: number; timestamp: number }>): Promise<void> {
    const now = t.clock.now();
    upstream.on('/v2/skyblock/auctions?page=0', {
      body: {
        success: true,
        page: 0,
        totalPages: 1,
        totalAuctions: 1,
        lastUpdated: now,
        auctions: [
          {
            uuid: 'cc'.repeat(16),
            auctioneer: SELLER,
            profile_id: SELLER,
            coop: [SELLER],
            start: now - 3_600_000,
            end: now + 3_600_000,
            item_name: 'Heroic Hyperion',
            item_lore: '',
            extra: '',
            category: 'weapon',
            tier: 'MYTHIC',
            starting_bid: 100,
            item_bytes: legacyHyperion(),
            claimed: false,
            claimed_bidders: [],
            highest_bid_amount: Math.max(...bids.map((b) => b.amount)),
            last_updated: now,
            bin: false,
            bids: bids.map((b) => ({ auction_id: 'cc'.repeat(16), bidder: b.bidder, profile_id: b.bidder, amount: b.amount, timestamp: b.timestamp })),
          },
        ],
      },
    });
    const ctx = testIngestContext({ store: t.store, clock: t.clock, baseUrl: upstream.url, retries: 1, timeoutMs: 2000 });
    try {
      const ingester = new AuctionIngester(ctx);
      const result = await ingester.pollOnce();
      assert.notEqual(result, 'unchanged');
    } finally {
      await ctx.client.close();
    }
  }

  it('drives linking, every upload, lowball creation and key creation, then reads it all back over HTTP', async () => {
    const mod = await ModClient.connect(url, { authorization: `Bearer ${token}` });
    const welcome = await mod.next((m) => m.type === 'welcome');
    assert.equal(welcome.data.authenticated, true);

    // Before linking, player-data commands are refused.
    const early = await mod.request('state.upload', { state: { purse: 1 } });
    assert.equal(early.type, 'error');
    assert.equal(early.code, 'not_linked');

    // Linking: the challenge amount, bid by the player, seen by ingestion.
    const start = await mod.request('link.start', { playerUuid: PLAYER_DASHED, playerName: 'Alice_1' });
    assert.equal(start.type, 'result');
    const amount = start.data.amount as number;
    assert.ok(Number.isInteger(amount));
    assert.equal((await mod.request('link.status')).data.linked, false);
    await ingestBids([
      { bidder: SELLER, amount: amount, timestamp: t.clock.now() }, // right amount, wrong player
      { bidder: PLAYER, amount: amount + 1000, timestamp: t.clock.now() }, // right player, wrong amount
    ]);
    assert.equal((await mod.request('link.status')).data.linked, false);
    t.clock.advance(60_000);
    await ingestBids([{ bidder: PLAYER, amount: amount + 2000, timestamp: t.clock.now() - 1 }, { bidder: PLAYER, amount, timestamp: t.clock.now() }]);
    const status = await mod.request('link.status');
    assert.deepEqual({ linked: status.data.linked, playerUuid: status.data.playerUuid, pending: status.data.pending }, { linked: true, playerUuid: PLAYER, pending: null });

    // Every upload.
    const state = await mod.request('state.upload', {
      profileUuid: PROFILE,
      state: {
        attributeLevel: { mana_pool: 5 },
        boosterCookieExpires: '2026-12-01T01:00:00+01:00',
        composter: { fuelStored: 120000, matterStored: 40000, fuelCap: 200000, matterCap: 80000, speedPercentIncrease: 20 },
        heartOfTheMountain: { tier: 7, perks: { mining_speed: 50, quick_forge: 20 } },
        heartOfTheForest: { tier: 3, perks: null },
        purse: 1234567,
        bits: 890,
        pets: [{ name: 'Bee', type: 'BEE', tier: 'LEGENDARY', level: 100, isActive: true }],
      },
    });
    assert.equal(state.type, 'result', JSON.stringify(state));
    assert.ok(state.data.fields.includes('composter'));
    const moreState = await mod.request('state.upload', { state: { purse: 2000000 } });
    assert.equal(moreState.type, 'result');
    const orders = await mod.request('orders.upload', {
      orders: [
        { isSell: false, itemTag: 'ENCHANTED_DIAMOND', itemName: 'Enchanted Diamond', amount: 64, filled: 16, pricePerUnit: 1500.5, created: '2026-11-22T10:00:00Z', customers: [{ playerName: 'Bob', amount: 16, timeStamp: '2026-11-22T10:05:00Z' }] },
        { isSell: true, itemTag: 'WHEAT', amount: 1000, filled: 0, pricePerUnit: 2.5, created: '2026-11-22T11:00:00Z' },
      ],
    });
    assert.deepEqual(orders.data, { count: 2 });
    const flip = await mod.request('flip.report', { itemTag: 'WHEAT', itemName: 'Wheat', amount: 1000, buyPrice: 2000, sellPrice: 2500.5, soldAt: '2026-11-22T11:30:00Z' });
    assert.deepEqual(flip.data, { stored: true });
    assert.deepEqual((await mod.request('flip.report', { itemTag: 'WHEAT', itemName: 'Wheat', amount: 1000, buyPrice: 2000, sellPrice: 2500.5, soldAt: '2026-11-22T11:30:00Z' })).data, { stored: false });
    assert.deepEqual((await mod.request('names.upload', { players: [{ uuid: SELLER, name: 'Seller_X' }] })).data, { count: 1 });
    const shop = await mod.request('npcshop.upload', { npcName: 'Farm Merchant', offers: [{ itemTag: 'wheat', count: 1, costs: [{ tag: 'SKYBLOCK_COIN', amount: 2.33 }] }] });
    assert.deepEqual(shop.data, { count: 1 });
    const [stored] = await t.store.dataUploads.recent('npc_shop', 5);
    assert.deepEqual(JSON.parse(stored!.body), { npcName: 'Farm Merchant', offers: [{ itemTag: 'WHEAT', count: 1, costs: [{ tag: 'SKYBLOCK_COIN', amount: 2.33 }] }] });
    assert.equal(stored!.requestId, `mod:${PLAYER}`);

    // Lowball offers: legacy and 1.21 item layouts.
    const hyperion = await mod.request('lowball.create', { item: legacyHyperion(), askingPrice: 800_000_000 });
    assert.equal(hyperion.type, 'result', JSON.stringify(hyperion));
    assert.equal(hyperion.data.itemTag, 'HYPERION');
    assert.equal(hyperion.data.minecraftAccount, PLAYER_DASHED);
    t.clock.advance(1000);
    const diamonds = await mod.request('lowball.create', { item: componentDiamonds(), askingPrice: 1000 });
    assert.equal(diamonds.data.itemTag, 'ENCHANTED_DIAMOND');
    assert.equal(diamonds.data.itemCount, 3);
    const junk = await mod.request('lowball.create', { item: 'bm90IGFuIGl0ZW0=', askingPrice: 5 });
    assert.equal(junk.code, 'invalid_item');

    // API keys: create, list, revoke one of two.
    const created = await mod.request('apikey.create', { profileUuid: PROFILE });
    assert.equal(created.type, 'result');
    const key = created.data.key as string;
    assert.equal(Date.parse(created.data.expiresAt) - Date.parse(created.data.createdAt), 180 * 86_400_000);
    const spare = await mod.request('apikey.create', {});
    const listed = await mod.request('apikey.list');
    assert.deepEqual(listed.data.map((k: { status: string }) => k.status), ['active', 'active']);
    assert.ok(!JSON.stringify(listed.data).includes(key), 'keys are shown only once');
    assert.deepEqual((await mod.request('apikey.revoke', { id: spare.data.id })).data, { id: spare.data.id, revoked: true });
    assert.equal((await mod.request('apikey.revoke', { id: spare.data.id })).code, 'not_found');
    mod.close();

    // Everything back over HTTP with the key and the token.
    const get = (path: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: path, headers });
    const extracted = (await get('/api/player/extracted', { 'x-api-key': key })).json();
    assert.equal(extracted.purse, 2000000);
    assert.equal(extracted.bits, 890);
    assert.equal(extracted.boosterCookieExpires, '2026-12-01T00:00:00.000Z');
    assert.deepEqual(extracted.heartOfTheMountain, { tier: 7, perks: { mining_speed: 50, quick_forge: 20 } });
    assert.deepEqual(extracted.attributeLevel, { mana_pool: 5 });
    assert.equal(extracted.composter.fuelStored, 120000);
    const httpOrders = (await get(`/api/player/bazaar/orders?apiKey=${key}`)).json();
    assert.deepEqual(httpOrders.map((o: { itemTag: string; filled: number }) => [o.itemTag, o.filled]), [['ENCHANTED_DIAMOND', 16], ['WHEAT', 0]]);
    assert.equal(httpOrders[0].customers[0].playerName, 'Bob');
    const httpFlips = (await get(`/api/player/bazaar/flips?apiKey=${key}`)).json();
    assert.deepEqual(httpFlips.map((f: { buyPrice: number; sellPrice: number; profit: number }) => [f.buyPrice, f.sellPrice, f.profit]), [[20000, 25005, 5005]]);
    assert.equal((await get(`/api/player/extracted?apiKey=${spare.data.key}`)).json().slug, 'api_key_revoked');
    const own = (await get('/api/lowball/own', { authorization: `Bearer ${token}` })).json();
    assert.deepEqual(own.map((o: { itemTag: string }) => o.itemTag), ['ENCHANTED_DIAMOND', 'HYPERION']);
    const byItem = (await get('/api/lowball/item/HYPERION?reforge=heroic&stars=5')).json();
    assert.equal(byItem.length, 1);
    // apiAuctionJson is a whole SaveAuction in the established spellings (reforge, tier from the lore, flatNbt.uid).
    const offered = JSON.parse(byItem[0].apiAuctionJson);
    assert.equal(offered.tag, 'HYPERION');
    assert.equal(offered.reforge, 'Heroic');
    assert.equal(offered.tier, 'MYTHIC');
    assert.equal(offered.category, 'UNKNOWN');
    assert.equal(offered.bin, true);
    assert.equal(offered.highestBidAmount, 0);
    assert.equal(typeof offered.end, 'string');
    assert.equal(typeof offered.anvilUses, 'number');
    assert.match(offered.itemCreatedAt, /^\d{4}-\d{2}-\d{2}T/);
    assert.match(byItem[0].lore, /MYTHIC DUNGEON SWORD/);
    assert.deepEqual((await get('/api/lowball/item/HYPERION?reforge=fabled')).json(), []);
    // Another account cannot delete it; the owner can.
    const del = (tok: string) => t.app.inject({ method: 'DELETE', url: `/api/lowball/offer/${hyperion.data.offerId}`, headers: { authorization: `Bearer ${tok}` } });
    assert.equal((await del(otherToken)).statusCode, 404);
    assert.equal((await del(token)).statusCode, 200);
    // Names uploaded through the mod resolve for the hint endpoint.
    const hint = await t.app.inject({ method: 'POST', url: '/api/data/playerName?name=seller_x' });
    assert.deepEqual(hint.json(), { item1: 1, item2: 1 });
  });

  it('a linked player names only itself for certain: names for others are hints that cannot rename or take over a confirmed name (issue 21 item 5)', async () => {
    // SELLER links its own account (set up directly) and names itself; the first test left PLAYER linked to `token`.
    const sellerAccount = await t.store.accounts.create({ tier: 'free', now: t.clock.now() });
    await t.store.modLinks.link(sellerAccount.account.id, SELLER, null, 'operator', t.clock.now());
    const seller = await ModClient.connect(url, { authorization: `Bearer ${sellerAccount.token}` });
    assert.equal((await seller.request('names.upload', { players: [{ uuid: SELLER, name: 'SellerReal' }] })).type, 'result');
    const attacker = await ModClient.connect(url, { authorization: `Bearer ${token}` });
    const ALT = 'cc'.repeat(16);
    assert.equal((await attacker.request('names.upload', { players: [{ uuid: SELLER, name: 'Scammer' }, { uuid: ALT, name: 'SellerReal' }] })).type, 'result');
    t.clock.advance(1000);
    const hint = async (name: string) => (await t.app.inject({ method: 'POST', url: `/api/data/playerName?name=${name}` })).json();
    // SELLER keeps its name (its one active auction answers), and the attacker's names went nowhere.
    assert.deepEqual(await hint('sellerreal'), { item1: 1, item2: 1 });
    assert.deepEqual(await hint('Scammer'), { item1: 0, item2: 0 });
    assert.equal((await t.store.playerNames.namesOf([SELLER, ALT])).get(SELLER), 'SellerReal');
    assert.equal((await t.store.playerNames.namesOf([ALT])).get(ALT), undefined);
    seller.close();
    attacker.close();
  });

  it('authenticates with a first auth message, and refuses commands before it', async () => {
    const mod = await ModClient.connect(url);
    assert.equal((await mod.next((m) => m.type === 'welcome')).data.authenticated, false);
    assert.equal((await mod.request('ping')).code, 'unauthenticated');
    assert.equal((await mod.request('auth', { token: 'sma_wrong' })).code, 'invalid_token');
    const ok = await mod.request('auth', { token: otherToken });
    assert.equal(ok.type, 'result');
    assert.equal((await mod.request('ping')).type, 'result');
    assert.equal((await mod.request('auth', { token: otherToken })).code, 'already_authenticated');
    mod.close();
  });

  it('closes an upgrade with an invalid token header', async () => {
    const mod = await ModClient.connect(url, { authorization: 'Bearer sma_nonsense' });
    assert.equal((await mod.waitClose()).code, 1008);
  });

  it('answers every malformed message with an error and keeps the session (and others) open', async () => {
    const a = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
    const b = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
    await a.next((m) => m.type === 'welcome');
    const raw = (payload: string | Buffer) => {
      a.ws.send(payload);
      return a.next((m) => m.type === 'error');
    };
    assert.equal((await raw('{not json')).code, 'malformed_json');
    assert.equal((await raw('[1,2]')).code, 'invalid_message');
    assert.equal((await raw('{"type":"ping","extra":1}')).code, 'invalid_message');
    assert.equal((await raw(Buffer.from([1, 2, 3]))).code, 'invalid_message');
    assert.equal((await raw(JSON.stringify({ type: 'ping', data: { pad: 'x'.repeat(LIMITS.messageBytes) } }))).code, 'too_large');
    assert.equal((await a.request('nope')).code, 'unknown_command');
    const bad: Array<[string, unknown]> = [
      ['link.start', { playerUuid: 'not-a-uuid' }],
      ['link.start', { playerUuid: PLAYER, playerName: 'bad name!' }],
      ['state.upload', { state: {} }],
      ['state.upload', { state: { purse: 'lots' } }],
      ['state.upload', { state: { unknownField: 1 } }],
      ['state.upload', { state: { boosterCookieExpires: 'tomorrow' } }],
      ['orders.upload', { orders: Array.from({ length: LIMITS.orders + 1 }, () => ({ isSell: true, itemTag: 'WHEAT', amount: 1, filled: 0, pricePerUnit: 1, created: '2026-11-22T10:00:00Z' })) }],
      ['orders.upload', { orders: [{ isSell: true, itemTag: 'bad tag', amount: 1, filled: 0, pricePerUnit: 1, created: '2026-11-22T10:00:00Z' }] }],
      ['orders.upload', { orders: [{ isSell: true, itemTag: 'WHEAT', amount: 0, filled: 0, pricePerUnit: -1, created: '2026-11-22T10:00:00Z' }] }],
      ['flip.report', { itemTag: 'WHEAT', amount: 1, buyPrice: 1, sellPrice: 2 }],
      ['names.upload', { players: [] }],
      ['npcshop.upload', { npcName: 'X', offers: [] }],
      ['npcshop.upload', { npcName: 'X', offers: [{ itemTag: 'WHEAT', count: 0, costs: [{ tag: 'SKYBLOCK_COIN', amount: 1 }] }] }],
      ['npcshop.upload', { npcName: 'X', offers: [{ itemTag: 'WHEAT', count: 1, costs: [{ tag: 'SKYBLOCK_COIN', amount: -1 }] }] }],
      ['npcshop.upload', { npcName: 'X', offers: Array.from({ length: LIMITS.npcOffers + 1 }, () => ({ itemTag: 'WHEAT', count: 1, costs: [{ tag: 'SKYBLOCK_COIN', amount: 1 }] })) }],
      ['lowball.create', { item: legacyHyperion(), askingPrice: 0 }],
      ['lowball.create', { item: 5, askingPrice: 10 }],
      ['apikey.revoke', { id: 'x' }],
    ];
    // Each connection has its own rate bucket: spread the cases over fresh connections.
    let c = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
    for (const [i, [type, data]] of bad.entries()) {
      if (i > 0 && i % 10 === 0) {
        c.close();
        c = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
      }
      const reply = await c.request(type, data);
      assert.equal(reply.type, 'error', `${type} ${JSON.stringify(data).slice(0, 60)}`);
      assert.equal(reply.code, 'invalid_message', `${type}: ${reply.code}`);
      assert.ok(reply.errors && Object.keys(reply.errors as object).length > 0, `${type} names the bad fields`);
    }
    c.close();
    // Still open, still answering; and the other session never noticed.
    assert.equal((await a.request('ping')).type, 'result');
    assert.equal(a.closed, undefined);
    assert.equal((await b.request('ping')).type, 'result');
    a.close();
    b.close();
  });

  it('rate-limits each connection on its own and closes a client that keeps flooding', async () => {
    const flood = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
    const calm = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
    await flood.next((m) => m.type === 'welcome');
    for (let i = 0; i < LIMITS.burst + 10; i++) flood.ws.send(JSON.stringify({ type: 'ping', id: i }));
    const limited = await flood.next((m) => m.code === 'rate_limited');
    assert.ok((limited.retryAfterMs as number) > 0);
    assert.equal((await calm.request('ping')).type, 'result', 'another connection is not limited');
    for (let i = 0; i < LIMITS.maxRefusals + 5; i++) flood.ws.send('{"type":"ping"}');
    assert.equal((await flood.waitClose()).code, 1008);
    assert.equal((await calm.request('ping')).type, 'result');
    calm.close();
  });

  it('queues a burst past the processing queue (pausing reads) and answers every message in order', async () => {
    const mod = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
    await mod.next((m) => m.type === 'welcome');
    assert.ok(LIMITS.burst > LIMITS.queue, 'the burst overfills the queue, so reading pauses and resumes');
    for (let i = 0; i < LIMITS.burst; i++) mod.ws.send(JSON.stringify({ type: 'link.status', id: i }));
    const ids: unknown[] = [];
    for (let i = 0; i < LIMITS.burst; i++) ids.push((await mod.next((m) => m.type === 'result')).id);
    assert.deepEqual(ids, Array.from({ length: LIMITS.burst }, (_, i) => i));
    mod.close();
  });

  it('closes a connection that sends a frame over the hard cap', async () => {
    const big = await ModClient.connect(url, { authorization: `Bearer ${otherToken}` });
    big.ws.send('x'.repeat(LIMITS.frameBytes + 1));
    assert.equal((await big.waitClose()).code, 1009);
  });
});
