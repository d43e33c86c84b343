/**
 * What moves an item's price, read from its flattened ExtraAttributes (the `flatNbt` every decoded
 * item and every stored auction carries, domain/nbt.ts): rarity, a pet's level band, held item
 * and candy, stars and master stars, enchantments, potato books, recombobulator, gemstones and
 * unlocked slots, reforge, attributes, runes, skin, dye and the applied upgrade items (art of
 * war, etherwarp …). One reader for the item being valued and for the sales it is compared with,
 * so both sides are read alike. Pure.
 *
 * Every key of flatNbt is sorted into one of three bins: a priced part (parts.ts), a trait that
 * identifies the item without being bought (edition, origin, anvil uses, kill counters …), or
 * unknown. Unknown keys are kept (`unknownKeys`) so the recognition rate can be measured
 * (test/unit/domain/valuation/recognition.test.ts).
 */
import { petLevel } from '../pets.ts';

/** What the valuation reads of an item: a decoded item and a stored auction both have these. */
export interface ValuationSubject {
  tag: string;
  /** rarity (upstream's tier, or read from the lore), null when unknown */
  tier: string | null;
  count: number;
  enchantments: Readonly<Record<string, number>>;
  flatNbt: Readonly<Record<string, string>>;
}

/** The families the accuracy is measured by (and that decide which traits matter by default). */
export type ItemFamily = 'pet' | 'armor' | 'weapon' | 'other';

export interface GemTrait {
  /** the slot as stored (`COMBAT_0`, `SAPPHIRE_0`) */
  slot: string;
  /** gem type (`SAPPHIRE`), null when a universal slot does not name it */
  type: string | null;
  /** `ROUGH` … `PERFECT` */
  quality: string;
}

/** An applied upgrade item counted on the item (`art_of_war_count: 1` → THE_ART_OF_WAR × 1). */
export interface AppliedItem {
  /** what kind of upgrade (the factor's name in parts.ts) */
  kind: AppliedKind;
  /** bazaar product or auction tag of the upgrade item */
  id: string;
  count: number;
}

export type AppliedKind =
  | 'art_of_war'
  | 'art_of_peace'
  | 'farming_for_dummies'
  | 'etherwarp'
  | 'wood_singularity'
  | 'transmission_tuner'
  | 'mana_disintegrator'
  | 'jalapeno_book'
  | 'polarvoid_book'
  | 'bookworm_book'
  | 'divan_powder_coating'
  | 'enrichment'
  | 'power_scroll'
  | 'necron_scroll'
  | 'drill_part'
  | 'thunder_in_a_bottle'
  | 'dye'
  | 'skin'
  | 'rune'
  | 'winning_bid'
  | 'stats_book';

export interface ItemTraits {
  tag: string;
  family: ItemFamily;
  tier: string | null;
  count: number;
  pet: { type: string; level: number; band: PetLevelBand; heldItem: string | null; candyUsed: number; skin: string | null } | null;
  /** essence stars (0–5) */
  stars: number;
  /** master stars (0–5): stars beyond the fifth */
  masterStars: number;
  enchantments: Readonly<Record<string, number>>;
  /** hot potato books (at most 10) */
  hotPotatoBooks: number;
  /** fuming potato books (the books beyond the tenth) */
  fumingPotatoBooks: number;
  recombobulated: boolean;
  reforge: string | null;
  gems: GemTrait[];
  /** gem slots unlocked (`gems.unlocked_slots`) */
  unlockedSlots: string[];
  attributes: Readonly<Record<string, number>>;
  /** upgrade items applied to the item */
  applied: AppliedItem[];
  /** flatNbt keys neither priced nor known as harmless */
  unknownKeys: string[];
}

/** Level bands pets are compared in: their price moves in steps, not level by level. */
export type PetLevelBand = '1' | '2-49' | '50-79' | '80-98' | '99' | '100' | '101-199' | '200';

export function petLevelBand(level: number): PetLevelBand {
  if (level >= 200) return '200';
  if (level > 100) return '101-199';
  if (level === 100) return '100';
  if (level === 99) return '99';
  if (level >= 80) return '80-98';
  if (level >= 50) return '50-79';
  if (level >= 2) return '2-49';
  return '1';
}

