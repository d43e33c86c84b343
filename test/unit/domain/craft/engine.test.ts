import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CraftEngine, MAX_ORDER_UNITS } from '../../../../src/domain/craft/engine.ts';
import { craftInstructions, flatRecipe } from '../../../../src/domain/craft/instructions.ts';
import { auctionFeeRate, mapPriceSource, type BazaarQuote, type BinListing } from '../../../../src/domain/craft/prices.ts';
import { craftProfits, filterByProgress } from '../../../../src/domain/craft/profit.ts';
import { craft, game, quote } from '../../../helpers/craft.ts';

const PER_MINUTE = 7 * 24 * 60;
const books = (...quotes: BazaarQuote[]) => new Map(quotes.map((q) => [q.productId, q]));
const ENCH = craft('ENCHANTED_BASE', { BASE: 160 });

describe('buying', () => {
  test('walks the sell-offer book level by level for the true quantity', () => {
    const prices = mapPriceSource(books(quote('BASE', [[1, 100], [2, 100], [5, 1000]])));
    const plan = new CraftEngine(game([]), prices).plan('BASE', 150);
    assert.equal(plan.method, 'buy');
    assert.equal(plan.enough, true);
    assert.deepEqual(plan.purchases, [
      { source: 'insta', quantity: 100, unitPrice: 1, cost: 100 },
      { source: 'insta', quantity: 50, unitPrice: 2, cost: 100 },
    ]);
    assert.equal(plan.cost, 200);
  });

  test('not enough supply: buys what there is and says so', () => {
    const prices = mapPriceSource(books(quote('BASE', [[1, 100], [2, 100]])));
    const plan = new CraftEngine(game([]), prices).plan('BASE', 250);
    assert.equal(plan.enough, false);
    assert.equal(plan.shortfall, 50);
    assert.equal(plan.cost, 300);
    assert.equal(plan.directBuyEnough, false);
  });

  test('a buy order at the top bid, bounded by 30 minutes of instant-sell volume', () => {
    // 10 units instantly sold per minute → 300 in 30 minutes.
    const prices = mapPriceSource(books(quote('BASE', [[1, 10_000]], [[0.5, 50_000]], 10 * PER_MINUTE)));
    const plan = new CraftEngine(game([]), prices).plan('BASE', 400);
    assert.deepEqual(plan.purchases, [
      { source: 'order', quantity: 300, unitPrice: 0.6, cost: 180 },
      { source: 'insta', quantity: 100, unitPrice: 1, cost: 100 },
    ]);
    const instantOnly = new CraftEngine(game([]), prices, { useOrders: false }).plan('BASE', 400);
    assert.deepEqual(instantOnly.purchases.map((f) => f.source), ['insta']);
    // However large the volume, one order holds at most 71,680 units.
    const huge = mapPriceSource(books(quote('BASE', [[1, 10_000_000]], [[0.5, 1]], 1e12)));
    assert.equal(new CraftEngine(game([]), huge).plan('BASE', 100_000).purchases[0]!.quantity, MAX_ORDER_UNITS);
  });

  test('NPC stock first when cheapest, capped per purchase run', () => {
    const npc = { type: 'npc_shop' as const, output: 'BASE', count: 1, inputs: [], currencies: [{ currency: 'coins' as const, amount: 0.5 }], npc: 'FARMER' };
    const prices = mapPriceSource(books(quote('BASE', [[1, 10_000]])));
    const plan = new CraftEngine(game([npc]), prices, { npcStock: 640 }).plan('BASE', 1000);
    assert.deepEqual(plan.purchases, [
      { source: 'npc', quantity: 640, unitPrice: 0.5, cost: 320 },
      { source: 'insta', quantity: 360, unitPrice: 1, cost: 360 },
    ]);
    assert.equal(new CraftEngine(game([npc]), prices).plan('BASE', 10).method, 'npc');
  });

  test('auction-only items: lowest BINs with marginal cost for more units', () => {
    const bins = new Map<string, BinListing[]>([['SWORD', [{ uuid: 'a1', unitPrice: 100, count: 1 }, { uuid: 'a2', unitPrice: 150, count: 1 }, { uuid: 'a3', unitPrice: 300, count: 1 }]]]);
    const engine = new CraftEngine(game([]), mapPriceSource(new Map(), bins));
    assert.equal(engine.plan('SWORD', 1).cost, 100);
    const two = engine.plan('SWORD', 2);
    assert.equal(two.cost, 250);
    assert.deepEqual(two.purchases.map((f) => f.auctionUuid), ['a1', 'a2']);
    assert.equal(engine.plan('SWORD', 4).enough, false);
  });
});

