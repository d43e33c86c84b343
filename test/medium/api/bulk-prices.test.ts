/**
 * The bulk price files over HTTP on SQLite and PostgreSQL, parsed the way the mods parse them
 * (NEU's and Coflnet's `{id: number}`, Elite's `{id: long}`), checked against the stored
 * listings; then on the real 2022 pages ingested as a generation.
 */
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import { neuIdOf } from '../../../src/domain/item-names.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { FakeUpstream } from '../../helpers/fake-upstream.ts';
import { realGeneration } from '../../helpers/fixtures.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { insert, offerRow } from '../../helpers/bazaar.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';

const HOUR = 3_600_000;
const MAX_EXP = String(1e12);

function pet(now: number, tier: string, exp: string, price: number): AuctionsTable {
  return listing(now, { tag: 'PET_BEE', item_name: '[Lvl 1] Bee', tier, starting_bid: price, enchantments: {}, flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': tier, 'petInfo.exp': exp } });
}

describeEachBackend('bulk price files', (fixture) => {
  let t: TestApp;
  let rows: AuctionsTable[];

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    const now = t.clock.now();
    const hyperions = Array.from({ length: 30 }, (_, i) => listing(now, { starting_bid: 800_000_000 + i * 5_000_000 }));
    rows = [
      ...hyperions,
      listing(now, { starting_bid: 1_000 }), // one planted far below the market
      listing(now, { starting_bid: 10, bin: false }), // an auction, not a BIN
      listing(now, { starting_bid: 20, end_at: now - 1000 }), // ended
      pet(now, 'LEGENDARY', '0', 4_000_000),
      pet(now, 'LEGENDARY', MAX_EXP, 9_000_000),
      pet(now, 'LEGENDARY', MAX_EXP, 8_500_000),
      pet(now, 'EPIC', '0', 900_000),
      listing(now, { tag: 'ENCHANTMENT_ULTIMATE_WISE_5', item_name: 'Enchanted Book', tier: 'UNCOMMON', starting_bid: 1_200_000, enchantments: { ultimate_wise: 5 } }),
      listing(now, { tag: 'ENCHANTED_DIAMOND', item_name: 'Enchanted Diamond', count: 64, starting_bid: 64_000 }),
    ];
    await storeGeneration(t.store, now, rows);
  });
  after(() => t.close());

  /** The cheapest active BIN per NEU id, per item, recomputed from the stored rows. */
  function expectedLowest(): Record<string, number> {
    const now = t.clock.now();
    const out: Record<string, number> = {};
    for (const r of rows) {
      if (!r.bin || r.end_at <= now) continue;
      const key = neuIdOf({ tag: r.tag, tier: r.tier, flatNbt: r.flat_nbt as Record<string, string> });
      const price = Math.round(r.starting_bid / r.count);
      out[key] = Math.min(out[key] ?? Infinity, price);
    }
    return out;
  }

  test('NEU lowestbin.json: {NEU id: number}, equal to the cheapest active BIN of each id', async () => {
    const res = await t.app.inject('/neu/lowestbin.json');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const file = JSON.parse(res.body) as Record<string, number>;
    assert.deepEqual(file, expectedLowest());
    assert.equal(file['HYPERION'], 1_000, 'raw follows the planted listing');
    assert.equal(file['BEE;4'], 4_000_000, 'every level of a rarity under one id');
    assert.equal(file['BEE;3'], 900_000);
    assert.equal(file['ULTIMATE_WISE;5'], 1_200_000);
    assert.equal(file['ENCHANTED_DIAMOND'], 1_000, 'a stack is priced per item');
    // Coflnet's endpoint is the same map.
    assert.deepEqual((await t.app.inject('/api/prices/neu')).json(), file);
  });

  test('the .gz file gunzips to the same JSON; gzip encoding, ETag and 304 on the JSON', async () => {
    const plain = await t.app.inject('/neu/lowestbin.json');
    const gz = await t.app.inject('/neu/lowestbin.json.gz');
    assert.equal(gz.statusCode, 200);
    assert.equal(gz.headers['content-type'], 'application/gzip');
    assert.equal(gz.headers['content-encoding'], undefined);
    assert.equal(gunzipSync(gz.rawPayload).toString(), plain.body);

    // Bodies under 1 KB go out as they are (http/compression.ts); this store's file is one.
    assert.ok(plain.rawPayload.length < 1024);
    const encoded = await t.app.inject({ url: '/neu/lowestbin.json', headers: { 'accept-encoding': 'gzip, deflate' } });
    assert.equal(encoded.headers['content-encoding'], undefined);

    for (const res of [plain, encoded, gz]) {
      assert.ok(res.headers['etag'], 'an ETag');
      assert.ok(res.headers['last-modified'], 'a Last-Modified');
      assert.match(String(res.headers['cache-control']), /max-age=60/);
    }
    assert.notEqual(plain.headers['etag'], gz.headers['etag'], 'the gzip file has an ETag of its own');
    const again = await t.app.inject({ url: '/neu/lowestbin.json', headers: { 'if-none-match': String(plain.headers['etag']) } });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  test('Elite raw and smooth: extended pet keys, and a planted listing moves raw only', async () => {
    const raw = (await t.app.inject('/resources/auctions/neu?mode=raw')).json() as Record<string, number>;
    const smooth = (await t.app.inject('/resources/auctions/neu?mode=smooth')).json() as Record<string, number>;
    assert.deepEqual((await t.app.inject('/resources/auctions/neu')).json(), raw, 'raw is the default');
    assert.equal(raw['BEE;4'], 4_000_000, 'below level 100');
    assert.equal(raw['BEE;4+100'], 8_500_000, 'level 100 apart');
    assert.equal(raw['HYPERION'], 1_000);
    assert.equal(smooth['HYPERION'], 800_000_000, 'smooth ignores the planted listing');
    assert.deepEqual(Object.keys(smooth).sort(), Object.keys(raw).sort());
    const gz = await t.app.inject('/resources/auctions/neu.gz?mode=smooth');
    assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), smooth);
    const bad = await t.app.inject('/resources/auctions/neu?mode=cheap');
    assert.equal(bad.statusCode, 400);
    assert.match(String(bad.headers['content-type']), /problem\+json/);
  });

  test('a new generation rebuilds the files; the metadata says what each holds', async () => {
    const before = await t.app.inject('/neu/lowestbin.json');
    const now = t.clock.now();
    await storeGeneration(t.store, now, [listing(now, { tag: 'ASPECT_OF_THE_END', item_name: 'Aspect of the End', starting_bid: 100_000 })]);
    const after = await t.app.inject('/neu/lowestbin.json');
    assert.notEqual(after.headers['etag'], before.headers['etag']);
    assert.equal((after.json() as Record<string, number>)['ASPECT_OF_THE_END'], 100_000);
    assert.equal((before.json() as Record<string, number>)['ASPECT_OF_THE_END'], undefined);
    const meta = (await t.app.inject('/api/prices/files')).json() as { listings: number; files: Array<{ name: string; keys: number; paths: string[]; method: string }> };
    assert.equal(meta.listings, rows.filter((r) => r.bin && r.end_at > now).length + 1);
    assert.deepEqual(meta.files.map((f) => f.name), ['neu/lowestbin', 'elite/raw', 'elite/smooth']);
    assert.ok(meta.files.every((f) => f.keys > 0 && f.paths.length > 0 && f.method.length > 20));
  });
});

