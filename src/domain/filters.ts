/**
 * The auction filter engine: one compiler for every endpoint that takes filters
 * (lowest BIN, overviews, active filter, sold history, analysis, POST /api/Filter).
 *
 * Filters arrive as a map of name → value. Names are case-insensitive; `t` is
 * ignored and empty values are skipped. `compileFilters` validates every filter once
 * per request and returns a predicate evaluated against `FilterSubject`s (the
 * in-memory view's records or a posted auction). An unknown name or a malformed value
 * throws `FilterError`, which names the filter; routes turn it into a 400 problem.
 *
 * Value syntax (numbers): `5`, `1-5` (inclusive), `>5`, `<5`, `>=5`, `<=5`, `5-` (= >5),
 * `any` (> 0), `none` (= 0), alternatives `a|b|c` (at most 20). Numbers may carry a
 * k/m/b suffix (`2.5m`). Dates are unix seconds. Text filters take a value, `any`
 * (present) or `none` (absent), and `a|b` alternatives. Pure: no I/O.
 */
import { petLevel } from './pets.ts';
import { ATTRIBUTE_NAMES, ENCHANTMENT_ALIASES, ENCHANTMENT_NAMES } from './enchantments.ts';

/** What a filter sees of an auction (active or sold). Times are epoch ms. */
export interface FilterSubject {
  tag: string;
  itemName: string;
  tier: string | null;
  reforge: string | null;
  bin: boolean;
  startingBid: number;
  highestBid: number;
  count: number;
  seller: string;
  start: number | null;
  end: number;
  itemCreatedAt: number | null;
  /** last 12 hex characters of the item uuid, lower case */
  itemUid: string | null;
  /** enchantment (lower case) → level */
  enchantments: Readonly<Record<string, number>>;
  /** flattened ExtraAttributes (see domain/nbt.ts), all values strings */
  flatNbt: Readonly<Record<string, string>>;
  sold: boolean;
}

export type FilterPredicate = (subject: FilterSubject) => boolean;

export interface CompiledFilter {
  /** true when the subject passes every filter */
  test: FilterPredicate;
  /** the filters in effect, by canonical name (empty: matches everything) */
  names: string[];
}

/** A filter the engine cannot use; `filter` is the name as the caller sent it. */
export class FilterError extends Error {
  override readonly name = 'FilterError';
  constructor(
    readonly filter: string,
    readonly slug: 'unknown_filter' | 'unsupported_filter' | 'invalid_filter' | 'invalid_number' | 'invalid_rarity' | 'unknown_player' | 'too_many_filters',
    message: string,
  ) {
    // Every message names the filter, so a client sees which one to fix.
    super(message.includes(`\`${filter}\``) ? message : `Filter \`${filter}\`: ${message}`);
  }
}

export const MAX_ALTERNATIVES = 20;
export const MAX_FILTERS = 40;
export const MAX_FILTER_VALUE_LENGTH = 200;

export const RARITIES = [
  'UNKNOWN', 'COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'SPECIAL', 'VERY_SPECIAL', 'MYTHIC', 'DIVINE', 'ULTIMATE', 'SUPREME',
] as const;
const GEM_QUALITIES = new Set(['ROUGH', 'FLAWED', 'FINE', 'FLAWLESS', 'PERFECT']);
const GEM_SLOT_NAMES = [
  'ruby', 'jasper', 'jade', 'topaz', 'amethyst', 'amber', 'sapphire', 'opal', 'peridot', 'aquamarine', 'citrine',
  'onyx', 'combat', 'offensive', 'defensive', 'mining', 'universal', 'chisel',
];
const GEM_GROUPS = new Set(['combat', 'offensive', 'defensive', 'mining', 'universal', 'chisel']);

// ---------------------------------------------------------------------------
// Values

/** `5`, `2.5k`, `1,000,000`, `3m`, `1b` → number; NaN when not a number. */
export function parseFilterNumber(raw: string): number {
  const m = /^([0-9][0-9_,]*(?:\.[0-9]+)?|\.[0-9]+)\s*([kmb])?$/i.exec(raw.trim());
  if (!m) return Number.NaN;
  const base = Number(m[1]!.replace(/[_,]/g, ''));
  const suffix = m[2]?.toLowerCase();
  const factor = suffix === 'k' ? 1e3 : suffix === 'm' ? 1e6 : suffix === 'b' ? 1e9 : 1;
  return base * factor;
}

type NumberTest = (v: number) => boolean;

function alternatives(filter: string, value: string): string[] {
  const parts = value.split('|').map((p) => p.trim());
  if (parts.length > MAX_ALTERNATIVES) {
    throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` has more than ${MAX_ALTERNATIVES} alternatives`);
  }
  if (parts.some((p) => p === '')) throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` has an empty alternative`);
  return parts;
}

