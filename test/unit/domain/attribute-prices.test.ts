/** Attribute prices from the rolled-up attribute variants: per attribute and level, the cheapest variant carrying it alone. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributePrices } from '../../../src/domain/attribute-prices.ts';

describe('attribute prices', () => {
  it('takes the lowest median of the variants that carry one attribute alone, per level', () => {
    const prices = attributePrices([
      { tag: 'ATTRIBUTE_SHARD', mods: { attributes: { mana_pool: 1 } }, median: 500_000, count: 12 },
      { tag: 'AURORA_CHESTPLATE', mods: { attributes: { mana_pool: 1 } }, median: 2_000_000, count: 4 },
      { tag: 'ATTRIBUTE_SHARD', mods: { attributes: { mana_pool: 2 } }, median: 1_200_000, count: 5 },
      { tag: 'MOLTEN_BELT', mods: { attributes: { veteran: 5 } }, median: 8_000_000, count: 3 },
      // Two attributes: the price of the pair, not of either one.
      { tag: 'AURORA_CHESTPLATE', mods: { attributes: { mana_pool: 1, veteran: 1 } }, median: 100_000, count: 9 },
      // Nothing sold, or no attribute: left out.
      { tag: 'ATTRIBUTE_SHARD', mods: { attributes: { lifeline: 3 } }, median: 0, count: 0 },
      { tag: 'HYPERION', mods: { attributes: {} }, median: 800_000_000, count: 40 },
    ]);
    assert.deepEqual(prices, { mana_pool: { '1': 500_000, '2': 1_200_000 }, veteran: { '5': 8_000_000 } });
    assert.deepEqual(attributePrices([]), {});
  });
});
