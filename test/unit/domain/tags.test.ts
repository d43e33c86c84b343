import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { displayName, isValidTag, itemTagFromExtra, neuIdToTag, normalizeTag, readPetInfo } from '../../../src/domain/tags.ts';
import { neuRepo } from '../../helpers/fixtures.ts';

describe('itemTagFromExtra', () => {
  test('plain items keep their id', () => {
    assert.equal(itemTagFromExtra({ id: 'HYPERION', enchantments: { sharpness: 5 } }), 'HYPERION');
    assert.equal(itemTagFromExtra({ id: 'JUJU_SHORTBOW', runes: { BITE: 3 } }), 'JUJU_SHORTBOW');
    assert.equal(itemTagFromExtra({ id: 'INK_SACK:3' }), 'INK_SACK:3');
  });

  test('no usable id gives null', () => {
    assert.equal(itemTagFromExtra({}), null);
    assert.equal(itemTagFromExtra({ id: '' }), null);
    assert.equal(itemTagFromExtra({ id: 7 }), null);
  });

  test('pets: PET_<TYPE> from the petInfo JSON string or compound', () => {
    assert.equal(itemTagFromExtra({ id: 'PET', petInfo: '{"type":"GOLDEN_DRAGON","tier":"LEGENDARY","exp":0.0}' }), 'PET_GOLDEN_DRAGON');
    assert.equal(itemTagFromExtra({ id: 'PET', petInfo: { type: 'bee', tier: 'EPIC' } }), 'PET_BEE');
    assert.equal(itemTagFromExtra({ id: 'PET', petInfo: '{not json' }), 'PET_UNKNOWN');
    assert.equal(itemTagFromExtra({ id: 'PET' }), 'PET_UNKNOWN');
    assert.equal(itemTagFromExtra({ id: 'PET', petInfo: '{"type":"WOLF"}' }, { type: 'TIGER' }), 'PET_TIGER', 'pre-parsed petInfo wins');
  });

  test('potions: POTION_<TYPE> in upper case when `potion` is set', () => {
    assert.equal(itemTagFromExtra({ id: 'POTION', potion: 'haste', potion_level: 4 }), 'POTION_HASTE');
    assert.equal(itemTagFromExtra({ id: 'POTION', potion: 'mining_xp_boost' }), 'POTION_MINING_XP_BOOST');
    assert.equal(itemTagFromExtra({ id: 'POTION' }), 'POTION');
    assert.equal(itemTagFromExtra({ id: 'GOD_POTION_2', potion: 'x' }), 'GOD_POTION_2');
  });

  test('runes: <id>_<first runes key> for ids ending in RUNE', () => {
    assert.equal(itemTagFromExtra({ id: 'RUNE', runes: { BLOOD_2: 1 } }), 'RUNE_BLOOD_2');
    assert.equal(itemTagFromExtra({ id: 'UNIQUE_RUNE', runes: { GRAND_SEARING: 3 } }), 'UNIQUE_RUNE_GRAND_SEARING');
    assert.equal(itemTagFromExtra({ id: 'RUNE', runes: { snake: 2 } }), 'RUNE_SNAKE');
    assert.equal(itemTagFromExtra({ id: 'RUNE' }), 'RUNE');
    assert.equal(itemTagFromExtra({ id: 'RUNE', runes: {} }), 'RUNE');
  });

  test('abiphone cases: ABICASE_<model>', () => {
    assert.equal(itemTagFromExtra({ id: 'ABICASE', model: 'SUMSUNG_1' }), 'ABICASE_SUMSUNG_1');
    assert.equal(itemTagFromExtra({ id: 'ABICASE' }), 'ABICASE');
  });

  test('enchanted books: ENCHANTMENT_<NAME>_<LEVEL> only with exactly one enchantment', () => {
    assert.equal(itemTagFromExtra({ id: 'ENCHANTED_BOOK', enchantments: { ultimate_wise: 5 } }), 'ENCHANTMENT_ULTIMATE_WISE_5');
    assert.equal(itemTagFromExtra({ id: 'ENCHANTED_BOOK', enchantments: { smite: 6, growth: 5 } }), 'ENCHANTED_BOOK');
    assert.equal(itemTagFromExtra({ id: 'ENCHANTED_BOOK', enchantments: {} }), 'ENCHANTED_BOOK');
    assert.equal(itemTagFromExtra({ id: 'ENCHANTED_BOOK' }), 'ENCHANTED_BOOK');
    assert.equal(itemTagFromExtra({ id: 'ENCHANTED_BOOK', enchantments: { smite: 'six' } }), 'ENCHANTED_BOOK');
  });
});