describeEachBackend('the bazaar in one file', (fixture) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ store: fixture().store });
  });
  after(() => t.close());

  test('every product of the newest snapshot, by product id or NEU id, equal to each product snapshot', async () => {
    const none = await t.app.inject('/api/bazaar/prices');
    assert.equal(none.statusCode, 404);
    assert.equal((none.json() as { slug: string }).slug, 'no_snapshot');

    const now = t.clock.now();
    const products = ['ENCHANTED_DIAMOND', 'ENCHANTMENT_ULTIMATE_WISE_5', 'INK_SACK:3'];
    await insert(t.store, products.map((p, i) => offerRow(p, now - 60_000, 100 * (i + 1))));
    await insert(t.store, products.map((p, i) => ({ ...offerRow(p, now - 20_000, 200 * (i + 1)), buy_volume: 7 + i, sell_orders: 3 + i })));
    const res = await t.app.inject('/api/bazaar/prices');
    assert.equal(res.statusCode, 200);
    const file = res.json() as Record<string, Record<string, number>>;
    assert.deepEqual(Object.keys(file), [...products].sort());
    for (const id of products) {
      const snap = (await t.app.inject(`/api/bazaar/${encodeURIComponent(id)}/snapshot`)).json() as Record<string, unknown>;
      const f = file[id]!;
      assert.equal(f.buyPrice, snap.buyPrice, id);
      assert.equal(f.sellPrice, snap.sellPrice, id);
      assert.equal(f.buyVolume, snap.buyVolume, id);
      assert.equal(f.buyMovingWeek, snap.buyMovingWeek, id);
      assert.equal(f.sellVolume, snap.sellVolume, id);
      assert.equal(f.sellMovingWeek, snap.sellMovingWeek, id);
      assert.equal(f.buyOrders, snap.buyOrdersCount, id);
      assert.equal(f.sellOrders, snap.sellOrdersCount, id);
    }
    assert.equal(file['ENCHANTED_DIAMOND']!.buyPrice, 200, 'the newest snapshot');
    assert.equal(file['ENCHANTED_DIAMOND']!.buyVolume, 7);
    const neu = (await t.app.inject('/api/bazaar/prices?keys=neu')).json() as Record<string, unknown>;
    assert.deepEqual(Object.keys(neu).sort(), ['ENCHANTED_DIAMOND', 'INK_SACK-3', 'ULTIMATE_WISE;5']);
    assert.deepEqual(neu['ULTIMATE_WISE;5'], file['ENCHANTMENT_ULTIMATE_WISE_5']);
    assert.equal((await t.app.inject('/api/bazaar/prices?keys=nope')).statusCode, 400);
    const meta = (await t.app.inject('/api/prices/files')).json() as { bazaar: { products: number; snapshotAt: string } };
    assert.equal(meta.bazaar.products, 3);
    assert.equal(Date.parse(meta.bazaar.snapshotAt), now - 20_000);
  });
});