// Weapon and armour tags by their names' endings; the rest of the families by prefix.
const ARMOR_SUFFIX = /_(HELMET|CHESTPLATE|LEGGINGS|BOOTS|HAT|HOOD|MASK|CROWN|CLOAK|BELT|NECKLACE|GLOVES|BRACELET|GAUNTLET)$/;
const WEAPON_SUFFIX = /(SWORD|BLADE|BOW|DAGGER|KATANA|AXE|SCYTHE|WAND|STAFF|SHORTBOW|LONGBOW|ROD|HAMMER|CLEAVER|SPEAR|GAUNTLET|_DEFUSER)$/;
const WEAPON_TAGS = new Set([
  'HYPERION', 'VALKYRIE', 'ASTRAEA', 'SCYLLA', 'TERMINATOR', 'JUJU_SHORTBOW', 'GIANTS_SWORD', 'LIVID_DAGGER', 'SHADOW_FURY',
  'FLOWER_OF_TRUTH', 'ASPECT_OF_THE_END', 'ASPECT_OF_THE_DRAGON', 'ASPECT_OF_THE_VOID', 'MIDAS_SWORD', 'MIDAS_STAFF',
  'DARK_CLAYMORE', 'BONZO_STAFF', 'SPIRIT_SCEPTRE', 'YETI_SWORD', 'REAPER_SCYTHE', 'POOCH_SWORD', 'ATOMSPLIT_KATANA',
  'VORPAL_KATANA', 'VOIDEDGE_KATANA', 'FIRE_VEIL_WAND', 'RAGNAROCK_AXE', 'AXE_OF_THE_SHREDDED', 'LEAPING_SWORD',
  'SILK_EDGE_SWORD', 'NECRON_BLADE', 'EMERALD_BLADE', 'SOUL_WHIP', 'GIANTS_CLEAVER', 'BLADE_OF_THE_VOLCANO',
]);

/** The family of a tag (and its category, when the store has one). */
export function familyOf(tag: string, category?: string | null): ItemFamily {
  if (tag.startsWith('PET_') && !tag.startsWith('PET_ITEM_') && !tag.startsWith('PET_SKIN_')) return 'pet';
  if (category === 'armor') return 'armor';
  if (category === 'weapon') return 'weapon';
  if (WEAPON_TAGS.has(tag)) return 'weapon';
  if (ARMOR_SUFFIX.test(tag)) return 'armor';
  if (WEAPON_SUFFIX.test(tag)) return 'weapon';
  return 'other';
}

/** Keys that name the item, its history or its counters, never a bought part (they move no price by themselves). */
const HARMLESS_KEYS = new Set([
  'originTag', 'uuid', 'timestamp', 'id', 'donated_museum', 'anvil_uses', 'baseStatBoostPercentage', 'item_tier',
  'dungeon_skill_req', 'shop_dungeon_floor_completion_required', 'color', 'backpack_color', 'new_years_cake', 'event',
  'leaderboard_score', 'leaderboard_player', 'leaderboard_position', 'raffle_year', 'raffle_win', 'edition',
  'compact_blocks', 'party_hat_year', 'party_hat_color', 'party_hat_emoji', 'mined_crops', 'spider_kills',
  'hotPotatoBonus', 'farmed_cultivating', 'eman_kills', 'leaderVotes', 'leaderPosition', 'recipient_name', 'recipient_id',
  'date', 'drill_fuel', 'new_year_cake_bag_years', 'enhanced', 'extended', 'historic_dungeon_score', 'ranchers_speed',
  'bossId', 'spawnedFor', 'radius', 'necromancer_souls', 'trapsDefused', 'PERSONAL_DELETOR_ACTIVE', 'tune',
  'blood_god_kills', 'dye_donated', 'resources_generated', 'generator_tier', 'total_generations', 'soul_durability',
  'levels_found', 'splash', 'century_year', 'tickets', 'winning_team', 'recipient_team', 'century_year_obtained',
  'yearObtained', 'ultimateSoulEaterData', 'expertise_kills', 'pickonimbus_durability', 'spray_item', 'boss_tier',
  'raider_kills', 'potion', 'potion_level', 'potion_type', 'potion_name', 'dungeon_potion', 'effects', 'is_shiny',
  'champion_combat_xp', 'hecatomb_s_runs', 'toxophilite_combat_xp', 'compact_blocks', 'zombie_kills', 'sword_kills',
  'stats_book', 'chimera_data', 'enchantments', 'runes', 'attributes', 'dungeon_item_level', 'upgrade_level',
  'rarity_upgrades', 'hot_potato_count', 'modifier', 'skin', 'dye_item', 'petInfo', 'gems', 'ability_scroll',
  'art_of_war_count', 'artOfPeaceApplied', 'farming_for_dummies_count', 'ethermerge', 'wood_singularity_count',
  'tuned_transmission', 'mana_disintegrator_count', 'jalapeno_count', 'polarvoid', 'bookworm_books',
  'divan_powder_coating', 'talisman_enrichment', 'power_ability_scroll', 'drill_part_upgrade_module',
  'drill_part_fuel_tank', 'drill_part_engine', 'thunder_charge', 'winning_bid', 'personal_compact', 'personal_deletor',
  'new_year_cake_bag_data', 'auction', 'bid', 'is_pristine', 'captured_player', 'ad_seen', 'model', 'hook', 'line',
  'sinker', 'upgrade', 'blaze_consumer', 'cake_owner', 'mob_kills', 'fishing_speed', 'last_force_evolved_time',
]);

