/**
 * What networth reads of a profile (domain/valuation/networth.ts): the containers of both upstream
 * layouts, backpacks and bags, pets, purse and bank; bounds; malformed parts skipped; the trimmed
 * copy reading back the same; per-category totals adding up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bankOfProfile, holdingsOfMember, MAX_BACKPACKS, MAX_MEMBER_INVENTORY_CHARS, memberNetworth, trimMemberHoldings } from '../../../../src/domain/valuation/networth.ts';

const elem = (data: string) => ({ type: 0, data });

describe('networth holdings', () => {
  const member = {
    inventory: {
      inv_contents: elem('INV'),
      inv_armor: elem('ARMOR'),
      wardrobe_contents: elem('WARDROBE'),
      ender_chest_contents: { type: 0 },
      bag_contents: { talisman_bag: elem('TAL'), quiver: elem('Q') },
      backpack_contents: { '10': elem('B10'), '2': elem('B2') },
    },
    pets_data: { pets: [{ type: 'BEE', tier: 'RARE', exp: 10, active: false, uuid: 'x' }] },
    currencies: { coin_purse: 1234.5 },
  };

  it('reads the v2 layout: every container with its category, backpacks in order, pets and purse', () => {
    const h = holdingsOfMember(member);
    assert.deepEqual(
      h.inventories.map((i) => [i.name, i.category, i.data]),
      [
        ['inventory', 'inventory', 'INV'],
        ['armor', 'armor', 'ARMOR'],
        ['wardrobe', 'wardrobe', 'WARDROBE'],
        ['ender_chest', 'ender_chest', null],
        ['accessories', 'accessories', 'TAL'],
        ['quiver', 'quiver', 'Q'],
        ['backpack_2', 'backpacks', 'B2'],
        ['backpack_10', 'backpacks', 'B10'],
      ],
    );
    assert.equal(h.pets.length, 1);
    assert.equal(h.purse, 1234.5);
  });

  it('reads the older flat layout (containers and purse on the member)', () => {
    const h = holdingsOfMember({ inv_contents: elem('OLD'), talisman_bag: elem('T'), coin_purse: 7, pets: [{ type: 'BEE' }] });
    assert.deepEqual(h.inventories.map((i) => i.name), ['inventory', 'accessories']);
    assert.equal(h.purse, 7);
    assert.equal(h.pets.length, 1);
  });

  it('bounds what is read and never throws on malformed input', () => {
    const big = holdingsOfMember({ inventory: { inv_contents: elem('x'.repeat(MAX_MEMBER_INVENTORY_CHARS)), inv_armor: elem('y') } });
    assert.deepEqual(big.inventories.map((i) => i.name), ['inventory']);
    assert.equal(big.skipped, 1, 'the container past the budget is counted, not read');
    const many = holdingsOfMember({ inventory: { backpack_contents: Object.fromEntries(Array.from({ length: MAX_BACKPACKS + 5 }, (_, i) => [String(i), elem('b')])) } });
    assert.equal(many.inventories.length, MAX_BACKPACKS);
    assert.equal(many.skipped, 5);
    for (const junk of [null, 5, 'x', [], { inventory: 3, currencies: { coin_purse: -1 } }, { inventory: { inv_contents: { data: 3 } }, pets_data: { pets: 'no' } }]) {
      const h = holdingsOfMember(junk);
      assert.equal(h.purse, 0);
      assert.ok(h.inventories.every((i) => i.data === null));
    }
    const nested = holdingsOfMember({ pets_data: { pets: [{ type: 'BEE', exp: { a: [[[1]]] }, tier: 'RARE' }, 'x'] } });
    assert.deepEqual(nested.pets, [{ type: 'BEE', tier: 'RARE' }, null], 'only scalar pet fields are kept');
    assert.equal(bankOfProfile({ banking: { balance: 5e6 } }), 5e6);
    assert.equal(bankOfProfile({ banking: { balance: Number.NaN } }), 0);
    assert.equal(bankOfProfile(null), 0);
  });

  it('the trimmed copy reads back the same holdings, pets reduced to the valued fields', () => {
    const trimmed = trimMemberHoldings(member);
    const again = holdingsOfMember(trimmed);
    const before = holdingsOfMember(member);
    assert.deepEqual(again.inventories, before.inventories);
    assert.equal(again.purse, before.purse);
    assert.deepEqual(again.pets, [{ type: 'BEE', tier: 'RARE', exp: 10 }]);
  });

  it('a member total is the sum of its rounded categories', () => {
    const m = memberNetworth(new Map([['inventory', 10.4], ['pets', 0.6], ['purse', 100]]));
    assert.deepEqual(m.valuePerCategory, { inventory: 10, pets: 1, purse: 100 });
    assert.equal(m.fullValue, 111);
  });
});
