/** HTTP tests of the auction endpoints: defaults, bounds, gates, bad input, on the real app over SQLite. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { hex32, listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';

const DAY = 86_400_000;
const SELLER = '11111111111111111111111111111111';

describe('auction endpoints', () => {
  let t: TestApp;
  let now: number;
  const tokens: Record<string, string> = {};
  let partner: string;
  // fixtures
  const hyperions = [] as ReturnType<typeof listing>[];
  let withBid: ReturnType<typeof listing>;
  let sharp6: ReturnType<typeof listing>;
  let soldUid: string;

  before(async () => {
    t = await createTestApp();
    now = t.clock.now();
    for (const tier of ['free', 'starter_premium', 'premium', 'premium_plus'] as const) {
      tokens[tier] = (await t.store.accounts.create({ tier, now })).token;
    }
    partner = (await t.store.partners.create({ name: 'Acme', now })).token;

    for (let i = 0; i < 14; i++) {
      hyperions.push(listing(now, { starting_bid: 1_000_000 + i * 1000, end_at: now + DAY + i * 60_000 }));
    }
    sharp6 = listing(now, { starting_bid: 2_000_000, enchantments: { sharpness: 6, ultimate_wise: 5 }, tier: 'MYTHIC', reforge: 'heroic' });
    withBid = listing(now, { starting_bid: 500, bin: false, highest_bid: 5_000_000, end_at: now + 60_000 });
    const pets = Array.from({ length: 3 }, (_, i) =>
      listing(now, {
        tag: 'PET_ENDER_DRAGON',
        item_name: '[Lvl 100] Ender Dragon',
        starting_bid: 500_000_000 + i,
        enchantments: null,
        flat_nbt: { 'petInfo.type': 'ENDER_DRAGON', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': String(i === 0 ? 30_000_000 : 0) },
      }),
    );
    await storeGeneration(
      t.store,
      now,
      [...hyperions, sharp6, withBid, ...pets],
      [{ auction_uuid: withBid.uuid, amount: 5_000_000, bidder: 'dddddddddddddddddddddddddddddddd', profile_id: null, placed_at: now - 1000 }],
    );

    // Sales: 3 in the last day, 10 between 2 and 10 days ago, one 20 days ago; one item sold twice.
    const itemUuid = hex32();
    soldUid = itemUuid.slice(-12);
    const sales = [
      sale(now, 3_600_000, { sold_price: 900_000, item_uid: soldUid, seller: SELLER }),
      sale(now, 7_200_000, { sold_price: 950_000 }),
      sale(now, 10_800_000, { sold_price: 1_100_000, bin: false }),
      ...Array.from({ length: 10 }, (_, i) => sale(now, (2 + (i % 8)) * DAY, { sold_price: 1_000_000 + i * 10_000 })),
      sale(now, 20 * DAY, { sold_price: 800_000, item_uid: soldUid }),
    ];
    await storeSales(t.store, now, sales);
    await t.store.bazaar.insertSnapshot(
      [
        {
          product_id: 'ENCHANTMENT_ULTIMATE_WISE_5',
          ts: now,
          buy_price: 1_500_000,
          sell_price: 1_400_000,
          buy_volume: 1,
          sell_volume: 1,
          buy_moving_week: 1,
          sell_moving_week: 1,
          buy_orders: 1,
          sell_orders: 1,
          book: null,
        },
      ],
      { name: 'bazaar', lastUpdated: now, storedAt: now, records: 1, source: 'upstream' },
    );
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, payload: payload as object, headers });
  const bearer = (tier: string) => ({ authorization: `Bearer ${tokens[tier]}` });
  const problem = (res: { statusCode: number; json(): unknown; headers: Record<string, unknown> }, status: number, slug?: string) => {
    assert.equal(res.statusCode, status, JSON.stringify(res.json()));
    const body = res.json() as { slug?: string; detail?: string };
    if (slug) assert.equal(body.slug, slug, JSON.stringify(body));
    return body;
  };

  describe('GET /api/auctions/tag/{itemTag}/active/bin', () => {
    it('returns the 10 cheapest BIN auctions without bids, cheapest first, with itemCreatedAt', async () => {
      const res = await get('/api/auctions/tag/HYPERION/active/bin');
      assert.equal(res.statusCode, 200);
      const body = res.json() as Array<{ uuid: string; startingBid: number; itemCreatedAt: string; bin: boolean; bids: unknown[] }>;
      assert.equal(body.length, 10);
      assert.deepEqual(body.map((a) => a.uuid), hyperions.slice(0, 10).map((h) => h.uuid));
      assert.ok(body.every((a) => a.bin && a.bids.length === 0 && typeof a.itemCreatedAt === 'string'));
      assert.match(String(res.headers['cache-control']), /max-age/);
    });

    it('applies filters, matches tags case-insensitively, pages', async () => {
      const res = await get('/api/auctions/tag/hyperion/active/bin?sharpness=6&Rarity=MYTHIC');
      assert.deepEqual((res.json() as Array<{ uuid: string }>).map((a) => a.uuid), [sharp6.uuid]);
      const page1 = (await get('/api/auctions/tag/HYPERION/active/bin?page=1')).json() as Array<{ uuid: string }>;
      assert.deepEqual(page1.map((a) => a.uuid), [...hyperions.slice(10).map((h) => h.uuid), sharp6.uuid]);
      const pet = (await get('/api/auctions/tag/PET_ENDER_DRAGON/active/bin?PetLevel=100')).json() as Array<{ uuid: string }>;
      assert.equal(pet.length, 1);
      assert.deepEqual((await get('/api/auctions/tag/HYPERION/active/bin?sharpness=7')).json(), []);
    });

    it('rejects bad tags, unknown tags, malformed and unknown filters, out-of-range pages', async () => {
      problem(await get('/api/auctions/tag/BAD%20TAG!/active/bin'), 400, 'invalid_tag');
      problem(await get('/api/auctions/tag/NO_SUCH_ITEM/active/bin'), 404, 'item_not_found');
      const malformed = problem(await get('/api/auctions/tag/HYPERION/active/bin?Stars=lots'), 400, 'invalid_number');
      assert.match(malformed.detail!, /Stars/);
      const unknown = problem(await get('/api/auctions/tag/HYPERION/active/bin?Sharpnes=5'), 400, 'unknown_filter');
      assert.match(unknown.detail!, /Sharpnes/);
      problem(await get('/api/auctions/tag/HYPERION/active/bin?page=-1'), 400);
      problem(await get('/api/auctions/tag/HYPERION/active/bin?page=abc'), 400);
    });
  });

  describe('GET /api/auctions/active/filter', () => {
    it('filters across items, 50 per page by default, ending soonest first', async () => {
      const all = (await get('/api/auctions/active/filter')).json() as Array<{ uuid: string; bids: unknown[] }>;
      assert.equal(all.length, 19);
      assert.equal(all[0]!.uuid, withBid.uuid, 'ends first');
      assert.equal(all[0]!.bids.length, 1, 'bids included');
      const pets = (await get('/api/auctions/active/filter?ItemId=PET_ENDER_DRAGON&orderBy=HIGHEST_PRICE')).json() as Array<{ startingBid: number }>;
      assert.deepEqual(pets.map((p) => p.startingBid), [500_000_002, 500_000_001, 500_000_000]);
      const small = (await get('/api/auctions/active/filter?pageSize=2&page=1')).json() as unknown[];
      assert.equal(small.length, 2);
    });

    it('rejects out-of-range paging, bad orderBy and bad filters', async () => {
      problem(await get('/api/auctions/active/filter?pageSize=0'), 400);
      problem(await get('/api/auctions/active/filter?pageSize=501'), 400);
      problem(await get('/api/auctions/active/filter?orderBy=CHEAPEST'), 400);
      problem(await get('/api/auctions/active/filter?Rarity=SHINY'), 400, 'invalid_rarity');
    });
  });

  describe('GET /api/auctions/tag/{itemTag}/active/overview', () => {
    it('previews, 12 per page, LOWEST_PRICE by default; HIGHEST_PRICE counts the highest bid; ENDING_SOON', async () => {
      const low = (await get('/api/auctions/tag/HYPERION/active/overview')).json() as Array<{ uuid: string; price: number; seller: string; playerName: null; end: string }>;
      assert.equal(low.length, 12);
      assert.equal(low[0]!.uuid, hyperions[0]!.uuid);
      assert.deepEqual(Object.keys(low[0]!).sort(), ['end', 'playerName', 'price', 'seller', 'uuid']);
      const high = (await get('/api/auctions/tag/HYPERION/active/overview?orderBy=HIGHEST_PRICE')).json() as Array<{ uuid: string; price: number }>;
      assert.deepEqual([high[0]!.uuid, high[0]!.price], [withBid.uuid, 5_000_000]);
      const soon = (await get('/api/auctions/tag/HYPERION/active/overview?orderBy=ENDING_SOON')).json() as Array<{ uuid: string }>;
      assert.equal(soon[0]!.uuid, withBid.uuid);
      const page1 = (await get('/api/auctions/tag/HYPERION/active/overview?page=1')).json() as unknown[];
      assert.equal(page1.length, 4);
    });

    it("shows the seller's name once skymarket has seen it", async () => {
      const before = (await get('/api/auctions/tag/HYPERION/active/overview')).json() as Array<{ seller: string; playerName: string | null }>;
      assert.equal(before[0]!.playerName, null);
      await t.store.playerNames.record([{ playerUuid: before[0]!.seller, name: 'Technoblade' }], 'mod', now);
      const after = (await get('/api/auctions/tag/HYPERION/active/overview')).json() as Array<{ seller: string; playerName: string | null }>;
      for (const p of after) assert.equal(p.playerName, p.seller === before[0]!.seller ? 'Technoblade' : null);
    });

    it('pages from 10 need Premium+; bad orderBy is 400', async () => {
      assert.equal((await get('/api/auctions/tag/HYPERION/active/overview?page=10')).statusCode, 401);
      assert.equal((await get('/api/auctions/tag/HYPERION/active/overview?page=10', bearer('premium'))).statusCode, 403);
      const ok = await get('/api/auctions/tag/HYPERION/active/overview?page=10', bearer('premium_plus'));
      assert.equal(ok.statusCode, 200);
      assert.deepEqual(ok.json(), []);
      problem(await get('/api/auctions/tag/HYPERION/active/overview?orderBy=lowest'), 400);
      problem(await get('/api/auctions/tag/NOPE/active/overview'), 404, 'item_not_found');
    });
  });

  describe('sold history', () => {
    it('sold: last 7 days, newest first, pageSize default 1000; partner token widens to 30 days', async () => {
      const sold = (await get('/api/auctions/tag/HYPERION/sold')).json() as Array<{ end: string; highestBidAmount: number; flattenedNbt: object; shortItemBytes: null }>;
      assert.equal(sold.length, 3 + 8, 'sales within 7 days');
      const ends = sold.map((s) => Date.parse(s.end));
      assert.deepEqual(ends, [...ends].sort((a, b) => b - a));
      assert.equal(sold[0]!.highestBidAmount, 900_000);
      assert.equal(sold[0]!.shortItemBytes, null);
      const paged = (await get('/api/auctions/tag/HYPERION/sold?pageSize=2&page=1')).json() as Array<{ highestBidAmount: number }>;
      assert.equal(paged.length, 2);
      assert.equal(paged[0]!.highestBidAmount, 1_100_000, 'third newest sale');
      const partnerView = (await get(`/api/auctions/tag/HYPERION/sold?token=${partner}`)).json() as unknown[];
      assert.equal(partnerView.length, 14);
      // Partners may ask for pages beyond 1,000.
      const large = await get(`/api/auctions/tag/HYPERION/sold?pageSize=5000&token=${partner}`);
      assert.equal(large.statusCode, 200);
      assert.equal((large.json() as unknown[]).length, 14);
    });

    it('sold: rejects pageSize outside 1-1000, negative pages, unknown tags', async () => {
      problem(await get('/api/auctions/tag/HYPERION/sold?pageSize=0'), 400);
      problem(await get('/api/auctions/tag/HYPERION/sold?pageSize=1001'), 400, 'invalid_parameters');
      problem(await get(`/api/auctions/tag/HYPERION/sold?pageSize=10001&token=${partner}`), 400);
      problem(await get('/api/auctions/tag/HYPERION/sold?page=-1'), 400);
      problem(await get('/api/auctions/tag/HYPERION/sold?page=1e309'), 400, 'invalid_parameters');
      problem(await get('/api/auctions/tag/NOPE/sold'), 404);
    });

    it('recent overview widens from 1 to 14 days when fewer than 12 sales match', async () => {
      const recent = (await get('/api/auctions/tag/HYPERION/recent/overview')).json() as Array<{ price: number }>;
      assert.equal(recent.length, 12);
      assert.equal(recent[0]!.price, 900_000);
      const filtered = (await get('/api/auctions/tag/HYPERION/recent/overview?Bin=false')).json() as Array<{ price: number }>;
      assert.deepEqual(filtered.map((r) => r.price), [1_100_000]);
      problem(await get('/api/auctions/tag/HYPERION/recent/overview?Bogus=1'), 400, 'unknown_filter');
    });

    it('uid sold: every sale of the item, by full uuid or last 12 hex; short uids are 400', async () => {
      const full = (await get(`/api/auctions/uid/${soldUid}/sold`)).json() as Array<{ highestBid: number; seller: string; buyer: string; itemTag: string }>;
      assert.deepEqual(full.map((s) => s.highestBid), [900_000, 800_000]);
      assert.equal(full[0]!.seller, SELLER);
      assert.equal(full[0]!.itemTag, 'HYPERION');
      const long = (await get(`/api/auctions/uid/00000000-0000-0000-0000-${soldUid}/sold`)).json() as unknown[];
      assert.equal(long.length, 2);
      problem(await get('/api/auctions/uid/abc/sold'), 400, 'invalid_uuid');
    });

    it('uids sold batch: every requested uid present; more than 120 is 400', async () => {
      const res = await post('/api/auctions/uids/sold', { uuids: [soldUid, 'ffffffffffff'] });
      const body = res.json() as Record<string, Array<{ itemTag: null }>>;
      assert.deepEqual(Object.keys(body).sort(), [soldUid, 'ffffffffffff'].sort());
      assert.equal(body[soldUid]!.length, 2);
      assert.equal(body[soldUid]![0]!.itemTag, null);
      assert.deepEqual(body['ffffffffffff'], []);
      problem(await post('/api/auctions/uids/sold', { uuids: Array.from({ length: 121 }, () => 'ffffffffffff') }), 400);
      problem(await post('/api/auctions/uids/sold', { uuids: ['zz'] }), 400, 'invalid_uuid');
      problem(await post('/api/auctions/uids/sold', { nope: 1 }), 400);
    });
  });

  describe('active uuids, low supply, single auctions, random', () => {
    it('active/uuid returns the listed subset', async () => {
      // Any item uuid ending in the listing's uid (the lookup id) names its item.
      const listed = `00000000000000000000${hyperions[0]!.item_uid!}`;
      const res = await post('/api/auctions/active/uuid', [listed, 'ffffffffffffffffffffffffffffffff']);
      assert.deepEqual(res.json(), [listed]);
      problem(await post('/api/auctions/active/uuid', ['x']), 400, 'invalid_uuid');
      problem(await post('/api/auctions/active/uuid', { not: 'an array' }), 400);
    });

    it('supply/low lists thin, valuable items with lowest BIN data', async () => {
      const low = (await get('/api/auctions/supply/low')).json() as Array<{ tag: string; supply: number; median: number; volume: number; lbinData: { lowest: number; secondLowest: number } }>;
      const pet = low.find((e) => e.tag === 'PET_ENDER_DRAGON');
      assert.ok(pet, JSON.stringify(low));
      assert.equal(pet.supply, 3);
      assert.equal(pet.volume, 0);
      assert.deepEqual([pet.lbinData.lowest, pet.lbinData.secondLowest], [500_000_000, 500_000_001]);
      const hyperion = low.find((e) => e.tag === 'HYPERION');
      assert.deepEqual([hyperion?.supply, hyperion?.median, hyperion?.volume], [16, 1_030_000, 1.57], '11 sales in 7 days, upper median');
    });

    it('auction detail: bids, coloured enchantments by value; 404 unknown; 400 malformed', async () => {
      const detail = (await get(`/api/auction/${sharp6.uuid}`)).json() as { enchantments: Array<{ type: string; color: string; value: number }>; reforge: string; tier: string };
      assert.deepEqual(detail.enchantments.map((e) => [e.type, e.color, e.value]), [
        ['ultimate_wise', '§d', 1_500_000],
        ['sharpness', '§5', 0],
      ]);
      assert.equal(detail.reforge, 'Heroic');
      assert.equal(detail.tier, 'MYTHIC');
      const bid = (await get(`/api/auction/${withBid.uuid}`)).json() as { bids: Array<{ amount: number }> };
      assert.deepEqual(bid.bids.map((b) => b.amount), [5_000_000]);
      problem(await get(`/api/auction/${'f'.repeat(32)}`), 404, 'auction_not_found');
      problem(await get('/api/auction/not-a-uuid'), 400, 'invalid_uuid');
    });

    it('auction uid: the item lookup id as text', async () => {
      const res = await get(`/api/auction/${sharp6.uuid}/uid`);
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /text\/plain/);
      assert.equal(res.body, sharp6.item_uid);
    });

    it('random: an active auction; partner token adds bids', async () => {
      const res = await get('/api/auction/random');
      assert.equal(res.statusCode, 200);
      assert.match((res.json() as { uuid: string }).uuid, /^[0-9a-f]{32}$/);
      assert.equal((await get(`/api/auction/random?token=${partner}`)).statusCode, 200);
    });
  });

  describe('GET /api/item/price/{itemTag}/analysis', () => {
    it('7 days by default with every named field', async () => {
      const r = (await get('/api/item/price/HYPERION/analysis')).json() as Record<string, unknown>;
      assert.equal(r.totalSales, 11);
      for (const key of ['volumeBuckets', 'sellSpeedBuckets', 'hourlyBreakdown', 'topSellers', 'priceStdDev', 'priceCoeffVariation', 'binPercentage', 'salesPerDay', 'medianPrice', 'avgSellTimeSeconds']) {
        assert.ok(key in r, key);
      }
      const filtered = (await get('/api/item/price/HYPERION/analysis?Bin=false')).json() as { totalSales: number; binPercentage: number };
      assert.deepEqual([filtered.totalSales, filtered.binPercentage], [1, 0]);
    });

    it('day gates: 8-30 Starter Premium, 31+ Premium; clamped to 365; empty is all zeros', async () => {
      assert.equal((await get('/api/item/price/HYPERION/analysis?days=8')).statusCode, 401);
      assert.equal((await get('/api/item/price/HYPERION/analysis?days=8', bearer('free'))).statusCode, 403);
      const starter = (await get('/api/item/price/HYPERION/analysis?days=30', bearer('starter_premium'))).json() as { totalSales: number };
      assert.equal(starter.totalSales, 14);
      assert.equal((await get('/api/item/price/HYPERION/analysis?days=31', bearer('starter_premium'))).statusCode, 403);
      assert.equal((await get('/api/item/price/HYPERION/analysis?days=5000', bearer('premium'))).statusCode, 200);
      assert.equal((await get('/api/item/price/HYPERION/analysis?days=0')).statusCode, 200, 'clamped to 1');
      const empty = (await get('/api/item/price/PET_ENDER_DRAGON/analysis')).json() as { totalSales: number; volumeBuckets: unknown[]; priceStdDev: number };
      assert.deepEqual([empty.totalSales, empty.volumeBuckets, empty.priceStdDev], [0, [], 0]);
      problem(await get('/api/item/price/HYPERION/analysis?days=week'), 400);
      problem(await get('/api/item/price/HYPERION/analysis?Stars=x'), 400, 'invalid_number');
      problem(await get('/api/item/price/NOPE/analysis'), 404);
    });
  });

  describe('POST /api/Filter', () => {
    const auction = {
      tag: 'HYPERION',
      itemName: 'Heroic Hyperion',
      tier: 'LEGENDARY',
      bin: true,
      startingBid: 900_000_000,
      enchantments: [{ type: 'sharpness', level: 6 }],
      flatNbt: { upgrade_level: '5' },
    };
    it('answers whether the auction matches', async () => {
      assert.equal((await post('/api/Filter', { filters: { Stars: '5', sharpness: '6' }, auction })).json(), true);
      assert.equal((await post('/api/Filter', { filters: { Rarity: 'MYTHIC' }, auction })).json(), false);
      assert.equal((await post('/api/Filter', { filters: null, auction })).json(), true);
    });
    it('400 for bad filters or a missing auction', async () => {
      problem(await post('/api/Filter', { filters: { Nope: '1' }, auction }), 400, 'unknown_filter');
      problem(await post('/api/Filter', { filters: {} }), 400);
    });
  });

  it('every auction route is in the OpenAPI document with tags and a summary', async () => {
    const doc = (await get('/api/openapi.json')).json() as { paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> };
    for (const path of [
      '/api/auction/{auctionUuid}',
      '/api/auction/{auctionUuid}/uid',
      '/api/auction/random',
      '/api/auctions/tag/{itemTag}/active/bin',
      '/api/auctions/active/filter',
      '/api/auctions/tag/{itemTag}/active/overview',
      '/api/auctions/tag/{itemTag}/recent/overview',
      '/api/auctions/tag/{itemTag}/sold',
      '/api/auctions/uid/{uid}/sold',
      '/api/auctions/uids/sold',
      '/api/auctions/active/uuid',
      '/api/auctions/supply/low',
      '/api/item/price/{itemTag}/analysis',
      '/api/Filter',
      '/api/auctions/tag/{itemTag}/archive/overview',
      '/api/auctions/tag/{itemTag}/archive/export',
      '/api/auctions/archive/exports',
      '/api/auctions/batch',
    ]) {
      const ops = doc.paths[path];
      assert.ok(ops, `${path} documented`);
      for (const op of Object.values(ops)) assert.ok(op.tags?.length && op.summary, `${path} has tags and summary`);
    }
  });
});
