import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compileFilters,
  compileFiltersResolving,
  FilterError,
  sellerNamesIn,
  UNSUPPORTED_FILTERS,
  filtersFromQuery,
  numberCondition,
  parseFilterNumber,
  type FilterSubject,
} from '../../../src/domain/filters.ts';

function subject(over: Partial<FilterSubject> = {}): FilterSubject {
  return {
    tag: 'HYPERION',
    itemName: '✪✪ Heroic Hyperion',
    tier: 'LEGENDARY',
    reforge: 'heroic',
    bin: true,
    startingBid: 900_000_000,
    highestBid: 0,
    count: 1,
    seller: '0123456789abcdef0123456789abcdef',
    start: Date.UTC(2026, 10, 22, 10),
    end: Date.UTC(2026, 10, 23, 10),
    itemCreatedAt: Date.UTC(2022, 0, 1),
    itemUid: 'aabbccddeeff',
    enchantments: { sharpness: 6, ultimate_wise: 5, critical: 6 },
    flatNbt: {
      upgrade_level: '2',
      hot_potato_count: '15',
      rarity_upgrades: '1',
      'attributes.mana_pool': '3',
      'runes.MUSIC': '2',
      'gems.SAPPHIRE_0': 'PERFECT',
      'gems.COMBAT_0': 'FLAWLESS',
      'gems.COMBAT_0_gem': 'JASPER',
      'gems.unlocked_slots': 'COMBAT_0,SAPPHIRE_0',
      ability_scroll: 'IMPLOSION_SCROLL,WITHER_SHIELD_SCROLL',
    },
    sold: false,
    ...over,
  };
}

const pet = subject({
  tag: 'PET_ENDER_DRAGON',
  itemName: '[Lvl 100] Ender Dragon',
  tier: 'LEGENDARY',
  reforge: null,
  enchantments: {},
  flatNbt: {
    'petInfo.type': 'ENDER_DRAGON',
    'petInfo.tier': 'LEGENDARY',
    'petInfo.exp': '30000000',
    'petInfo.heldItem': 'PET_ITEM_TIER_BOOST',
    'petInfo.candyUsed': '0',
    'petInfo.skin': 'DRAGON_NEON_RED',
  },
});

function matches(filters: Record<string, string>, s: FilterSubject = subject()): boolean {
  return compileFilters(filters).test(s);
}

function rejects(filters: Record<string, string>, filter: string, slug?: string) {
  assert.throws(
    () => compileFilters(filters),
    (err: unknown) => err instanceof FilterError && err.filter === filter && (slug === undefined || err.slug === slug) && err.message.includes(filter),
  );
}

describe('number syntax', () => {
  test('numbers with suffixes and separators', () => {
    assert.equal(parseFilterNumber('5'), 5);
    assert.equal(parseFilterNumber('2.5k'), 2500);
    assert.equal(parseFilterNumber('3M'), 3_000_000);
    assert.equal(parseFilterNumber('1b'), 1e9);
    assert.equal(parseFilterNumber('1,000,000'), 1e6);
    assert.ok(Number.isNaN(parseFilterNumber('abc')));
    assert.ok(Number.isNaN(parseFilterNumber('')));
  });

  test('exact, ranges, comparisons, any, none and alternatives', () => {
    const cases: Array<[string, number, boolean]> = [
      ['5', 5, true],
      ['5', 4, false],
      ['1-5', 1, true],
      ['1-5', 5, true],
      ['1-5', 6, false],
      ['>5', 6, true],
      ['>5', 5, false],
      ['<5', 4, true],
      ['<5', 5, false],
      ['>=5', 5, true],
      ['<=5', 5, true],
      ['5-', 6, true],
      ['5-', 5, false],
      ['any', 1, true],
      ['any', 0, false],
      ['none', 0, true],
      ['none', 1, false],
      ['1|3|5', 3, true],
      ['1|3|5', 4, false],
      ['1-2|>9', 10, true],
      ['1m-2m', 1_500_000, true],
    ];
    for (const [value, n, expected] of cases) assert.equal(numberCondition('X', value)(n), expected, `${value} on ${n}`);
  });

  test('malformed numbers name the filter', () => {
    for (const bad of ['abc', '5-3', '>', '1-2-3', '1||2', Array.from({ length: 21 }, (_, i) => String(i)).join('|')]) {
      assert.throws(() => numberCondition('Stars', bad), (e: unknown) => e instanceof FilterError && e.filter === 'Stars', bad);
    }
  });
});