describe('buy versus craft', () => {
  test('crafts when the ingredients are cheaper, buys when the product is', () => {
    const cheapBase = books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[200, 100]]));
    const craftPlan = new CraftEngine(game([ENCH]), mapPriceSource(cheapBase)).plan('ENCHANTED_BASE', 2);
    assert.equal(craftPlan.method, 'craft');
    assert.equal(craftPlan.cost, 320);
    assert.equal(craftPlan.directBuyCost, 400);
    assert.equal(craftPlan.craftedQuantity, 2);
    assert.deepEqual(craftPlan.ingredients.map((i) => [i.itemId, i.quantity, i.cost]), [['BASE', 320, 320]]);

    const cheapProduct = books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[150, 100]]));
    const buyPlan = new CraftEngine(game([ENCH]), mapPriceSource(cheapProduct)).plan('ENCHANTED_BASE', 2);
    assert.equal(buyPlan.method, 'buy');
    assert.equal(buyPlan.cost, 300);
    assert.equal(buyPlan.craftCost, 320);
  });

  test('crafting must beat buying by the margin (1 % + 1 coin)', () => {
    const near = books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[161, 100]]));
    assert.equal(new CraftEngine(game([ENCH]), mapPriceSource(near)).plan('ENCHANTED_BASE', 1).method, 'buy');
  });

  test('forceCraft crafts the top level even when buying is cheaper', () => {
    const cheapProduct = books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[150, 100]]));
    const plan = new CraftEngine(game([ENCH]), mapPriceSource(cheapProduct)).plan('ENCHANTED_BASE', 1, true);
    assert.equal(plan.method, 'craft');
    assert.equal(plan.cost, 160);
    assert.equal(plan.directBuyCost, 150);
  });

  test('the deeper book makes crafting win for large quantities', () => {
    // One cheap enchanted unit, then expensive ones: buy 1, craft the rest (hybrid).
    const thin = books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[150, 1], [400, 100]]));
    const plan = new CraftEngine(game([ENCH]), mapPriceSource(thin)).plan('ENCHANTED_BASE', 3);
    assert.equal(plan.method, 'craft');
    assert.deepEqual(plan.purchases, [{ source: 'insta', quantity: 1, unitPrice: 150, cost: 150 }]);
    assert.equal(plan.directBuyCost, 950);
    assert.equal(plan.craftedQuantity, 2);
    assert.equal(plan.cost, 150 + 320);
  });

  test('recursion picks the cheapest path at every level and the cheapest recipe', () => {
    const block = craft('BASE_BLOCK', { BASE: 9 });
    const viaBlocks = craft('ENCHANTED_BASE', { BASE_BLOCK: 160 }, 9);
    const super_ = craft('SUPER_BASE', { ENCHANTED_BASE: 160 });
    const prices = mapPriceSource(books(quote('BASE', [[1, 10_000_000]]), quote('BASE_BLOCK', [[20, 100_000]]), quote('ENCHANTED_BASE', [[500, 10]]), quote('SUPER_BASE', [[1e6, 10]])));
    const plan = new CraftEngine(game([ENCH, block, viaBlocks, super_]), prices).plan('SUPER_BASE', 1);
    assert.equal(plan.method, 'craft');
    const ench = plan.ingredients[0]!;
    assert.equal(ench.method, 'craft');
    assert.equal(ench.cost, 160 * 160);
    // Both recipes give 160 coins per enchanted unit; the blocks are crafted from base too.
    assert.equal(plan.cost, 25_600);
  });

  test('a recipe cycle terminates and falls back to buying', () => {
    const a = craft('A', { B: 1 });
    const b = craft('B', { A: 1 });
    const prices = mapPriceSource(books(quote('A', [[10, 5]]), quote('B', [[20, 5]])));
    const plan = new CraftEngine(game([a, b]), prices).plan('A', 1);
    assert.equal(plan.method, 'buy');
    assert.equal(plan.cost, 10);
    assert.equal(new CraftEngine(game([a, b]), prices).plan('B', 1).method, 'craft');
  });

  test('not enough anywhere: enough=false on the plan and its ingredient', () => {
    const prices = mapPriceSource(books(quote('BASE', [[1, 100]])));
    const plan = new CraftEngine(game([ENCH]), prices).plan('ENCHANTED_BASE', 1);
    assert.equal(plan.enough, false);
    assert.equal(plan.method, 'craft');
    assert.equal(plan.ingredients[0]!.enough, false);
    assert.equal(plan.ingredients[0]!.shortfall, 60);
  });

  test('pseudo-currencies are typed, not priced as coins, unless a conversion is known', () => {
    const bitsOffer = { type: 'npc_shop' as const, output: 'COOKIE', count: 1, inputs: [], currencies: [{ currency: 'bits' as const, amount: 4800 }], npc: 'ELIZABETH' };
    const plan = new CraftEngine(game([bitsOffer]), mapPriceSource(new Map())).plan('COOKIE', 1);
    assert.equal(plan.method, 'buy', 'unpriced bits never beat nothing');
    const forced = new CraftEngine(game([bitsOffer]), mapPriceSource(new Map())).plan('COOKIE', 2, true);
    assert.equal(forced.method, 'bits');
    assert.deepEqual(forced.currencies, [{ currency: 'bits', amount: 9600 }]);
    assert.equal(forced.cost, 0);
    const priced = new CraftEngine(game([bitsOffer]), mapPriceSource(new Map(), new Map(), { currencies: { bits: 1000 } })).plan('COOKIE', 1, true);
    assert.equal(priced.cost, 4_800_000);
    assert.deepEqual(priced.currencies, []);
  });
});