/** Compiles the number syntax into a test; throws FilterError naming `filter`. */
export function numberCondition(filter: string, value: string): NumberTest {
  const tests = alternatives(filter, value).map((part) => singleNumberCondition(filter, part));
  return tests.length === 1 ? tests[0]! : (v) => tests.some((t) => t(v));
}

function singleNumberCondition(filter: string, part: string): NumberTest {
  const lower = part.toLowerCase();
  if (lower === 'any') return (v) => v > 0;
  if (lower === 'none') return (v) => v === 0;
  const num = (s: string) => {
    const n = parseFilterNumber(s);
    if (!Number.isFinite(n)) {
      throw new FilterError(filter, 'invalid_number', `The filter \`${filter}\` needs a number, a range like 1-5, >5 or <5, any or none (got \`${part}\`)`);
    }
    return n;
  };
  let m: RegExpExecArray | null;
  if ((m = /^(>=|<=|>|<)\s*(.+)$/.exec(part))) {
    const n = num(m[2]!);
    switch (m[1]) {
      case '>=':
        return (v) => v >= n;
      case '<=':
        return (v) => v <= n;
      case '>':
        return (v) => v > n;
      default:
        return (v) => v < n;
    }
  }
  if ((m = /^([^-]+)-$/.exec(part))) {
    const n = num(m[1]!);
    return (v) => v > n;
  }
  if ((m = /^([^-]+)-([^-]+)$/.exec(part))) {
    const lo = num(m[1]!);
    const hi = num(m[2]!);
    if (lo > hi) throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` has a range whose start is above its end (\`${part}\`)`);
    return (v) => v >= lo && v <= hi;
  }
  const n = num(part);
  return (v) => v === n;
}

/** Unix seconds → epoch ms; throws `invalid_number` naming the filter. */
function dateValue(filter: string, value: string): number {
  if (!/^\d{1,12}$/.test(value.trim())) {
    throw new FilterError(filter, 'invalid_number', `The filter \`${filter}\` has to be a number (unix seconds), got \`${value}\``);
  }
  return Number(value.trim()) * 1000;
}

function boolValue(value: string): boolean {
  const v = value.trim().toLowerCase();
  return v === 'true' || v === '1' || v === 'yes';
}

/**
 * Text filter: `any` (present), `none` (absent), or alternatives compared
 * case-insensitively. `check` validates one alternative (throw to reject).
 */
function textCondition(filter: string, value: string, check?: (alt: string) => void): (v: string | null | undefined) => boolean {
  const lower = value.trim().toLowerCase();
  if (lower === 'any') return (v) => v !== null && v !== undefined && v !== '';
  if (lower === 'none') return (v) => v === null || v === undefined || v === '';
  const alts = alternatives(filter, value);
  if (check) alts.forEach(check);
  const wanted = new Set(alts.map((a) => a.toLowerCase()));
  return (v) => v !== null && v !== undefined && wanted.has(v.toLowerCase());
}

function numOf(s: string | undefined): number {
  if (s === undefined) return 0;
  const n = Number(s);
  return Number.isFinite(n) ? n : 0;
}

// ---------------------------------------------------------------------------
// Subject accessors

export function starsOf(s: FilterSubject): number {
  return numOf(s.flatNbt['upgrade_level'] ?? s.flatNbt['dungeon_item_level']);
}

export function petLevelOf(s: Pick<FilterSubject, 'flatNbt'>): number {
  const type = s.flatNbt['petInfo.type'];
  if (type === undefined) return 0;
  return petLevel(type, s.flatNbt['petInfo.tier'] ?? 'COMMON', numOf(s.flatNbt['petInfo.exp']));
}

/** The price an auction goes for: its highest bid, else its starting bid. */
export function priceOf(s: Pick<FilterSubject, 'highestBid' | 'startingBid'>): number {
  return s.highestBid > 0 ? s.highestBid : s.startingBid;
}

function gemQuality(s: FilterSubject, slot: string): string | undefined {
  return s.flatNbt[`gems.${slot}`] ?? s.flatNbt[`gems.${slot}.quality`];
}

function gemQualities(s: FilterSubject): string[] {
  const out: string[] = [];
  for (const key of Object.keys(s.flatNbt)) {
    if (!key.startsWith('gems.') || key.endsWith('_gem') || key === 'gems.unlocked_slots') continue;
    const v = s.flatNbt[key]!;
    if (GEM_QUALITIES.has(v)) out.push(v);
  }
  return out;
}

function hasAttributes(s: FilterSubject): boolean {
  for (const key of Object.keys(s.flatNbt)) if (key.startsWith('attributes.')) return true;
  return false;
}

