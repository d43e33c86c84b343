/**
 * Which filters apply to an item and which values they take (`GET /api/filter/options`), so a
 * client can build a filter UI: the filter engine's own filters (domain/filters.ts), each with
 * the established FilterOptions shape, its values read from the item's listings where they vary.
 */
import { ENCHANTMENT_NAMES } from './enchantments.ts';
import { FILTER_NAMES, nbtFilterFacts, RARITIES, starsOf, type FilterSubject, type NbtFilterFacts } from './filters.ts';

/**
 * The established service's FilterType flags, named as its front end reads them: 64 asks for a
 * player picker, 1024 for item icons beside the options; a free-text filter is `Equal, RANGE`
 * (the front end's plain text box).
 */
export const FILTER_TYPE = {
  Equal: 1,
  HIGHER: 2,
  LOWER: 4,
  DATE: 8,
  NUMERICAL: 16,
  RANGE: 32,
  PLAYER: 64,
  SIMPLE: 128,
  BOOLEAN: 256,
  PLAYER_WITH_RANK: 512,
  SHOW_ICON: 1024,
} as const;
type FilterTypeName = keyof typeof FILTER_TYPE;

/** Names of the set flags, in value order, joined by ", " (as Newtonsoft writes a [Flags] enum). */
export function filterTypeText(bits: number): string {
  return (Object.keys(FILTER_TYPE) as FilterTypeName[]).filter((n) => (bits & FILTER_TYPE[n]) !== 0).join(', ');
}

export interface FilterOptions {
  name: string;
  options: string[];
  type: number;
  longType: string;
  description: string;
}

const { Equal, DATE, NUMERICAL, RANGE, PLAYER, BOOLEAN, SHOW_ICON } = FILTER_TYPE;
const NUMBER = NUMERICAL | RANGE;
const FREE_TEXT = Equal | RANGE;

/** What the item's listings show: the values a filter can take for it, and whether a filter applies at all. */
interface Seen {
  tiers: Set<string>;
  reforges: Set<string>;
  enchantments: Map<string, Set<number>>;
  petItems: Set<string>;
  skins: Set<string>;
  /** NBT keys seen, with the values seen (up to VALUES_KEPT each) */
  nbt: Map<string, Set<string>>;
  stars: Set<number>;
  stacked: boolean;
}

function seenIn(listings: readonly FilterSubject[]): Seen {
  const seen: Seen = { tiers: new Set(), reforges: new Set(), enchantments: new Map(), petItems: new Set(), skins: new Set(), nbt: new Map(), stars: new Set(), stacked: false };
  for (const l of listings) {
    if (l.tier) seen.tiers.add(l.tier);
    if (l.reforge) seen.reforges.add(l.reforge);
    for (const [name, level] of Object.entries(l.enchantments)) {
      const levels = seen.enchantments.get(name) ?? new Set<number>();
      levels.add(level);
      seen.enchantments.set(name, levels);
    }
    for (const key in l.flatNbt) {
      const values = seen.nbt.get(key) ?? new Set<string>();
      if (values.size < VALUES_KEPT) values.add(l.flatNbt[key]!);
      seen.nbt.set(key, values);
    }
    const petItem = l.flatNbt['petInfo.heldItem'];
    if (petItem) seen.petItems.add(petItem);
    const skin = l.flatNbt['petInfo.skin'] ?? l.flatNbt['skin'];
    if (skin) seen.skins.add(skin);
    const stars = starsOf(l);
    if (stars > 0) seen.stars.add(stars);
    if (l.count > 1) seen.stacked = true;
  }
  return seen;
}

/** Values offered per NBT-backed filter, at most. */
const VALUES_KEPT = 50;

const has = (seen: Seen, ...keys: string[]) => keys.some((k) => seen.nbt.has(k) || [...seen.nbt.keys()].some((n) => n.startsWith(`${k}.`)));

const sorted = (values: Iterable<string | number>): string[] => [...values].map(String).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

interface FilterSpec {
  type: number;
  description: string;
  /** the values to offer; undefined: the filter does not apply to this item */
  options(seen: Seen, isPet: boolean): string[] | undefined;
}

const always = (options: string[] = []) => () => options;
const when = (test: (seen: Seen, isPet: boolean) => boolean, options: (seen: Seen) => string[] = () => []) => (seen: Seen, isPet: boolean) =>
  test(seen, isPet) ? options(seen) : undefined;

