import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeFlips, sortAttributeFlips, type AttributeFlip, type AuctionListing, type AuctionSale } from '../../../../src/domain/flips/attribute.ts';
import { mayorFlip, mayorFlips, termsFromElections, type MayorTerm } from '../../../../src/domain/flips/mayor.ts';
import { NOW, marketOf, product } from './helpers.ts';

const H = 3_600_000;

describe('mayor flips', () => {
  const terms: MayorTerm[] = [
    { mayor: 'Diana', start: 0, end: 10 * H },
    { mayor: 'Paul', start: 10 * H, end: 20 * H },
    { mayor: 'Diana', start: 20 * H, end: 30 * H },
    { mayor: 'Paul', start: 30 * H, end: 40 * H },
  ];
  const samples = [
    ...[100, 110, 90].map((price, i) => ({ ts: i * H, price })), // Diana: 100
    ...[200, 210, 190].map((price, i) => ({ ts: (10 + i) * H, price })), // Paul: 200
    ...[120, 80, 100].map((price, i) => ({ ts: (20 + i) * H, price })), // Diana: 100
    ...[180, 220, 190].map((price, i) => ({ ts: (30 + i) * H, price })), // Paul (current): 190
  ];
  const item = { tag: 'X', name: 'Ex', samples, volume: 50 };
  it('expected price from past terms of the next mayor, current median, mean consecutive diff', () => {
    const f = mayorFlip(item, terms, 'Diana')!;
    assert.equal(f.medianPrice, 190);
    assert.equal(f.expectedPrice, 100);
    assert.equal(f.averageMayorMedianDiff, 96.7); // (100 + 100 + 90) / 3, rounded to 0.1
    assert.equal(f.currentMayor, 'Paul');
    assert.equal(f.nextMayor, 'Diana');
    assert.equal(f.usedPricesBeforeNextMayor, true);
    assert.equal(f.usedPricesAfterCurrentMayor, false);
  });
  it('when the mayor stays, uses that mayor’s earlier terms; skips small changes and unknown mayors', () => {
    const f = mayorFlip(item, terms, 'Paul', 0.05, 0)!; // noise test off: 200 vs 190 is within the samples' spread
    assert.equal(f.expectedPrice, 200);
    assert.equal(f.usedPricesAfterCurrentMayor, true);
    assert.equal(mayorFlip(item, terms, 'Paul', 0.1, 0), null); // 200 vs 190 is 5 %
    assert.equal(mayorFlip(item, terms, 'Aatrox'), null);
    assert.deepEqual(mayorFlips([item], terms.slice(0, 1), 'Diana'), []);
  });
  it('a change within the sampling noise of the medians is not listed', () => {
    // Paul 200 (se 10.7) vs current 190 (se 10.7): 10 < 2 × 15.2.
    assert.equal(mayorFlip(item, terms, 'Paul'), null);
    // The same medians from tight samples (MAD 1, se ≈ 1.07) stand out: 10 > 2 × 1.5.
    const tight = [199, 200, 201, 100, 101, 99, 201, 200, 199, 189, 190, 191].map((price, i) => ({ ts: [10, 11, 12, 0, 1, 2, 14, 15, 16, 30, 31, 32][i]! * H, price }));
    const f = mayorFlip({ ...item, samples: tight }, terms, 'Paul')!;
    assert.equal(f.expectedPrice, 200);
    assert.equal(f.medianPrice, 190);
    // A stricter z keeps it out again (10 < 8 × 1.5).
    assert.equal(mayorFlip({ ...item, samples: tight }, terms, 'Paul', 0.05, 8), null);
  });
  it('a term median needs minSamples samples (sparse auction sales)', () => {
    // Every term has 3 samples: with 3 required the flip stands, with 4 no term counts.
    assert.equal(mayorFlip({ ...item, minSamples: 3 }, terms, 'Diana')!.expectedPrice, 100);
    assert.equal(mayorFlip({ ...item, minSamples: 4 }, terms, 'Diana'), null);
    // One Diana term thinned to a single sale: it drops out and the other Diana term decides.
    const thin = { ...item, samples: samples.filter((s) => !(s.ts >= 20 * H && s.ts < 21 * H + 1) || s.ts === 20 * H).filter((s) => s.ts !== 22 * H), minSamples: 2 };
    assert.equal(mayorFlip(thin, terms, 'Diana')!.expectedPrice, 100);
    assert.equal(mayorFlip({ ...thin, samples: thin.samples.filter((s) => s.ts >= 10 * H) }, terms, 'Diana'), null);
  });
  it('terms from observed elections end when the mayor was last seen', () => {
    const t = termsFromElections(
      [
        { year: 2, mayorName: 'Paul', lastSeen: 200 },
        { year: 1, mayorName: 'Diana', lastSeen: 100 },
        { year: 3, mayorName: 'Cole', lastSeen: 290 },
      ],
      300,
      50,
    );
    assert.deepEqual(t, [
      { mayor: 'Diana', start: 50, end: 100 },
      { mayor: 'Paul', start: 100, end: 200 },
      { mayor: 'Cole', start: 200, end: 301 },
    ]);
  });
});