describe('fees and the profit list', () => {
  test('auction fee by price band, Derpy surcharge', () => {
    assert.equal(auctionFeeRate(5_000_000), 0.02);
    assert.equal(auctionFeeRate(10_000_000), 0.03);
    assert.equal(auctionFeeRate(100_000_000), 0.035);
    assert.equal(auctionFeeRate(5_000_000, true), 0.05);
    assert.equal(auctionFeeRate(500_000, true), 0.02);
  });

  test('profit deducts the 1.25 % bazaar fee on the sale', () => {
    const prices = mapPriceSource(books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[200, 100]], [[150, 100]])), new Map(), { asOf: Date.UTC(2026, 10, 23) });
    const [row, ...rest] = craftProfits(game([ENCH]), prices);
    assert.equal(rest.length, 0);
    assert.equal(row!.itemId, 'ENCHANTED_BASE');
    assert.equal(row!.sellPrice, 199.9);
    assert.equal(row!.craftCost, 160);
    assert.equal(row!.profit, Math.round((199.9 * 0.9875 - 160) * 100) / 100);
    assert.equal(row!.median, 175);
    assert.equal(row!.lastUpdated, '2026-11-23T00:00:00.000Z');
    assert.equal(row!.ingredients[0]!.instaBuyUnitPrice, 1);
    assert.equal(row!.ingredients[0]!.instaBuyCapacity, 100_000);
    assert.ok(row!.assumptions.some((a) => a.includes('1.25 %')));
  });

  test('a margin the fee eats is not reported', () => {
    // 161.9 × 0.9875 = 159.88 < 160: profitable only if the fee is ignored.
    const prices = mapPriceSource(books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[162, 100]])));
    assert.deepEqual(craftProfits(game([ENCH]), prices), []);
  });

  test('a profit that vanishes once the book is walked is not reported', () => {
    // The top level of BASE is cheap but holds only 10 units; the rest costs 2.
    const prices = mapPriceSource(books(quote('BASE', [[0.5, 10], [2, 100_000]]), quote('ENCHANTED_BASE', [[200, 100]])));
    assert.deepEqual(craftProfits(game([ENCH]), prices), []);
    const short = mapPriceSource(books(quote('BASE', [[0.5, 100]]), quote('ENCHANTED_BASE', [[200, 100]])));
    assert.deepEqual(craftProfits(game([ENCH]), short), [], 'not enough supply');
  });

  test('auction sales use the lowest BIN and the band fee; unpriced crafts are excluded', () => {
    const hilt = craft('SWORD', { BASE: 1000 });
    const bits = craft('BITS_THING', { BASE: 1 }, 1, { currencies: [{ currency: 'bits', amount: 10 }] });
    const bins = new Map<string, BinListing[]>([
      ['SWORD', [{ uuid: 'x', unitPrice: 20_000_000, count: 1 }, { uuid: 'y', unitPrice: 25_000_000, count: 1 }]],
      ['BITS_THING', [{ uuid: 'z', unitPrice: 1e9, count: 1 }]],
    ]);
    const prices = mapPriceSource(books(quote('BASE', [[1, 100_000]])), bins);
    const rows = craftProfits(game([hilt, bits]), prices);
    assert.deepEqual(rows.map((r) => r.itemId), ['SWORD']);
    assert.equal(rows[0]!.feeRate, 0.03);
    assert.equal(rows[0]!.profit, 20_000_000 * 0.97 - 1000);
    assert.equal(rows[0]!.market, 'auction');
    assert.equal(rows[0]!.median, 20_000_000);
  });

  test('a craft without its own collection requirement inherits its ingredients\'', () => {
    const g = game([ENCH, craft('SUPER_BASE', { ENCHANTED_BASE: 2 })]);
    (g.items as Map<string, import('../../../../src/gamedata/types.ts').GameItem>).get('ENCHANTED_BASE')!.requirements.push({ kind: 'collection', name: 'Base', level: 4 });
    const prices = mapPriceSource(books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[200, 100]]), quote('SUPER_BASE', [[1000, 100]])));
    const rows = craftProfits(g, prices);
    assert.deepEqual(rows.find((r) => r.itemId === 'SUPER_BASE')!.reqCollection, { name: 'Base', level: 4 });
    assert.deepEqual(rows.find((r) => r.itemId === 'ENCHANTED_BASE')!.reqCollection, { name: 'Base', level: 4 });
  });

  test('filters by the player\'s unlocked requirements', () => {
    const rows = [
      { reqCollection: { name: 'Wheat', level: 6 }, reqSlayer: null, reqSkill: null },
      { reqCollection: null, reqSlayer: { name: 'zombie', level: 5 }, reqSkill: null },
      { reqCollection: null, reqSlayer: null, reqSkill: null },
    ] as unknown as Parameters<typeof filterByProgress>[0];
    const kept = filterByProgress(rows, { collections: { wheat: 7 }, slayers: { zombie: 4 }, skills: {} });
    assert.equal(kept.length, 2);
    assert.equal(kept.includes(rows[1]!), false);
  });
});

