import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import {
  decodeAuctionItem,
  decodeItemBytes,
  decodeNbtItems,
  ItemDecodeError,
  longToPlain,
  parseItemTimestamp,
  stripColorCodes,
} from '../../../src/domain/nbt.ts';
import type { DecodedItem, ItemDecodeReason } from '../../../src/domain/nbt.ts';
import { PET_CUSTOM_LEVELING, PET_RARITY_OFFSET, PET_XP_PER_LEVEL, petLevel } from '../../../src/domain/pets.ts';
import { neuConstant, realAuctionPages, skyHelperItems } from '../../helpers/fixtures.ts';

interface AuctionRow {
  uuid: string;
  item_name: string;
  item_lore: string;
  item_bytes: string;
  item_uuid?: string;
  tier: string;
}

/** All 3,000 rows of the real auction pages (page 0 appears twice). */
const rows = realAuctionPages().flatMap((page) => page.auctions as unknown as AuctionRow[]);
const byUuid = new Map(rows.map((r) => [r.uuid, r]));

function auctionItem(uuid: string): DecodedItem {
  const row = byUuid.get(uuid);
  assert.ok(row, `auction ${uuid} in the fixture`);
  return decodeAuctionItem(row.item_bytes);
}

/** Expects `fn` to throw an ItemDecodeError with `reason`. */
function throwsReason(fn: () => unknown, reason: ItemDecodeReason): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ItemDecodeError, `expected ItemDecodeError, got ${String(err)}`);
    assert.equal(err.reason, reason, err.message);
    return true;
  });
}

// --- NBT construction helpers (prismarine's typed tree) ---------------------

type Tag = { type: string; value: unknown };

/** Writes `{ i: [items...] }` as gzipped base64, like Hypixel's item_bytes. */
function itemBytes(items: Record<string, Tag>[]): string {
  return gzipSync(rawNbt({ i: { type: 'list', value: { type: items.length ? 'compound' : 'end', value: items } } })).toString('base64');
}

function rawNbt(root: Record<string, Tag>): Buffer {
  return nbt.writeUncompressed({ type: 'compound', name: '', value: root } as never, 'big');
}

const str = (value: string): Tag => ({ type: 'string', value });
const int = (value: number): Tag => ({ type: 'int', value });
const comp = (value: Record<string, Tag>): Tag => ({ type: 'compound', value });

function legacyItem(extra: Record<string, Tag>, name = '§fThing', lore: string[] = []): Record<string, Tag> {
  return {
    id: { type: 'short', value: 1 },
    Count: { type: 'byte', value: 1 },
    tag: comp({
      display: comp({ Name: str(name), Lore: { type: 'list', value: { type: 'string', value: lore } } }),
      ExtraAttributes: comp(extra),
    }),
    Damage: { type: 'short', value: 0 },
  };
}

/**
 * JSON (as in SkyHelper's items.json) → typed NBT, inferring types the way
 * the game writes them: Count byte, item id/Damage short, `timestamp` pairs
 * as longs, other integers int, fractions double.
 */
function tagOf(key: string, v: unknown): Tag | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return str(v);
  if (typeof v === 'boolean') return { type: 'byte', value: v ? 1 : 0 };
  if (typeof v === 'number') {
    if (key === 'Count') return { type: 'byte', value: v };
    if (key === 'Damage' || key === 'id') return { type: 'short', value: v };
    if (Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) return int(v);
    return { type: 'double', value: v };
  }
  if (Array.isArray(v)) {
    if (key === 'timestamp' && v.length === 2 && v.every((x) => typeof x === 'number')) {
      return { type: 'long', value: v };
    }
    const tags = v.map((x) => tagOf('', x)).filter((t): t is Tag => t !== undefined);
    if (tags.length === 0) return { type: 'list', value: { type: 'end', value: [] } };
    let type = tags[0]!.type;
    if (tags.some((t) => t.type === 'double')) type = 'double';
    return { type: 'list', value: { type, value: tags.map((t) => t.value) } };
  }
  const out: Record<string, Tag> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const t = tagOf(k, x);
    if (t !== undefined) out[k] = t;
  }
  return comp(out);
}

