/** Forge flips over hand-made recipes and books, numbers checked by hand. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mapPriceSource, type BazaarQuote } from '../../../../src/domain/craft/prices.ts';
import { craftProfits } from '../../../../src/domain/craft/profit.ts';
import { forgeFlips, forgeableAt } from '../../../../src/domain/flips/forge.ts';
import type { GameItem } from '../../../../src/gamedata/types.ts';
import { craft, game, quote } from '../../../helpers/craft.ts';

const books = (...quotes: BazaarQuote[]) => new Map(quotes.map((q) => [q.productId, q]));
const REFINED = craft('REFINED_X', { X: 160 }, 1, { type: 'forge', durationSeconds: 7200, currencies: [{ currency: 'coins', amount: 1000 }] });
const SUPER = craft('SUPER_X', { REFINED_X: 2 }, 1, { type: 'forge', durationSeconds: 3600 });
const TABLE = craft('ENCHANTED_X', { X: 160 });

function data() {
  const g = game([REFINED, SUPER, TABLE]);
  const items = g.items as Map<string, GameItem>;
  items.set('REFINED_X', {
    ...items.get('REFINED_X')!,
    requirements: [
      { kind: 'collection', name: 'Mithril', level: 10 },
      { kind: 'skill', name: 'HotM', level: 3 },
    ],
  });
  return g;
}

describe('forge flips', () => {
  const prices = mapPriceSource(books(quote('X', [[1, 100_000]]), quote('REFINED_X', [[2000, 100]]), quote('SUPER_X', [[10_000, 100]]), quote('ENCHANTED_X', [[400, 100]])));

  test('the forge entries of the craft list, per hour of forge time, best first', () => {
    const g = data();
    const flips = forgeFlips(craftProfits(g, prices), g);
    assert.deepEqual(flips.map((f) => f.craftData.itemId), ['SUPER_X', 'REFINED_X'], 'crafting-table recipes are not forge flips');
    const [superX, refined] = flips;
    // REFINED_X: 160 X at 1 + 1,000 coins = 1,160; sold at 2,000 − 0.1 after 1.25 %: 1,999.9 × 0.9875 = 1,974.90.
    assert.equal(refined!.craftData.craftCost, 1160);
    assert.equal(refined!.craftData.profit, 814.9);
    assert.equal(refined!.duration, 7200);
    assert.equal(refined!.ingredientForgeSeconds, 0);
    assert.equal(refined!.profitPerHour, 407.45, '814.90 over 2 h');
    assert.equal(refined!.requiredHotMLevel, 3);
    assert.deepEqual(refined!.requirements, { Mithril: 10 });
    // SUPER_X: two REFINED_X forged (2 × 1,160 = 2,320, cheaper than 2 × 2,000 bought); 9,999.9 × 0.9875 − 2,320 = 7,554.90,
    // over its own hour plus the 2 h the refined ones take.
    assert.equal(superX!.craftData.craftCost, 2320);
    assert.equal(superX!.craftData.profit, 7554.9);
    assert.equal(superX!.duration, 3600);
    assert.equal(superX!.ingredientForgeSeconds, 7200);
    assert.equal(superX!.profitPerHour, 2518.3);
    assert.equal(superX!.requiredHotMLevel, 0);
    assert.equal(superX!.requirements, null);
  });

  test('unprofitable forges and forges without a time are left out; HotM filter', () => {
    const g = data();
    const cheap = mapPriceSource(books(quote('X', [[1, 100_000]]), quote('REFINED_X', [[1100, 100]]), quote('SUPER_X', [[2000, 100]])));
    assert.deepEqual(forgeFlips(craftProfits(g, cheap), g), [], '1,099.9 × 0.9875 < 1,160; SUPER_X at 1,999.9 × 0.9875 < 2,200 bought');
    const untimed = game([craft('REFINED_X', { X: 160 }, 1, { type: 'forge' })]);
    assert.deepEqual(forgeFlips(craftProfits(untimed, prices), untimed), []);
    const flips = forgeFlips(craftProfits(g, prices), g);
    assert.deepEqual(forgeableAt(flips, 2).map((f) => f.craftData.itemId), ['SUPER_X']);
    assert.equal(forgeableAt(flips, 3).length, 2);
  });
});
