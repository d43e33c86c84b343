/**
 * The part cost tables (gamedata/part-costs.ts): reforge stones and gemstone slot unlock costs read
 * from the NEU repository's constants, the built-in catalog's stones, and malformed input skipped
 * and counted, never thrown on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gemstoneSlotCostsFromNeu, partCostTablesFromNeu, reforgeModifier, reforgeStonesFromNeu } from '../../../src/gamedata/part-costs.ts';
import { builtinUpgradeCosts, loadUpgradeCosts } from '../../../src/gamedata/upgrades.ts';
import { neuConstant, neuRepo } from '../../helpers/fixtures.ts';

describe('part cost tables from the real NEU repository', () => {
  const tables = partCostTablesFromNeu(neuConstant('reforgestones.json'), neuConstant('gemstonecosts.json'));

  it('reads every reforge stone by the modifier items store', () => {
    assert.deepEqual(tables.skipped, { reforgeStones: 0, gemstoneSlots: 0 });
    let stones = 0;
    for (const list of tables.reforgeStones.values()) stones += list.length;
    assert.equal(stones, 84);
    const withered = tables.reforgeStones.get('withered');
    assert.equal(withered?.length, 1);
    assert.equal(withered![0]!.stone, 'WITHER_BLOOD');
    assert.deepEqual(withered![0]!.itemTypes, ['SWORD']);
    assert.equal(withered![0]!.applyCoins.LEGENDARY, 50_000);
    assert.equal(tables.reforgeStones.get('fabled')![0]!.stone, 'DRAGON_CLAW');
    // A stone for named items, and a type list split on '/'.
    const boo = [...tables.reforgeStones.values()].flat().find((s) => s.stone === 'BOO_STONE')!;
    assert.ok(boo.items?.includes('GREAT_SPOOK_HELMET') && boo.itemTypes === null);
    assert.ok([...tables.reforgeStones.values()].flat().some((s) => s.itemTypes?.length === 2 && s.itemTypes.includes('ROD')));
    // …and one for vanilla materials.
    assert.deepEqual(tables.reforgeStones.get('fanged')![0]!.materials, ['minecraft:iron_sword']);
  });

  it('reads every gemstone slot unlock: items by amount and coins apart', () => {
    assert.equal(tables.gemstoneSlots.size, 499);
    assert.deepEqual(tables.gemstoneSlots.get('ABYSSAL_BOOTS')?.get('AQUAMARINE_0'), { items: { FINE_AQUAMARINE_GEM: 40 }, coins: 250_000 });
    assert.deepEqual(tables.gemstoneSlots.get('HYPERION')?.get('COMBAT_0'), {
      items: { FLAWLESS_JASPER_GEM: 1, FLAWLESS_SAPPHIRE_GEM: 1, FLAWLESS_RUBY_GEM: 1, FLAWLESS_AMETHYST_GEM: 1 },
      coins: 250_000,
    });
  });

  it('loadUpgradeCosts hands them with the star costs from a NEU checkout; the built-in catalog has its stones only', () => {
    const neu = loadUpgradeCosts({ gameDataDir: neuRepo(), dataDir: '/nonexistent' });
    assert.equal(neu.source, 'neu');
    assert.equal(neu.parts.reforgeStones.get('withered')![0]!.stone, 'WITHER_BLOOD');
    assert.equal(neu.parts.gemstoneSlots.size, 499);
    const builtin = builtinUpgradeCosts();
    assert.deepEqual([...builtin.parts.reforgeStones.keys()].sort(), ['chomp', 'fruitful', 'withered']);
    assert.equal(builtin.parts.gemstoneSlots.size, 0);
    assert.deepEqual(builtin.parts.skipped, { reforgeStones: 0, gemstoneSlots: 0 });
  });
});

describe('part cost tables from malformed JSON', () => {
  it('skips and counts malformed stones, never throws', () => {
    const { stones, skipped } = reforgeStonesFromNeu({
      GOOD: { internalName: 'GOOD', reforgeName: 'Good', itemTypes: 'SWORD', reforgeCosts: { COMMON: 5, RARE: 'lots', EPIC: -1, LEGENDARY: Number.NaN } },
      NO_NAME: { itemTypes: 'SWORD' },
      NAME_NOT_STRING: { reforgeName: 42, itemTypes: 'SWORD' },
      NO_TYPES: { reforgeName: 'Typeless' },
      BAD_ITEMS: { reforgeName: 'Listless', itemTypes: { internalName: [1, 2] } },
      EMPTY_NAME: { reforgeName: "'", itemTypes: 'BOW' },
      NULL: null,
      ARRAY: [1, 2],
      KEYED: { reforgeName: 'Keyed', itemTypes: 'AXE' },
    });
    assert.equal(skipped, 7);
    assert.deepEqual([...stones.keys()].sort(), ['good', 'keyed']);
    assert.deepEqual(stones.get('good')![0]!.applyCoins, { COMMON: 5 });
    assert.equal(stones.get('keyed')![0]!.stone, 'KEYED', 'no internalName: the key');
    for (const bad of [null, 42, 'text', [1, 2]]) assert.deepEqual(reforgeStonesFromNeu(bad), { stones: new Map(), skipped: 1 });
    assert.deepEqual(reforgeStonesFromNeu(undefined), { stones: new Map(), skipped: 0 }, 'an absent file is no malformed entry');
  });

  it('skips and counts malformed slots, keeps the item’s good ones', () => {
    const { slots, skipped } = gemstoneSlotCostsFromNeu({
      ITEM: {
        JADE_0: ['FINE_JADE_GEM:40', 'SKYBLOCK_COIN:250000'],
        JADE_1: ['FINE_JADE_GEM:abc'],
        JADE_2: 'FINE_JADE_GEM:40',
        JADE_3: [40],
        JADE_4: ['FINE_JADE_GEM:-3'],
        JADE_5: ['FINE_JADE_GEM:1e300'],
        JADE_6: [':5'],
        COMBAT_0: ['GEMSTONE_CHAMBER'],
      },
      NOT_AN_OBJECT: ['x'],
      ALL_BAD: { AMBER_0: null },
    });
    assert.equal(skipped, 8);
    assert.deepEqual([...slots.keys()], ['ITEM']);
    assert.deepEqual([...slots.get('ITEM')!.keys()], ['JADE_0', 'COMBAT_0']);
    assert.deepEqual(slots.get('ITEM')!.get('COMBAT_0'), { items: { GEMSTONE_CHAMBER: 1 }, coins: 0 });
    assert.deepEqual(gemstoneSlotCostsFromNeu('nope'), { slots: new Map(), skipped: 1 });
  });

  it('writes reforge names as items store them', () => {
    assert.equal(reforgeModifier('Withered'), 'withered');
    assert.equal(reforgeModifier("Jerry's"), 'jerrys');
    assert.equal(reforgeModifier(' To Market '), 'to_market');
  });
});