/** Seeded PRNG (mulberry32), so fuzz failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------

describe('real auction fixture', () => {
  test('decodes all 2,000 distinct auctions with zero failures, matching name, lore and item_uuid', () => {
    assert.equal(rows.length, 3000);
    assert.equal(byUuid.size, 2000);
    let uuidChecked = 0;
    const failures: string[] = [];
    for (const row of rows) {
      let items: DecodedItem[];
      try {
        items = decodeItemBytes(row.item_bytes);
      } catch (err) {
        failures.push(`${row.uuid}: ${String(err)}`);
        continue;
      }
      assert.equal(items.length, 1, row.uuid);
      const item = items[0]!;
      assert.equal(item.name, row.item_name, row.uuid);
      assert.equal(stripColorCodes(item.rawName), row.item_name);
      assert.equal(item.lore.join('\n'), row.item_lore, row.uuid);
      if (row.item_uuid !== undefined) {
        uuidChecked++;
        assert.equal(item.itemUuid?.replaceAll('-', ''), row.item_uuid, row.uuid);
        assert.equal(item.uid, row.item_uuid.slice(-12));
      }
      assert.ok(item.tag.length > 0 && item.tag === item.tag.toUpperCase(), item.tag);
    }
    assert.deepEqual(failures, []);
    assert.equal(uuidChecked, 1875);
  });

  test('the single-item fast path agrees with decodeItemBytes', () => {
    for (const row of byUuid.values()) {
      assert.deepEqual(decodeAuctionItem(row.item_bytes), decodeItemBytes(row.item_bytes)[0]);
    }
  });

  test('pet levels computed from exp match the [Lvl N] of every pet name (135 pets)', () => {
    let pets = 0;
    for (const row of byUuid.values()) {
      const item = decodeAuctionItem(row.item_bytes);
      if (item.id !== 'PET') continue;
      pets++;
      const shown = /^\[Lvl (\d+)\]/.exec(row.item_name);
      assert.ok(shown, row.item_name);
      assert.ok(item.pet, row.uuid);
      assert.equal(item.pet.level, Number(shown[1]), `${row.uuid} ${row.item_name} ${item.pet.tier} ${item.pet.exp}`);
      assert.equal(item.tag, `PET_${item.pet.type}`);
    }
    assert.equal(pets, 135);
  });

  test('stars match the ✪ and master stars (➊-➎) in the names', () => {
    let checked = 0;
    for (const row of byUuid.values()) {
      const stars = [...row.item_name].filter((c) => c === '✪').length;
      if (stars === 0) continue;
      const master = /[➊➋➌➍➎]/.exec(row.item_name)?.[0];
      const expected = stars + (master ? master.charCodeAt(0) - '➊'.charCodeAt(0) + 1 : 0);
      assert.equal(decodeAuctionItem(row.item_bytes).stars, expected, `${row.uuid} ${row.item_name}`);
      checked++;
    }
    assert.ok(checked > 100, `${checked} starred items`);
  });

  test('a pet: Wolf, legendary, level 66, held item', () => {
    const item = auctionItem('b58fbbe946a946f882fb4976e3ba2ac7');
    assert.equal(item.tag, 'PET_WOLF');
    assert.equal(item.id, 'PET');
    assert.deepEqual(item.pet, {
      type: 'WOLF',
      tier: 'LEGENDARY',
      exp: 2060623.981917326,
      level: 66,
      heldItem: 'PET_ITEM_COMBAT_SKILL_BOOST_RARE',
      candyUsed: 0,
      skin: null,
    });
    assert.equal(item.itemUuid, '86bac421-c460-4075-a882-74fad1bbf32a');
    assert.equal(item.uid, '74fad1bbf32a');
    assert.equal(item.flatNbt['petInfo.heldItem'], 'PET_ITEM_COMBAT_SKILL_BOOST_RARE');
    assert.equal(item.flatNbt['petInfo.type'], 'WOLF');
    assert.equal(item.flatNbt['uuid'], undefined);
  });

  test('a mythic pet with a skin, and a golden dragon below 100', () => {
    const enderman = auctionItem('f38b747e271f4109b99ee91f1d18aba6');
    assert.equal(enderman.tag, 'PET_ENDERMAN');
    assert.equal(enderman.pet?.tier, 'MYTHIC');
    assert.equal(enderman.pet?.level, 100);
    assert.equal(enderman.pet?.skin, 'ENDERMAN_SLAYER');
    assert.equal(enderman.skin, 'ENDERMAN_SLAYER');
    const dragon = auctionItem('bf36e094a17b482a8a8aff90e1f8ec2d');
    assert.equal(dragon.tag, 'PET_GOLDEN_DRAGON');
    assert.equal(dragon.pet?.level, 57);
  });

  test('a rune: White Spiral Rune I', () => {
    const item = auctionItem('5c91a3e504b844248bb30d9500eec000');
    assert.equal(item.id, 'RUNE');
    assert.equal(item.tag, 'RUNE_WHITE_SPIRAL');
    assert.deepEqual(item.runes, { WHITE_SPIRAL: 1 });
    assert.equal(auctionItem('0ca8ebb876c3434c80a8e74e3e5dfba5').tag, 'RUNE_BLOOD_2');
  });

  test('a potion: Haste IV', () => {
    const item = auctionItem('44b394e8b4b842f2b33f8cdde222c885');
    assert.equal(item.tag, 'POTION_HASTE');
    assert.deepEqual(item.potion, { type: 'haste', level: 4 });
    assert.equal(item.flatNbt['effects.0.effect'], 'haste');
    assert.equal(item.flatNbt['effects.0.duration_ticks'], '60480');
    assert.equal(item.flatNbt['potion_level'], '4');
  });

  test('enchantments, reforge, stars, recomb, potato books, runes and createdAt: Spiritual Juju Shortbow', () => {
    const item = auctionItem('bb7c43bbbe4c439ba25770fa18a4fb01');
    assert.equal(item.tag, 'JUJU_SHORTBOW');
    assert.equal(item.name, 'Spiritual Juju Shortbow ✪✪✪✪✪');
    assert.equal(item.rawName, '§6Spiritual Juju Shortbow §6✪§6✪§6✪§6✪§6✪');
    assert.deepEqual(item.enchantments, {
      impaling: 3, chance: 3, piercing: 1, infinite_quiver: 10, power: 6, snipe: 3, flame: 1, aiming: 5, cubism: 5,
    });
    assert.equal(item.reforge, 'spiritual');
    assert.equal(item.stars, 5);
    assert.equal(item.rarityUpgrades, 1);
    assert.equal(item.hotPotatoCount, 10);
    assert.deepEqual(item.runes, { BITE: 3 });
    assert.equal(item.tag, 'JUJU_SHORTBOW', 'runes on a weapon do not change its tag');
    // "7/13/22 4:11 PM" read as UTC
    assert.equal(item.createdAt, Date.UTC(2022, 6, 13, 16 + 4, 11), 'EDT wall time, UTC-4');
    assert.deepEqual(item.flatNbt, {
      rarity_upgrades: '1',
      hot_potato_count: '10',
      'runes.BITE': '3',
      dungeon_item: '1',
      modifier: 'spiritual',
      upgrade_level: '5',
    });
  });

  test('upgrade_level wins over the older dungeon_item_level', () => {
    const item = auctionItem('7f9b0c1129134c5c9b8405d7989d9833');
    assert.equal(item.flatNbt['dungeon_item_level'], '2');
    assert.equal(item.stars, 4);
  });

  test('a stack: 64 Sorrow', () => {
    const item = auctionItem('400d6f79b96b4ff499d6662a7a51430d');
    assert.equal(item.tag, 'SORROW');
    assert.equal(item.count, 64);
    assert.equal(item.itemUuid, null);
    assert.equal(item.uid, null);
    assert.equal(item.createdAt, null);
    assert.deepEqual(item.flatNbt, {});
  });

  test('gems, attributes and leather colour', () => {
    const helmet = auctionItem('f545e8705d204b829a91af21f99bf7c5');
    assert.deepEqual(helmet.gems, { JADE_0: 'FINE', AMBER_0: 'FINE' });
    assert.equal(helmet.flatNbt['gems.unlocked_slots'], 'JADE_0');
    const chest = auctionItem('c25a4aae61a2435b9a503c26f376e928');
    assert.deepEqual(chest.gems, { COMBAT_0: 'FINE', COMBAT_0_gem: 'RUBY' });
    const leggings = auctionItem('1ec32a9fbc674846ab5f40af1731055b');
    assert.deepEqual(leggings.attributes, { life_regeneration: 1, mana_pool: 1 });
    assert.equal(leggings.flatNbt['attributes.mana_pool'], '1');
    const dragon = auctionItem('6c343d3619e648e0b27ca13dd1a94330');
    assert.equal(dragon.color, '221:228:240');
    assert.equal(dragon.reforge, 'pure');
    assert.equal(dragon.createdAt, Date.UTC(2020, 7, 12, 22 + 4, 40), 'EDT wall time, UTC-4');
  });
});

describe('SkyHelper items (JSON re-encoded as NBT)', () => {
  const data = skyHelperItems();
  const sections = Object.entries(data).filter(
    ([name, v]) => Array.isArray(v) && !['sacks', 'essence', 'pets'].includes(name),
  ) as [string, Record<string, unknown>[]][];

  /** Every inventory section decoded as one multi-item blob. */
  function decodeAll(): { raw: Record<string, unknown>; item: DecodedItem }[] {
    const out: { raw: Record<string, unknown>; item: DecodedItem }[] = [];
    for (const [, items] of sections) {
      if (items.length === 0) continue;
      const blob = itemBytes(items.map((it) => tagOf('', it)!.value as Record<string, Tag>));
      const decoded = decodeItemBytes(blob);
      assert.equal(decoded.length, items.length);
      decoded.forEach((item, i) => out.push({ raw: items[i]!, item }));
    }
    return out;
  }

  test('decodes every item (1,027) of every inventory, tags and longs included', () => {
    const all = decodeAll();
    assert.equal(all.length, 1027);
    let longTimestamps = 0;
    const tags = new Set<string>();
    for (const { raw, item } of all) {
      const extra = (raw['tag'] as { ExtraAttributes: Record<string, unknown> }).ExtraAttributes;
      assert.equal(item.id, extra['id']);
      tags.add(item.tag);
      const ts = extra['timestamp'];
      if (Array.isArray(ts)) {
        longTimestamps++;
        const [hi, lo] = ts as [number, number];
        assert.equal(item.createdAt, Number((BigInt(hi) << 32n) | BigInt(lo >>> 0)));
        assert.ok(item.createdAt! > Date.UTC(2019, 0, 1) && item.createdAt! < Date.UTC(2030, 0, 1));
      }
    }
    assert.equal(longTimestamps, 427);
    for (const t of ['ENCHANTMENT_SMITE_6', 'ENCHANTMENT_ULTIMATE_BANK_1', 'ENCHANTED_BOOK', 'RUNE_ZOMBIE_SLAYER',
      'RUNE_SNAKE', 'POTION_REGENERATION', 'POTION_HEALING', 'PET_ENDERMAN']) {
      assert.ok(tags.has(t), t);
    }
  });

  test('books: one enchantment gives ENCHANTMENT_<NAME>_<LEVEL>, two keep ENCHANTED_BOOK', () => {
    const books = decodeAll().filter(({ item }) => item.id === 'ENCHANTED_BOOK');
    assert.equal(books.length, 18);
    for (const { item } of books) {
      const names = Object.keys(item.enchantments);
      if (names.length === 1) {
        assert.equal(item.tag, `ENCHANTMENT_${names[0]!.toUpperCase()}_${item.enchantments[names[0]!]}`);
      } else {
        assert.equal(item.tag, 'ENCHANTED_BOOK');
      }
    }
    assert.ok(books.some(({ item }) => item.tag === 'ENCHANTED_BOOK'));
  });

  test('pet levels of the profile pets match an independent reading of NEU pets.json', () => {
    const neu = neuConstant('pets.json') as {
      pet_levels: number[];
      pet_rarity_offset: Record<string, number>;
      custom_pet_leveling: Record<string, { type?: number; pet_levels?: number[]; max_level?: number; rarity_offset?: Record<string, number> }>;
    };
    const neuLevel = (type: string, tier: string, exp: number): number => {
      const custom = neu.custom_pet_leveling[type];
      let ladder = neu.pet_levels;
      if (custom?.type === 1 && custom.pet_levels) ladder = [...ladder, ...custom.pet_levels];
      const offset = (custom?.rarity_offset ?? neu.pet_rarity_offset)[tier] ?? 0;
      const steps = ladder.slice(offset, offset + (custom?.max_level ?? 100) - 1);
      let level = 1;
      for (const need of steps) {
        if (exp < need) break;
        exp -= need;
        level++;
      }
      return level;
    };
    const pets = data['pets'] as { type: string; tier: string; exp: number }[];
    assert.ok(pets.length >= 50);
    const levels = new Set<number>();
    for (const p of pets) {
      const level = petLevel(p.type, p.tier, p.exp);
      assert.equal(level, neuLevel(p.type, p.tier, p.exp), `${p.type} ${p.tier} ${p.exp}`);
      levels.add(level);
    }
    assert.ok(levels.size > 5, 'the sample spans many levels');
    // Dragons above 100 and Bingo's flat ladder
    for (const [type, tier, exp] of [
      ['GOLDEN_DRAGON', 'LEGENDARY', 25_353_230 + 1_886_700 * 50 + 5], ['GOLDEN_DRAGON', 'LEGENDARY', 1e12],
      ['BINGO', 'LEGENDARY', 5000], ['BEE', 'MYTHIC', 25_353_230], ['BEE', 'LEGENDARY', 25_353_229],
    ] as const) {
      assert.equal(petLevel(type, tier, exp), neuLevel(type, tier, exp), `${type} ${exp}`);
    }
    assert.equal(petLevel('GOLDEN_DRAGON', 'LEGENDARY', 1e12), 200);
    assert.equal(petLevel('BEE', 'LEGENDARY', 25_353_230), 100);
    assert.equal(petLevel('BEE', 'LEGENDARY', 25_353_229), 99);
  });
});