/** flatNbt keys whose prefix (before the first `.`) or numbered suffix (`personal_compact_3`) is harmless. */
function baseKey(key: string): string {
  const dot = key.indexOf('.');
  const head = dot < 0 ? key : key.slice(0, dot);
  return head.replace(/_\d+$/, '');
}

const num = (v: string | undefined): number => {
  if (v === undefined) return 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};

/** Reads the traits that move an item's price. */
export function traitsOf(s: ValuationSubject, category?: string | null): ItemTraits {
  const f = s.flatNbt;
  // Stars: the newer `upgrade_level` counts master stars too (6–10); the older `dungeon_item_level` did as well.
  const starLevel = Math.max(num(f['upgrade_level']), num(f['dungeon_item_level']));
  const hpb = num(f['hot_potato_count']);
  const pet = petOf(f);
  const gems: GemTrait[] = [];
  let unlockedSlots: string[] = [];
  const attributes: Record<string, number> = {};
  const applied: AppliedItem[] = [];
  const unknownKeys: string[] = [];
  for (const key in f) {
    const value = f[key]!;
    if (key.startsWith('gems.')) {
      const slot = key.slice(5);
      if (slot === 'unlocked_slots') unlockedSlots = value === '' ? [] : value.split(',');
      else if (slot.endsWith('_gem') || slot.endsWith('.uuid')) continue;
      else {
        const name = slot.endsWith('.quality') ? slot.slice(0, -8) : slot;
        if (name.includes('.')) continue;
        const typed = /^([A-Z]+)_\d+$/.exec(name);
        const universal = typed !== null && UNIVERSAL_SLOTS.has(typed[1]!);
        const type = universal ? (f[`gems.${name}_gem`] ?? null) : typed ? typed[1]! : null;
        gems.push({ slot: name, type, quality: value });
      }
      continue;
    }
    if (key.startsWith('attributes.')) {
      attributes[key.slice(11)] = num(value);
      continue;
    }
    if (key.startsWith('runes.')) {
      const level = num(value);
      if (level > 0 && !s.tag.startsWith('RUNE_') && !s.tag.startsWith('UNIQUE_RUNE_')) {
        applied.push({ kind: 'rune', id: `RUNE_${key.slice(6)}`, count: level });
      }
      continue;
    }
    if (key.startsWith('ability_scroll')) {
      for (const id of value.split(',')) if (id !== '') applied.push({ kind: 'necron_scroll', id, count: 1 });
      continue;
    }
    if (key.startsWith('petInfo.')) continue;
    const simple = APPLIED_COUNTS[key];
    if (simple) {
      // A flag key counts once when set (`ethermerge: 1`; `stats_book` holds the book's kill counter).
      const count = simple.flag ? (num(value) > 0 || value === 'true' ? 1 : 0) : num(value);
      if (count > 0) applied.push({ kind: simple.kind, id: simple.id, count });
      continue;
    }
    switch (key) {
      case 'talisman_enrichment':
        applied.push({ kind: 'enrichment', id: `TALISMAN_ENRICHMENT_${value.toUpperCase()}`, count: 1 });
        continue;
      case 'power_ability_scroll':
        applied.push({ kind: 'power_scroll', id: value.toUpperCase(), count: 1 });
        continue;
      case 'drill_part_upgrade_module':
      case 'drill_part_fuel_tank':
      case 'drill_part_engine':
        applied.push({ kind: 'drill_part', id: value.toUpperCase(), count: 1 });
        continue;
      case 'dye_item':
        applied.push({ kind: 'dye', id: value.toUpperCase(), count: 1 });
        continue;
      case 'skin':
        if (pet === null) applied.push({ kind: 'skin', id: value.toUpperCase(), count: 1 });
        continue;
      case 'thunder_charge': {
        // A full Thunderlord's bottle holds 50,000 charge; the item counts whole bottles.
        const bottles = Math.floor(num(value) / 50_000);
        if (bottles > 0) applied.push({ kind: 'thunder_in_a_bottle', id: 'THUNDER_IN_A_BOTTLE', count: bottles });
        continue;
      }
      case 'winning_bid':
        // Midas' items: the price paid at the Dark Auction is the item's worth (parts.ts prices it at face value).
        applied.push({ kind: 'winning_bid', id: 'WINNING_BID', count: num(value) });
        continue;
    }
    if (!HARMLESS_KEYS.has(key) && !HARMLESS_KEYS.has(baseKey(key))) unknownKeys.push(key);
  }
  if (pet?.skin) applied.push({ kind: 'skin', id: `PET_SKIN_${pet.skin.toUpperCase()}`, count: 1 });
  return {
    tag: s.tag,
    family: familyOf(s.tag, category),
    tier: s.tier,
    count: s.count,
    pet,
    stars: Math.min(starLevel, 5),
    masterStars: Math.max(0, Math.min(starLevel - 5, 5)),
    enchantments: s.enchantments,
    hotPotatoBooks: Math.min(hpb, 10),
    // The game stops at 15 books (10 hot, 5 fuming): larger stored counts are not believed.
    fumingPotatoBooks: Math.min(5, Math.max(0, hpb - 10)),
    recombobulated: num(f['rarity_upgrades']) > 0,
    reforge: f['modifier'] ?? null,
    gems,
    unlockedSlots,
    attributes,
    applied,
    unknownKeys,
  };
}