// ---------------------------------------------------------------------------
// Filter table

/** What compiling may need beyond the filters themselves. */
export interface CompileOptions {
  /** lower-case player name → player uuid (32 hex), for `Seller` given by name; see `resolveFilterPlayers` */
  players?: ReadonlyMap<string, string>;
}

type Builder = (value: string, filter: string, all: ReadonlyMap<string, string>, options: CompileOptions) => FilterPredicate | null;

const numeric =
  (read: (s: FilterSubject) => number): Builder =>
  (value, filter) => {
    const test = numberCondition(filter, value);
    return (s) => test(read(s));
  };

/** What a filter built from one NBT value reads, so filter options can tell which items it applies to. */
export interface NbtFilterFacts {
  kind: 'number' | 'text' | 'bool' | 'list';
  keys: readonly string[];
}
const NBT_FACTS = new WeakMap<Builder, NbtFilterFacts>();
function reads<B extends Builder>(builder: B, kind: NbtFilterFacts['kind'], keys: readonly string[]): B {
  NBT_FACTS.set(builder, { kind, keys });
  return builder;
}

const nbtNumber = (key: string): Builder => reads(numeric((s) => numOf(s.flatNbt[key])), 'number', [key]);
/** Text of the first of `keys` the item has (the game moved some values between keys). */
const nbtText = (...keys: string[]): Builder =>
  reads(
    (value, filter) => {
      const test = textCondition(filter, value);
      if (keys.length === 1) return (s) => test(s.flatNbt[keys[0]!]);
      return (s) => {
        for (const k of keys) if (s.flatNbt[k] !== undefined) return test(s.flatNbt[k]);
        return test(undefined);
      };
    },
    'text',
    keys,
  );
const nbtBool = (key: string): Builder =>
  reads(
    (value) => {
      const want = boolValue(value);
      return (s) => {
        const v = s.flatNbt[key];
        const present = v !== undefined && v !== '0' && v.toLowerCase() !== 'false';
        return present === want;
      };
    },
    'bool',
    [key],
  );
/** Applied-upgrade counters: `yes`/`true`/`no`/`false` ask whether it is applied (as the reference's filter does), numbers compare the count. */
const nbtAppliedCount = (key: string): Builder =>
  reads(
    (value, filter, all, options) =>
      /^(yes|no|true|false)$/i.test(value.trim()) ? nbtBool(key)(value, filter, all, options) : nbtNumber(key)(value, filter, all, options),
    'number',
    [key],
  );
/** A comma-joined list value holding every wanted element (`any` / `none` for presence). */
const listContains = (key: string): Builder =>
  reads(
    (value, filter) => {
      const v = value.trim().toLowerCase();
      if (v === 'none') return (s) => !s.flatNbt[key];
      if (v === 'any') return (s) => Boolean(s.flatNbt[key]);
      const wanted = alternatives(filter, value).map((a) => a.toUpperCase());
      return (s) => {
        const have = new Set((s.flatNbt[key] ?? '').split(',').map((x) => x.trim().toUpperCase()));
        return wanted.every((w) => have.has(w));
      };
    },
    'list',
    [key],
  );
const dateBefore =
  (read: (s: FilterSubject) => number | null): Builder =>
  (value, filter) => {
    const limit = dateValue(filter, value);
    return (s) => {
      const v = read(s);
      return v !== null && v < limit;
    };
  };
const dateAfter =
  (read: (s: FilterSubject) => number | null): Builder =>
  (value, filter) => {
    const limit = dateValue(filter, value);
    return (s) => {
      const v = read(s);
      return v !== null && v > limit;
    };
  };

function enchantmentName(filter: string, value: string): string {
  const name = value.trim().toLowerCase();
  const resolved = ENCHANTMENT_ALIASES[name] ?? name;
  if (!ENCHANTMENT_NAMES.has(resolved)) {
    throw new FilterError(filter, 'invalid_filter', `The enchantment \`${value}\` of filter \`${filter}\` is not known`);
  }
  return resolved;
}

/** `Enchantment` (+ `EnchantLvl`) and `SecondEnchantment` (+ `SecondEnchantLvl`). */
const enchantmentFilter =
  (levelKey: string): Builder =>
  (value, filter, all) => {
    if (value.trim().toLowerCase() === 'none') return (s) => Object.keys(s.enchantments).length === 0;
    const name = enchantmentName(filter, value);
    const level = all.get(levelKey.toLowerCase());
    const test = level !== undefined ? numberCondition(levelKey, level) : (v: number) => v > 0;
    return (s) => test(s.enchantments[name] ?? 0);
  };