describe('compileFilters', () => {
  test('no filters match everything; t and empty values are ignored', () => {
    assert.ok(matches({}));
    assert.ok(matches({ t: 'whatever', Rarity: '' }));
    assert.deepEqual(compileFilters({ t: '1' }).names, []);
  });

  test('keys are case-insensitive', () => {
    assert.ok(matches({ rarity: 'legendary' }));
    assert.ok(matches({ RARITY: 'LEGENDARY' }));
    assert.ok(!matches({ Rarity: 'EPIC' }));
    assert.ok(matches({ Rarity: 'EPIC|LEGENDARY' }));
    assert.ok(matches({ Rarity: 'any' }));
  });

  test('rarity and reforge', () => {
    rejects({ Rarity: 'SUPER_RARE' }, 'Rarity', 'invalid_rarity');
    assert.ok(matches({ Reforge: 'Heroic' }));
    assert.ok(matches({ Reforge: 'Any' }));
    assert.ok(!matches({ Reforge: 'None' }));
    assert.ok(matches({ Reforge: 'None' }, pet));
    assert.ok(!matches({ Reforge: 'Spiritual' }));
    rejects({ Reforge: 'drop table' }, 'Reforge');
  });

  test('bin, prices, count and dates', () => {
    assert.ok(matches({ Bin: 'true' }));
    assert.ok(!matches({ Bin: 'false' }));
    assert.ok(matches({ StartingBid: '>800m' }));
    assert.ok(!matches({ StartingBid: '<800m' }));
    assert.ok(matches({ HighestBid: 'none' }));
    assert.ok(matches({ Count: '1' }));
    assert.ok(matches({ PricePerUnit: '900m' }));
    const endSeconds = Date.UTC(2026, 10, 23, 10) / 1000;
    assert.ok(matches({ EndBefore: String(endSeconds + 1) }));
    assert.ok(!matches({ EndBefore: String(endSeconds) }));
    assert.ok(matches({ EndAfter: String(endSeconds - 1) }));
    assert.ok(matches({ ItemCreatedBefore: String(Date.UTC(2023, 0, 1) / 1000) }));
    assert.ok(!matches({ ItemCreatedAfter: String(Date.UTC(2023, 0, 1) / 1000) }));
    assert.ok(!matches({ ItemCreatedAfter: '0' }, subject({ itemCreatedAt: null })), 'no creation date never passes a date filter');
    rejects({ EndBefore: 'yesterday' }, 'EndBefore', 'invalid_number');
    rejects({ StartingBid: 'cheap' }, 'StartingBid', 'invalid_number');
  });

  test('stars, recombobulated, hot potato, item name', () => {
    assert.ok(matches({ Stars: '2' }));
    assert.ok(matches({ Stars: '1-3' }));
    assert.ok(!matches({ Stars: '5' }));
    assert.ok(matches({ Recombobulated: 'true' }));
    assert.ok(!matches({ Recombobulated: 'true' }, pet));
    assert.ok(matches({ HotPotatoCount: '>10' }));
    assert.ok(matches({ ItemNameContains: 'hyperion' }));
    assert.ok(!matches({ ItemNameContains: 'valkyrie' }));
  });

  test('enchantments: Enchantment + EnchantLvl, per-enchantment keys, None', () => {
    assert.ok(matches({ Enchantment: 'sharpness' }));
    assert.ok(matches({ Enchantment: 'Sharpness', EnchantLvl: '6' }));
    assert.ok(!matches({ Enchantment: 'sharpness', EnchantLvl: '7' }));
    assert.ok(!matches({ Enchantment: 'smite' }));
    assert.ok(matches({ Enchantment: 'None' }, pet));
    assert.ok(!matches({ Enchantment: 'None' }));
    assert.ok(matches({ ultimate_wise: '5' }));
    assert.ok(matches({ Ultimate_Wise: '1-5' }));
    assert.ok(matches({ smite: 'none' }));
    assert.ok(matches({ SecondEnchantment: 'critical', SecondEnchantLvl: '>=6' }));
    rejects({ Enchantment: 'sharpnes' }, 'Enchantment', 'invalid_filter');
    rejects({ EnchantLvl: '5' }, 'EnchantLvl');
    rejects({ Enchantment: 'sharpness', EnchantLvl: 'high' }, 'EnchantLvl');
  });

  test('pets', () => {
    assert.ok(matches({ PetLevel: '100' }, pet));
    assert.ok(matches({ PetLevel: '>90' }, pet));
    assert.ok(!matches({ PetLevel: '<50' }, pet));
    assert.ok(matches({ PetItem: 'PET_ITEM_TIER_BOOST' }, pet));
    assert.ok(matches({ PetItem: 'any' }, pet));
    assert.ok(!matches({ PetItem: 'none' }, pet));
    assert.ok(matches({ Candy: '0' }, pet));
    assert.ok(matches({ Candy: 'none' }, pet));
    assert.ok(matches({ PetSkin: 'DRAGON_NEON_RED' }, pet));
    assert.ok(matches({ Skin: 'any' }, pet));
    assert.ok(matches({ Skin: 'none' }));
    assert.ok(matches({ PetLevel: 'none' }), 'a non-pet has level 0');
  });

  test('attributes, runes, gems, ability scrolls', () => {
    assert.ok(matches({ mana_pool: '3' }));
    assert.ok(matches({ mana_pool: '>=2', breeze: 'none' }));
    assert.ok(!matches({ breeze: 'any' }));
    assert.ok(matches({ HasAttribute: 'true' }));
    assert.ok(matches({ MusicRune: '2' }));
    assert.ok(!matches({ MusicRune: '3' }));
    assert.ok(matches({ sapphire0Gem: 'PERFECT' }));
    assert.ok(matches({ combat0Gem: 'flawless' }));
    assert.ok(matches({ combat0GemType: 'JASPER' }));
    assert.ok(matches({ ruby0Gem: 'none' }));
    assert.ok(matches({ PerfectGemsCount: '1', FlawlessGemsCount: '1' }));
    assert.ok(matches({ UnlockedSlots: 'COMBAT_0' }));
    assert.ok(!matches({ UnlockedSlots: 'OFFENSIVE_0' }));
    assert.ok(matches({ AbilityScroll: 'IMPLOSION_SCROLL' }));
    rejects({ sapphire0Gem: 'SHINY' }, 'sapphire0Gem');
  });

  test('seller, uid, item id', () => {
    assert.ok(matches({ Seller: '01234567-89ab-cdef-0123-456789abcdef' }));
    assert.ok(!matches({ Seller: 'ffffffffffffffffffffffffffffffff' }));
    rejects({ Seller: 'Technoblade' }, 'Seller', 'unknown_player'); // no names given
    assert.ok(matches({ UId: 'AABBCCDDEEFF' }));
    assert.ok(matches({ UId: '00000000-0000-0000-0000-aabbccddeeff' }));
    rejects({ UId: 'xyz' }, 'UId');
    assert.ok(matches({ ItemId: 'TERMINATOR|hyperion' }));
    assert.ok(!matches({ ItemTag: 'TERMINATOR' }));
  });

  test('Seller by player name: resolved through the given names, unknown or malformed names rejected', async () => {
    const players = new Map([['technoblade', '01234567-89ab-cdef-0123-456789abcdef']]);
    assert.ok(compileFilters({ Seller: 'TechnoBlade' }, { players }).test(subject()));
    assert.ok(!compileFilters({ Seller: 'technoblade' }, { players: new Map([['technoblade', 'ff'.repeat(16)]]) }).test(subject()));
    assert.ok(compileFilters({ Seller: `Technoblade|${'ff'.repeat(16)}` }, { players }).test(subject()));
    rejects({ Seller: 'bad name!' }, 'Seller', 'invalid_filter');
    rejects({ Seller: 'a'.repeat(17) }, 'Seller', 'invalid_filter');
    assert.deepEqual(sellerNamesIn({ seller: `Techno|${'ab'.repeat(16)}|x y`, Rarity: 'EPIC' }), ['techno']);
    const asked: string[] = [];
    const lookup = async (name: string) => {
      asked.push(name);
      return name === 'technoblade' ? '0123456789abcdef0123456789abcdef' : undefined;
    };
    assert.ok((await compileFiltersResolving({ Seller: 'Technoblade' }, lookup)).test(subject()));
    await assert.rejects(compileFiltersResolving({ Seller: 'Ghost' }, lookup), (e: unknown) => e instanceof FilterError && e.slug === 'unknown_player' && e.message.includes('Ghost'));
    assert.deepEqual(asked, ['technoblade', 'ghost']);
  });

  test('the remaining reference keys: NBT values, derived numbers, colours, slots', () => {
    const s = subject({
      flatNbt: {
        ...subject().flatNbt,
        blaze_kills: '500',
        blocksBroken: '12000',
        cake_owner: 'Technoblade',
        raffle_win: 'LEGENDARY',
        raffle_year: '300',
        jalapeno_count: '1',
        bass_weight: '40',
        'hook.part': 'COMMON_HOOK',
        logs_cut: '100',
        boosters: 'SWEEP,HASTE',
        polarvoid: '5',
        bottle_of_jyrre_seconds: String(3600 * 5 + 1800),
        seconds_held: String(180_000 * 3 + 5),
        color: '255:0:16',
      },
    });
    const m = (f: Record<string, string>) => compileFilters(f).test(s);
    assert.ok(m({ BlazeKills: '>100' }) && !m({ BlazeKills: '<100' }));
    assert.ok(m({ BlocksBroken: '10k-20k' }));
    assert.ok(m({ CakeOwner: 'technoblade' }) && !m({ CakeOwner: 'dream' }));
    assert.ok(m({ RaffleWin: 'LEGENDARY', RaffleYear: '300' }));
    assert.ok(m({ JalapenoBook: 'true' }) && !m({ JalapenoBook: 'false' }));
    assert.ok(m({ BassWeight: '40', RodHook: 'common_hook', RodLine: 'none' }));
    assert.ok(m({ LogsCut: 'any', AxeBoosters: 'HASTE' }) && !m({ AxeBoosters: 'FORTUNE' }));
    assert.ok(m({ PlarvoidBook: '5' }));
    assert.ok(m({ IntelligenceBonus: '5' }) && !m({ IntelligenceBonus: '6' }), 'whole hours of jyrre');
    assert.ok(m({ GrowthStages: '3' }), '50 hours per stage');
    assert.ok(m({ HexColorList: '#00FF00|ff0010' }) && !m({ HexColorList: '000000' }));
    rejects({ HexColorList: 'red' }, 'HexColorList', 'invalid_filter');
    assert.ok(m({ UnlockedSlotsMatch: 'SAPPHIRE_0,COMBAT_0' }) && !m({ UnlockedSlotsMatch: 'COMBAT_0' }));
    // valuable = level 6+: sharpness 6 and critical 6 are on the subject
    assert.ok(!m({ NoOtherValuableEnchants: 'true' }));
    assert.ok(m({ NoOtherValuableEnchants: 'true', sharpness: '6', Enchantment: 'critical' }));
    assert.ok(m({ NoOtherValuableEnchants: 'false' }));
    assert.ok(compileFilters({ drain: 'none' }).test(s), 'drain is syphon');
    // price per level: pet at level 100
    assert.ok(compileFilters({ PricePerLevel: '>0' }).test(pet) && !compileFilters({ PricePerLevel: '>0' }).test(s));
  });

  test('NBT keys as the game stores them: Divan coating, absorbed logs, drill parts, applied-upgrade counters', () => {
    const s = subject({
      flatNbt: {
        ...subject().flatNbt,
        divan_powder_coating: '1',
        absorb_logs_chopped: '250',
        'engine.id': 'AMBER_POLISHED_DRILL_ENGINE',
        art_of_war_count: '1',
        wood_singularity_count: '1',
      },
    });
    const m = (f: Record<string, string>) => compileFilters(f).test(s);
    assert.ok(m({ PowderCoating: 'any' }) && !m({ PowderCoating: 'none' }));
    assert.ok(m({ AbsorbLogs: '>200' }) && !m({ AbsorbLogs: '<200' }));
    assert.ok(m({ DrillPartEngine: 'amber_polished_drill_engine' }) && !m({ DrillPartFuelTank: 'any' }));
    assert.ok(m({ ArtOfTheWar: 'yes' }) && m({ ArtOfTheWar: '1' }) && !m({ ArtOfTheWar: 'no' }));
    assert.ok(m({ WoodSingularity: 'true' }) && m({ Ethermerge: 'no' }) && !m({ Ethermerge: 'yes' }));
  });

  test('reference keys skymarket cannot answer are a 400 naming the key and the reason', () => {
    for (const key of Object.keys(UNSUPPORTED_FILTERS)) {
      assert.throws(
        () => compileFilters({ [key.toUpperCase()]: '1' }),
        (e: unknown) => e instanceof FilterError && e.slug === 'unsupported_filter' && e.message.includes(key.toUpperCase()) && e.message.includes('skymarket'),
      );
    }
  });

  test('unknown filters and oversized input name the filter', () => {
    rejects({ Rarity: 'EPIC', Sharpnesss: '5' }, 'Sharpnesss', 'unknown_filter');
    rejects({ x: 'a'.repeat(300) }, 'x');
    rejects(Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`sharpness${i}`, '1'])), 'sharpness40', 'too_many_filters');
  });

  test('all filters must pass', () => {
    assert.ok(matches({ Rarity: 'LEGENDARY', Stars: '2', sharpness: '6', Bin: 'true' }));
    assert.ok(!matches({ Rarity: 'LEGENDARY', Stars: '2', sharpness: '5', Bin: 'true' }));
  });
});

describe('filtersFromQuery', () => {
  test('control parameters are not filters; deepObject query[...] keys are unwrapped', () => {
    assert.deepEqual(filtersFromQuery({ page: '1', PageSize: '5', 'query[Rarity]': 'EPIC', Stars: '5' }, ['page', 'pageSize']), {
      Rarity: 'EPIC',
      Stars: '5',
    });
  });

  test('a repeated filter is malformed', () => {
    assert.throws(() => filtersFromQuery({ Stars: ['1', '2'] }, []), (e: unknown) => e instanceof FilterError && e.filter === 'Stars');
  });
});
