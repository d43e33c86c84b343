import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demandFlips, isManipulated, orderFlipPrices, realtimeRates, residualFlips, spreadFlips } from '../../../../src/domain/flips/bazaar.ts';
import { auctionFeeRate, bestQuantity, median, walkBook } from '../../../../src/domain/flips/common.ts';
import { NOW, product } from './helpers.ts';

describe('flip basics', () => {
  it('walks a book level by level', () => {
    const w = walkBook([{ pricePerUnit: 10, amount: 5, orders: 1 }, { pricePerUnit: 12, amount: 5, orders: 1 }], 8);
    assert.deepEqual(w, { filled: 8, total: 86, average: 10.75, worst: 12 });
    assert.equal(walkBook([{ pricePerUnit: 10, amount: 5, orders: 1 }], 8).filled, 5);
  });
  it('bestQuantity keeps the most profitable positive quantity and drops unprofitable flips', () => {
    // profit(q) = 10q − q²/10: best of 100, 50, 25 … is 50 (250).
    const r = bestQuantity(100, (q) => ({ profit: 10 * q - (q * q) / 10 }));
    assert.equal(r?.quantity, 50);
    assert.equal(bestQuantity(100, (q) => ({ profit: -q })), null);
  });
  it('auction fee bands and Derpy', () => {
    assert.equal(auctionFeeRate(5_000_000), 0.02);
    assert.equal(auctionFeeRate(10_000_000), 0.03);
    assert.equal(auctionFeeRate(100_000_000), 0.035);
    assert.equal(auctionFeeRate(5_000_000, true), 0.05);
    assert.equal(auctionFeeRate(500_000, true), 0.02);
  });
  it('median of odd, even and empty lists', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.equal(median([]), null);
  });
});

describe('spread flips', () => {
  it('profit per hour = min hourly volume × (offer − order − tax), sorted descending', () => {
    const a = product('A', { buy: 110, sell: 100, buyWeek: 168 * 50, sellWeek: 168 * 20 });
    const b = product('B', { buy: 1000, sell: 900, buyWeek: 168 * 10, sellWeek: 168 * 10 });
    const flips = spreadFlips([a, b], new Map([['A', 105]]), NOW);
    assert.deepEqual(flips.map((f) => f.flip.itemTag), ['B', 'A']);
    const fa = flips[1]!.flip;
    // order 100.1, offer 109.9, tax 1.37375 → margin 8.42625 × 20 / h
    assert.equal(fa.volume, 20);
    assert.equal(fa.profitPerHour, Math.round(20 * (109.9 - 100.1 - 109.9 * 0.0125) * 10) / 10);
    assert.equal(fa.estimatedFees, Math.round(20 * 109.9 * 0.0125 * 10) / 10);
    assert.equal(fa.medianBuyPrice, 105);
    assert.equal(fa.estimatedBuyFillSeconds, 3600); // instant sells are the binding side
    assert.equal(fa.estimatedSellFillSeconds, Math.round((3600 * 20) / 50));
    assert.equal(fa.timestamp, new Date(NOW).toISOString());
  });
  it('drops products whose spread does not cover the tax or that lack volume', () => {
    const thin = product('THIN', { buy: 100.2, sell: 100, buyWeek: 1000, sellWeek: 1000 });
    const taxed = product('TAX', { buy: 1000, sell: 990 }); // 9.8 spread < 12.5 tax
    const dead = product('DEAD', { buy: 200, sell: 100, buyWeek: 0 });
    assert.deepEqual(spreadFlips([thin, taxed, dead], new Map(), NOW), []);
    assert.equal(orderFlipPrices(taxed), null);
  });
  it('flags manipulation against the 7-day median', () => {
    assert.equal(isManipulated(210, 100), true);
    assert.equal(isManipulated(190, 100), false);
    assert.equal(isManipulated(16_000_000, 10_000_000), true); // > 1.5× above 7.5 M
    assert.equal(isManipulated(1_600, 1_000), false); // 1.6× but cheap
    assert.equal(isManipulated(500, null), false);
    const pumped = product('PUMP', { buy: 500, sell: 100 });
    const [f] = spreadFlips([pumped], new Map([['PUMP', 120]]), NOW);
    assert.equal(f!.isManipulated, true);
  });
});

describe('demand spread flips', () => {
  it('real-time rate = Δ rolling sum / Δt + weekly average', () => {
    const r = realtimeRates([
      { ts: 0, buyMovingWeek: 16_800, sellMovingWeek: 16_800 },
      { ts: 1_800_000, buyMovingWeek: 16_850, sellMovingWeek: 16_800 },
    ]);
    assert.deepEqual(r, { buys: 50 / 0.5 + 16_850 / 168, sells: 100 });
    assert.deepEqual(realtimeRates([{ ts: 0, buyMovingWeek: 168, sellMovingWeek: 336 }]), { buys: 1, sells: 2 });
    assert.equal(realtimeRates([]), null);
    // A falling counter never gives a negative rate.
    assert.equal(realtimeRates([{ ts: 0, buyMovingWeek: 10_000, sellMovingWeek: 0 }, { ts: 3_600_000, buyMovingWeek: 0, sellMovingWeek: 0 }])!.buys, 0);
  });
  it('ranks by current demand, not weekly volume; prices are the order prices', () => {
    const a = product('A', { buy: 110, sell: 100, buyWeek: 168 * 1000, sellWeek: 168 * 1000 });
    const b = product('B', { buy: 110, sell: 100, buyWeek: 168 * 10, sellWeek: 168 * 10 });
    const rates = new Map([['A', { buys: 5, sells: 5 }], ['B', { buys: 300, sells: 200 }]]);
    const flips = demandFlips([a, b], rates, new Map(), NOW);
    assert.deepEqual(flips.map((f) => f.flip.itemTag), ['B', 'A']);
    assert.equal(flips[0]!.flip.volume, 200);
    assert.equal(flips[0]!.flip.buyPrice, 100.1);
    assert.equal(flips[0]!.flip.sellPrice, 109.9);
  });
});

describe('residual flips', () => {
  it('capacity = hourly volume × hold time minus open orders, value = remaining × spread', () => {
    const a = product('A', { buy: 110, sell: 100, buyWeek: 168 * 100, sellWeek: 168 * 80 });
    const margin = 109.9 - 100.1 - 109.9 * 0.0125;
    const [free] = residualFlips([a], new Map(), 2, NOW);
    assert.equal(free!.capacity, 160);
    assert.equal(free!.remainingCapacity, 160);
    assert.equal(free!.takenByOpenOrders, 0);
    assert.equal(free!.value, Math.round(160 * margin * 10) / 10);
    // 100 units of buy orders already open: the buy side has 160 − 100 = 60 left.
    const [taken] = residualFlips([a], new Map([['A', { buyOrderUnits: 100, sellOfferUnits: 0 }]]), 2, NOW);
    assert.equal(taken!.remainingCapacity, 60);
    assert.equal(taken!.takenByOpenOrders, 100);
    // Fully taken: not listed.
    assert.deepEqual(residualFlips([a], new Map([['A', { buyOrderUnits: 0, sellOfferUnits: 500 }]]), 2, NOW), []);
  });
  it('ranks by value descending', () => {
    const small = product('S', { buy: 11, sell: 10, buyWeek: 168 * 100, sellWeek: 168 * 100 });
    const big = product('B', { buy: 1100, sell: 1000, buyWeek: 168 * 100, sellWeek: 168 * 100 });
    assert.deepEqual(residualFlips([small, big], new Map(), 1, NOW).map((r) => r.itemTag), ['B', 'S']);
  });
});
