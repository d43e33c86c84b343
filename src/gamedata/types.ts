/**
 * The game-data model skymarket crafts with: items, recipes (crafting grids, forge, NPC shops),
 * requirements and the lookup tables the flips and the crafting engine need. Loaded from a
 * NotEnoughUpdates repository (src/gamedata/neu.ts) or built from the simulator's catalog
 * (src/gamedata/builtin.ts). Pure data: no I/O here.
 */

/** Grid slots of a 3×3 crafting recipe, in NEU's naming (row letter, column number). */
export const GRID_SLOTS = ['A1', 'A2', 'A3', 'B1', 'B2', 'B3', 'C1', 'C2', 'C3'] as const;
export type GridSlot = (typeof GRID_SLOTS)[number];

/**
 * Things paid for in a recipe or shop that are not items: coins and pseudo-currencies.
 * Only coins are priced as coins; the others are typed so a craft that needs them is never
 * reported as a coin profit unless a conversion is known.
 */
export type Currency = 'coins' | 'bits' | 'copper' | 'motes' | 'gems' | 'north_stars' | 'pelts' | 'other';

export interface CurrencyCost {
  currency: Currency;
  amount: number;
  /** the NEU token, e.g. SKYBLOCK_BIT, for currencies typed 'other' */
  token?: string;
}

export interface Ingredient {
  tag: string;
  count: number;
}

export type RecipeType = 'crafting' | 'forge' | 'npc_shop';

export interface Recipe {
  type: RecipeType;
  /** skymarket tag of the result */
  output: string;
  /** how many the recipe yields */
  count: number;
  /** item inputs, merged per tag */
  inputs: Ingredient[];
  /** coins and pseudo-currencies the recipe costs (NPC shops, forge fees) */
  currencies: CurrencyCost[];
  /** crafting grid slots as NEU writes them ("TAG:count" or ""), with tags mapped; crafting only */
  grid?: Record<GridSlot, string>;
  /** forge duration in seconds */
  durationSeconds?: number;
  /** NPC shop: the NPC's NEU id */
  npc?: string;
}

export interface Requirement {
  kind: 'collection' | 'slayer' | 'skill';
  /** collection or skill display name (e.g. "Diamond", "HotM"), or slayer key (e.g. "zombie") */
  name: string;
  level: number;
}

export interface GameItem {
  tag: string;
  /** the id in the NEU repository (`NAME;LEVEL`, `ID-DAMAGE`, …) or the catalog id */
  sourceId: string;
  /** display name without colour codes */
  name: string;
  /** rarity from the lore, when shown */
  tier: string | null;
  /** vanilla material (NEU itemid) */
  material: string | null;
  requirements: Requirement[];
}

export interface CopperPrice {
  price: number;
  currency: 'copper' | 'coins' | 'gems';
}

export interface AttributeShard {
  /** NEU id of the shard, e.g. ATTRIBUTE_SHARD_NATURE_ELEMENTAL;1 */
  neuId: string;
  bazaarId: string;
  displayName: string;
  rarity: string;
  abilityName: string;
}

export interface GameDataSource {
  kind: 'directory' | 'synced' | 'builtin';
  /** where it was read from (directory kinds) */
  path: string | null;
  /** repository commit or snapshot line, when known */
  version: string | null;
}

/** Recipe inputs that named items the data set does not know (reported, not fatal). */
export interface UnresolvedIngredient {
  output: string;
  ingredient: string;
}

/**
 * One pet rarity upgrade at Kat (NEU `katgrade` recipes): the pet goes in at `fromTier` and comes
 * back at `toTier` after `durationSeconds`, for `coins` and `materials`.
 */
export interface KatUpgrade {
  /** skymarket tag of the pet, e.g. PET_ARMADILLO */
  petTag: string;
  /** pet name without the level placeholder, e.g. "Armadillo" */
  name: string;
  fromTier: string;
  toTier: string;
  coins: number;
  durationSeconds: number;
  /** item inputs, merged per tag, in NEU's order */
  materials: Ingredient[];
}

export interface GameData {
  source: GameDataSource;
  items: ReadonlyMap<string, GameItem>;
  /** every usable recipe, by output tag */
  recipes: ReadonlyMap<string, readonly Recipe[]>;
  /** NPC shop offers by the tag they sell (also included in `recipes`) */
  npcOffers: ReadonlyMap<string, readonly Recipe[]>;
  /** skymarket tag → bazaar product id, where they differ or are known to be on the bazaar */
  bazaarIds: ReadonlyMap<string, string>;
  /** enchantment names by item class (NEU constants/enchants.json `enchants`) */
  enchantsByClass: ReadonlyMap<string, readonly string[]>;
  /** SkyMart (copper shop) prices by tag */
  copper: ReadonlyMap<string, CopperPrice>;
  attributeShards: readonly AttributeShard[];
  /** George's pet offers: NEU pet id (`NAME;RARITY`) → coins */
  georgePrices: ReadonlyMap<string, number>;
  unresolved: readonly UnresolvedIngredient[];
  /** Kat's pet rarity upgrades (NEU `katgrade` recipes; the builtin catalog's: a few of them, builtin/neu-recipes.ts) */
  katUpgrades: readonly KatUpgrade[];
  /** XP per level (not cumulative) for skills, from NEU constants/leveling.json; absent for the builtin catalog */
  leveling?: LevelingTables;
}

export interface LevelingTables {
  skill: readonly number[];
  runecrafting: readonly number[];
  social: readonly number[];
  /** cumulative XP needed for each HotM tier (NEU's HOTM list) */
  hotm: readonly number[];
  /** skill → highest level */
  caps: Readonly<Record<string, number>>;
}