const enchantLevelFilter =
  (enchantKey: string): Builder =>
  (value, filter, all) => {
    if (!all.has(enchantKey.toLowerCase())) {
      throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` needs the filter \`${enchantKey}\` as well`);
    }
    numberCondition(filter, value); // validated here, applied by the enchantment filter
    return null;
  };

const uuidHex = /^[0-9a-f]{32}$/;
const PLAYER_NAME = /^[A-Za-z0-9_]{1,16}$/;

/** Canonical name → builder. Keys are matched case-insensitively. */
const FILTERS: Record<string, Builder> = {
  Rarity: (value, filter) => {
    if (value.trim().toLowerCase() === 'any') return () => true;
    const alts = alternatives(filter, value).map((a) => a.toUpperCase().replace(/ /g, '_'));
    for (const a of alts) {
      if (!(RARITIES as readonly string[]).includes(a)) {
        throw new FilterError(filter, 'invalid_rarity', `The passed rarity \`${a}\` is not valid`);
      }
    }
    const wanted = new Set(alts);
    return (s) => s.tier !== null && wanted.has(s.tier.toUpperCase());
  },
  ItemTier: (value, filter, all, options) => FILTERS['Rarity']!(value, filter, all, options),
  Reforge: (value, filter) => {
    const v = value.trim().toLowerCase();
    if (v === 'any') return (s) => s.reforge !== null && s.reforge !== '';
    if (v === 'none') return (s) => s.reforge === null || s.reforge === '';
    const test = textCondition(filter, value, (alt) => {
      if (!/^[a-z_']{1,40}$/i.test(alt)) throw new FilterError(filter, 'invalid_filter', `The reforge \`${alt}\` is not valid`);
    });
    return (s) => test(s.reforge?.replace(/ /g, '_') ?? null) || test(s.reforge);
  },
  Bin: (value) => {
    const want = boolValue(value);
    return (s) => s.bin === want;
  },
  Sold: (value) => {
    const want = boolValue(value);
    return (s) => s.sold === want;
  },
  Stars: numeric(starsOf),
  Enchantment: enchantmentFilter('EnchantLvl'),
  EnchantLvl: enchantLevelFilter('Enchantment'),
  SecondEnchantment: enchantmentFilter('SecondEnchantLvl'),
  SecondEnchantLvl: enchantLevelFilter('SecondEnchantment'),
  PetLevel: numeric(petLevelOf),
  PetItem: nbtText('petInfo.heldItem'),
  Candy: nbtNumber('petInfo.candyUsed'),
  PetExp: nbtNumber('petInfo.exp'),
  PetSkin: nbtText('petInfo.skin'),
  Skin: (value, filter) => {
    const test = textCondition(filter, value);
    return (s) => test(s.flatNbt['petInfo.skin'] ?? s.flatNbt['skin']);
  },
  Recombobulated: (value) => {
    const want = boolValue(value);
    return (s) => numOf(s.flatNbt['rarity_upgrades']) > 0 === want;
  },
  HotPotatoCount: nbtNumber('hot_potato_count'),
  IsShiny: nbtBool('is_shiny'),
  ItemNameContains: (value, filter) => {
    const needle = value.trim().toLowerCase();
    if (needle.length > 64) throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` is longer than 64 characters`);
    return (s) => s.itemName.toLowerCase().includes(needle);
  },
  Seller: (value, filter, _all, options) => {
    const wanted = new Set<string>();
    for (const alt of alternatives(filter, value)) {
      const hex = alt.replace(/-/g, '').toLowerCase();
      if (uuidHex.test(hex)) {
        wanted.add(hex);
        continue;
      }
      if (!PLAYER_NAME.test(alt)) {
        throw new FilterError(filter, 'invalid_filter', `The seller \`${alt}\` is neither a player uuid (32 hex) nor a Minecraft name (1-16 letters, digits, _)`);
      }
      const uuid = options.players?.get(alt.toLowerCase());
      if (uuid === undefined) throw new FilterError(filter, 'unknown_player', `The player \`${alt}\` is not known to skymarket; pass the 32-hex uuid instead`);
      wanted.add(uuid.replace(/-/g, '').toLowerCase());
    }
    return (s) => wanted.has(s.seller.replace(/-/g, '').toLowerCase());
  },
  StartingBid: numeric((s) => s.startingBid),
  HighestBid: numeric((s) => s.highestBid),
  WinningBid: numeric((s) => s.highestBid),
  Count: numeric((s) => s.count),
  PricePerUnit: numeric((s) => priceOf(s) / Math.max(1, s.count)),
  EndBefore: dateBefore((s) => s.end),
  EndAfter: dateAfter((s) => s.end),
  ItemCreatedBefore: dateBefore((s) => s.itemCreatedAt),
  ItemCreatedAfter: dateAfter((s) => s.itemCreatedAt),
  ItemId: (value, filter) => {
    const alts = alternatives(filter, value).flatMap((a) => a.split(/[,;]/)).map((a) => a.trim().toUpperCase());
    for (const a of alts) {
      if (!/^[A-Z0-9_:;\-]{1,64}$/.test(a)) throw new FilterError(filter, 'invalid_filter', `The item tag \`${a}\` is not valid`);
    }
    const wanted = new Set(alts);
    return (s) => wanted.has(s.tag.toUpperCase());
  },
  ItemTag: (value, filter, all, options) => FILTERS['ItemId']!(value, filter, all, options),
  UId: (value, filter) => {
    const alts = alternatives(filter, value).map((a) => a.replace(/-/g, '').toLowerCase());
    for (const a of alts) {
      if (!/^[0-9a-f]{12,32}$/.test(a)) throw new FilterError(filter, 'invalid_filter', `The uid \`${a}\` is not 12 to 32 hex characters`);
    }
    const wanted = new Set(alts.map((a) => a.slice(-12)));
    return (s) => s.itemUid !== null && wanted.has(s.itemUid);
  },
  Clean: (value) => {
    const want = boolValue(value);
    const extras = ['hot_potato_count', 'rarity_upgrades', 'modifier', 'art_of_war_count', 'dye_item', 'skin'];
    return (s) => {
      const clean =
        Object.keys(s.enchantments).length === 0 &&
        extras.every((k) => s.flatNbt[k] === undefined) &&
        !Object.keys(s.flatNbt).some((k) => k.startsWith('gems.') || k.startsWith('runes.'));
      return clean === want;
    };
  },
  Color: nbtText('color'),
  HasAttribute: (value) => {
    const want = boolValue(value);
    return (s) => hasAttributes(s) === want;
  },
  UnlockedSlots: (value, filter) => {
    const v = value.trim().toLowerCase();
    if (v === 'none') return (s) => !s.flatNbt['gems.unlocked_slots'];
    if (v === 'any') return (s) => Boolean(s.flatNbt['gems.unlocked_slots']);
    const wanted = value.split(',').map((x) => x.trim().toUpperCase());
    if (wanted.some((w) => !/^[A-Z_]+_\d$/.test(w))) {
      throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` takes slots like COMBAT_0,OFFENSIVE_0, any or none`);
    }
    return (s) => {
      const have = new Set((s.flatNbt['gems.unlocked_slots'] ?? '').split(','));
      return wanted.every((w) => have.has(w));
    };
  },
  PerfectGemsCount: numeric((s) => gemQualities(s).filter((q) => q === 'PERFECT').length),
  FlawlessGemsCount: numeric((s) => gemQualities(s).filter((q) => q === 'FLAWLESS').length),
  Everything: () => () => true,
  // Simple ExtraAttributes values
  ZombieKills: nbtNumber('zombie_kills'),
  SpiderKills: nbtNumber('spider_kills'),
  EmanKills: nbtNumber('eman_kills'),
  ExpertiseKills: nbtNumber('expertise_kills'),
  RaiderKills: nbtNumber('raider_kills'),
  SwordKills: nbtNumber('sword_kills'),
  BloodGodKills: nbtNumber('blood_god_kills'),
  RunicKills: nbtNumber('runic_kills'),
  YogsKilled: nbtNumber('yogsKilled'),
  ArtOfTheWar: nbtAppliedCount('art_of_war_count'),
  ArtOfPeace: nbtBool('artOfPeaceApplied'),
  WoodSingularity: nbtAppliedCount('wood_singularity_count'),
  ManaDisintegrator: nbtNumber('mana_disintegrator_count'),
  TunedTransmission: nbtNumber('tuned_transmission'),
  Ethermerge: nbtAppliedCount('ethermerge'),
  ThunderCharge: nbtNumber('thunder_charge'),
  CakeYear: nbtNumber('new_years_cake'),
  PartyHatYear: nbtNumber('party_hat_year'),
  PartyHatColor: nbtText('party_hat_color'),
  PartyHatEmoji: nbtText('party_hat_emoji'),
  Edition: nbtNumber('edition'),
  FarmedCultivating: nbtNumber('farmed_cultivating'),
  MinedCrops: nbtNumber('mined_crops'),
  FarmingForDummies: nbtNumber('farming_for_dummies_count'),
  BaseStatBoost: nbtNumber('baseStatBoostPercentage'),
  JyrreMax: nbtNumber('bottle_of_jyrre_seconds'),
  CollectedCoins: nbtNumber('collected_coins'),
  HandlesFound: nbtNumber('handles_found'),
  PickonimbusDurability: nbtNumber('pickonimbus_durability'),
  DyeItem: nbtText('dye_item'),
  Model: nbtText('model'),
  DrillPartEngine: nbtText('drill_part_engine', 'engine.id'),
  DrillPartFuelTank: nbtText('drill_part_fuel_tank', 'fuel_tank.id'),
  DrillPartUpgradeModule: nbtText('drill_part_upgrade_module', 'upgrade_module.id'),
  PowerAbilityScroll: nbtText('power_ability_scroll'),
  TalismanEnrichment: nbtText('talisman_enrichment'),
  PowderCoating: nbtText('divan_powder_coating', 'powder_coating'),
  CapturedPlayer: nbtText('captured_player'),
  AbilityScroll: (value, filter) => {
    const v = value.trim().toLowerCase();
    if (v === 'none') return (s) => !s.flatNbt['ability_scroll'];
    if (v === 'any') return (s) => Boolean(s.flatNbt['ability_scroll']);
    const wanted = alternatives(filter, value).map((a) => a.toUpperCase());
    return (s) => {
      const have = new Set((s.flatNbt['ability_scroll'] ?? '').split(','));
      return wanted.every((w) => have.has(w));
    };
  },
  DragonArmorSkin: nbtText('skin'),
  ReaperMaskSkin: nbtText('skin'),
  SnowSuiteSkin: nbtText('skin'),
  TarantulaHelmetSkin: nbtText('skin'),
  FrozenBlazeSkin: nbtText('skin'),
  PerfectHelmetSkin: nbtText('skin'),
  DiversMaskSkin: nbtText('skin'),
  ShadowAssasinSkin: nbtText('skin'),
  // More ExtraAttributes values (keys as the game stores them)
  BlazeKills: nbtNumber('blaze_kills'),
  BlazeConsumer: nbtNumber('blaze_consumer'),
  BlocksBroken: nbtNumber('blocksBroken'),
  CakeOwner: nbtText('cake_owner'),
  CrabHatColor: nbtText('party_hat_color'),
  RaffleWin: nbtText('raffle_win'),
  RaffleYear: nbtNumber('raffle_year'),
  JalapenoBook: nbtBool('jalapeno_count'),
  BassWeight: nbtNumber('bass_weight'),
  RodHook: nbtText('hook.part'),
  RodLine: nbtText('line.part'),
  RodSinker: nbtText('sinker.part'),
  DungeonSkillReq: nbtText('dungeon_skill_req'),
  LogsCut: nbtNumber('logs_cut'),
  AbsorbLogs: nbtNumber('absorb_logs_chopped'),
  AxeBoosters: listContains('boosters'),
  PlarvoidBook: nbtNumber('polarvoid'),
  InteligenceEarned: nbtNumber('intelligence_earned'),
  ChimeraFound: nbtNumber('chimera_found'),
  /** Bottle of Jyrre bonus in whole hours of `bottle_of_jyrre_seconds` */
  IntelligenceBonus: numeric((s) => Math.floor(numOf(s.flatNbt['bottle_of_jyrre_seconds']) / 3600)),
  /** Rosewater flask growth stage: one per 50 hours of `seconds_held` */
  GrowthStages: numeric((s) => Math.floor(numOf(s.flatNbt['seconds_held']) / 180_000)),
  /** price per pet level (0 for items that are not levelled pets) */
  PricePerLevel: numeric((s) => {
    const level = petLevelOf(s);
    return level > 0 ? priceOf(s) / level : 0;
  }),
  /** colour as hex (`FF0000`, `#ff0000`), alternatives by `|` or `,` */
  HexColorList: (value, filter) => {
    const wanted = new Set(
      value.split(/[|,]/).map((h) => {
        const hex = h.trim().replace(/^#/, '').toUpperCase();
        if (!/^[0-9A-F]{6}$/.test(hex)) throw new FilterError(filter, 'invalid_filter', `The colour \`${h.trim()}\` of filter \`${filter}\` is not a 6-digit hex colour`);
        return hex;
      }),
    );
    if (wanted.size > MAX_ALTERNATIVES) throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` has more than ${MAX_ALTERNATIVES} colours`);
    return (s) => {
      const hex = hexColor(s.flatNbt['color']);
      return hex !== null && wanted.has(hex);
    };
  },
  /** the unlocked gem slots are exactly these (UnlockedSlots: at least these) */
  UnlockedSlotsMatch: (value, filter) => {
    const v = value.trim().toLowerCase();
    if (v === 'none' || v === 'any') return FILTERS['UnlockedSlots']!(value, filter, new Map(), {});
    const wanted = [...new Set(value.split(',').map((x) => x.trim().toUpperCase()))];
    if (wanted.some((w) => !/^[A-Z_]+_\d$/.test(w))) {
      throw new FilterError(filter, 'invalid_filter', `The filter \`${filter}\` takes slots like COMBAT_0,OFFENSIVE_0, any or none`);
    }
    return (s) => {
      const have = new Set((s.flatNbt['gems.unlocked_slots'] ?? '').split(',').filter(Boolean));
      return have.size === wanted.length && wanted.every((w) => have.has(w));
    };
  },
  /** true: no enchantment at level 6 or above other than those named by the other filters */
  NoOtherValuableEnchants: (value, _filter, all) => {
    if (!boolValue(value)) return null;
    const named = new Set<string>();
    for (const [key, v] of all) {
      const alias = ENCHANTMENT_ALIASES[key] ?? key;
      if (ENCHANTMENT_NAMES.has(alias)) named.add(alias);
      if (key === 'enchantment' || key === 'secondenchantment') {
        const e = v.trim().toLowerCase();
        named.add(ENCHANTMENT_ALIASES[e] ?? e);
      }
    }
    return (s) => Object.entries(s.enchantments).every(([name, level]) => level < 6 || named.has(name));
  },
};

