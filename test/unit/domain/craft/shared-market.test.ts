import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CraftEngine, type AcquisitionPlan } from '../../../../src/domain/craft/engine.ts';
import { craftProfits } from '../../../../src/domain/craft/profit.ts';
import { mapPriceSource, type BazaarQuote, type BinListing } from '../../../../src/domain/craft/prices.ts';
import { craft, game, quote } from '../../../helpers/craft.ts';

const PER_MINUTE = 7 * 24 * 60;
const books = (...quotes: BazaarQuote[]) => new Map(quotes.map((q) => [q.productId, q]));

/** Cost of walking `levels` once for `units` (the reference the shared-market plans must equal). */
function walkOnce(levels: Array<[number, number]>, units: number): { cost: number; filled: number } {
  let cost = 0;
  let filled = 0;
  for (const [price, amount] of levels) {
    const take = Math.min(amount, units - filled);
    if (take <= 0) break;
    cost += price * take;
    filled += take;
  }
  return { cost, filled };
}

/** Every purchase of `tag` anywhere in the plan tree. */
function purchasesOf(plan: AcquisitionPlan, tag: string): AcquisitionPlan['purchases'] {
  const own = plan.itemId === tag ? plan.purchases : [];
  return [...own, ...plan.ingredients.flatMap((i) => purchasesOf(i, tag))];
}

describe('one shared market per plan', () => {
  const BASE_BOOK: Array<[number, number]> = [[1, 100], [2, 100], [5, 1000]];

  test('two branches sharing an ingredient cost what walking the book once for both costs', () => {
    const g = game([craft('TOP', { A: 1, B: 1 }), craft('A', { BASE: 100 }), craft('B', { BASE: 50 })]);
    const plan = new CraftEngine(g, mapPriceSource(books(quote('BASE', BASE_BOOK)))).plan('TOP', 1);
    assert.equal(plan.method, 'craft');
    assert.equal(plan.cost, walkOnce(BASE_BOOK, 150).cost);
    assert.equal(plan.cost, 200);
    assert.equal(plan.enough, true);
    // The second branch starts where the first stopped: the 1-coin level is not bought twice.
    assert.deepEqual(purchasesOf(plan, 'BASE').map((f) => [f.unitPrice, f.quantity]), [[1, 100], [2, 50]]);
  });

  test('the same ingredient at two depths', () => {
    const g = game([craft('TOP', { BASE: 50, A: 1 }), craft('A', { BASE: 100 })]);
    const plan = new CraftEngine(g, mapPriceSource(books(quote('BASE', BASE_BOOK)))).plan('TOP', 1);
    assert.equal(plan.cost, walkOnce(BASE_BOOK, 150).cost);
  });

  test('enough is false when only the combined quantity exceeds the book', () => {
    const g = game([craft('TOP', { A: 1, B: 1 }), craft('A', { BASE: 100 }), craft('B', { BASE: 50 })]);
    const plan = new CraftEngine(g, mapPriceSource(books(quote('BASE', [[1, 120]])))).plan('TOP', 1);
    assert.equal(plan.enough, false);
    assert.equal(plan.cost, 120);
    const [a, b] = plan.ingredients;
    assert.equal(a!.enough, true);
    assert.equal(b!.enough, false);
    assert.equal(b!.ingredients[0]!.shortfall, 30);
  });

  test('a memoised sub-plan is not reused once the book under it was partly bought', () => {
    // (A, 1) appears twice: directly and inside B. The second A must pay the 2-coin level.
    const g = game([craft('TOP', { A: 1, B: 1 }), craft('B', { A: 1 }), craft('A', { BASE: 100 })]);
    const prices = mapPriceSource(books(quote('BASE', BASE_BOOK)));
    const engine = new CraftEngine(g, prices);
    const plan = engine.plan('TOP', 1);
    assert.equal(plan.cost, walkOnce(BASE_BOOK, 200).cost);
    assert.equal(plan.cost, 300);
    assert.deepEqual(plan.ingredients.map((i) => i.cost), [100, 200]);
    // Each plan starts on the untouched book, and the engine's memo agrees with a fresh engine.
    assert.equal(engine.plan('A', 1).cost, 100);
    assert.equal(engine.plan('TOP', 1).cost, 300);
    assert.deepEqual(engine.plan('B', 1), new CraftEngine(g, prices).plan('B', 1));
  });

  test('BIN listings, NPC stock and buy-order capacity are shared too', () => {
    const bins = new Map<string, BinListing[]>([['GEM', [{ uuid: 'g1', unitPrice: 100, count: 1 }, { uuid: 'g2', unitPrice: 150, count: 1 }]]]);
    const gems = game([craft('TOP', { GEM: 1, HILT: 1 }), craft('HILT', { GEM: 1 })]);
    const gemPlan = new CraftEngine(gems, mapPriceSource(new Map(), bins)).plan('TOP', 1);
    assert.equal(gemPlan.cost, 250);
    assert.deepEqual(purchasesOf(gemPlan, 'GEM').map((f) => f.auctionUuid).sort(), ['g1', 'g2']);
    assert.equal(new CraftEngine(gems, mapPriceSource(new Map(), bins)).plan('TOP', 2).enough, false);

    const npc = { type: 'npc_shop' as const, output: 'BASE', count: 1, inputs: [], currencies: [{ currency: 'coins' as const, amount: 0.5 }], npc: 'FARMER' };
    const g = game([npc, craft('TOP', { A: 1, B: 1 }), craft('A', { BASE: 400 }), craft('B', { BASE: 400 })]);
    // NPC: 640 units per run at 0.5; a buy order for 300 units (10/min × 30 min) at 0.6; then offers at 1.
    const prices = mapPriceSource(books(quote('BASE', [[1, 10_000]], [[0.5, 50_000]], 10 * PER_MINUTE)));
    const plan = new CraftEngine(g, prices, { npcStock: 640 }).plan('TOP', 1);
    assert.equal(plan.cost, 640 * 0.5 + 160 * 0.6);
    const all = purchasesOf(plan, 'BASE');
    assert.equal(all.filter((f) => f.source === 'npc').reduce((s, f) => s + f.quantity, 0), 640);
    assert.equal(all.filter((f) => f.source === 'order').reduce((s, f) => s + f.quantity, 0), 160);
  });

  test('a later branch may craft because the earlier one used up the cheap units', () => {
    // The first branch buys the only cheap enchanted unit; the second must craft its own.
    const ench = craft('ENCHANTED_BASE', { BASE: 160 });
    const g = game([ench, craft('TOP', { ENCHANTED_BASE: 1, WRAP: 1 }), craft('WRAP', { ENCHANTED_BASE: 1 })]);
    const prices = mapPriceSource(books(quote('BASE', [[1, 100_000]]), quote('ENCHANTED_BASE', [[100, 1], [1000, 100]])));
    const plan = new CraftEngine(g, prices).plan('TOP', 1);
    assert.equal(plan.cost, 100 + 160);
    const [first, wrap] = plan.ingredients;
    assert.equal(first!.method, 'buy');
    assert.equal(wrap!.ingredients[0]!.method, 'craft');
  });

  test('random trees of craft-only intermediates cost exactly one walk of the shared leaf book', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return 1 + (seed % n);
    };
    for (let round = 0; round < 25; round++) {
      const levels: Array<[number, number]> = Array.from({ length: 6 }, (_, i) => [i + 1, rand(300)]);
      // TOP needs LEAF directly and through MID1..MID3 (MID3 also through MID1).
      const need = { top: rand(200), m1: rand(200), m2: rand(200), m3: rand(200) };
      const g = game([
        craft('TOP', { LEAF: need.top, MID1: 1, MID2: 1, MID3: 1 }),
        craft('MID1', { LEAF: need.m1 }),
        craft('MID2', { LEAF: need.m2 }),
        craft('MID3', { MID1: 1, LEAF: need.m3 }),
      ]);
      const prices = mapPriceSource(books(quote('LEAF', levels)));
      const total = need.top + 2 * need.m1 + need.m2 + need.m3;
      const plan = new CraftEngine(g, prices).plan('TOP', 1, true);
      const once = walkOnce(levels, total);
      assert.equal(plan.cost, Math.round(once.cost * 100) / 100, `round ${round}`);
      assert.equal(plan.enough, once.filled === total, `round ${round}`);
    }
  });

  test('each profit-list item is priced on its own untouched book', () => {
    const g = game([craft('TOP', { A: 1, B: 1 }), craft('A', { BASE: 100 }), craft('B', { BASE: 50 })]);
    const prices = mapPriceSource(books(quote('BASE', BASE_BOOK), quote('TOP', [[1000, 10]]), quote('A', [[500, 10]]), quote('B', [[500, 10]])));
    const rows = craftProfits(g, prices);
    assert.deepEqual(rows.map((r) => [r.itemId, r.craftCost]).sort(), [['A', 100], ['B', 50], ['TOP', 200]]);
  });
});