describe('attribute flips', () => {
  const base = { tier: 'LEGENDARY', reforge: null, stars: 0, rarityUpgrades: 0, hotPotatoCount: 0, enchantments: {}, attributes: {} };
  const sale = (price: number, mods: Partial<AuctionSale> = {}): AuctionSale => ({ ...base, tag: 'SWORD', price, soldAt: NOW - H, ...mods });
  const listing = (uuid: string, price: number, mods: Partial<AuctionListing> = {}): AuctionListing => ({
    ...base,
    uuid,
    tag: 'SWORD',
    itemName: 'Sword',
    price,
    startAt: NOW - 2 * H,
    count: 1,
    ...mods,
  });
  const market = marketOf(
    product('RECOMBOBULATOR_3000', { buy: 6_000_000, sell: 5_900_000 }),
    product('HOT_POTATO_BOOK', { buy: 80_000, sell: 79_000 }),
    product('FUMING_POTATO_BOOK', { buy: 1_000_000, sell: 990_000 }),
    product('ENCHANTMENT_SHARPNESS_5', { buy: 50_000, sell: 45_000 }),
  );
  const recombed = { rarityUpgrades: 1, hotPotatoCount: 10, enchantments: { sharpness: 5 } };
  const sales = [sale(20_000_000, recombed), sale(21_000_000, recombed), sale(22_000_000, recombed), sale(10_000_000), sale(10_500_000), sale(9_000_000)];
  it('buys the cheapest lower variant, prices the upgrades on the bazaar, sells at the target median after the fee', () => {
    const flips = attributeFlips(market, [listing('a', 11_000_000), listing('b', 10_000_000), listing('c', 30_000_000, recombed)], sales, { now: NOW, windowDays: 7 });
    assert.equal(flips.length, 1);
    const f = flips[0]!;
    assert.equal(f.auctionToBuy, 'b');
    assert.equal(f.target, 21_000_000);
    const cost = 6_000_000 + 10 * 80_000 + 50_000;
    assert.equal(f.estimatedCraftingCost, cost);
    assert.equal(f.profitAfterTax, 21_000_000 * 0.97 - 10_000_000 - cost);
    assert.deepEqual(f.ingredients.map((i) => [i.itemId, i.amount]), [['RECOMBOBULATOR_3000', 1], ['HOT_POTATO_BOOK', 10], ['ENCHANTMENT_SHARPNESS_5', 1]]);
    assert.equal(f.volume, Math.round((3 / 7) * 10) / 10);
  });
  it('never removes an enchantment, needs bazaar prices for every upgrade and a profit', () => {
    const other = { enchantments: { smite: 5 } };
    assert.deepEqual(attributeFlips(market, [listing('x', 1, other)], sales, { now: NOW, windowDays: 7 }), []);
    const noRecomb = marketOf(product('HOT_POTATO_BOOK', { buy: 80_000, sell: 79_000 }));
    assert.deepEqual(attributeFlips(noRecomb, [listing('b', 10_000_000)], sales, { now: NOW, windowDays: 7 }), []);
    assert.deepEqual(attributeFlips(market, [listing('b', 14_000_000)], sales, { now: NOW, windowDays: 7 }), []);
  });
  it('sorts by profit, price, volume and age', () => {
    const mk = (target: number, cost: number, price: number, volume: number, foundAt: number): AttributeFlip => ({
      tag: 'T', itemName: 'T', auctionToBuy: String(target), auctionPrice: price, profitAfterTax: 0, ingredients: [],
      startingKey: { reforge: null, tier: null, enchants: [], modifiers: [], count: 1 },
      endingKey: { reforge: null, tier: null, enchants: [], modifiers: [], count: 1 },
      target, estimatedCraftingCost: cost, foundAt: new Date(foundAt).toISOString(), volume,
    });
    const a = mk(100, 10, 50, 1, 3), b = mk(200, 100, 90, 5, 1), c = mk(150, 0, 60, 3, 2);
    const ids = (xs: AttributeFlip[]) => xs.map((x) => x.auctionToBuy);
    assert.deepEqual(ids(sortAttributeFlips([a, b, c], 'profit')), ['150', '100', '200']);
    assert.deepEqual(ids(sortAttributeFlips([a, b, c], 'price')), ['200', '150', '100']);
    assert.deepEqual(ids(sortAttributeFlips([a, b, c], 'volume')), ['200', '150', '100']);
    assert.deepEqual(ids(sortAttributeFlips([a, b, c], 'age')), ['100', '150', '200']);
  });
});