/**
 * Filter names of the reference that skymarket knows but cannot answer, with the reason
 * (a 400 `unsupported_filter` naming the key, rather than a silent pass).
 */
export const UNSUPPORTED_FILTERS: Readonly<Record<string, string>> = {
  ExoticColor: 'it needs the table of exotic armour colours per item, which skymarket does not hold',
  FairyColor: 'it needs the fairy armour colour palette, which skymarket does not hold',
  CrystalColor: 'it needs the crystal armour colour palette, which skymarket does not hold',
  CostPerExpPlusBase: 'it needs the market price of each pet at level 1, which the filter engine does not have',
  gravity: 'no stored enchantment is known to carry this name',
};
const UNSUPPORTED_LOWER = new Map(Object.entries(UNSUPPORTED_FILTERS).map(([k, why]) => [k.toLowerCase(), { name: k, why }]));

/** `"r:g:b"` (as flattened) → `RRGGBB`; null when not a colour. */
function hexColor(raw: string | undefined): string | null {
  const m = raw === undefined ? null : /^(\d{1,3}):(\d{1,3}):(\d{1,3})$/.exec(raw);
  if (!m) return null;
  return [m[1], m[2], m[3]].map((c) => Math.min(255, Number(c)).toString(16).padStart(2, '0')).join('').toUpperCase();
}

