/**
 * Crafting endpoints over HTTP on simulator data (SQLite), and with the real NEU repository
 * (test/fixtures).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import { BazaarIngester } from '../../../src/ingest/bazaar.ts';
import type { IngestContext } from '../../../src/ingest/context.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { Store } from '../../../src/store/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { neuRepo } from '../../helpers/fixtures.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);

interface Plan {
  itemId: string;
  quantity: number;
  cost: number;
  enough: boolean;
  method: string;
  directBuyCost: number;
  craftCost: number;
  craftedQuantity: number;
  purchases: Array<{ source: string; quantity: number; unitPrice: number; cost: number; auctionUuid?: string | null }>;
  ingredients: Plan[];
}

describe('craft endpoints on simulator data', () => {
  const clock = new ManualClock(START);
  let dir: TempDir;
  let store: Store;
  let sim: SimulatorHandle;
  let ctx: IngestContext;
  let bazaar: BazaarIngester;
  let t: TestApp;

  before(async () => {
    dir = tempDir('craft');
    store = await Store.open({ dataDir: dir.path });
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, auctions: 600, seed: 11, backfillMs: 0, port: 0 }, { clock, tickMs: 0 });
    ctx = testIngestContext({ store, clock, baseUrl: sim.url, source: 'simulator', timeoutMs: 2000 });
    await new AuctionIngester(ctx).pollOnce();
    bazaar = new BazaarIngester(ctx);
    await bazaar.pollOnce();
    t = await createTestApp({ store, env: { DATA_DIR: dir.path } });
  });
  after(async () => {
    await t.close();
    await ctx.client.close();
    await sim.close();
    await store.close();
    dir.remove();
  });

  test('recipe: grid and count; tags are case-insensitive', async () => {
    const res = await t.app.inject('/api/craft/recipe/enchanted_wheat');
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.A2, 'WHEAT:32');
    assert.equal(body.B2, 'WHEAT:32');
    assert.equal(body.A1, '');
    assert.equal(body.count, 1);
    assert.equal(body.type, 'crafting');
    assert.match(String(res.headers['cache-control']), /max-age=43200/);
  });

  test('recipe: 404 for unknown items and items without a recipe, 400 for a malformed tag', async () => {
    const unknown = await t.app.inject('/api/craft/recipe/NO_SUCH_ITEM');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().slug, 'item_not_found');
    const base = await t.app.inject('/api/craft/recipe/WHEAT');
    assert.equal(base.statusCode, 404);
    assert.equal(base.json().slug, 'no_recipe');
    const bad = await t.app.inject('/api/craft/recipe/bad%20tag');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.headers['content-type'], 'application/problem+json');
  });

  test('instructions: every item of the craft tree with how to get it', async () => {
    const res = await t.app.inject('/api/craft/TIGHTLY_TIED_HAY_BALE/instructions');
    assert.equal(res.statusCode, 200);
    type Instruction = { itemTag: string; recipe: Record<string, string> | null; copyCommands: Record<string, string>; detailsPath: Record<string, string> };
    // One CraftInstruction (the established shape: the front end reads `.recipe` of the answer), the per-item list beside it.
    const answer = res.json() as Instruction & { tree: Instruction[] };
    assert.equal(answer.itemTag, 'TIGHTLY_TIED_HAY_BALE');
    assert.equal(answer.recipe!.count, '1');
    assert.match(answer.recipe!.A1!, /^ENCHANTED_HAY_BALE:\d+$/);
    assert.deepEqual(Object.keys(answer.copyCommands).sort(), ['ENCHANTED_HAY_BALE', 'HAY_BLOCK', 'TIGHTLY_TIED_HAY_BALE'], 'commands of the whole tree');
    assert.equal(answer.copyCommands.ENCHANTED_HAY_BALE, '/bz Enchanted Hay Bale');
    assert.equal(answer.detailsPath.HAY_BLOCK, '/item/HAY_BLOCK');
    const list = answer.tree;
    assert.deepEqual(list.map((i) => i.itemTag), ['TIGHTLY_TIED_HAY_BALE', 'ENCHANTED_HAY_BALE', 'HAY_BLOCK']);
    assert.deepEqual(list[0]!.recipe, answer.recipe);
    assert.equal(list[2]!.recipe, null);
    assert.equal((await t.app.inject('/api/craft/WHEAT/instructions')).statusCode, 404);
    assert.equal((await t.app.inject('/api/craft/NOPE/instructions')).statusCode, 404);
  });

  test('profit: sorted by profit, fee deducted, unfiltered with a header; recomputed after a new snapshot', async () => {
    const res = await t.app.inject('/api/craft/profit');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-craft-filter'], 'unfiltered; no player given');
    const rows = res.json() as Array<{ itemId: string; profit: number; sellPrice: number; craftCost: number; craftedQuantity: number; feeRate: number; lastUpdated: string; ingredients: unknown[]; assumptions: string[] }>;
    assert.ok(rows.length > 0, 'the simulated market has profitable crafts');
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1]!.profit >= rows[i]!.profit, 'sorted by profit');
    for (const r of rows) {
      assert.ok(r.profit > 0);
      const expected = r.sellPrice * r.craftedQuantity * (1 - r.feeRate) - r.craftCost;
      assert.ok(Math.abs(expected - r.profit) < 0.02, `${r.itemId}: ${expected} vs ${r.profit}`);
      assert.ok(r.ingredients.length > 0 && r.assumptions.length >= 2);
    }
    // The profit list's buy-order cost equals a forced-craft plan for one craft (plans use buy orders too).
    const top = rows[0]! as (typeof rows)[number] & { buyOrderCraftCost: number };
    const plan = (await t.app.inject(`/api/craft/acquisition/${top.itemId}?quantity=1`)).json() as Plan;
    assert.equal(plan.cost, top.buyOrderCraftCost);
    assert.ok(top.buyOrderCraftCost <= top.craftCost);

    // Served pre-serialised: same JSON under every negotiated type, with an ETag.
    const plain = await t.app.inject({ url: '/api/craft/profit', headers: { accept: 'text/plain' } });
    assert.match(String(plain.headers['content-type']), /^text\/plain/);
    assert.deepEqual(plain.json(), rows);
    assert.ok(res.headers.etag);
    assert.equal((await t.app.inject({ url: '/api/craft/profit', headers: { 'if-none-match': String(res.headers.etag) } })).statusCode, 304);
    const withPlayer = await t.app.inject('/api/craft/profit?player=Notch&profile=Apple');
    assert.match(String(withPlayer.headers['x-craft-filter']), /^unfiltered/);
    assert.equal((await t.app.inject('/api/craft/profit?player=bad%20name')).statusCode, 400);

    const before = rows[0]!.lastUpdated;
    clock.advance(20_000);
    sim.market.advanceTo(clock.now());
    assert.notEqual(await bazaar.pollOnce(), 'unchanged');
    const after = (await t.app.inject('/api/craft/profit')).json() as typeof rows;
    assert.notEqual(after[0]?.lastUpdated, before, 'the list follows the newest snapshot');
  });

  test('acquisition: crafted by default, bought when not forced, fills sum to the cost', async () => {
    const res = await t.app.inject('/api/craft/acquisition/ENCHANTED_WHEAT?quantity=1000');
    assert.equal(res.statusCode, 200);
    const plan = res.json() as Plan;
    assert.equal(plan.itemId, 'ENCHANTED_WHEAT');
    assert.equal(plan.quantity, 1000);
    assert.equal(plan.method, 'craft');
    assert.equal(plan.craftedQuantity, 1000);
    const wheat = plan.ingredients[0]!;
    assert.equal(wheat.itemId, 'WHEAT');
    assert.equal(wheat.quantity, 160_000);
    const filled = wheat.purchases.reduce((s, f) => s + f.quantity, 0);
    if (wheat.enough && wheat.method === 'buy') assert.equal(filled, 160_000);
    const sum = wheat.purchases.reduce((s, f) => s + f.cost, 0);
    if (wheat.method === 'buy') assert.ok(Math.abs(sum - wheat.cost) < 0.05);

    const free = (await t.app.inject('/api/craft/acquisition/ENCHANTED_WHEAT?quantity=1&forceCraft=false')).json() as Plan;
    assert.ok(['buy', 'craft'].includes(free.method));
    assert.ok(free.cost <= Math.max(free.directBuyCost, free.craftCost) + 0.01);
  });

  test('acquisition: auction-only items are bought from the lowest BINs', async () => {
    const bins = await store.marketPrices.lowestBins(clock.now(), 4);
    const tag = bins.find((b) => !b.tag.startsWith('ENCHANTMENT_'))!.tag;
    const plan = (await t.app.inject(`/api/craft/acquisition/${tag}?quantity=1&forceCraft=false`)).json() as Plan;
    assert.equal(plan.method, 'buy');
    assert.equal(plan.purchases[0]!.source, 'auction');
    assert.equal(plan.purchases[0]!.auctionUuid, bins.find((b) => b.tag === tag)!.uuid);
  });

  test('acquisition: bad quantity and forceCraft are 400, unknown items 404', async () => {
    for (const q of ['0', '-1', '1.5', 'abc', '1000001']) {
      const res = await t.app.inject(`/api/craft/acquisition/ENCHANTED_WHEAT?quantity=${q}`);
      assert.equal(res.statusCode, 400, `quantity=${q}`);
      assert.equal(res.headers['content-type'], 'application/problem+json');
    }
    assert.equal((await t.app.inject('/api/craft/acquisition/ENCHANTED_WHEAT?forceCraft=maybe')).statusCode, 400);
    assert.equal((await t.app.inject('/api/craft/acquisition/NO_SUCH_ITEM')).statusCode, 404);
    const defaults = (await t.app.inject('/api/craft/acquisition/ENCHANTED_WHEAT')).json() as Plan;
    assert.equal(defaults.quantity, 1);
    assert.equal(defaults.method, 'craft', 'forceCraft defaults to true');
  });

  test('real NEU recipes priced on the simulated market', async () => {
    const real = await createTestApp({ store, env: { DATA_DIR: dir.path, GAME_DATA_DIR: neuRepo() } });
    try {
      const rows = (await real.app.inject('/api/craft/profit')).json() as Array<{ itemId: string; ingredients: Array<{ itemId: string }> }>;
      assert.ok(rows.length > 0, 'some real recipes are profitable on the simulated market');
      const plan = (await real.app.inject('/api/craft/acquisition/ENCHANTED_DIAMOND?quantity=10')).json() as Plan;
      assert.equal(plan.method, 'craft');
      assert.ok(plan.ingredients.some((i) => i.itemId === 'DIAMOND' || i.itemId === 'DIAMOND_BLOCK'));
      const cocoa = (await real.app.inject('/api/craft/ENCHANTED_COOKIE/instructions')).json() as { copyCommands: Record<string, string>; tree: Array<{ itemTag: string }> };
      assert.equal(cocoa.copyCommands['INK_SACK:3'], '/bz Cocoa Beans');
      assert.ok(cocoa.tree.some((i) => i.itemTag === 'INK_SACK:3'));
    } finally {
      await real.close();
    }
  });

  test('the OpenAPI document lists the craft routes', async () => {
    const doc = (await t.app.inject('/api/openapi.json')).json() as { paths: Record<string, unknown> };
    for (const path of ['/api/craft/recipe/{itemTag}', '/api/craft/{itemTag}/instructions', '/api/craft/profit', '/api/craft/acquisition/{itemTag}']) {
      assert.ok(doc.paths[path], path);
    }
  });
});

describe('craft endpoints with the real NEU repository', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { GAME_DATA_DIR: neuRepo() } });
  });
  after(async () => t.close());

  test('recipes of the real game: enchanted material and forge', async () => {
    const diamond = (await t.app.inject('/api/craft/recipe/ENCHANTED_DIAMOND')).json();
    assert.equal(diamond.A2, 'DIAMOND:32');
    assert.equal(diamond.count, 1);
    const plate = (await t.app.inject('/api/craft/recipe/MITHRIL_PLATE')).json();
    assert.equal(plate.type, 'forge');
    assert.equal(plate.durationSeconds, 64_800);
    const cocoa = (await t.app.inject('/api/craft/recipe/ENCHANTED_COCOA')).json();
    assert.match(cocoa.A1 + cocoa.A2, /INK_SACK:3/);
  });

  test('instructions and plans without market data: everything is /ah and not enough', async () => {
    const answer = (await t.app.inject('/api/craft/MITHRIL_PLATE/instructions')).json() as { copyCommands: Record<string, string>; tree: Array<{ itemTag: string }> };
    const list = answer.tree;
    assert.ok(list.length >= 5 && list.length <= 200);
    assert.ok(Object.values(answer.copyCommands).every((c) => c === '/ah'));
    assert.ok(list.some((i) => i.itemTag === 'REFINED_MITHRIL'));
    const plan = (await t.app.inject('/api/craft/acquisition/MITHRIL_PLATE?quantity=2')).json() as Plan;
    assert.equal(plan.method, 'craft');
    assert.equal(plan.enough, false);
    const profit = await t.app.inject('/api/craft/profit');
    assert.equal(profit.statusCode, 200);
    assert.deepEqual(profit.json(), []);
  });
});