describe('instructions', () => {
  test('every ingredient of the tree with how to get it', () => {
    const super_ = craft('SUPER_BASE', { ENCHANTED_BASE: 160, SWORD: 1 });
    const g = game([{ ...ENCH, grid: { A1: 'BASE:32', A2: 'BASE:32', A3: 'BASE:32', B1: 'BASE:32', B2: 'BASE:32', B3: '', C1: '', C2: '', C3: '' } }, super_]);
    const bins = new Map<string, BinListing[]>([['SWORD', [{ uuid: 'abc', unitPrice: 5, count: 1 }]]]);
    const prices = mapPriceSource(books(quote('BASE', [[1, 10]]), quote('ENCHANTED_BASE', [[1, 10]])), bins);
    const list = craftInstructions(g, prices, 'SUPER_BASE');
    assert.deepEqual(list.map((i) => i.itemTag), ['SUPER_BASE', 'ENCHANTED_BASE', 'SWORD', 'BASE']);
    const top = list[0]!;
    assert.equal(top.copyCommands.ENCHANTED_BASE, '/bz enchanted_base');
    assert.equal(top.copyCommands.SWORD, '/viewauction abc');
    assert.equal(top.detailsPath.SWORD, '/auction/abc');
    assert.equal(top.recipe!.A1, 'ENCHANTED_BASE:160');
    assert.equal(top.recipe!.count, '1');
    assert.equal(list[1]!.recipe!.A1, 'BASE:32');
    assert.equal(list[3]!.recipe, null);
    assert.equal(craftInstructions(g, mapPriceSource(new Map()), 'SUPER_BASE')[0]!.copyCommands.SWORD, '/ah');
    assert.equal(flatRecipe(ENCH).A1, 'BASE:160');
  });
});