const FILTERS_LOWER = new Map(Object.entries(FILTERS).map(([k, b]) => [k.toLowerCase(), { name: k, build: b }]));

/** Filters generated from game data: per enchantment, per attribute, gem slots, runes. */
function generatedFilter(lower: string): { name: string; build: Builder } | undefined {
  if (ATTRIBUTE_NAMES.has(lower) || lower === 'vitality') {
    const attr = lower === 'vitality' ? 'mending' : lower;
    return { name: attr, build: numeric((s) => numOf(s.flatNbt[`attributes.${attr}`])) };
  }
  const enchant = ENCHANTMENT_ALIASES[lower] ?? lower;
  if (ENCHANTMENT_NAMES.has(enchant)) {
    return { name: enchant, build: numeric((s) => s.enchantments[enchant] ?? 0) };
  }
  let m = /^([a-z_]+?)_?(\d)gemtype$/.exec(lower);
  if (m && GEM_GROUPS.has(m[1]!)) {
    const slot = `${m[1]!.toUpperCase()}_${m[2]}`;
    return { name: `${m[1]}${m[2]}GemType`, build: nbtText(`gems.${slot}_gem`) };
  }
  m = /^([a-z_]+?)_?(\d)gem$/.exec(lower);
  if (m && GEM_SLOT_NAMES.includes(m[1]!)) {
    const slot = `${m[1]!.toUpperCase()}_${m[2]}`;
    return {
      name: `${m[1]}${m[2]}Gem`,
      build: (value, filter) => {
        const test = textCondition(filter, value, (alt) => {
          if (!GEM_QUALITIES.has(alt.toUpperCase())) {
            throw new FilterError(filter, 'invalid_filter', `The gem quality \`${alt}\` is not one of ${[...GEM_QUALITIES].join(', ')}`);
          }
        });
        return (s) => test(gemQuality(s, slot));
      },
    };
  }
  m = /^([a-z_]+)rune$/.exec(lower);
  if (m) {
    const rune = m[1]!.replace(/_$/, '').toUpperCase();
    return { name: `${m[1]}Rune`, build: numeric((s) => numOf(s.flatNbt[`runes.${rune}`])) };
  }
  return undefined;
}