/** Every fixed filter of the engine; tests check that none is missing. */
const SPECS: Record<string, FilterSpec> = {
  Rarity: { type: Equal, description: 'the rarity (any: every rarity)', options: (seen) => (seen.tiers.size > 0 ? sorted(seen.tiers) : RARITIES.slice(1)) },
  ItemTier: { type: Equal, description: 'the rarity (same as Rarity)', options: (seen) => (seen.tiers.size > 0 ? sorted(seen.tiers) : RARITIES.slice(1)) },
  Reforge: { type: Equal, description: 'the reforge; Any: any reforge, None: none', options: when((s) => s.reforges.size > 0, (s) => ['Any', 'None', ...sorted(s.reforges)]) },
  Bin: { type: BOOLEAN, description: 'buy it now (true) or auction (false)', options: always(['true', 'false']) },
  Sold: { type: BOOLEAN, description: 'sold (true) or not (false); on the sold and archive routes', options: always(['true', 'false']) },
  Stars: { type: NUMBER, description: 'dungeon stars (upgrade level)', options: when((s) => s.stars.size > 0, (s) => sorted(s.stars)) },
  Enchantment: { type: Equal, description: 'has this enchantment (None: no enchantment); with EnchantLvl', options: when((s) => s.enchantments.size > 0, (s) => ['None', ...sorted(s.enchantments.keys())]) },
  EnchantLvl: { type: NUMBER, description: 'level of the Enchantment filter', options: when((s) => s.enchantments.size > 0, (s) => sorted(new Set([...s.enchantments.values()].flatMap((l) => [...l])))) },
  SecondEnchantment: { type: Equal, description: 'a second enchantment; with SecondEnchantLvl', options: when((s) => s.enchantments.size > 1, (s) => sorted(s.enchantments.keys())) },
  SecondEnchantLvl: { type: NUMBER, description: 'level of the SecondEnchantment filter', options: when((s) => s.enchantments.size > 1) },
  PetLevel: { type: NUMBER, description: "the pet's level", options: when((_, pet) => pet) },
  PetItem: { type: Equal | SHOW_ICON, description: "the pet's held item", options: when((_, pet) => pet, (s) => sorted(s.petItems)) },
  Candy: { type: NUMBER, description: 'pet candies used', options: when((_, pet) => pet) },
  PetExp: { type: NUMBER, description: "the pet's experience", options: when((_, pet) => pet) },
  PetSkin: { type: Equal, description: "the pet's skin", options: when((s, pet) => pet && s.skins.size > 0, (s) => sorted(s.skins)) },
  Skin: { type: Equal, description: 'the skin applied', options: when((s) => s.skins.size > 0, (s) => sorted(s.skins)) },
  Recombobulated: { type: BOOLEAN, description: 'rarity upgraded with a Recombobulator 3000', options: always(['true', 'false']) },
  HotPotatoCount: { type: NUMBER, description: 'hot and fuming potato books applied', options: when((s) => has(s, 'hot_potato_count')) },
  IsShiny: { type: BOOLEAN, description: 'a shiny item', options: when((s) => has(s, 'is_shiny'), () => ['true', 'false']) },
  ItemNameContains: { type: FREE_TEXT, description: 'the item name contains this (at most 64 characters)', options: always() },
  Seller: { type: PLAYER, description: 'the seller: a 32-hex uuid or a Minecraft name skymarket has seen', options: always() },
  StartingBid: { type: NUMBER, description: 'the starting bid in coins (k, m, b suffixes allowed)', options: always() },
  HighestBid: { type: NUMBER, description: 'the highest bid in coins', options: always() },
  WinningBid: { type: NUMBER, description: 'the winning bid in coins (same as HighestBid)', options: always() },
  Count: { type: NUMBER, description: 'items in the stack', options: when((s) => s.stacked) },
  PricePerUnit: { type: NUMBER, description: 'the price divided by the stack size', options: when((s) => s.stacked) },
  EndBefore: { type: DATE | NUMERICAL, description: 'ends (or sold) before this unix time in seconds', options: always() },
  EndAfter: { type: DATE | NUMERICAL, description: 'ends (or sold) after this unix time in seconds', options: always() },
  ItemCreatedBefore: { type: DATE | NUMERICAL, description: 'the item was created before this unix time in seconds', options: always() },
  ItemCreatedAfter: { type: DATE | NUMERICAL, description: 'the item was created after this unix time in seconds', options: always() },
  ItemId: { type: Equal, description: 'the item tag (cross-item routes)', options: always() },
  ItemTag: { type: Equal, description: 'the item tag (same as ItemId)', options: always() },
  UId: { type: Equal, description: "the item's uid (last 12 hex of its uuid)", options: always() },
  Clean: { type: BOOLEAN, description: 'no enchantments, potato books, recombobulator, gems, runes, dye or skin', options: always(['true', 'false']) },
  Everything: { type: BOOLEAN, description: 'matches every auction', options: always(['true']) },
  HasAttribute: { type: BOOLEAN, description: 'carries Kuudra attributes', options: when((s) => has(s, 'attributes'), () => ['true', 'false']) },
  UnlockedSlots: { type: Equal, description: 'these gem slots are unlocked (comma-joined, e.g. COMBAT_0), any or none', options: when((s) => has(s, 'gems.unlocked_slots'), (s) => sorted(s.nbt.get('gems.unlocked_slots') ?? [])) },
  UnlockedSlotsMatch: { type: Equal, description: 'exactly these gem slots are unlocked', options: when((s) => has(s, 'gems.unlocked_slots'), (s) => sorted(s.nbt.get('gems.unlocked_slots') ?? [])) },
  PerfectGemsCount: { type: NUMBER, description: 'perfect gemstones applied', options: when((s) => has(s, 'gems')) },
  FlawlessGemsCount: { type: NUMBER, description: 'flawless gemstones applied', options: when((s) => has(s, 'gems')) },
  AbilityScroll: { type: Equal, description: 'these ability scrolls applied, any or none', options: when((s) => has(s, 'ability_scroll'), (s) => sorted(s.nbt.get('ability_scroll') ?? [])) },
  IntelligenceBonus: { type: NUMBER, description: 'Bottle of Jyrre bonus in whole hours', options: when((s) => has(s, 'bottle_of_jyrre_seconds')) },
  GrowthStages: { type: NUMBER, description: 'Rosewater flask growth stages', options: when((s) => has(s, 'seconds_held')) },
  PricePerLevel: { type: NUMBER, description: 'price per pet level', options: when((_, pet) => pet) },
  HexColorList: { type: Equal, description: 'the dye colour as hex (FF0000), alternatives by | or ,', options: when((s) => has(s, 'color')) },
  NoOtherValuableEnchants: { type: BOOLEAN, description: 'no enchantment at level 6 or above besides those the other filters name', options: when((s) => s.enchantments.size > 0, () => ['true']) },
};

