import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import { ManualClock } from '../../../src/clock.ts';
import { Faults } from '../../../src/simulator/faults.ts';
import { Market } from '../../../src/simulator/market.ts';
import { startSimulatorServer } from '../../../src/simulator/server.ts';
import type { SimulatorServer } from '../../../src/simulator/server.ts';
import { startSimulator } from '../../../src/simulator/index.ts';
import { T0 } from '../../helpers/simulator-items.ts';

const clock = new ManualClock(T0);
const market = new Market({ seed: 11, auctions: 2500, generationSeconds: 60, bazaarSeconds: 20 }, T0);
const faults = new Faults(11);
let srv: SimulatorServer;

before(async () => {
  srv = await startSimulatorServer({ market, clock, faults });
});
after(async () => {
  await srv.close();
});

async function get(path: string): Promise<{ status: number; text: string; json: any; headers: Headers }> {
  const res = await fetch(srv.url + path);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

// Tests in this file run in order and share one server and clock.

test('503 before the market is populated', async () => {
  const r = await get('/v2/skyblock/auctions?page=0');
  assert.equal(r.status, 503);
  assert.equal(r.json.success, false);
  assert.equal(typeof r.json.cause, 'string');
  assert.equal(r.headers.get('x-skymarket-simulated'), 'true');
  market.populate();
});

const AUCTION_FIELDS: Record<string, string> = {
  uuid: 'string', auctioneer: 'string', profile_id: 'string', coop: 'object', start: 'number', end: 'number', item_name: 'string', item_lore: 'string',
  extra: 'string', category: 'string', tier: 'string', starting_bid: 'number', item_bytes: 'string', claimed: 'boolean', claimed_bidders: 'object',
  highest_bid_amount: 'number', last_updated: 'number', bin: 'boolean', bids: 'object',
};

test('auctions pages: envelope, field types, pagination, partial last page, 404 and 422', async () => {
  const p0 = await get('/v2/skyblock/auctions?page=0');
  assert.equal(p0.status, 200);
  assert.equal(p0.headers.get('x-skymarket-simulated'), 'true');
  assert.match(p0.headers.get('cache-control') ?? '', /max-age=\d+/);
  assert.equal(p0.headers.get('last-modified'), new Date(p0.json.lastUpdated).toUTCString());
  assert.deepEqual(Object.keys(p0.json), ['success', 'page', 'totalPages', 'totalAuctions', 'lastUpdated', 'auctions']);
  assert.equal(p0.json.success, true);
  assert.equal(p0.json.page, 0);
  assert.equal(p0.json.totalAuctions, 2500);
  assert.equal(p0.json.totalPages, 3);
  assert.equal(p0.json.auctions.length, 1000);
  const first = p0.json.auctions[0];
  assert.deepEqual(Object.keys(first).slice(0, 19), Object.keys(AUCTION_FIELDS), 'upstream field order');
  const seen = new Set<string>();
  for (const page of [0, 1, 2]) {
    const r = page === 0 ? p0 : await get(`/v2/skyblock/auctions?page=${page}`);
    assert.equal(r.json.lastUpdated, p0.json.lastUpdated, 'one generation across pages');
    assert.equal(r.json.auctions.length, page === 2 ? 500 : 1000);
    for (const a of r.json.auctions) {
      for (const [k, t] of Object.entries(AUCTION_FIELDS)) assert.equal(typeof a[k], t, `${k} is ${t}`);
      assert.match(a.uuid, /^[0-9a-f]{32}$/);
      assert.ok(Array.isArray(a.coop) && a.coop.length >= 1 && a.coop.includes(a.auctioneer));
      assert.ok(['weapon', 'armor', 'accessories', 'consumables', 'blocks', 'misc'].includes(a.category));
      assert.equal(a.claimed, false);
      assert.deepEqual(a.claimed_bidders, []);
      for (const b of a.bids) assert.deepEqual(Object.keys(b), ['auction_id', 'bidder', 'profile_id', 'amount', 'timestamp']);
      seen.add(a.uuid);
    }
  }
  assert.equal(seen.size, 2500, 'pages do not overlap');
  assert.equal((await get('/v2/skyblock/auctions')).json.page, 0, 'page defaults to 0');
  const missing = await get('/v2/skyblock/auctions?page=3');
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.json, { success: false, cause: 'Page not found' });
  for (const bad of ['-1', 'abc', '1.5']) assert.equal((await get(`/v2/skyblock/auctions?page=${bad}`)).status, 422, bad);
});