describe('pet XP tables', () => {
  test('match NEU constants/pets.json', () => {
    const neu = neuConstant('pets.json') as {
      pet_levels: number[];
      pet_rarity_offset: Record<string, number>;
      custom_pet_leveling: Record<string, { type?: number; pet_levels?: number[]; max_level?: number; rarity_offset?: Record<string, number> }>;
    };
    assert.deepEqual(PET_XP_PER_LEVEL, neu.pet_levels);
    assert.deepEqual(PET_RARITY_OFFSET, neu.pet_rarity_offset);
    for (const [type, rule] of Object.entries(neu.custom_pet_leveling)) {
      const ours = PET_CUSTOM_LEVELING[type];
      if (rule.max_level !== undefined || rule.pet_levels !== undefined || rule.rarity_offset !== undefined) {
        assert.ok(ours, `custom leveling for ${type}`);
      }
      if (rule.max_level !== undefined) assert.equal(ours?.maxLevel, rule.max_level, type);
      if (rule.pet_levels !== undefined) {
        assert.equal(rule.type, 1, `${type}: only appended ladders (type 1) are modelled`);
        assert.ok(rule.pet_levels.every((x) => x === ours?.extraXpPerLevel), type);
      }
      if (rule.rarity_offset !== undefined) assert.deepEqual({ ...ours?.rarityOffset }, { MYTHIC: 0, ...rule.rarity_offset }, type);
    }
  });
});