describeEachBackend('bulk price files on the real 2022 pages', (fixture) => {
  let t: TestApp;
  const upstream = new FakeUpstream();

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    await upstream.start();
    const pages = realGeneration(t.clock.now());
    upstream.on('/v2/skyblock/auctions?page=0', { body: pages[0] }).on('/v2/skyblock/auctions?page=1', { body: pages[1] });
    const ctx = testIngestContext({ store: t.store, clock: t.clock, baseUrl: upstream.url });
    await new AuctionIngester(ctx).pollOnce();
    await ctx.client.close();
  });
  after(async () => {
    await upstream.stop();
    await t.close();
  });

  test('lowestbin.json equals the cheapest active BIN of each NEU id among the stored rows', async () => {
    const file = (await t.app.inject('/neu/lowestbin.json')).json() as Record<string, number>;
    const now = t.clock.now();
    const expected: Record<string, number> = {};
    for await (const chunk of t.store.auctionQueries.activeListingChunks()) {
      for (const r of chunk) {
        if (!r.bin || r.highestBid > 0 || r.end <= now) continue;
        const key = neuIdOf({ tag: r.tag, tier: r.tier, flatNbt: r.flatNbt });
        expected[key] = Math.min(expected[key] ?? Infinity, Math.round(r.startingBid / Math.max(1, r.count)));
      }
    }
    assert.ok(Object.keys(expected).length > 300, `${Object.keys(expected).length} NEU ids`);
    assert.deepEqual(file, expected);
    const elite = (await t.app.inject('/resources/auctions/neu?mode=smooth')).json() as Record<string, number>;
    assert.ok(Object.keys(elite).some((k) => k.endsWith('+100')), 'level-100 pets in the real data');
    for (const [key, price] of Object.entries(elite)) assert.ok(price >= (file[key.replace(/\+.*$/, '')] ?? 0), `${key}: smooth never below the lowest`);
  });

  test('the averages files on the real pages: a recorded hour of lowest BINs, parsed as the mods parse them', async () => {
    const now = t.clock.now();
    await priceRollupsOf(t).recordLowestBins(now - 2 * HOUR);
    await priceRollupsOf(t).catchUp(now);
    const lowest = (await t.app.inject('/neu/lowestbin.json')).json() as Record<string, number>;
    const neu = (await t.app.inject('/neu/auction_averages_lbin/1day.json')).json() as Record<string, number>;
    const elite = (await t.app.inject('/resources/auctions/neu/average-lbin/1day')).json() as Record<string, number>;
    assert.ok(Object.keys(neu).length > 300, `${Object.keys(neu).length} ids`);
    for (const [key, value] of Object.entries(neu)) {
      assert.ok(Number.isInteger(value) && value > 0, `${key}: ${value}`);
      // One recorded hour: its average is that hour's lowest BIN, the current one; a pet's `TYPE;N`
      // reads levels 1–99 only, never cheaper than every level.
      if (lowest[key] === undefined) continue;
      if (key.includes(';')) assert.ok(value >= lowest[key]!, key);
      else assert.equal(value, lowest[key], key);
    }
    for (const [key, value] of Object.entries(elite)) assert.ok(Number.isInteger(value) && value > 0, `${key}: a long`);
    assert.ok(Object.keys(elite).some((k) => k.endsWith('+100')));
    // No sales in the real pages: no sales averages yet, 404 no_averages as docs/mods.md says (not an empty map).
    const noSales = await t.app.inject('/neu/auction_averages/1day.json');
    assert.equal(noSales.statusCode, 404);
    assert.equal((noSales.json() as { slug: string }).slug, 'no_averages');
  });
});

