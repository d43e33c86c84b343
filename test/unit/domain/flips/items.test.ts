import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bookFlip, bookFlips } from '../../../../src/domain/flips/books.ts';
import { copperFlips } from '../../../../src/domain/flips/copper.ts';
import { fusionFlips, multistepFusionFlips } from '../../../../src/domain/flips/fusion.ts';
import { npcFlips, reverseNpcFlips } from '../../../../src/domain/flips/npc.ts';
import type { FusionRecipe } from '../../../../src/gamedata/tables/fusion.ts';
import { combinable } from '../../../../src/gamedata/tables/enchant-combining.ts';
import { NOW, marketOf, product } from './helpers.ts';

const FEE = 0.0125;

describe('book flips', () => {
  it('costs two level-N books per level-N+1 book (the established service counted one)', () => {
    // One book of level 4 costs 100, level 5 sells for 180: looks like +80 with one book, is −20 with two.
    const l4 = product('ENCHANTMENT_SHARPNESS_4', { buy: 100, sell: 90 });
    const l5 = product('ENCHANTMENT_SHARPNESS_5', { buy: 200, sell: 180 });
    assert.equal(bookFlip(l4, l5, NOW), null);
    const cheap = product('ENCHANTMENT_SHARPNESS_4', { buy: 80, sell: 70 });
    const f = bookFlip(cheap, l5, NOW)!;
    // q = min(1000 / 2, 1000) per hour = 500; profit per book = 180 × (1 − tax) − 160
    assert.equal(f.hourlyVolume, 500);
    assert.equal(f.profitPerHour, Math.round(500 * (180 * (1 - FEE) - 160) * 10) / 10);
    assert.equal(f.estimatedFees, Math.round(500 * 180 * FEE * 10) / 10);
  });
  it('bounds throughput by half the level-N volume and the level-N+1 volume', () => {
    const l4 = product('ENCHANTMENT_POWER_4', { buy: 50, sell: 40, buyWeek: 168 * 40 });
    const l5 = product('ENCHANTMENT_POWER_5', { buy: 200, sell: 180, sellWeek: 168 * 1000 });
    assert.equal(bookFlip(l4, l5, NOW)!.hourlyVolume, 20);
    const l5thin = product('ENCHANTMENT_POWER_5', { buy: 200, sell: 180, sellWeek: 168 * 7 });
    assert.equal(bookFlip(l4, l5thin, NOW)!.hourlyVolume, 7);
  });
  it('walks both books and drops flips whose profit vanishes at their own volume', () => {
    // Two cheap level-4 books at 50, then 200 each; level-5 bids 180 then 100.
    const l4 = product('ENCHANTMENT_SMITE_4', { buy: 50, sell: 40, offers: [[50, 2], [200, 1000]], buyWeek: 168 * 100 });
    const l5 = product('ENCHANTMENT_SMITE_5', { buy: 200, sell: 180, bids: [[180, 1], [100, 1000]], sellWeek: 168 * 100 });
    const f = bookFlip(l4, l5, NOW)!;
    assert.equal(f.hourlyVolume, 1); // only the first book pair is profitable
    assert.equal(f.profitPerHour, Math.round((180 * (1 - FEE) - 100) * 10) / 10);
    const worse = product('ENCHANTMENT_SMITE_4', { buy: 95, sell: 40, offers: [[95, 1000]] });
    assert.equal(bookFlip(worse, l5, NOW), null);
  });
  it('only combinable levels are targets', () => {
    assert.equal(combinable('sharpness', 5), true);
    assert.equal(combinable('sharpness', 6), false);
    assert.equal(combinable('looting', 5), false);
    const l5 = product('ENCHANTMENT_SHARPNESS_5', { buy: 10, sell: 9 });
    const l6 = product('ENCHANTMENT_SHARPNESS_6', { buy: 1000, sell: 900 });
    assert.deepEqual(bookFlips([l5, l6], combinable, NOW), []);
  });
});