/** Slot kinds that hold any of several gems (the gem is named by `<slot>_gem`). */
const UNIVERSAL_SLOTS = new Set(['COMBAT', 'OFFENSIVE', 'DEFENSIVE', 'MINING', 'UNIVERSAL', 'CHISEL']);

/** Counted upgrade items: key → what is applied. `flag`: the key is 0/1. */
const APPLIED_COUNTS: Readonly<Record<string, { kind: AppliedKind; id: string; flag?: boolean }>> = {
  art_of_war_count: { kind: 'art_of_war', id: 'THE_ART_OF_WAR' },
  artOfPeaceApplied: { kind: 'art_of_peace', id: 'THE_ART_OF_PEACE' },
  farming_for_dummies_count: { kind: 'farming_for_dummies', id: 'FARMING_FOR_DUMMIES' },
  ethermerge: { kind: 'etherwarp', id: 'ETHERWARP_CONDUIT', flag: true },
  wood_singularity_count: { kind: 'wood_singularity', id: 'WOOD_SINGULARITY' },
  tuned_transmission: { kind: 'transmission_tuner', id: 'TRANSMISSION_TUNER' },
  mana_disintegrator_count: { kind: 'mana_disintegrator', id: 'MANA_DISINTEGRATOR' },
  jalapeno_count: { kind: 'jalapeno_book', id: 'JALAPENO_BOOK' },
  polarvoid: { kind: 'polarvoid_book', id: 'POLARVOID_BOOK' },
  bookworm_books: { kind: 'bookworm_book', id: 'BOOKWORM_BOOK' },
  divan_powder_coating: { kind: 'divan_powder_coating', id: 'DIVAN_POWDER_COATING', flag: true },
  stats_book: { kind: 'stats_book', id: 'BOOK_OF_STATS', flag: true },
};

function petOf(f: Readonly<Record<string, string>>): ItemTraits['pet'] {
  const type = f['petInfo.type'];
  if (type === undefined) return null;
  const tier = f['petInfo.tier'] ?? 'COMMON';
  const level = petLevel(type, tier, num(f['petInfo.exp']));
  const held = f['petInfo.heldItem'];
  const skin = f['petInfo.skin'];
  return {
    type,
    level,
    band: petLevelBand(level),
    heldItem: held === undefined || held === '' || held === 'null' ? null : held,
    candyUsed: num(f['petInfo.candyUsed']),
    skin: skin === undefined || skin === '' || skin === 'null' ? null : skin,
  };
}