test('bulk files are exempt from the per-IP limits, other routes are not', async () => {
  const t = await createTestApp({ env: { RATE_LIMIT_EXEMPT: '' } });
  try {
    for (let i = 0; i < 40; i++) {
      const res = await t.app.inject({ url: '/neu/lowestbin.json', remoteAddress: '203.0.113.7' });
      assert.equal(res.statusCode, 200, `request ${i + 1}`);
      assert.equal(res.headers['x-rate-limit-remaining'], undefined);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await t.app.inject({ url: '/api/items/bazaar/tags', remoteAddress: '203.0.113.7' })).statusCode);
    assert.equal(statuses.at(-1), 429, 'the 31st request within 10 s to another route');
  } finally {
    await t.close();
  }
});

test('the fast path answers the lowest-BIN files exactly as Fastify does', async () => {
  const fast = await createTestApp({ env: { RATE_LIMIT_EXEMPT: '' } });
  const normal = await createTestApp({ store: fast.store, env: { RATE_LIMIT_EXEMPT: '' }, storedResponses: false });
  try {
    const now = fast.clock.now();
    await storeGeneration(fast.store, now, Array.from({ length: 80 }, (_, i) => listing(now, { tag: `ITEM_${i}`, starting_bid: 1000 + i })));
    const bases = [await fast.app.listen({ port: 0, host: '127.0.0.1' }), await normal.app.listen({ port: 0, host: '127.0.0.1' })];
    const get = (base: string, path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: string[]; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(base);
        httpRequest({ hostname, port, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const lines: string[] = [];
            for (let i = 0; i < res.rawHeaders.length; i += 2) if (!/^(date|connection|keep-alive)$/i.test(res.rawHeaders[i]!)) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
            resolve({ status: res.statusCode ?? 0, headers: lines, body: Buffer.concat(chunks).toString('base64') });
          });
        })
          .on('error', reject)
          .end();
      });
    for (const path of ['/neu/lowestbin.json', '/neu/lowestbin.json.gz', '/api/prices/neu', '/resources/auctions/neu', '/resources/auctions/neu.gz']) {
      await get(bases[0]!, path); // builds the files
      for (const headers of [{}, { 'accept-encoding': 'gzip' }, { 'accept-encoding': 'br' }, { accept: 'text/plain' }] as Array<Record<string, string>>) {
        const served = fast.app.storedResponses.served;
        const [a, b] = [await get(bases[0]!, path, headers), await get(bases[1]!, path, headers)];
        // A gzip file asked for as text is not a case the fast path knows: Fastify answers it.
        const expected = path.endsWith('.gz') && 'accept' in headers ? 0 : 1;
        assert.equal(fast.app.storedResponses.served - served, expected, `${path} ${JSON.stringify(headers)}: fast path taken or not`);
        assert.equal(a.status, 200);
        assert.deepEqual(a, b, `${path} ${JSON.stringify(headers)}`);
        assert.ok(a.headers.some((l) => l.startsWith('last-modified: ')));
        if ('accept-encoding' in headers && !path.endsWith('.gz')) {
          const encoding = headers['accept-encoding'] as string;
          assert.ok(a.headers.includes(`content-encoding: ${encoding}`), `${path}: ${encoding}`);
          const json = (encoding === 'br' ? brotliDecompressSync : gunzipSync)(Buffer.from(a.body, 'base64')).toString();
          assert.equal(Object.keys(JSON.parse(json) as object).length, 80);
        }
        assert.ok(!a.headers.some((l) => l.toLowerCase().startsWith('x-rate-limit')), 'not rate limited');
      }
    }
  } finally {
    await normal.close();
    await fast.close();
  }
});