describe('tag validation and normalisation', () => {
  test('isValidTag', () => {
    for (const ok of ['HYPERION', 'PET_BEE', 'INK_SACK:3', 'BEE;4', 'PET-SKIN', 'a', 'X'.repeat(64)]) {
      assert.equal(isValidTag(ok), true, ok);
    }
    for (const bad of ['', 'X'.repeat(65), 'BAD ID', '../etc/passwd', 'PET/BEE', 'ÄPFEL', 'A\n', 'a.b', 5, null, undefined]) {
      assert.equal(isValidTag(bad), false, String(bad));
    }
  });

  test('normalizeTag makes request tags match case-insensitively', () => {
    assert.equal(normalizeTag('POTION_haste'), 'POTION_HASTE');
    assert.equal(normalizeTag('pet_bee'), normalizeTag('PET_BEE'));
    assert.equal(normalizeTag('ENCHANTMENT_ULTIMATE_WISE_5'), 'ENCHANTMENT_ULTIMATE_WISE_5');
  });

  test('readPetInfo', () => {
    assert.deepEqual(readPetInfo('{"type":"BEE","exp":1.5}'), { type: 'BEE', exp: 1.5 });
    assert.deepEqual(readPetInfo({ type: 'BEE' }), { type: 'BEE' });
    assert.equal(readPetInfo('[1,2]'), null);
    assert.equal(readPetInfo('"str"'), null);
    assert.equal(readPetInfo('{'), null);
    assert.equal(readPetInfo(undefined), null);
  });
});

describe('neuIdToTag', () => {
  test('documented mapping', () => {
    assert.equal(neuIdToTag('ULTIMATE_WISE;5'), 'ENCHANTMENT_ULTIMATE_WISE_5');
    assert.equal(neuIdToTag('SHARPNESS;5', 'minecraft:enchanted_book'), 'ENCHANTMENT_SHARPNESS_5');
    assert.equal(neuIdToTag('BEE;4', 'minecraft:skull'), 'PET_BEE');
    assert.equal(neuIdToTag('BLOOD_2_RUNE;1', 'minecraft:skull'), 'RUNE_BLOOD_2');
    assert.equal(neuIdToTag('POTION_SPEED;5', 'minecraft:potion'), 'POTION_SPEED');
    assert.equal(neuIdToTag('ATTRIBUTE_SHARD_BREEZE;1', 'minecraft:skull'), 'ATTRIBUTE_SHARD_BREEZE');
    assert.equal(neuIdToTag('INK_SACK-4'), 'INK_SACK');
    assert.equal(neuIdToTag('PET_SKIN_RAT_RAT-STRONAUT'), 'PET_SKIN_RAT_RAT-STRONAUT', 'only numeric damage suffixes are cut');
    assert.equal(neuIdToTag('HYPERION'), 'HYPERION');
  });

  test('agrees with itemTagFromExtra on the NEU repository items', () => {
    const items = join(neuRepo(), 'items');
    const counts = { pets: 0, books: 0, runes: 0, potions: 0 };
    for (const file of readdirSync(items)) {
      if (!file.endsWith('.json')) continue;
      const item = JSON.parse(readFileSync(join(items, file), 'utf8')) as { internalname: string; itemid: string; nbttag: string };
      const tag = neuIdToTag(item.internalname, item.itemid);
      assert.ok(isValidTag(tag), `${item.internalname} → ${tag}`);
      if (!item.internalname.includes(';')) continue;
      // Rebuild the relevant ExtraAttributes from NEU's SNBT and derive the tag the auction way.
      const snbt = item.nbttag;
      const petType = /petInfo:"\{\\"type\\":\\"([A-Z0-9_]+)\\"/.exec(snbt)?.[1];
      const rune = /runes:\{([A-Z0-9_]+):\d+\}/.exec(snbt)?.[1];
      const enchant = /enchantments:\{([a-z0-9_]+):(\d+)\}/.exec(snbt);
      const potion = /potion:"([a-z0-9_]+)"/.exec(snbt)?.[1];
      let expected: string | null = null;
      if (item.itemid === 'minecraft:skull' && petType) {
        expected = itemTagFromExtra({ id: 'PET', petInfo: `{"type":"${petType}"}` });
        counts.pets++;
      } else if (rune && item.internalname.endsWith(`${rune}_RUNE;${item.internalname.split(';')[1]}`)) {
        expected = itemTagFromExtra({ id: 'RUNE', runes: { [rune]: 1 } });
        counts.runes++;
      } else if (item.itemid === 'minecraft:enchanted_book' && enchant) {
        expected = itemTagFromExtra({ id: 'ENCHANTED_BOOK', enchantments: { [enchant[1]!]: Number(enchant[2]) } });
        counts.books++;
      } else if (item.itemid === 'minecraft:potion' && potion && !item.internalname.startsWith('POTION_DUNGEON;')) {
        // Known divergence: dungeon potions carry `potion: "regeneration"`, so
        // auctions tag them POTION_REGENERATION while NEU calls them POTION_DUNGEON.
        expected = itemTagFromExtra({ id: 'POTION', potion });
        counts.potions++;
      }
      if (expected !== null) assert.equal(tag, expected, item.internalname);
    }
    assert.ok(counts.pets > 300 && counts.books > 700 && counts.runes > 100 && counts.potions > 100, JSON.stringify(counts));
  });
});

describe('flip engine helpers', () => {
  test('names products the items resource lacks', () => {
    assert.equal(displayName('ENCHANTMENT_ULTIMATE_WISE_5'), 'Wise V');
    assert.equal(displayName('ENCHANTMENT_SHARPNESS_6'), 'Sharpness VI');
    assert.equal(displayName('SHARD_SEA_SERPENT'), 'Shard Sea Serpent');
  });
});