describe('formats and conversions', () => {
  test('1.21 component layout: custom_data, count, custom_name and lore text components', () => {
    const blob = itemBytes([
      {
        id: str('minecraft:player_head'),
        count: int(3),
        components: comp({
          'minecraft:custom_data': comp({
            id: str('PET'),
            petInfo: str('{"type":"BEE","tier":"LEGENDARY","exp":3070.5,"candyUsed":2,"heldItem":"PET_ITEM_TIER_BOOST"}'),
            uuid: str('0B9B7F5E-1234-4ABC-9DEF-AABBCCDDEEFF'),
            timestamp: { type: 'long', value: [394, -1430044928] },
          }),
          'minecraft:custom_name': str(
            '{"text":"","extra":[{"text":"[Lvl 5] ","color":"gray","italic":false},{"text":"Bee","color":"gold","bold":true}]}',
          ),
          'minecraft:lore': {
            type: 'list',
            value: { type: 'string', value: ['{"text":"Farming Pet","color":"dark_gray"}', '""'] },
          },
          'minecraft:dyed_color': comp({ rgb: int(0x102030) }),
        }),
      },
    ]);
    const [item] = decodeItemBytes(blob);
    assert.ok(item);
    assert.equal(item.tag, 'PET_BEE');
    assert.equal(item.count, 3);
    assert.equal(item.rawName, '§7[Lvl 5] §6§lBee');
    assert.equal(item.name, '[Lvl 5] Bee');
    assert.deepEqual(item.lore, ['§8Farming Pet', '']);
    assert.equal(item.pet?.level, 5); // legendary ladder: 660 + 730 + 800 + 880 = 3070 XP to level 5
    assert.equal(item.pet?.heldItem, 'PET_ITEM_TIER_BOOST');
    assert.equal(item.uid, 'aabbccddeeff');
    assert.equal(item.createdAt, 394 * 2 ** 32 + (-1430044928 >>> 0));
    assert.equal(item.color, '16:32:48');
  });

  test('NBT longs: [hi, lo] to exact numbers, unsafe ones to exact strings', () => {
    assert.equal(longToPlain([0, 5]), 5);
    assert.equal(longToPlain([0, -1]), 4294967295);
    assert.equal(longToPlain([-1, -1]), -1);
    assert.equal(longToPlain([-1, 0]), -4294967296);
    assert.equal(longToPlain([0x1fffff, -1]), Number.MAX_SAFE_INTEGER);
    assert.equal(longToPlain([0x7fffffff, -1]), '9223372036854775807');
    assert.equal(longToPlain([-0x80000000, 0]), '-9223372036854775808');
    assert.equal(longToPlain([0x200000, 1]), '9007199254740993');
    const [item] = decodeItemBytes(
      itemBytes([legacyItem({ id: str('X'), big: { type: 'long', value: [0x7fffffff, -1] }, small: { type: 'long', value: [0, 42] } })]),
    );
    assert.equal(item?.flatNbt['big'], '9223372036854775807');
    assert.equal(item?.flatNbt['small'], '42');
  });

  test('item timestamps: 12 h and 24 h strings as New York wall time, epoch ms numbers, junk as null', () => {
    assert.equal(parseItemTimestamp('8/7/22 9:21 PM'), Date.UTC(2022, 7, 8, 1, 21), 'EDT: UTC-4');
    assert.equal(parseItemTimestamp('12/24/20 11:06 AM'), Date.UTC(2020, 11, 24, 16, 6), 'EST: UTC-5');
    // Across the spring-forward change (2:00 EST → 3:00 EDT on 3/13/22) and fall-back (11/6/22).
    assert.equal(parseItemTimestamp('3/13/22 1:59 AM'), Date.UTC(2022, 2, 13, 6, 59));
    assert.equal(parseItemTimestamp('3/13/22 3:00 AM'), Date.UTC(2022, 2, 13, 7, 0));
    assert.equal(parseItemTimestamp('11/6/22 12:30 AM'), Date.UTC(2022, 10, 6, 4, 30));
    assert.equal(parseItemTimestamp('11/6/22 3:00 AM'), Date.UTC(2022, 10, 6, 8, 0));
    assert.equal(parseItemTimestamp('1/1/21 12:00 AM'), Date.UTC(2021, 0, 1, 5, 0));
    assert.equal(parseItemTimestamp('1/1/21 12:30 PM'), Date.UTC(2021, 0, 1, 17, 30));
    assert.equal(parseItemTimestamp('9/29/22 21:05'), Date.UTC(2022, 8, 30, 1, 5));
    assert.equal(parseItemTimestamp('9/29/2022 21:05:09'), Date.UTC(2022, 8, 30, 1, 5, 9));
    assert.equal(parseItemTimestamp('2/29/24 1:00 am'), Date.UTC(2024, 1, 29, 6, 0));
    assert.equal(parseItemTimestamp(1664431200000), 1664431200000);
    for (const bad of ['2/29/23 1:00 PM', '13/1/22 1:00 PM', '1/1/22 13:00 PM', '1/1/22 0:00 AM', '1/1/22 24:00', 'yesterday', '', -5, NaN, null, undefined, {}]) {
      assert.equal(parseItemTimestamp(bad), null, String(bad));
    }
  });

  test('an inventory: empty slots skipped; skipInvalid drops items without ExtraAttributes', () => {
    const blob = itemBytes([
      legacyItem({ id: str('ASPECT_OF_THE_END') }),
      {},
      { id: { type: 'short', value: 1 }, Count: { type: 'byte', value: 1 } },
      legacyItem({ id: str('ENCHANTED_BOOK'), enchantments: comp({ ultimate_wise: int(5) }) }, '§fEnchanted Book'),
    ]);
    throwsReason(() => decodeItemBytes(blob), 'no_item');
    const items = decodeItemBytes(blob, { skipInvalid: true });
    assert.deepEqual(items.map((i) => i.tag), ['ASPECT_OF_THE_END', 'ENCHANTMENT_ULTIMATE_WISE_5']);
    assert.deepEqual(decodeNbtItems(gunzipSync(Buffer.from(blob, 'base64')), { skipInvalid: true }), items);
  });
});