/** A filter the engine builds from NBT values: it applies where a listing has one of its keys. */
function nbtSpec(name: string, facts: NbtFilterFacts): FilterSpec {
  const keys = facts.keys.join('` or `');
  const values = (seen: Seen) => sorted(new Set(facts.keys.flatMap((k) => [...(seen.nbt.get(k) ?? [])])));
  switch (facts.kind) {
    case 'number':
      return { type: NUMBER, description: `the item's \`${keys}\` (a number)`, options: when((s) => has(s, ...facts.keys)) };
    case 'bool':
      return { type: BOOLEAN, description: `the item has \`${keys}\``, options: when((s) => has(s, ...facts.keys), () => ['true', 'false']) };
    default:
      return { type: Equal, description: `the item's \`${keys}\`${facts.kind === 'list' ? ' (a list: every value named, any or none)' : ''}`, options: when((s) => has(s, ...facts.keys), values) };
  }
}

/** How a fixed filter is described: its own entry, else what its NBT facts say; undefined: not described. */
function specOf(name: string): FilterSpec | undefined {
  const spec = SPECS[name];
  if (spec) return spec;
  const facts = nbtFilterFacts(name);
  return facts && nbtSpec(name, facts);
}

/** Fixed filter names described, for the test that keeps the table complete. */
export const DESCRIBED_FILTERS: readonly string[] = FILTER_NAMES.filter((n) => specOf(n) !== undefined);

/**
 * The filters that apply to an item whose active listings are `listings`, with their values:
 * the engine's fixed filters (those that cannot apply to it left out: pet filters for a non-pet,
 * Stars where no listing has stars …), then one numeric filter per enchantment seen on it.
 * Without listings (`itemTag` absent), every fixed filter.
 */
export function filterOptions(listings: readonly FilterSubject[], isPet: boolean, all = false): FilterOptions[] {
  const seen = seenIn(listings);
  const out: FilterOptions[] = [];
  for (const name of FILTER_NAMES) {
    const spec = specOf(name);
    if (!spec) continue;
    const options = spec.options(seen, isPet) ?? (all ? [] : undefined);
    if (options === undefined) continue;
    out.push({ name, options, type: spec.type, longType: filterTypeText(spec.type), description: spec.description });
  }
  for (const [name, levels] of [...seen.enchantments].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    out.push({ name, options: sorted(levels), type: NUMBER, longType: filterTypeText(NUMBER), description: `level of the ${name} enchantment (0: without it)` });
  }
  return out;
}

/** How a filter's value is typed where it is declared as a parameter (the OpenAPI document). */
export type FilterValueKind = 'boolean' | 'number' | 'date' | 'text';

export interface FilterParameter {
  name: string;
  kind: FilterValueKind;
  /** the only values it takes (names compare case-insensitively), where the engine has a fixed list */
  values?: readonly string[];
  description: string;
}

/** Fixed value lists of the filters that have one. */
const FILTER_VALUES: Readonly<Record<string, readonly string[]>> = {
  Rarity: [...RARITIES, 'any'],
  ItemTier: [...RARITIES, 'any'],
  Enchantment: ['None', ...sorted(ENCHANTMENT_NAMES)],
  SecondEnchantment: ['None', ...sorted(ENCHANTMENT_NAMES)],
};

function kindOf(type: number): FilterValueKind {
  if (type & BOOLEAN) return 'boolean';
  if (type & DATE) return 'date';
  if (type & NUMERICAL) return 'number';
  return 'text';
}

/** Every fixed filter of the engine as a typed parameter, in the engine's order. */
export function filterParameters(): FilterParameter[] {
  return DESCRIBED_FILTERS.map((name) => {
    const spec = specOf(name)!;
    const values = FILTER_VALUES[name];
    return { name, kind: kindOf(spec.type), ...(values ? { values } : {}), description: spec.description };
  });
}