describe('NPC flips', () => {
  it('buy on the bazaar, sell to the NPC, walking the sell offers', () => {
    const m = marketOf(product('X', { buy: 5, sell: 4, offers: [[5, 100], [9, 1000]], buyWeek: 168 * 500, name: 'Ex' }));
    const [f] = npcFlips(m, new Map([['X', 8]]), NOW);
    assert.equal(f!.hourlySells, 125); // 500, 250 and 125 tried; 125 = 100 at 5 + 25 at 9 (profit 200) beats 500/250 which lose
    assert.equal(f!.profitPerHour, 100 * 3 - 25 * 1);
    assert.equal(f!.itemName, 'Ex');
    assert.deepEqual(npcFlips(m, new Map([['X', 4]]), NOW), []);
  });
  it('reverse: buy from the NPC with coins and items, sell into buy orders after tax', () => {
    const m = marketOf(
      product('GEM', { buy: 120, sell: 100, sellWeek: 168 * 10 }),
      product('DUST', { buy: 2, sell: 1.5 }),
    );
    const offers = [
      { npcName: 'Bob', itemTag: 'GEM', count: 2, costs: [{ tag: 'SKYBLOCK_COIN', amount: 100 }, { tag: 'DUST', amount: 20 }] },
      { npcName: 'Al', itemTag: 'GEM', count: 1, costs: [{ tag: 'SKYBLOCK_COIN', amount: 95 }] },
      { npcName: 'Cu', itemTag: 'GEM', count: 1, costs: [{ tag: 'SKYBLOCK_COPPER', amount: 5 }] },
    ];
    const flips = reverseNpcFlips(m, offers, new Map(), NOW);
    assert.equal(flips.length, 1);
    const f = flips[0]!;
    // Bob: 50 coins + 10 dust × 2 = 70 per gem; Al: 95. Bob wins.
    assert.equal(f.npcName, 'Bob');
    assert.equal(f.npcBuyPrice, 70);
    assert.equal(f.profit, Math.round((100 * (1 - FEE) - 70) * 100) / 100);
    assert.equal(f.volume, 10);
    assert.deepEqual(f.costs.map((c) => [c.itemTag, c.amount, c.price]), [['SKYBLOCK_COIN', 50, 1], ['DUST', 10, 2]]);
  });
  it('reverse: caps the sell price at 2× the median and at 1.1× cost when volume is thin', () => {
    const m = marketOf(product('P', { buy: 1000, sell: 900, sellWeek: 168 * 100 }));
    const offer = { npcName: 'N', itemTag: 'P', count: 1, costs: [{ tag: 'SKYBLOCK_COIN', amount: 500 }] };
    assert.equal(reverseNpcFlips(m, [offer], new Map([['P', 300]]), NOW)[0]!.sellPrice, 600);
    const thin = marketOf(product('P', { buy: 1000, sell: 900, sellWeek: 168 * 3 }));
    assert.equal(reverseNpcFlips(thin, [offer], new Map(), NOW)[0]!.sellPrice, 550);
  });
});

describe('fusion flips', () => {
  const recipes: FusionRecipe[] = [
    { inputs: { A: 2, B: 2 }, output: 'M', outputCount: 2 },
    { inputs: { M: 4, C: 2 }, output: 'L', outputCount: 4 },
  ];
  const m = marketOf(
    product('A', { buy: 16, sell: 14.9 }),
    product('B', { buy: 21, sell: 19.9 }),
    product('M', { buy: 60.1, sell: 55 }),
    product('C', { buy: 52, sell: 49.9 }),
    product('L', { buy: 80.1, sell: 78 }),
  );
  it('single step: inputs at buy-order prices, output at sell-offer price after tax', () => {
    const flips = fusionFlips(m, recipes);
    assert.deepEqual(flips.map((f) => f.output), ['M']);
    const f = flips[0]!;
    assert.equal(f.inputCost, 2 * 15 + 2 * 20);
    assert.equal(f.outputValue, Math.round(2 * 60 * (1 - FEE) * 10) / 10);
    assert.equal(f.depth, 1);
    assert.equal(f.steps, null);
    assert.equal(f.volume, 500); // 1000 instant sells/h of A or B, 2 per fusion
  });
  it('multi-step: fusing an input beats buying it', () => {
    // L from bought M: 4 × 55.1 + 2 × 50 = 320.4 > 4 × 80 × (1 − tax) = 316 (a loss);
    // from fused M (35 each): 4 × 35 + 100 = 240 (a profit).
    const flips = multistepFusionFlips(m, recipes);
    assert.equal(flips.length, 1);
    const f = flips[0]!;
    assert.equal(f.output, 'L');
    assert.equal(f.depth, 2);
    assert.deepEqual(f.inputs, { A: 4, B: 4, C: 2 });
    assert.equal(f.inputCost, 4 * 15 + 4 * 20 + 2 * 50);
    assert.deepEqual(f.steps!.map((s) => [s.output, s.outputCount]), [['M', 4], ['L', 4]]);
  });
  it('unpriced inputs or a loss list nothing', () => {
    assert.deepEqual(fusionFlips(marketOf(product('A', { buy: 16, sell: 15 })), recipes), []);
    const dear = marketOf(product('A', { buy: 100, sell: 99 }), product('B', { buy: 100, sell: 99 }), product('M', { buy: 60, sell: 55 }));
    assert.deepEqual(fusionFlips(dear, recipes), []);
  });
});

describe('copper flips', () => {
  it('coins per copper from the walked buy price plus analysis cost', () => {
    const m = marketOf(
      product('CROP', { buy: 10, sell: 9, offers: [[10, 100], [20, 100]], buyWeek: 168 * 200 }),
      product('RARE', { buy: 1000, sell: 900 }),
    );
    const flips = copperFlips(m, [{ tag: 'CROP', analyzeCost: 5, copperYield: 1 }, { tag: 'RARE', analyzeCost: 100, copperYield: 50 }, { tag: 'NONE', analyzeCost: 1, copperYield: 1 }], NOW);
    // CROP: 1 copper / 20 coins = 0.05; RARE: 50 / 1100 ≈ 0.045
    assert.deepEqual(flips.map((f) => f.itemTag), ['CROP', 'RARE']);
    const crop = flips[0]!;
    assert.equal(crop.volume, 200);
    assert.equal(crop.buyPrice, 15);
    assert.equal(crop.totalCost, 20);
    assert.equal(crop.coinsPerCopper, 20);
    assert.equal(crop.copperPerCoin, 1 / 20);
  });
});