/** What a fixed filter built from NBT values reads (undefined for the others). */
export function nbtFilterFacts(name: string): NbtFilterFacts | undefined {
  const builder = FILTERS[name];
  return builder && NBT_FACTS.get(builder);
}

/** Names of the fixed filters (for documentation and the OpenAPI description). */
export const FILTER_NAMES: readonly string[] = Object.keys(FILTERS);

/** Query keys that are never filters. */
const IGNORED = new Set(['t']);

/**
 * Validates and compiles `filters` once; the result is evaluated per auction.
 * Throws FilterError for an unknown name or a malformed value.
 */
export function compileFilters(filters: Readonly<Record<string, string | undefined>> | null | undefined, options: CompileOptions = {}): CompiledFilter {
  const entries = Object.entries(filters ?? {}).filter(
    (e): e is [string, string] => typeof e[1] === 'string' && e[1].trim() !== '' && !IGNORED.has(e[0].toLowerCase()),
  );
  if (entries.length > MAX_FILTERS) {
    throw new FilterError(entries[MAX_FILTERS]![0], 'too_many_filters', `At most ${MAX_FILTERS} filters are allowed per request`);
  }
  const all = new Map(entries.map(([k, v]) => [k.toLowerCase(), v]));
  const predicates: FilterPredicate[] = [];
  const names: string[] = [];
  for (const [key, value] of entries) {
    if (value.length > MAX_FILTER_VALUE_LENGTH) {
      throw new FilterError(key, 'invalid_filter', `The filter \`${key}\` is longer than ${MAX_FILTER_VALUE_LENGTH} characters`);
    }
    const lower = key.toLowerCase();
    const def = FILTERS_LOWER.get(lower) ?? generatedFilter(lower);
    if (!def) {
      const unsupported = UNSUPPORTED_LOWER.get(lower);
      if (unsupported) throw new FilterError(key, 'unsupported_filter', `The filter \`${key}\` is not supported by skymarket: ${unsupported.why}`);
      throw new FilterError(key, 'unknown_filter', `The filter \`${key}\` is not known, please remove it`);
    }
    const predicate = def.build(value, key, all, options);
    names.push(def.name);
    if (predicate) predicates.push(predicate);
  }
  const test: FilterPredicate =
    predicates.length === 0
      ? () => true
      : predicates.length === 1
        ? predicates[0]!
        : (s) => {
            for (const p of predicates) if (!p(s)) return false;
            return true;
          };
  return { test, names };
}

