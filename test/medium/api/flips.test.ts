/**
 * The twelve flip endpoints on simulator data (SQLite): shapes, sort orders, gates, bad
 * parameters and the computed-at marker. The store is filled once from the simulator
 * (items, election, ~40 minutes of bazaar history, live auctions generations).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FlipEngine } from '../../../src/market/flips.ts';
import { electionLeader } from '../../../src/domain/elections.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { fillFromSimulator, type SimMarket } from '../../helpers/sim-market.ts';

const MINUTE = 60_000;

describe('flip endpoints on simulator data', () => {
  let t: TestApp;
  let sim: SimMarket;
  const tokens: Record<string, string> = {};

  before(async () => {
    t = await createTestApp({ env: { FLIPS_POLL_MS: '0' } });
    sim = await fillFromSimulator(t.store, { historyHours: 0.75, detailedMinutes: 40, generations: 3 });
    t.clock.set(sim.clock.now());
    // Election history: the simulator's ingested election plus three earlier terms over the stored history,
    // one of them held by the mayor expected next, so mayor flips have past terms to compare.
    const latest = (await t.store.elections.latest())!;
    const next = electionLeader(latest.payload) ?? latest.mayorName;
    const now = t.clock.now();
    const names = [next, next === 'Other' ? 'Someone' : 'Other', next];
    for (let i = 0; i < 3; i++) {
      await t.store.elections.upsert({ year: latest.year - 3 + i, mayorKey: names[i]!.toLowerCase(), mayorName: names[i]!, payload: {}, updatedAt: now - (3 - i) * 10 * MINUTE });
    }
    t.app.market.flips.setOptions({ bucketMs: MINUTE, mayorMinChange: 0.001, auctionsMinIntervalMs: 0 });
    await t.app.market.flips.refresh();
    for (const tier of ['free', 'starter_premium', 'premium'] as const) tokens[tier] = (await t.store.accounts.create({ tier, now })).token;
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  const get = (url: string, tier?: keyof typeof tokens) =>
    t.app.inject({ method: 'GET', url, headers: tier ? { authorization: `Bearer ${tokens[tier]}` } : {} });

  function nonIncreasing(values: number[], what: string) {
    for (let i = 1; i < values.length; i++) assert.ok(values[i - 1]! >= values[i]!, `${what} sorted descending at ${i}: ${values[i - 1]} < ${values[i]}`);
  }

  it('update/when: the time of the last loaded update, cached 30 minutes', async () => {
    const res = await get('/api/flip/update/when');
    assert.equal(res.statusCode, 200);
    const when = res.json() as string;
    assert.equal(Date.parse(when), (await t.store.feeds.all()).filter((f) => f.name !== 'items').reduce((m, f) => Math.max(m, f.lastUpdated), 0));
    assert.match(res.headers['cache-control'] as string, /max-age=1800/);
  });

  it('spread: public, after-tax profit × volume, sorted, with the computed time', async () => {
    const res = await get('/api/flip/bazaar/spread');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['cache-control'] as string, /max-age=20/);
    assert.equal(res.headers['x-computed-at'], new Date(t.app.market.flips.bazaar!.computedAt).toISOString());
    const flips = res.json() as Array<{ flip: Record<string, number>; itemName: string; isManipulated: boolean }>;
    assert.ok(flips.length >= 3, `${flips.length} spread flips`);
    nonIncreasing(flips.map((f) => f.flip.profitPerHour!), 'profitPerHour');
    for (const { flip } of flips) {
      assert.ok(flip.profitPerHour! > 0 && flip.volume! > 0 && flip.buyPrice! > flip.sellPrice!);
      const margin = flip.buyPrice! - 0.1 - (flip.sellPrice! + 0.1) - (flip.buyPrice! - 0.1) * 0.0125;
      assert.ok(Math.abs(flip.profitPerHour! - margin * flip.volume!) <= Math.max(1, flip.profitPerHour! * 0.01), JSON.stringify(flip));
    }
    assert.ok(flips.some((f) => f.flip.medianBuyPrice! > 0), 'medians known from the history');
  });

  it('deemand: needs a token (401 message), sorted by current profit per hour', async () => {
    const anon = await get('/api/flip/bazaar/spread/deemand');
    assert.equal(anon.statusCode, 401);
    assert.match((anon.json() as { message: string }).message, /Authorization: Bearer/);
    const res = await get('/api/flip/bazaar/spread/deemand', 'free');
    assert.equal(res.statusCode, 200);
    const flips = res.json() as Array<{ flip: { currentProfitPerHour: number; buyPrice: number; sellPrice: number }; itemName: string }>;
    assert.ok(flips.length >= 3);
    nonIncreasing(flips.map((f) => f.flip.currentProfitPerHour), 'currentProfitPerHour');
    assert.ok(flips.every((f) => f.flip.sellPrice > f.flip.buyPrice));
  });

  it('residual: ranked by value; the hold time scales capacity; bad values are 400', async () => {
    const one = (await get('/api/flip/bazaar/residual')).json() as Array<{ itemTag: string; capacity: number; value: number; remainingCapacity: number; takenByOpenOrders: number }>;
    assert.ok(one.length >= 3);
    nonIncreasing(one.map((r) => r.value), 'value');
    assert.ok(one.every((r) => r.takenByOpenOrders === 0 && r.remainingCapacity === r.capacity));
    const two = (await get('/api/flip/bazaar/residual?targetHoldTimeHours=2.5')).json() as typeof one;
    const a = one[0]!;
    const b = two.find((r) => r.itemTag === a.itemTag)!;
    assert.ok(Math.abs(b.capacity - a.capacity * 2.5) < 0.05, `${b.capacity} vs ${a.capacity}`);
    for (const bad of ['0', '-1', 'abc', '1000']) {
      const res = await get(`/api/flip/bazaar/residual?targetHoldTimeHours=${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
    }
  });

  it('books: level N to N+1, two books in, profitable at their own volume', async () => {
    const flips = (await get('/api/flip/bazaar/books')).json() as Array<{ startTag: string; endTag: string; profitPerHour: number; hourlyVolume: number; startBuyPrice: number; endSellPrice: number; estimatedFees: number }>;
    assert.ok(flips.length >= 3, `${flips.length} book flips`);
    nonIncreasing(flips.map((f) => f.profitPerHour), 'profitPerHour');
    for (const f of flips) {
      const [, name, level] = /^ENCHANTMENT_(.+)_(\d+)$/.exec(f.startTag)!;
      assert.equal(f.endTag, `ENCHANTMENT_${name}_${Number(level) + 1}`);
      const perBook = f.endSellPrice * (1 - 0.0125) - 2 * f.startBuyPrice;
      assert.ok(perBook > 0, JSON.stringify(f));
      assert.ok(Math.abs(perBook * f.hourlyVolume - f.profitPerHour) <= Math.max(1, f.profitPerHour * 0.001), JSON.stringify(f));
    }
  });

  it('mayor: token + Premium (401, 403), expected prices from past terms of the next mayor', async () => {
    assert.equal((await get('/api/flip/mayor')).statusCode, 401);
    assert.equal((await get('/api/flip/mayor', 'starter_premium')).statusCode, 403);
    const res = await get('/api/flip/mayor', 'premium');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const flips = res.json() as Array<{ expectedPrice: number; medianPrice: number; nextMayor: string; currentMayor: string; usedPricesBeforeNextMayor: boolean }>;
    assert.ok(flips.length >= 3, `${flips.length} mayor flips`);
    const latest = (await t.store.elections.latest())!;
    for (const f of flips) {
      assert.equal(f.currentMayor, latest.mayorName);
      assert.equal(f.usedPricesBeforeNextMayor, f.nextMayor !== f.currentMayor);
      assert.ok(f.expectedPrice > 0 && f.medianPrice > 0);
    }
  });

  it('npc: buy from an NPC, sell on the bazaar (ReverseNpcFlip)', async () => {
    const flips = (await get('/api/flip/npc')).json() as Array<{ npcName: string; itemId: string; npcBuyPrice: number; sellPrice: number; profit: number; costs: unknown[]; volume: number }>;
    assert.ok(flips.length >= 1, `${flips.length} reverse NPC flips`);
    for (const f of flips) {
      assert.ok(f.profit > 0 && f.sellPrice * (1 - 0.0125) - f.npcBuyPrice >= f.profit - 0.02, JSON.stringify(f));
      assert.ok(f.npcName.length > 0 && f.costs.length > 0 && f.volume > 0);
    }
  });

  it('npc/reverse: token; requestRefresh only for Premium; bad boolean is 400', async () => {
    assert.equal((await get('/api/flip/npc/reverse')).statusCode, 401);
    const free = await get('/api/flip/npc/reverse?requestRefresh=true', 'free');
    assert.equal(free.statusCode, 200);
    assert.match(free.headers['x-refresh'] as string, /ignored/);
    const flips = free.json() as Array<{ buyPrice: number; npcSellPrice: number; profit: number; hourlySells: number }>;
    assert.ok(flips.length >= 3, `${flips.length} NPC flips`);
    for (const f of flips) assert.ok(f.npcSellPrice > f.buyPrice && f.profit > 0 && f.hourlySells >= 1);
    const before = t.app.market.flips.bazaar!.computedAt;
    t.clock.advance(1000);
    const premium = await get('/api/flip/npc/reverse?requestRefresh=true', 'premium');
    assert.equal(premium.headers['x-refresh'], 'done');
    assert.ok(t.app.market.flips.bazaar!.computedAt > before, 'recomputed');
    assert.equal((await get('/api/flip/npc/reverse?requestRefresh=maybe', 'premium')).statusCode, 400);
  });

  it('fusion: single step public; multistep needs Starter Premium and has steps and depth', async () => {
    const single = (await get('/api/flip/fusion')).json() as Array<{ output: string; profit: number; depth: number; steps: unknown }>;
    assert.ok(single.length >= 2, `${single.length} fusion flips`);
    assert.ok(single.every((f) => f.depth === 1 && f.steps === null && f.profit > 0));
    assert.equal((await get('/api/flip/fusion/multistep')).statusCode, 401);
    assert.equal((await get('/api/flip/fusion/multistep', 'free')).statusCode, 403);
    const multi = (await get('/api/flip/fusion/multistep', 'starter_premium')).json() as Array<{ output: string; depth: number; steps: Array<{ output: string }> }>;
    assert.ok(multi.length >= 1, `${multi.length} multi-step flips`);
    for (const f of multi) {
      assert.ok(f.depth >= 2 && f.steps.length >= 2);
      assert.equal(f.steps[f.steps.length - 1]!.output, f.output);
    }
  });

  it('copper: sorted by copper per coin, cost = walked buy price + analysis', async () => {
    const res = await get('/api/flip/copper');
    assert.match(res.headers['cache-control'] as string, /max-age=60/);
    const flips = res.json() as Array<{ buyPrice: number; analyzeCost: number; totalCost: number; copperYield: number; copperPerCoin: number }>;
    assert.ok(flips.length >= 3);
    nonIncreasing(flips.map((f) => f.copperPerCoin), 'copperPerCoin');
    for (const f of flips) assert.ok(Math.abs(f.totalCost - f.buyPrice - f.analyzeCost) < 0.02);
  });

  it('attribute: token + Premium; sort profit/price/volume/age; unknown sort is 400', async () => {
    assert.equal((await get('/api/flip/attribute')).statusCode, 401);
    assert.equal((await get('/api/flip/attribute', 'starter_premium')).statusCode, 403);
    type A = { target: number; estimatedCraftingCost: number; auctionPrice: number; volume: number; foundAt: string; profitAfterTax: number };
    const byProfit = (await get('/api/flip/attribute', 'premium')).json() as A[];
    assert.ok(byProfit.length >= 1, `${byProfit.length} attribute flips`);
    assert.ok(byProfit.every((f) => f.profitAfterTax > 0));
    nonIncreasing(byProfit.map((f) => f.target - f.estimatedCraftingCost - f.auctionPrice), 'profit');
    nonIncreasing(((await get('/api/flip/attribute?sort=price', 'premium')).json() as A[]).map((f) => f.target), 'target');
    nonIncreasing(((await get('/api/flip/attribute?sort=vol', 'premium')).json() as A[]).map((f) => f.volume), 'volume');
    nonIncreasing(((await get('/api/flip/attribute?sort=age', 'premium')).json() as A[]).map((f) => Date.parse(f.foundAt)), 'foundAt');
    const bad = await get('/api/flip/attribute?sort=bogus', 'premium');
    assert.equal(bad.statusCode, 400);
    assert.equal((bad.json() as { status: number }).status, 400);
  });

  it('attribute flips from the in-memory active auctions equal those from the store', async () => {
    // The app's engine reads active BINs from the auction routes' view; this one reads the store.
    const fromStore = new FlipEngine(t.store, t.clock, undefined, { pollMs: 0 });
    fromStore.setOptions({ bucketMs: MINUTE, mayorMinChange: 0.001, auctionsMinIntervalMs: 0 });
    try {
      await t.app.market.flips.refresh(true);
      await fromStore.refresh(true);
      const attribute = t.app.market.flips.auctions!.attribute;
      assert.ok(attribute.length >= 1);
      assert.deepEqual(attribute, fromStore.auctions!.attribute);
    } finally {
      await fromStore.stop();
    }
  });

  it('every flip route is in the OpenAPI document with a tag and summary', async () => {
    const doc = (await get('/api/openapi.json')).json() as { paths: Record<string, { get?: { tags?: string[]; summary?: string } }> };
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/flip/'));
    assert.equal(paths.length, 14, paths.join(', '));
    for (const p of paths) assert.ok(doc.paths[p]!.get?.tags?.includes('flips') && doc.paths[p]!.get?.summary, p);
  });
});