describe('untrusted input', () => {
  const real = rows.find((r) => r.uuid === 'bb7c43bbbe4c439ba25770fa18a4fb01')?.item_bytes
    ?? itemBytes([legacyItem({ id: str('HYPERION'), uuid: str('d0a1b87d-e70f-4086-9d34-00f71b1211dd') })]);
  const realRaw = gunzipSync(Buffer.from(real, 'base64'));

  test('each kind of corruption has its reason', () => {
    throwsReason(() => decodeItemBytes('!!!not base64!!!'), 'bad_base64');
    throwsReason(() => decodeItemBytes(''), 'bad_base64');
    throwsReason(() => decodeItemBytes(42 as unknown as string), 'bad_base64');
    throwsReason(() => decodeItemBytes(Buffer.from('plain text, not gzip at all').toString('base64')), 'bad_gzip');
    throwsReason(() => decodeItemBytes(real.slice(0, 200)), 'bad_gzip');
    const flipped = Buffer.from(real, 'base64');
    const at = flipped.length - 6; // inside the CRC-32 trailer
    flipped[at] = flipped.readUInt8(at) ^ 0xff;
    throwsReason(() => decodeItemBytes(flipped.toString('base64')), 'bad_gzip');
    throwsReason(() => decodeItemBytes(gzipSync(Buffer.alloc(3 * 1024 * 1024)).toString('base64')), 'too_large');
    throwsReason(() => decodeItemBytes(real, { maxBytes: 100 }), 'too_large');
    throwsReason(() => decodeItemBytes(gzipSync(realRaw.subarray(0, 300)).toString('base64')), 'bad_nbt');
    throwsReason(() => decodeItemBytes(gzipSync(realRaw.subarray(0, realRaw.length - 1)).toString('base64')), 'bad_nbt');
    throwsReason(() => decodeNbtItems(Buffer.from([8, 0, 0, 0, 1, 65])), 'bad_nbt'); // root is a string
    throwsReason(() => decodeNbtItems(rawNbt({ x: int(1) })), 'no_item');
    throwsReason(() => decodeItemBytes(itemBytes([])), 'no_item');
    throwsReason(() => decodeItemBytes(itemBytes([{}])), 'no_item');
    throwsReason(() => decodeItemBytes(itemBytes([{ id: { type: 'short', value: 1 }, tag: comp({}) }])), 'no_item');
    throwsReason(() => decodeItemBytes(itemBytes([legacyItem({ uuid: str('x') })])), 'no_id');
    throwsReason(() => decodeItemBytes(itemBytes([legacyItem({ id: int(5) })])), 'no_id');
    throwsReason(() => decodeItemBytes(itemBytes([legacyItem({ id: str('BAD ID') })])), 'bad_tag');
    throwsReason(() => decodeItemBytes(itemBytes([legacyItem({ id: str('PET'), petInfo: str('{"type":"../x"}') })])), 'bad_tag');
  });

  test('a list-of-TAG_End bomb is rejected at once instead of spinning', () => {
    // i: List<List> of 1,000 inner lists, each claiming 16M TAG_End elements (5 bytes apiece).
    const head = Buffer.from([10, 0, 0, 9, 0, 1, 0x69, 9, 0, 0, 0x03, 0xe8]);
    const inner = Buffer.from([0, 0, 0xff, 0xff, 0xff]);
    const bomb = Buffer.concat([head, ...Array.from({ length: 1000 }, () => inner), Buffer.from([0])]);
    // Refused by the linear pre-scan (one pass over the bytes), before any parser walks the
    // 16M-element lists: its reason names what it found.
    assert.throws(() => decodeItemBytes(gzipSync(bomb).toString('base64')), (err: unknown) => {
      assert.ok(err instanceof ItemDecodeError, String(err));
      assert.equal(err.reason, 'bad_nbt');
      assert.match(err.message, /non-empty list of TAG_End/);
      return true;
    });
  });

  test('deep nesting, oversized counts and hostile keys', () => {
    // 10,000 nested lists of lists
    const deep = Buffer.concat([
      Buffer.from([10, 0, 0, 9, 0, 1, 0x69]),
      ...Array.from({ length: 10_000 }, () => Buffer.from([9, 0, 0, 0, 1])),
      Buffer.from([0, 0, 0, 0, 0]),
    ]);
    throwsReason(() => decodeNbtItems(deep), 'bad_nbt');
    // a byte array claiming 2 GB
    throwsReason(() => decodeNbtItems(Buffer.from([10, 0, 0, 7, 0, 1, 0x62, 0x7f, 0xff, 0xff, 0xff, 0])), 'bad_nbt');
    // `__proto__` keys neither pollute prototypes nor provide an id
    const proto = itemBytes([legacyItem({ ['__proto__']: comp({ id: str('EVIL') }), uuid: str('u') })]);
    throwsReason(() => decodeItemBytes(proto), 'no_id');
    assert.equal(({} as Record<string, unknown>)['id'], undefined);
    const [ok] = decodeItemBytes(itemBytes([legacyItem({ id: str('X'), ['__proto__']: int(1), constructor: str('c') })]));
    assert.deepEqual(ok?.flatNbt, { constructor: 'c' });
  });

  test('seeded fuzz: thousands of mutated real blobs only ever throw ItemDecodeError', () => {
    const random = rng(0x5eed);
    const pick = (n: number): number => Math.floor(random() * n);
    const reasons = new Map<string, number>();
    let decoded = 0;
    const attempt = (fn: () => unknown): void => {
      try {
        fn();
        decoded++;
      } catch (err) {
        if (!(err instanceof ItemDecodeError)) throw new Error(`untyped error: ${String(err)}`, { cause: err });
        reasons.set(err.reason, (reasons.get(err.reason) ?? 0) + 1);
      }
    };
    const specials = [0x00, 0xff, 0x7f, 0x80, 0x01, 0x08, 0x09, 0x0a, 0x0b, 0x0c];
    for (let n = 0; n < 4000; n++) {
      let bytes = Buffer.from(realRaw);
      const edits = 1 + pick(3);
      for (let e = 0; e < edits; e++) {
        const at = pick(bytes.length);
        switch (pick(6)) {
          case 0: bytes[at] = pick(256); break;
          case 1: bytes[at] = specials[pick(specials.length)]!; break;
          case 2: bytes = bytes.subarray(0, at); break;
          case 3: bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(Math.min(bytes.length, at + 1 + pick(16)))]); break;
          case 4: bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at, at + pick(64)), bytes.subarray(at)]); break;
          default: if (bytes.length >= 4) bytes.writeInt32BE([0x7fffffff, -1, 0x00ffffff, 65536][pick(4)]!, Math.max(0, Math.min(at, bytes.length - 4))); break;
        }
        if (bytes.length === 0) break;
      }
      if (n % 4 === 0) attempt(() => decodeItemBytes(gzipSync(bytes).toString('base64')));
      else attempt(() => decodeNbtItems(bytes));
    }
    // Mutations of the base64 text itself
    for (let n = 0; n < 1000; n++) {
      const chars = real.split('');
      chars[pick(chars.length)] = 'A+/=!-_ \n0'[pick(10)]!;
      attempt(() => decodeItemBytes(chars.join('')));
    }
    assert.ok(decoded > 100, `some mutations still decode (${decoded})`);
    assert.ok((reasons.get('bad_nbt') ?? 0) > 100, JSON.stringify([...reasons]));
    assert.ok((reasons.get('bad_gzip') ?? 0) > 100, JSON.stringify([...reasons]));
  });
});