describe('memoisation on a shared market', () => {
  test('a warmed engine plans exactly like a fresh one (random trees, buyable intermediates)', () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return 1 + (seed % n);
    };
    for (let round = 0; round < 30; round++) {
      const levels = (base: number): Array<[number, number]> => Array.from({ length: 4 }, (_, i) => [base * (1 + i * 0.5), rand(400)]);
      const g = game([
        craft('TOP', { LEAF: rand(100), MID1: rand(3), MID2: rand(3) }),
        craft('MID1', { LEAF: rand(60), OTHER: rand(40) }),
        craft('MID2', { MID1: rand(2), LEAF: rand(60) }),
        craft('SIDE', { MID1: 1, OTHER: rand(50) }),
      ]);
      const prices = mapPriceSource(books(
        quote('LEAF', levels(1)),
        quote('OTHER', levels(2)),
        quote('MID1', levels(rand(150))),
        quote('MID2', levels(rand(400))),
      ));
      const warmed = new CraftEngine(g, prices);
      for (const [tag, q] of [['SIDE', 2], ['MID2', 1], ['MID1', 3], ['TOP', 1], ['MID1', 1]] as const) warmed.plan(tag, q);
      for (const [tag, q] of [['TOP', 1], ['TOP', 2], ['SIDE', 3], ['MID2', 2]] as const) {
        assert.deepEqual(warmed.plan(tag, q), new CraftEngine(g, prices).plan(tag, q), `round ${round}: ${tag} ×${q}`);
      }
    }
  });
});

test('a memoised plan that ran out of supply is reused only at the same point of the book', () => {
  const g = game([craft('TOP', { A: 1, B: 1 }), craft('B', { A: 1 }), craft('A', { LEAF: 60 }), craft('D', { LEAF: 50, A: 1 })]);
  const prices = mapPriceSource(books(quote('LEAF', [[1, 100]])));
  const engine = new CraftEngine(g, prices);
  assert.equal(engine.plan('TOP', 1).ingredients[1]!.ingredients[0]!.ingredients[0]!.shortfall, 20);
  // The second A ran short from unit 60; from unit 50 it is short by 10, not 20.
  const d = engine.plan('D', 1);
  assert.equal(d.ingredients[1]!.ingredients[0]!.shortfall, 10);
  assert.deepEqual(d, new CraftEngine(g, prices).plan('D', 1));
});