test('same seed serves the same bytes', async () => {
  const other = new Market({ seed: 11, auctions: 2500, generationSeconds: 60, bazaarSeconds: 20 }, T0);
  other.populate();
  const s2 = await startSimulatorServer({ market: other, clock: new ManualClock(T0) });
  try {
    for (const path of ['/v2/skyblock/auctions?page=1', '/v2/skyblock/bazaar', '/v2/skyblock/auctions_ended', '/v2/resources/skyblock/election']) {
      const a = await (await fetch(srv.url + path)).text();
      const b = await (await fetch(s2.url + path)).text();
      assert.equal(a, b, path);
    }
  } finally {
    await s2.close();
  }
});

test('generations advance with the clock; auctions_ended carries the sold uuids', async () => {
  const before = await get('/v2/skyblock/auctions?page=0');
  const all = new Set<string>();
  for (let p = 0; p < before.json.totalPages; p++) for (const a of (await get(`/v2/skyblock/auctions?page=${p}`)).json.auctions) all.add(a.uuid);
  clock.advance(60_000);
  const after1 = await get('/v2/skyblock/auctions?page=0');
  assert.equal(after1.json.lastUpdated - before.json.lastUpdated, 60_000);
  const ended = await get('/v2/skyblock/auctions_ended');
  assert.equal(ended.status, 200);
  assert.deepEqual(Object.keys(ended.json), ['success', 'lastUpdated', 'auctions']);
  assert.equal(ended.json.lastUpdated, after1.json.lastUpdated);
  assert.ok(ended.json.auctions.length > 0);
  for (const s of ended.json.auctions) {
    assert.deepEqual(Object.keys(s), ['auction_id', 'seller', 'seller_profile', 'buyer', 'timestamp', 'price', 'bin', 'item_bytes']);
    assert.ok(all.has(s.auction_id), 'sold auction was active in the previous generation');
  }
});

test('bazaar, items and election endpoints', async () => {
  const bz = await get('/v2/skyblock/bazaar');
  assert.equal(bz.status, 200);
  assert.deepEqual(Object.keys(bz.json), ['success', 'lastUpdated', 'products']);
  const p = bz.json.products['ENCHANTMENT_ULTIMATE_WISE_5'];
  assert.deepEqual(Object.keys(p), ['product_id', 'sell_summary', 'buy_summary', 'quick_status']);
  assert.deepEqual(Object.keys(p.quick_status), ['productId', 'sellPrice', 'sellVolume', 'sellMovingWeek', 'sellOrders', 'buyPrice', 'buyVolume', 'buyMovingWeek', 'buyOrders']);
  const lu = bz.json.lastUpdated;
  clock.advance(20_000);
  assert.equal((await get('/v2/skyblock/bazaar')).json.lastUpdated, lu + 20_000, 'bazaar moves every 20 s');

  const items = await get('/v2/resources/skyblock/items');
  assert.equal(items.status, 200);
  assert.ok(items.json.items.length > 300);
  const hyp = items.json.items.find((i: any) => i.id === 'HYPERION');
  assert.equal(hyp.category, 'SWORD');
  assert.equal(hyp.tier, 'LEGENDARY');
  assert.equal(typeof hyp.npc_sell_price, 'number');
  for (const i of items.json.items) assert.ok(typeof i.id === 'string' && typeof i.material === 'string' && typeof i.name === 'string');

  const el = await get('/v2/resources/skyblock/election');
  assert.equal(el.status, 200);
  assert.ok(el.json.mayor.key && Array.isArray(el.json.mayor.perks) && el.json.mayor.minister && el.json.mayor.election.year > 0);

  assert.equal((await get('/v2/nope')).status, 404);
});

test('faults: 5xx', async () => {
  faults.set({ error: 1 });
  const r = await get('/v2/skyblock/bazaar');
  assert.ok(r.status >= 500 && r.status <= 504, String(r.status));
  assert.equal(r.json.success, false);
  faults.reset();
  assert.equal((await get('/v2/skyblock/bazaar')).status, 200);
});