test('string timestamps read as New York time put every creation before its listing, the closest within minutes', () => {
  let closest = Infinity;
  let compared = 0;
  for (const row of rows as Array<AuctionRow & { start: number }>) {
    const item = decodeAuctionItem(row.item_bytes);
    if (item.createdAt === null || !/\d+\/\d+\/\d+/.test(item.flatNbt.timestamp ?? String(readTimestamp(row.item_bytes)))) continue;
    compared++;
    const gap = row.start - item.createdAt;
    assert.ok(gap >= 0, `auction ${row.uuid} starts ${gap} ms before its item was created`);
    closest = Math.min(closest, gap);
  }
  assert.ok(compared > 1000, `compared ${compared} string timestamps`);
  // Read as UTC, the closest gap was exactly 4 h (EDT); read as New York time it is minutes.
  assert.ok(closest < 15 * 60_000, `closest creation-to-listing gap ${closest} ms`);
});

/** The raw ExtraAttributes.timestamp of an auction's item, for telling string from numeric forms. */
function readTimestamp(base64: string): unknown {
  const parsed = nbt.parseUncompressed(gunzipSync(Buffer.from(base64, 'base64')), 'big') as unknown as {
    value: { i: { value: { value: Array<{ tag?: { value: { ExtraAttributes?: { value: { timestamp?: { value: unknown } } } } } }> } } };
  };
  return parsed.value.i.value.value[0]?.tag?.value.ExtraAttributes?.value.timestamp?.value;
}
