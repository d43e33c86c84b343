import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { digestPoints, DIGEST_SIZE, HOUR_MS, priceDigest, rollSales, weightedMedian, type SoldItem } from '../../../src/domain/sales-rollup.ts';
import { median } from '../../../src/domain/flips/common.ts';

const T = Date.UTC(2026, 10, 20, 12, 0, 0);

function sold(over: Partial<SoldItem> = {}): SoldItem {
  return { uuid: 'u', tag: 'SWORD', itemName: 'Sword', count: 1, price: 100, at: T, tier: 'EPIC', reforge: null, enchantments: { sharpness: 5 }, flatNbt: {}, ...over };
}

describe('sales rollup (domain)', () => {
  it('the weighted median is the plain median for unit weights, odd and even', () => {
    for (let n = 1; n <= 40; n++) {
      const prices = Array.from({ length: n }, (_, i) => ((i * 7919) % 101) + 0.5 * (i % 3));
      assert.equal(weightedMedian(prices.map((price) => ({ price, weight: 1 }))), median(prices), `n=${n}`);
    }
    assert.equal(weightedMedian([]), null);
  });

  it('keeps every price of an hour with few sales and quantiles of a busy one', () => {
    assert.deepEqual(priceDigest([3, 1, 2]), [1, 2, 3]);
    const many = Array.from({ length: 1000 }, (_, i) => i + 1);
    const digest = priceDigest(many);
    assert.equal(digest.length, DIGEST_SIZE);
    assert.ok(digest.every((p, i) => i === 0 || p >= digest[i - 1]!), 'ascending');
    const m = weightedMedian(digestPoints(1000, digest))!;
    assert.ok(Math.abs(m - 500.5) <= 1000 / DIGEST_SIZE, `median of the digest ${m} is within one slice of 500.5`);
  });

  it('groups sales by hour and kind: full variant with whole prices, mayor variant and tag per unit', () => {
    const rows = [
      sold({ price: 100 }),
      sold({ price: 300, at: T + 10 * 60_000, reforge: 'sharp' }),
      sold({ price: 50, count: 2 }),
      sold({ price: 200, enchantments: { sharpness: 6 } }),
      sold({ price: 999, at: T + HOUR_MS }),
      sold({ price: 0 }), // no price: left out
    ];
    const hours = rollSales(rows);
    assert.deepEqual([...hours.keys()].sort(), [T, T + HOUR_MS]);
    const first = hours.get(T)!;
    const tag = first.filter((g) => g.kind === 'tag');
    assert.equal(tag.length, 1);
    assert.deepEqual([tag[0]!.count, tag[0]!.sum, tag[0]!.min, tag[0]!.max, tag[0]!.prices], [4, 650, 50, 300, [50, 100, 200, 300]]);
    const attr = first.filter((g) => g.kind === 'attr').sort((a, b) => a.count - b.count);
    // sharpness 5 (three sales; the reforge is not part of the variant) and sharpness 6
    assert.deepEqual(attr.map((g) => [g.count, g.prices]), [[1, [200]], [3, [100, 100, 300]]]);
    const mayor = first.filter((g) => g.kind === 'mayor');
    assert.equal(mayor.length, 2);
    assert.deepEqual(mayor.find((g) => g.count === 3)!.prices, [50, 100, 300], 'per unit');
    assert.equal(mayor[0]!.mods!.reforge, null, 'reforges are not part of the mayor variant');
  });
});
