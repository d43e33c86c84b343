/**
 * The price file networth libraries read (`/api/prices/networth`) over HTTP on SQLite and
 * PostgreSQL: keys and prices from the stored listings and bazaar snapshot, gzip, ETag, 304 and
 * the content type, and a rebuild when the listings or the bazaar move.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { insert, offerRow } from '../../helpers/bazaar.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';

const HOUR = 3_600_000;

const MAX_EXP = String(1e12);

function pet(now: number, type: string, tier: string, exp: string, price: number, extra: Record<string, string> = {}): AuctionsTable {
  return listing(now, {
    tag: `PET_${type}`,
    item_name: `[Lvl 1] ${type}`,
    tier,
    starting_bid: price,
    enchantments: {},
    flat_nbt: { 'petInfo.type': type, 'petInfo.tier': tier, 'petInfo.exp': exp, ...extra },
  });
}

describeEachBackend('networth price file', (fixture) => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    const now = t.clock.now();
    await storeGeneration(t.store, now, [
      ...Array.from({ length: 12 }, (_, i) => listing(now, { starting_bid: 800_000_000 + i * 5_000_000 })),
      listing(now, { starting_bid: 1_000 }), // planted far below the market
      listing(now, { starting_bid: 10, bin: false }), // an auction, not a BIN
      pet(now, 'ENDER_DRAGON', 'LEGENDARY', '0', 550_000_000),
      pet(now, 'ENDER_DRAGON', 'LEGENDARY', MAX_EXP, 640_000_000),
      pet(now, 'ENDER_DRAGON', 'LEGENDARY', MAX_EXP, 900_000_000, { 'petInfo.skin': 'DRAGON_NEON_RED' }),
      pet(now, 'GOLDEN_DRAGON', 'LEGENDARY', MAX_EXP, 1_100_000_000),
      listing(now, { tag: 'ENCHANTMENT_ULTIMATE_WISE_5', item_name: 'Enchanted Book', tier: 'UNCOMMON', starting_bid: 2_000_000, enchantments: { ultimate_wise: 5 } }),
      listing(now, { tag: 'WITHER_GOGGLES', item_name: 'Wither Goggles', starting_bid: 30_000_000, flat_nbt: { skin: 'WITHER_GOGGLES_CELESTIAL' } }),
      listing(now, { tag: 'ATTRIBUTE_SHARD', item_name: 'Attribute Shard', starting_bid: 1_600_000, flat_nbt: { 'attributes.mana_pool': '3' } }),
      // Enough ids that the file passes the 1 KB under which bodies go out unencoded.
      ...Array.from({ length: 60 }, (_, i) => listing(now, { tag: `FILLER_ITEM_${i}`, item_name: `Filler ${i}`, starting_bid: 1_000 + i })),
    ]);
    await insert(t.store, [offerRow('ESSENCE_WITHER', now - 1_000, 2_500), offerRow('ENCHANTMENT_ULTIMATE_WISE_5', now - 1_000, 1_200_000)]);
  });
  after(() => t.close());

  test('keys as the libraries look them up, priced from the listings and the bazaar', async () => {
    const res = await t.app.inject('/api/prices/networth');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const file = res.json() as Record<string, number>;
    assert.equal(file['hyperion'], 800_000_000, 'the lowest BIN inside the fence, not the planted one');
    assert.equal(file['lvl_1_legendary_ender_dragon'], 550_000_000);
    assert.equal(file['lvl_100_legendary_ender_dragon'], 640_000_000);
    assert.equal(file['lvl_100_legendary_ender_dragon_skinned_dragon_neon_red'], 900_000_000);
    assert.equal(file['lvl_200_legendary_golden_dragon'], 1_100_000_000);
    assert.equal(file['wither_goggles_skinned_wither_goggles_celestial'], 30_000_000);
    assert.equal(file['wither_goggles'], undefined, 'no unskinned goggles listed: no key');
    assert.equal(file['attribute_shard_mana_pool'], 400_000, 'level 3 holds four level-1 shards');
    assert.equal(file['essence_wither'], 2_499, 'bazaar: the highest buy order');
    assert.equal(file['enchantment_ultimate_wise_5'], 1_199_999, 'the bazaar wins over the auction house');
    assert.ok(Object.values(file).every((v) => typeof v === 'number' && v > 0));
    assert.ok(Object.keys(file).every((k) => k === k.toLowerCase()));

    const upper = (await t.app.inject('/api/prices/networth?case=upper')).json() as Record<string, number>;
    assert.equal(upper['LVL_100_LEGENDARY_ENDER_DRAGON'], 640_000_000);
    assert.equal(Object.keys(upper).length, Object.keys(file).length);
    const meta = (await t.app.inject('/api/prices/files')).json() as { networth: { keys: number; listings: number; products: number; paths: string[]; method: string } };
    assert.equal(meta.networth.keys, Object.keys(file).length);
    assert.equal(meta.networth.products, 2);
    assert.ok(meta.networth.listings >= 20 && meta.networth.paths.includes('/api/prices/networth') && meta.networth.method.length > 50);
    const bad = await t.app.inject('/api/prices/networth?case=title');
    assert.equal(bad.statusCode, 400);
    assert.match(String(bad.headers['content-type']), /problem\+json/);
  });

  test('gzip when accepted, ETag and 304, Last-Modified, the cache lifetime', async () => {
    const plain = await t.app.inject('/api/prices/networth');
    assert.ok(plain.rawPayload.length > 1024, `${plain.rawPayload.length} bytes`);
    const gz = await t.app.inject({ url: '/api/prices/networth', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.statusCode, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(String(gz.headers['content-type']), /^application\/json/);
    assert.equal(gunzipSync(gz.rawPayload).toString(), plain.body);
    for (const res of [plain, gz]) {
      assert.ok(res.headers['etag'], 'an ETag');
      assert.ok(res.headers['last-modified'], 'a Last-Modified');
      assert.match(String(res.headers['cache-control']), /max-age=60/);
    }
    const again = await t.app.inject({ url: '/api/prices/networth', headers: { 'if-none-match': String(plain.headers['etag']) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const upper = await t.app.inject('/api/prices/networth?case=upper');
    assert.notEqual(upper.headers['etag'], plain.headers['etag']);
  });

  test('rebuilt when the listings or the bazaar change', async () => {
    const before = await t.app.inject('/api/prices/networth');
    const now = t.clock.now();
    await storeGeneration(t.store, now, [listing(now, { tag: 'ASPECT_OF_THE_END', item_name: 'Aspect of the End', starting_bid: 100_000 })]);
    const afterListings = await t.app.inject('/api/prices/networth');
    assert.notEqual(afterListings.headers['etag'], before.headers['etag']);
    assert.equal((afterListings.json() as Record<string, number>)['aspect_of_the_end'], 100_000);

    await insert(t.store, [offerRow('ESSENCE_WITHER', now, 3_001)]);
    const afterBazaar = await t.app.inject('/api/prices/networth');
    assert.notEqual(afterBazaar.headers['etag'], afterListings.headers['etag']);
    assert.equal((afterBazaar.json() as Record<string, number>)['essence_wither'], 3_000);
  });

  test("a key nothing is listed under now: the last day's mean hourly lowest BIN from the rollups", async () => {
    const now = t.clock.now();
    const terminator = listing(now, { tag: 'TERMINATOR', item_name: 'Terminator', starting_bid: 300_000_000 });
    await storeGeneration(t.store, now, [terminator]);
    await priceRollupsOf(t).recordLowestBins(now - 2 * HOUR);
    await priceRollupsOf(t).catchUp(now);
    assert.equal(((await t.app.inject('/api/prices/networth')).json() as Record<string, number>)['terminator'], 300_000_000);
    await storeGeneration(t.store, now, [], [], [terminator.uuid]); // sold: nothing listed now
    const file = (await t.app.inject('/api/prices/networth')).json() as Record<string, number>;
    assert.equal(file['terminator'], 300_000_000, 'from the recorded hour');
    assert.equal(file['lvl_100_legendary_ender_dragon'], 640_000_000, 'still listed: the listing');
  });

  test('over a socket: the fast path sends the current file, and leaves a stale one to the route', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const get = async () => {
      const res = await fetch(`${base}/api/prices/networth`, { headers: { 'accept-encoding': 'identity' } });
      return { status: res.status, etag: res.headers.get('etag'), body: (await res.json()) as Record<string, number> };
    };
    const served = () => t.app.storedResponses.served;
    const first = await get(); // builds, or finds it built by the requests above
    let before = served();
    const second = await get();
    assert.equal(served() - before, 1, 'the fast path took the request');
    assert.deepEqual(second, first);
    assert.equal(second.etag, (await t.app.inject('/api/prices/networth')).headers['etag'], 'the same ETag as the route');

    const now = t.clock.now();
    await insert(t.store, [offerRow('ESSENCE_WITHER', now + 1_000, 4_001)]);
    before = served();
    const fresh = await get();
    assert.equal(served() - before, 0, 'a newer snapshot: left to the route, which rebuilds');
    assert.equal(fresh.body['essence_wither'], 4_000);
    assert.notEqual(fresh.etag, second.etag);
    before = served();
    assert.deepEqual(await get(), fresh);
    assert.equal(served() - before, 1, 'current again: the fast path');
  });
});
