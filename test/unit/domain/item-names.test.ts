/** Item names, aliases and the catalog merge (domain/item-names.ts, domain/item-catalog.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activityScore, buildCatalog, itemFlagsText, ITEM_FLAGS } from '../../../src/domain/item-catalog.ts';
import { aliasKey, catalogName, initials, isCreatureEntry, neuIdCandidates, splitRarity } from '../../../src/domain/item-names.ts';
import { itemIconSvg } from '../../../src/domain/item-icon.ts';
import type { GameData, GameItem } from '../../../src/gamedata/types.ts';
import { DESCRIBED_FILTERS, FILTER_TYPE, filterOptions, filterTypeText } from '../../../src/domain/filter-options.ts';
import { FILTER_NAMES, type FilterSubject } from '../../../src/domain/filters.ts';

describe('item names', () => {
  it('names books after their enchantment and drops NEU templates and glyphs', () => {
    assert.equal(catalogName('ENCHANTMENT_ULTIMATE_WISE_5', 'Enchanted Book'), 'Ultimate Wise V');
    assert.equal(catalogName('ENCHANTMENT_SHARPNESS_7', null), 'Sharpness VII');
    assert.equal(catalogName('ENCHANTMENT_TURBO_WHEAT_12', null), 'Turbo Wheat 12');
    assert.equal(catalogName('PET_ENDER_DRAGON', '§7[Lvl {LVL}] §6Ender Dragon'), 'Ender Dragon');
    assert.equal(catalogName('RUNE_BLOOD_2', '◆ Blood Rune I'), 'Blood Rune I');
    assert.equal(catalogName('INK_SACK:4', null), 'Ink Sack 4');
    assert.equal(catalogName('HYPERION', '§6Hyperion  '), 'Hyperion');
  });

  it('looks aliases up without formatting, case or extra spaces', () => {
    assert.equal(aliasKey('§6Aspect  of the End '), 'aspect of the end');
    assert.equal(aliasKey('HYPERION'), 'hyperion');
  });

  it('reads a NEU id as every tag it may stand for', () => {
    assert.deepEqual(neuIdCandidates('ENDER_DRAGON;4'), ['ENCHANTMENT_ENDER_DRAGON_4', 'PET_ENDER_DRAGON', 'ENDER_DRAGON']);
    assert.ok(neuIdCandidates('WISDOM_RUNE;3').includes('RUNE_WISDOM'));
    assert.ok(neuIdCandidates('POTION_SPEED;2').includes('POTION_SPEED'));
    assert.deepEqual(neuIdCandidates('INK_SACK-4'), ['INK_SACK:4', 'INK_SACK', 'INK_SACK-4']);
    assert.deepEqual(neuIdCandidates('hyperion'), ['HYPERION']);
  });

  it('takes a rarity out of a search, unless it is all there is', () => {
    assert.deepEqual(splitRarity('ender dragon Legendary'), { text: 'ender dragon', tier: 'LEGENDARY' });
    assert.deepEqual(splitRarity('legendary'), { text: 'legendary', tier: null });
    assert.deepEqual(splitRarity('hyperion'), { text: 'hyperion', tier: null });
  });

  it('initials and creatures', () => {
    assert.equal(initials('Aspect of the Dragons'), 'aotd');
    assert.equal(initials('Farmer-Boots 2'), 'fb2');
    assert.equal(isCreatureEntry('Jerry (NPC)'), true);
    assert.equal(isCreatureEntry('Sven Packmaster (Boss)'), true);
    assert.equal(isCreatureEntry('Bat Piñata'), false);
  });

  it('draws an icon in the rarity colour, with the name escaped', () => {
    const svg = itemIconSvg('Rock & <Roll>', 'EPIC');
    assert.match(svg, /#AA00AA/);
    assert.match(svg, /<title>Rock &#38; &#60;Roll&#62;<\/title>/);
    assert.match(svg, />R</, 'initials of words that start with a letter or digit');
    assert.match(itemIconSvg('Aspect of the Dragons', 'LEGENDARY'), />AOT</);
    assert.match(itemIconSvg('X', null), /#AAAAAA/);
  });
});

describe('the catalog merge', () => {
  const item = (tag: string, name: string, tier: string | null = 'RARE'): GameItem => ({ tag, sourceId: tag, name, tier, material: 'minecraft:stone', requirements: [] });
  const game = {
    source: { kind: 'directory', path: '/x', version: null },
    items: new Map([
      ['HYPERION', item('HYPERION', 'Hyperion', 'LEGENDARY')],
      ['JERRY_NPC', item('JERRY_NPC', 'Jerry (NPC)', null)],
      ['ENCHANTED_DIAMOND', item('ENCHANTED_DIAMOND', 'Enchanted Diamond')],
    ]),
    recipes: new Map([['HYPERION', [{ type: 'crafting', output: 'HYPERION', count: 1, inputs: [], currencies: [] }]]]),
    bazaarIds: new Map([['INK_SACK:4', 'INK_SACK:4']]),
  } as unknown as GameData;

  it('merges game data, the items resource and the market, with flags from what trades', () => {
    const entries = buildCatalog(game, [{ tag: 'HYPERION', name: 'Hyperion', tier: 'LEGENDARY', category: 'SWORD', npcSellPrice: 100 }], {
      active: new Map([['HYPERION', 3], ['NEW_THING', 1]]),
      sales7d: new Map([['OLD_THING', 14]]),
      bazaar: [{ productId: 'ENCHANTED_DIAMOND', buyMovingWeek: 10, sellMovingWeek: 5 }],
    });
    const byTag = new Map(entries.map((e) => [e.tag, e]));
    assert.deepEqual([...byTag.keys()], ['ENCHANTED_DIAMOND', 'HYPERION', 'NEW_THING', 'OLD_THING']);
    assert.equal(itemFlagsText(byTag.get('HYPERION')!.flags), 'TRADEABLE, AUCTION, CRAFT');
    assert.equal(byTag.get('HYPERION')!.category, 'SWORD');
    assert.equal(byTag.get('HYPERION')!.material, 'STONE');
    assert.equal(itemFlagsText(byTag.get('ENCHANTED_DIAMOND')!.flags), 'BAZAAR, TRADEABLE');
    assert.equal(byTag.get('ENCHANTED_DIAMOND')!.bazaarWeekVolume, 15);
    assert.equal(byTag.get('OLD_THING')!.salesPerDay, 2);
    assert.equal(byTag.get('NEW_THING')!.name, 'New Thing');
    assert.equal(itemFlagsText(0), 'NONE');
    assert.equal(itemFlagsText(ITEM_FLAGS.CRAFT | ITEM_FLAGS.BAZAAR), 'BAZAAR, CRAFT');
  });

  it('scores activity on a log scale', () => {
    assert.equal(activityScore({ activeListings: 0, salesPerDay: 0, bazaarWeekVolume: 0 }), 0);
    assert.ok(activityScore({ activeListings: 99, salesPerDay: 0, bazaarWeekVolume: 0 }) > activityScore({ activeListings: 9, salesPerDay: 0, bazaarWeekVolume: 0 }));
  });
});

describe('filter options', () => {
  it('describes every fixed filter of the engine', () => {
    assert.deepEqual([...DESCRIBED_FILTERS].sort(), [...FILTER_NAMES].sort());
  });

  it('offers what the listings show, and leaves out what cannot apply', () => {
    const base = { tag: 'HYPERION', itemName: 'Hyperion', tier: 'LEGENDARY', reforge: 'Heroic', bin: true, startingBid: 1, highestBid: 0, count: 1, seller: 'a', start: 0, end: 1, itemCreatedAt: 0, itemUid: null, sold: false };
    const listings: FilterSubject[] = [
      { ...base, enchantments: { sharpness: 5, critical: 6 }, flatNbt: { upgrade_level: '5' } },
      { ...base, tier: 'MYTHIC', reforge: null, enchantments: { sharpness: 7 }, flatNbt: { hot_potato_count: '10' } },
    ];
    const options = new Map(filterOptions(listings, false).map((o) => [o.name, o]));
    assert.deepEqual(options.get('Rarity')!.options, ['LEGENDARY', 'MYTHIC']);
    assert.deepEqual(options.get('Reforge')!.options, ['Any', 'None', 'Heroic']);
    assert.deepEqual(options.get('Stars'), { name: 'Stars', options: ['5'], type: 48, longType: 'NUMERICAL, RANGE', description: 'dungeon stars (upgrade level)' });
    assert.deepEqual(options.get('sharpness')!.options, ['5', '7']);
    assert.ok(options.has('HotPotatoCount'));
    assert.ok(!options.has('PetLevel') && !options.has('Count'));
    assert.equal(options.get('Bin')!.longType, 'BOOLEAN');
    const pet = new Map(filterOptions([{ ...base, tag: 'PET_BEE', enchantments: {}, flatNbt: { 'petInfo.heldItem': 'PET_ITEM_TIER_BOOST' } }], true).map((o) => [o.name, o]));
    assert.deepEqual(pet.get('PetItem')!.options, ['PET_ITEM_TIER_BOOST']);
    assert.equal(pet.get('PetItem')!.longType, 'Equal, SHOW_ICON', 'item tags: the established front end shows their icons');
    assert.equal(filterTypeText(FILTER_TYPE.DATE | FILTER_TYPE.NUMERICAL), 'DATE, NUMERICAL');
    // The established front end's bit meanings: 64 is a player picker, free text is Equal, RANGE (a text box).
    assert.equal(FILTER_TYPE.PLAYER, 64);
    assert.equal(FILTER_TYPE.SHOW_ICON, 1024);
    const all = new Map(filterOptions([], false, true).map((o) => [o.name, o]));
    assert.deepEqual([all.get('Seller')!.type, all.get('Seller')!.longType], [64, 'PLAYER']);
    assert.deepEqual([all.get('ItemNameContains')!.type, all.get('ItemNameContains')!.longType], [33, 'Equal, RANGE']);
    assert.ok([...all.values()].every((o) => (o.type & FILTER_TYPE.PLAYER) === 0 || o.name === 'Seller'), 'only player filters ask for a player picker');
    assert.equal(filterOptions([], false, true).length, FILTER_NAMES.length);
  });
});