/**
 * Splits a query string object into filters and the endpoint's own parameters:
 * every key not in `controls` (case-insensitive) is a filter. Repeated keys
 * (arrays) are a malformed filter.
 */
export function filtersFromQuery(query: Readonly<Record<string, unknown>>, controls: readonly string[]): Record<string, string> {
  const skip = new Set(controls.map((c) => c.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [rawKey, value] of Object.entries(query)) {
    // Earlier OpenAPI documents declared filters as a deepObject `query` (`filters` on the analysis): `query[Rarity]=EPIC` is `Rarity=EPIC`.
    const key = /^(?:query|filters)\[(.+)\]$/.exec(rawKey)?.[1] ?? rawKey;
    if (skip.has(key.toLowerCase())) continue;
    if (typeof value !== 'string') {
      throw new FilterError(key, 'invalid_filter', `The filter \`${key}\` is given more than once`);
    }
    out[key] = value;
  }
  return out;
}

/**
 * Player names used as `Seller` values (the alternatives that are not uuids), so a
 * caller can look them up before compiling. Malformed values are left to the compiler.
 */
export function sellerNamesIn(filters: Readonly<Record<string, string | undefined>> | null | undefined): string[] {
  const out = new Set<string>();
  for (const [key, value] of Object.entries(filters ?? {})) {
    if (key.toLowerCase() !== 'seller' || typeof value !== 'string' || value.length > MAX_FILTER_VALUE_LENGTH) continue;
    for (const alt of value.split('|').map((a) => a.trim())) {
      if (!uuidHex.test(alt.replace(/-/g, '').toLowerCase()) && PLAYER_NAME.test(alt)) out.add(alt.toLowerCase());
    }
  }
  return [...out].slice(0, MAX_ALTERNATIVES);
}

/**
 * Resolves the player names among the `Seller` values with `lookup` (name → uuid, e.g.
 * the player-names repository) and compiles. An unknown name is a FilterError
 * `unknown_player` naming the filter.
 */
export async function compileFiltersResolving(
  filters: Readonly<Record<string, string | undefined>> | null | undefined,
  lookup: (name: string) => Promise<string | undefined>,
): Promise<CompiledFilter> {
  const players = new Map<string, string>();
  for (const name of sellerNamesIn(filters)) {
    const uuid = await lookup(name);
    if (uuid !== undefined) players.set(name, uuid);
  }
  return compileFilters(filters, { players });
}