test('faults: slow responses', async (t) => {
  faults.set({ slow: 1, slowMs: 250 });
  // The delay runs on node:test's mock timers: the answer must wait for them to reach 250 ms.
  let decided!: () => void;
  const decision = new Promise<void>((resolve) => (decided = resolve));
  const decide = faults.decide;
  faults.decide = (input) => {
    const made = decide.call(faults, input);
    decided();
    return made;
  };
  t.mock.timers.enable({ apis: ['setTimeout'] });
  try {
    let answered = false;
    const answer = get('/v2/skyblock/auctions_ended').then((r) => {
      answered = true;
      return r;
    });
    await decision;
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    t.mock.timers.tick(249);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, 'not answered before the delay is over');
    t.mock.timers.tick(1);
    assert.equal((await answer).status, 200);
  } finally {
    t.mock.timers.reset();
    faults.decide = decide;
    faults.reset();
  }
});

test('faults: truncated JSON', async () => {
  faults.set({ truncate: 1 });
  const r = await get('/v2/skyblock/auctions?page=0');
  assert.equal(r.status, 200);
  assert.equal(r.json, undefined, 'body is not valid JSON');
  assert.ok(r.text.startsWith('{"success":true'));
  faults.reset();
});

test('faults: corrupt NBT in some auctions, stable per auction', async () => {
  faults.set({ corruptNbt: 0.2 });
  const r = await get('/v2/skyblock/auctions?page=0');
  const bad = r.json.auctions.filter((a: any) => {
    try {
      nbt.parseUncompressed(gunzipSync(Buffer.from(a.item_bytes, 'base64')));
      return false;
    } catch {
      return true;
    }
  });
  assert.ok(bad.length > 100 && bad.length < 320, `${bad.length} corrupt of 1000`);
  const again = await get('/v2/skyblock/auctions?page=0');
  assert.equal(again.text, r.text, 'the same auctions stay corrupt');
  faults.reset();
  const clean = await get('/v2/skyblock/auctions?page=0');
  for (const a of clean.json.auctions) nbt.parseUncompressed(gunzipSync(Buffer.from(a.item_bytes, 'base64')));
});

test('faults: a page from the previous generation (mixed)', async () => {
  const cur = await get('/v2/skyblock/auctions?page=1');
  clock.advance(60_000);
  const next = await get('/v2/skyblock/auctions?page=0');
  assert.equal(next.json.lastUpdated, cur.json.lastUpdated + 60_000);
  faults.set({ mixed: 1 });
  const stale = await get('/v2/skyblock/auctions?page=1');
  assert.equal(stale.json.lastUpdated, cur.json.lastUpdated, 'old lastUpdated');
  assert.equal(stale.text, cur.text, 'the old page verbatim');
  faults.reset();
  assert.equal((await get('/v2/skyblock/auctions?page=1')).json.lastUpdated, next.json.lastUpdated);
});

test('faults: 404 during a generation swap', async () => {
  faults.set({ swap404: 1, swapWindowMs: 3000 });
  clock.set(Math.floor(clock.now() / 60_000) * 60_000 + 60_000 + 500);
  const r = await get('/v2/skyblock/auctions?page=1');
  assert.equal(r.status, 404);
  clock.advance(5000);
  assert.equal((await get('/v2/skyblock/auctions?page=1')).status, 200, 'after the swap window');
  faults.reset();
});

test('faults: notReady forces 503', async () => {
  faults.set({ notReady: true });
  assert.equal((await get('/v2/skyblock/bazaar')).status, 503);
  faults.reset();
});

test('startSimulator: serves on a free port and closes', async () => {
  const c = new ManualClock(T0);
  const sim = await startSimulator({ seed: 2, auctions: 300, generationSeconds: 60, bazaarSeconds: 20, backfillMs: 600_000, faults: {}, host: '127.0.0.1', port: 0 }, { clock: c, tickMs: 0 });
  try {
    const r = await fetch(`${sim.url}/v2/skyblock/auctions?page=0`);
    assert.equal(r.status, 200);
    const j = (await r.json()) as { totalAuctions: number };
    assert.equal(j.totalAuctions, 300);
    let n = 0;
    for (const b of sim.backfill()) n += b.bazaar.length;
    assert.equal(n, 30);
  } finally {
    await sim.close();
  }
});
