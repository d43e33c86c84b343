/**
 * skymarket's built-in item catalog for the simulator, demo and tests.
 *
 * Item ids, display names, tiers, classes and materials are real Hypixel SkyBlock
 * identifiers, written for this project from general game knowledge.
 * ALL PRICES AND VOLUMES HERE ARE SIMULATED: `fairPrice`, `weeklyVolume` and
 * `npcSellPrice` are plausible orders of magnitude, not market data, and must never
 * be presented as real prices. Recipe ratios (`craftedFrom`) follow the game's
 * "160 of the base for one enchanted form" style but are simplified.
 *
 * The module is pure data plus a few derived lookups; it does no I/O.
 */
import { enchantmentBookTag } from '../../domain/tags.ts';

export type Tier =
  | 'COMMON'
  | 'UNCOMMON'
  | 'RARE'
  | 'EPIC'
  | 'LEGENDARY'
  | 'MYTHIC'
  | 'DIVINE'
  | 'SPECIAL'
  | 'VERY_SPECIAL';

/** Tiers in upgrade order (a recombobulator moves an item one step up). */
export const TIERS: readonly Tier[] = ['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'MYTHIC', 'DIVINE', 'SPECIAL', 'VERY_SPECIAL'];

/** Minecraft colour code of each tier, as used in names and the rarity lore line. */
export const TIER_COLOR: Readonly<Record<Tier, string>> = {
  COMMON: '§f',
  UNCOMMON: '§a',
  RARE: '§9',
  EPIC: '§5',
  LEGENDARY: '§6',
  MYTHIC: '§d',
  DIVINE: '§b',
  SPECIAL: '§c',
  VERY_SPECIAL: '§c',
};

/** Auction-house category (lowercase, as on `/v2/skyblock/auctions`). */
export type AhCategory = 'weapon' | 'armor' | 'accessories' | 'consumables' | 'blocks' | 'misc';

/** How the simulator dresses an auction item's NBT. */
export type AuctionKind = 'weapon' | 'armor' | 'accessory' | 'pet' | 'rune' | 'potion' | 'book' | 'plain' | 'stack';

/** Legacy (1.8) Minecraft material: numeric id and the vanilla display name used in `extra`. */
export interface Material {
  id: number;
  damage: number;
  name: string;
}

/** One thing that can be listed on the simulated auction house. */
export interface AuctionItemDef {
  /** price key / item tag: the game id, or PET_<TYPE>, RUNE_<TYPE>, POTION_<NAME>, ENCHANTMENT_<NAME>_<LEVEL> */
  key: string;
  /** `ExtraAttributes.id` (PET, RUNE, POTION, ENCHANTED_BOOK for the expanded kinds) */
  id: string;
  /** display name without colour codes or reforge */
  name: string;
  tier: Tier;
  category: AhCategory;
  /** UPPERCASE item class as in the items resource (SWORD, CHESTPLATE, ACCESSORY …) */
  itemClass: string;
  /** key of MATERIALS */
  material: string;
  npcSellPrice: number;
  /** simulated fair value in coins for a plain copy */
  fairPrice: number;
  kind: AuctionKind;
  /** dungeon items can carry stars (upgrade_level) */
  dungeon?: boolean;
  /** Kuudra-style armor that carries `attributes` */
  attributes?: readonly string[];
  /** gemstone slot types the item accepts */
  gemSlots?: readonly string[];
  petType?: string;
  runeType?: string;
  potion?: string;
  potionLevel?: number;
  enchant?: { name: string; level: number };
  /** relative listing frequency (default 1) */
  weight?: number;
}

/** One bazaar product. */
export interface BazaarProductDef {
  id: string;
  name: string;
  tier: Tier;
  material: string;
  npcSellPrice: number;
  /** simulated fair mid price per unit */
  fairPrice: number;
  /** simulated units traded per week (each side) */
  weeklyVolume: number;
  /** one unit is crafted from `count` of `id` (for craft-flip tests later) */
  craftedFrom?: { id: string; count: number };
  group: 'farming' | 'mining' | 'combat' | 'woods' | 'fishing' | 'gemstones' | 'enchantments' | 'shards' | 'greenhouse' | 'essence' | 'misc';
}

/** An enchantment known to the catalog; levels in [minBazaar, maxBazaar] are bazaar products. */
export interface EnchantDef {
  name: string;
  display: string;
  minBazaar: number;
  maxBazaar: number;
  /** simulated fair price of the minBazaar book */
  basePrice: number;
  ultimate: boolean;
}

/** Deterministic factor in [lo, hi] from a string, so catalog prices are stable without a PRNG. */
function jitter(s: string, lo: number, hi: number): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995);
  h ^= h >>> 15;
  return lo + ((h >>> 0) / 4294967296) * (hi - lo);
}

/** Rounds a simulated price to 1 decimal (bazaar) or an integer above 100. */
function roundPrice(p: number): number {
  return p >= 100 ? Math.round(p) : Math.round(p * 10) / 10;
}

// ---------------------------------------------------------------------------
// Materials (legacy numeric ids; the vanilla name appears in the auction `extra`)

export const MATERIALS: Readonly<Record<string, Material>> = {
  SKULL_ITEM: { id: 397, damage: 3, name: 'Skull Item' },
  IRON_SWORD: { id: 267, damage: 0, name: 'Iron Sword' },
  DIAMOND_SWORD: { id: 276, damage: 0, name: 'Diamond Sword' },
  GOLD_SWORD: { id: 283, damage: 0, name: 'Gold Sword' },
  STONE_SWORD: { id: 272, damage: 0, name: 'Stone Sword' },
  WOOD_SWORD: { id: 268, damage: 0, name: 'Wood Sword' },
  BOW: { id: 261, damage: 0, name: 'Bow' },
  DIAMOND_AXE: { id: 279, damage: 0, name: 'Diamond Axe' },
  IRON_AXE: { id: 258, damage: 0, name: 'Iron Axe' },
  GOLD_AXE: { id: 286, damage: 0, name: 'Gold Axe' },
  DIAMOND_HOE: { id: 293, damage: 0, name: 'Diamond Hoe' },
  DIAMOND_PICKAXE: { id: 278, damage: 0, name: 'Diamond Pickaxe' },
  PRISMARINE_SHARD: { id: 409, damage: 0, name: 'Prismarine Shard' },
  BLAZE_ROD: { id: 369, damage: 0, name: 'Blaze Rod' },
  STICK: { id: 280, damage: 0, name: 'Stick' },
  BONE: { id: 352, damage: 0, name: 'Bone' },
  FISHING_ROD: { id: 346, damage: 0, name: 'Fishing Rod' },
  LEATHER_HELMET: { id: 298, damage: 0, name: 'Leather Helmet' },
  LEATHER_CHESTPLATE: { id: 299, damage: 0, name: 'Leather Chestplate' },
  LEATHER_LEGGINGS: { id: 300, damage: 0, name: 'Leather Leggings' },
  LEATHER_BOOTS: { id: 301, damage: 0, name: 'Leather Boots' },
  IRON_CHESTPLATE: { id: 307, damage: 0, name: 'Iron Chestplate' },
  DIAMOND_HELMET: { id: 310, damage: 0, name: 'Diamond Helmet' },
  DIAMOND_CHESTPLATE: { id: 311, damage: 0, name: 'Diamond Chestplate' },
  DIAMOND_LEGGINGS: { id: 312, damage: 0, name: 'Diamond Leggings' },
  DIAMOND_BOOTS: { id: 313, damage: 0, name: 'Diamond Boots' },
  GOLD_HELMET: { id: 314, damage: 0, name: 'Gold Helmet' },
  GOLD_CHESTPLATE: { id: 315, damage: 0, name: 'Gold Chestplate' },
  GOLD_LEGGINGS: { id: 316, damage: 0, name: 'Gold Leggings' },
  GOLD_BOOTS: { id: 317, damage: 0, name: 'Gold Boots' },
  CHAINMAIL_HELMET: { id: 302, damage: 0, name: 'Chainmail Helmet' },
  CHAINMAIL_CHESTPLATE: { id: 303, damage: 0, name: 'Chainmail Chestplate' },
  CHAINMAIL_LEGGINGS: { id: 304, damage: 0, name: 'Chainmail Leggings' },
  CHAINMAIL_BOOTS: { id: 305, damage: 0, name: 'Chainmail Boots' },
  POTION: { id: 373, damage: 8194, name: 'Potion' },
  ENCHANTED_BOOK: { id: 403, damage: 0, name: 'Enchanted Book' },
  PAPER: { id: 339, damage: 0, name: 'Paper' },
  NETHER_STAR: { id: 399, damage: 0, name: 'Nether Star' },
  COMMAND: { id: 137, damage: 0, name: 'Command' },
  HOPPER: { id: 154, damage: 0, name: 'Hopper' },
  DROPPER: { id: 158, damage: 0, name: 'Dropper' },
  CHEST: { id: 54, damage: 0, name: 'Chest' },
  EXP_BOTTLE: { id: 384, damage: 0, name: 'Exp Bottle' },
  CAKE: { id: 354, damage: 0, name: 'Cake' },
  NAME_TAG: { id: 421, damage: 0, name: 'Name Tag' },
  FIREBALL: { id: 385, damage: 0, name: 'Fireball' },
  GOLD_NUGGET: { id: 371, damage: 0, name: 'Gold Nugget' },
  RED_ROSE: { id: 38, damage: 0, name: 'Red Rose' },
  YELLOW_FLOWER: { id: 37, damage: 0, name: 'Yellow Flower' },
  DOUBLE_PLANT: { id: 175, damage: 0, name: 'Double Plant' },
  WHEAT: { id: 296, damage: 0, name: 'Wheat' },
  SEEDS: { id: 295, damage: 0, name: 'Seeds' },
  HAY_BLOCK: { id: 170, damage: 0, name: 'Hay Block' },
  CARROT_ITEM: { id: 391, damage: 0, name: 'Carrot Item' },
  GOLDEN_CARROT: { id: 396, damage: 0, name: 'Golden Carrot' },
  POTATO_ITEM: { id: 392, damage: 0, name: 'Potato Item' },
  BAKED_POTATO: { id: 393, damage: 0, name: 'Baked Potato' },
  PUMPKIN: { id: 86, damage: 0, name: 'Pumpkin' },
  MELON: { id: 360, damage: 0, name: 'Melon' },
  MELON_BLOCK: { id: 103, damage: 0, name: 'Melon Block' },
  SUGAR_CANE: { id: 338, damage: 0, name: 'Sugar Cane' },
  SUGAR: { id: 353, damage: 0, name: 'Sugar' },
  CACTUS: { id: 81, damage: 0, name: 'Cactus' },
  INK_SACK: { id: 351, damage: 0, name: 'Ink Sack' },
  COOKIE: { id: 357, damage: 0, name: 'Cookie' },
  NETHER_STALK: { id: 372, damage: 0, name: 'Nether Stalk' },
  RED_MUSHROOM: { id: 40, damage: 0, name: 'Red Mushroom' },
  BROWN_MUSHROOM: { id: 39, damage: 0, name: 'Brown Mushroom' },
  COBBLESTONE: { id: 4, damage: 0, name: 'Cobblestone' },
  STONE: { id: 1, damage: 0, name: 'Stone' },
  COAL: { id: 263, damage: 0, name: 'Coal' },
  COAL_BLOCK: { id: 173, damage: 0, name: 'Coal Block' },
  IRON_INGOT: { id: 265, damage: 0, name: 'Iron Ingot' },
  IRON_BLOCK: { id: 42, damage: 0, name: 'Iron Block' },
  GOLD_INGOT: { id: 266, damage: 0, name: 'Gold Ingot' },
  GOLD_BLOCK: { id: 41, damage: 0, name: 'Gold Block' },
  DIAMOND: { id: 264, damage: 0, name: 'Diamond' },
  DIAMOND_BLOCK: { id: 57, damage: 0, name: 'Diamond Block' },
  EMERALD: { id: 388, damage: 0, name: 'Emerald' },
  EMERALD_BLOCK: { id: 133, damage: 0, name: 'Emerald Block' },
  REDSTONE: { id: 331, damage: 0, name: 'Redstone' },
  REDSTONE_BLOCK: { id: 152, damage: 0, name: 'Redstone Block' },
  LAPIS_BLOCK: { id: 22, damage: 0, name: 'Lapis Block' },
  QUARTZ: { id: 406, damage: 0, name: 'Quartz' },
  QUARTZ_BLOCK: { id: 155, damage: 0, name: 'Quartz Block' },
  OBSIDIAN: { id: 49, damage: 0, name: 'Obsidian' },
  PRISMARINE_CRYSTALS: { id: 410, damage: 0, name: 'Prismarine Crystals' },
  PRISMARINE: { id: 168, damage: 0, name: 'Prismarine' },
  GLOWSTONE_DUST: { id: 348, damage: 0, name: 'Glowstone Dust' },
  GLOWSTONE: { id: 89, damage: 0, name: 'Glowstone' },
  SAND: { id: 12, damage: 0, name: 'Sand' },
  ICE: { id: 79, damage: 0, name: 'Ice' },
  PACKED_ICE: { id: 174, damage: 0, name: 'Packed Ice' },
  GRAVEL: { id: 13, damage: 0, name: 'Gravel' },
  FLINT: { id: 318, damage: 0, name: 'Flint' },
  ENDER_STONE: { id: 121, damage: 0, name: 'Ender Stone' },
  NETHERRACK: { id: 87, damage: 0, name: 'Netherrack' },
  ROTTEN_FLESH: { id: 367, damage: 0, name: 'Rotten Flesh' },
  STRING: { id: 287, damage: 0, name: 'String' },
  SPIDER_EYE: { id: 375, damage: 0, name: 'Spider Eye' },
  FERMENTED_SPIDER_EYE: { id: 376, damage: 0, name: 'Fermented Spider Eye' },
  SULPHUR: { id: 289, damage: 0, name: 'Sulphur' },
  FIREWORK: { id: 401, damage: 0, name: 'Firework' },
  ENDER_PEARL: { id: 368, damage: 0, name: 'Ender Pearl' },
  EYE_OF_ENDER: { id: 381, damage: 0, name: 'Eye Of Ender' },
  GHAST_TEAR: { id: 370, damage: 0, name: 'Ghast Tear' },
  SLIME_BALL: { id: 341, damage: 0, name: 'Slime Ball' },
  SLIME_BLOCK: { id: 165, damage: 0, name: 'Slime Block' },
  BLAZE_POWDER: { id: 377, damage: 0, name: 'Blaze Powder' },
  MAGMA_CREAM: { id: 378, damage: 0, name: 'Magma Cream' },
  LOG: { id: 17, damage: 0, name: 'Log' },
  LOG_2: { id: 162, damage: 0, name: 'Log 2' },
  RAW_FISH: { id: 349, damage: 0, name: 'Raw Fish' },
  COOKED_FISH: { id: 350, damage: 0, name: 'Cooked Fish' },
  SPONGE: { id: 19, damage: 0, name: 'Sponge' },
  CLAY_BALL: { id: 337, damage: 0, name: 'Clay Ball' },
  WATER_LILY: { id: 111, damage: 0, name: 'Water Lily' },
  RAW_CHICKEN: { id: 365, damage: 0, name: 'Raw Chicken' },
  FEATHER: { id: 288, damage: 0, name: 'Feather' },
  LEATHER: { id: 334, damage: 0, name: 'Leather' },
  RAW_BEEF: { id: 363, damage: 0, name: 'Raw Beef' },
  PORK: { id: 319, damage: 0, name: 'Pork' },
  GRILLED_PORK: { id: 320, damage: 0, name: 'Grilled Pork' },
  MUTTON: { id: 423, damage: 0, name: 'Mutton' },
  COOKED_MUTTON: { id: 424, damage: 0, name: 'Cooked Mutton' },
  RABBIT: { id: 411, damage: 0, name: 'Rabbit' },
  RABBIT_FOOT: { id: 414, damage: 0, name: 'Rabbit Foot' },
  EGG: { id: 344, damage: 0, name: 'Egg' },
};

// ---------------------------------------------------------------------------
// Bazaar

/**
 * Base material chains: [id, name, material, damage-suffixed legacy id?, npc, fair, weeklyVolume, tier2 …].
 * Each following entry is [id, name, material, ratio] crafted from the previous entry.
 */
type ChainHead = [id: string, name: string, material: string, npc: number, fair: number, weeklyVolume: number];
type ChainStep = [id: string, name: string, material: string, ratio: number];
type Chain = { group: BazaarProductDef['group']; head: ChainHead; steps: ChainStep[] };

const E = 'ENCHANTED_';
const CHAINS: Chain[] = [
  // farming
  { group: 'farming', head: ['WHEAT', 'Wheat', 'WHEAT', 1, 2.5, 40_000_000], steps: [[`${E}WHEAT`, 'Enchanted Wheat', 'WHEAT', 160]] },
  { group: 'farming', head: ['HAY_BLOCK', 'Hay Bale', 'HAY_BLOCK', 9, 22, 6_000_000], steps: [[`${E}HAY_BALE`, 'Enchanted Hay Bale', 'HAY_BLOCK', 144], ['TIGHTLY_TIED_HAY_BALE', 'Tightly-Tied Hay Bale', 'HAY_BLOCK', 144]] },
  { group: 'farming', head: ['SEEDS', 'Seeds', 'SEEDS', 0.5, 1.2, 20_000_000], steps: [[`${E}SEEDS`, 'Enchanted Seeds', 'SEEDS', 160]] },
  { group: 'farming', head: ['CARROT_ITEM', 'Carrot', 'CARROT_ITEM', 1, 2.2, 60_000_000], steps: [[`${E}CARROT`, 'Enchanted Carrot', 'CARROT_ITEM', 160], [`${E}GOLDEN_CARROT`, 'Enchanted Golden Carrot', 'GOLDEN_CARROT', 128]] },
  { group: 'farming', head: ['POTATO_ITEM', 'Potato', 'POTATO_ITEM', 1, 2.1, 60_000_000], steps: [[`${E}POTATO`, 'Enchanted Potato', 'POTATO_ITEM', 160], [`${E}BAKED_POTATO`, 'Enchanted Baked Potato', 'BAKED_POTATO', 160]] },
  { group: 'farming', head: ['PUMPKIN', 'Pumpkin', 'PUMPKIN', 4, 8, 15_000_000], steps: [[`${E}PUMPKIN`, 'Enchanted Pumpkin', 'PUMPKIN', 160], ['POLISHED_PUMPKIN', 'Polished Pumpkin', 'PUMPKIN', 160]] },
  { group: 'farming', head: ['MELON', 'Melon', 'MELON', 0.5, 1.8, 80_000_000], steps: [[`${E}MELON`, 'Enchanted Melon', 'MELON', 160], [`${E}MELON_BLOCK`, 'Enchanted Melon Block', 'MELON_BLOCK', 160]] },
  { group: 'farming', head: ['SUGAR_CANE', 'Sugar Cane', 'SUGAR_CANE', 2, 3.4, 50_000_000], steps: [[`${E}SUGAR`, 'Enchanted Sugar', 'SUGAR', 160], [`${E}SUGAR_CANE`, 'Enchanted Sugar Cane', 'SUGAR_CANE', 160]] },
  { group: 'farming', head: ['CACTUS', 'Cactus', 'CACTUS', 1, 2.6, 30_000_000], steps: [[`${E}CACTUS_GREEN`, 'Enchanted Cactus Green', 'INK_SACK', 160], [`${E}CACTUS`, 'Enchanted Cactus', 'CACTUS', 160]] },
  { group: 'farming', head: ['INK_SACK:3', 'Cocoa Beans', 'INK_SACK', 1, 3, 40_000_000], steps: [[`${E}COCOA`, 'Enchanted Cocoa Beans', 'INK_SACK', 160], [`${E}COOKIE`, 'Enchanted Cookie', 'COOKIE', 128]] },
  { group: 'farming', head: ['NETHER_STALK', 'Nether Wart', 'NETHER_STALK', 1, 3.1, 90_000_000], steps: [[`${E}NETHER_STALK`, 'Enchanted Nether Wart', 'NETHER_STALK', 160], ['MUTANT_NETHER_STALK', 'Mutant Nether Wart', 'NETHER_STALK', 160]] },
  { group: 'farming', head: ['RED_MUSHROOM', 'Red Mushroom', 'RED_MUSHROOM', 4, 7, 12_000_000], steps: [[`${E}RED_MUSHROOM`, 'Enchanted Red Mushroom', 'RED_MUSHROOM', 160]] },
  { group: 'farming', head: ['BROWN_MUSHROOM', 'Brown Mushroom', 'BROWN_MUSHROOM', 4, 7.5, 12_000_000], steps: [[`${E}BROWN_MUSHROOM`, 'Enchanted Brown Mushroom', 'BROWN_MUSHROOM', 160]] },
  // animals
  { group: 'farming', head: ['RAW_CHICKEN', 'Raw Chicken', 'RAW_CHICKEN', 2, 4, 8_000_000], steps: [[`${E}RAW_CHICKEN`, 'Enchanted Raw Chicken', 'RAW_CHICKEN', 160]] },
  { group: 'farming', head: ['FEATHER', 'Feather', 'FEATHER', 3, 5, 9_000_000], steps: [[`${E}FEATHER`, 'Enchanted Feather', 'FEATHER', 160]] },
  { group: 'farming', head: ['LEATHER', 'Leather', 'LEATHER', 3, 6, 10_000_000], steps: [[`${E}LEATHER`, 'Enchanted Leather', 'LEATHER', 576]] },
  { group: 'farming', head: ['RAW_BEEF', 'Raw Beef', 'RAW_BEEF', 4, 5.5, 9_000_000], steps: [[`${E}RAW_BEEF`, 'Enchanted Raw Beef', 'RAW_BEEF', 160]] },
  { group: 'farming', head: ['PORK', 'Raw Porkchop', 'PORK', 5, 7, 9_000_000], steps: [[`${E}PORK`, 'Enchanted Pork', 'PORK', 160], [`${E}GRILLED_PORK`, 'Enchanted Grilled Pork', 'GRILLED_PORK', 160]] },
  { group: 'farming', head: ['MUTTON', 'Mutton', 'MUTTON', 5, 8, 7_000_000], steps: [[`${E}MUTTON`, 'Enchanted Mutton', 'MUTTON', 160], [`${E}COOKED_MUTTON`, 'Enchanted Cooked Mutton', 'COOKED_MUTTON', 160]] },
  { group: 'farming', head: ['RABBIT', 'Raw Rabbit', 'RABBIT', 4, 6, 5_000_000], steps: [[`${E}RABBIT`, 'Enchanted Raw Rabbit', 'RABBIT', 160]] },
  { group: 'farming', head: ['RABBIT_FOOT', "Rabbit's Foot", 'RABBIT_FOOT', 5, 9, 2_000_000], steps: [[`${E}RABBIT_FOOT`, "Enchanted Rabbit's Foot", 'RABBIT_FOOT', 160]] },
  { group: 'farming', head: ['EGG', 'Egg', 'EGG', 3, 4, 6_000_000], steps: [[`${E}EGG`, 'Enchanted Egg', 'EGG', 144], ['SUPER_EGG', 'Super Enchanted Egg', 'EGG', 144]] },
  // mining
  { group: 'mining', head: ['COBBLESTONE', 'Cobblestone', 'COBBLESTONE', 1, 1.6, 150_000_000], steps: [[`${E}COBBLESTONE`, 'Enchanted Cobblestone', 'COBBLESTONE', 160]] },
  { group: 'mining', head: ['COAL', 'Coal', 'COAL', 2, 3.2, 40_000_000], steps: [[`${E}COAL`, 'Enchanted Coal', 'COAL', 160], [`${E}COAL_BLOCK`, 'Enchanted Block of Coal', 'COAL_BLOCK', 160]] },
  { group: 'mining', head: ['IRON_INGOT', 'Iron Ingot', 'IRON_INGOT', 3, 4.2, 40_000_000], steps: [[`${E}IRON`, 'Enchanted Iron', 'IRON_INGOT', 160], [`${E}IRON_BLOCK`, 'Enchanted Iron Block', 'IRON_BLOCK', 160]] },
  { group: 'mining', head: ['GOLD_INGOT', 'Gold Ingot', 'GOLD_INGOT', 4, 5.5, 35_000_000], steps: [[`${E}GOLD`, 'Enchanted Gold', 'GOLD_INGOT', 160], [`${E}GOLD_BLOCK`, 'Enchanted Gold Block', 'GOLD_BLOCK', 160]] },
  { group: 'mining', head: ['DIAMOND', 'Diamond', 'DIAMOND', 8, 9.5, 25_000_000], steps: [[`${E}DIAMOND`, 'Enchanted Diamond', 'DIAMOND', 160], [`${E}DIAMOND_BLOCK`, 'Enchanted Diamond Block', 'DIAMOND_BLOCK', 160]] },
  { group: 'mining', head: ['EMERALD', 'Emerald', 'EMERALD', 6, 7, 20_000_000], steps: [[`${E}EMERALD`, 'Enchanted Emerald', 'EMERALD', 160], [`${E}EMERALD_BLOCK`, 'Enchanted Emerald Block', 'EMERALD_BLOCK', 160]] },
  { group: 'mining', head: ['REDSTONE', 'Redstone', 'REDSTONE', 1, 2.2, 45_000_000], steps: [[`${E}REDSTONE`, 'Enchanted Redstone', 'REDSTONE', 160], [`${E}REDSTONE_BLOCK`, 'Enchanted Redstone Block', 'REDSTONE_BLOCK', 160]] },
  { group: 'mining', head: ['INK_SACK:4', 'Lapis Lazuli', 'INK_SACK', 1, 1.9, 50_000_000], steps: [[`${E}LAPIS_LAZULI`, 'Enchanted Lapis Lazuli', 'INK_SACK', 160], [`${E}LAPIS_LAZULI_BLOCK`, 'Enchanted Lapis Block', 'LAPIS_BLOCK', 160]] },
  { group: 'mining', head: ['QUARTZ', 'Nether Quartz', 'QUARTZ', 4, 5, 15_000_000], steps: [[`${E}QUARTZ`, 'Enchanted Quartz', 'QUARTZ', 160], [`${E}QUARTZ_BLOCK`, 'Enchanted Quartz Block', 'QUARTZ_BLOCK', 160]] },
  { group: 'mining', head: ['OBSIDIAN', 'Obsidian', 'OBSIDIAN', 9, 12, 8_000_000], steps: [[`${E}OBSIDIAN`, 'Enchanted Obsidian', 'OBSIDIAN', 160]] },
  { group: 'mining', head: ['GLOWSTONE_DUST', 'Glowstone Dust', 'GLOWSTONE_DUST', 2, 3, 15_000_000], steps: [[`${E}GLOWSTONE_DUST`, 'Enchanted Glowstone Dust', 'GLOWSTONE_DUST', 160], [`${E}GLOWSTONE`, 'Enchanted Glowstone', 'GLOWSTONE', 192]] },
  { group: 'mining', head: ['SAND', 'Sand', 'SAND', 2, 3, 10_000_000], steps: [[`${E}SAND`, 'Enchanted Sand', 'SAND', 160]] },
  { group: 'mining', head: ['ICE', 'Ice', 'ICE', 0.5, 1.5, 30_000_000], steps: [['PACKED_ICE', 'Packed Ice', 'PACKED_ICE', 9], [`${E}ICE`, 'Enchanted Ice', 'ICE', 18], [`${E}PACKED_ICE`, 'Enchanted Packed Ice', 'PACKED_ICE', 160]] },
  { group: 'mining', head: ['GRAVEL', 'Gravel', 'GRAVEL', 3, 4.5, 6_000_000], steps: [['FLINT', 'Flint', 'FLINT', 1], [`${E}FLINT`, 'Enchanted Flint', 'FLINT', 160]] },
  { group: 'mining', head: ['ENDER_STONE', 'End Stone', 'ENDER_STONE', 2, 3.5, 20_000_000], steps: [[`${E}ENDSTONE`, 'Enchanted End Stone', 'ENDER_STONE', 160]] },
  { group: 'mining', head: ['NETHERRACK', 'Netherrack', 'NETHERRACK', 1, 1.3, 10_000_000], steps: [[`${E}NETHERRACK`, 'Enchanted Netherrack', 'NETHERRACK', 160]] },
  { group: 'mining', head: ['MITHRIL_ORE', 'Mithril', 'PRISMARINE_CRYSTALS', 10, 12, 60_000_000], steps: [[`${E}MITHRIL`, 'Enchanted Mithril', 'PRISMARINE_CRYSTALS', 160], ['REFINED_MITHRIL', 'Refined Mithril', 'PRISMARINE_CRYSTALS', 160]] },
  { group: 'mining', head: ['TITANIUM_ORE', 'Titanium', 'STONE', 20, 180, 2_000_000], steps: [[`${E}TITANIUM`, 'Enchanted Titanium', 'STONE', 16], ['REFINED_TITANIUM', 'Refined Titanium', 'STONE', 16]] },
  { group: 'mining', head: ['HARD_STONE', 'Hard Stone', 'STONE', 1, 1.2, 120_000_000], steps: [[`${E}HARD_STONE`, 'Enchanted Hard Stone', 'STONE', 576], ['CONCENTRATED_STONE', 'Concentrated Stone', 'STONE', 576]] },
  // combat
  { group: 'combat', head: ['ROTTEN_FLESH', 'Rotten Flesh', 'ROTTEN_FLESH', 2, 3, 30_000_000], steps: [[`${E}ROTTEN_FLESH`, 'Enchanted Rotten Flesh', 'ROTTEN_FLESH', 160]] },
  { group: 'combat', head: ['BONE', 'Bone', 'BONE', 2, 3.5, 30_000_000], steps: [[`${E}BONE`, 'Enchanted Bone', 'BONE', 160], [`${E}BONE_BLOCK`, 'Enchanted Bone Block', 'BONE', 160]] },
  { group: 'combat', head: ['STRING', 'String', 'STRING', 3, 4.5, 20_000_000], steps: [[`${E}STRING`, 'Enchanted String', 'STRING', 192]] },
  { group: 'combat', head: ['SPIDER_EYE', 'Spider Eye', 'SPIDER_EYE', 3, 4, 12_000_000], steps: [[`${E}SPIDER_EYE`, 'Enchanted Spider Eye', 'SPIDER_EYE', 160], [`${E}FERMENTED_SPIDER_EYE`, 'Enchanted Fermented Spider Eye', 'FERMENTED_SPIDER_EYE', 64]] },
  { group: 'combat', head: ['SULPHUR', 'Gunpowder', 'SULPHUR', 4, 6, 12_000_000], steps: [[`${E}GUNPOWDER`, 'Enchanted Gunpowder', 'SULPHUR', 160], [`${E}FIREWORK_ROCKET`, 'Enchanted Firework Rocket', 'FIREWORK', 64]] },
  { group: 'combat', head: ['ENDER_PEARL', 'Ender Pearl', 'ENDER_PEARL', 10, 9, 15_000_000], steps: [[`${E}ENDER_PEARL`, 'Enchanted Ender Pearl', 'ENDER_PEARL', 20], [`${E}EYE_OF_ENDER`, 'Enchanted Eye of Ender', 'EYE_OF_ENDER', 16]] },
  { group: 'combat', head: ['GHAST_TEAR', 'Ghast Tear', 'GHAST_TEAR', 16, 20, 3_000_000], steps: [[`${E}GHAST_TEAR`, 'Enchanted Ghast Tear', 'GHAST_TEAR', 5]] },
  { group: 'combat', head: ['SLIME_BALL', 'Slimeball', 'SLIME_BALL', 5, 5.5, 10_000_000], steps: [[`${E}SLIME_BALL`, 'Enchanted Slimeball', 'SLIME_BALL', 160], [`${E}SLIME_BLOCK`, 'Enchanted Slime Block', 'SLIME_BLOCK', 160]] },
  { group: 'combat', head: ['BLAZE_ROD', 'Blaze Rod', 'BLAZE_ROD', 9, 11, 12_000_000], steps: [[`${E}BLAZE_POWDER`, 'Enchanted Blaze Powder', 'BLAZE_POWDER', 160], [`${E}BLAZE_ROD`, 'Enchanted Blaze Rod', 'BLAZE_ROD', 160]] },
  { group: 'combat', head: ['MAGMA_CREAM', 'Magma Cream', 'MAGMA_CREAM', 8, 10, 8_000_000], steps: [[`${E}MAGMA_CREAM`, 'Enchanted Magma Cream', 'MAGMA_CREAM', 160]] },
  // woods (legacy damage-suffixed ids)
  { group: 'woods', head: ['LOG', 'Oak Wood', 'LOG', 2, 3.5, 15_000_000], steps: [[`${E}OAK_LOG`, 'Enchanted Oak Wood', 'LOG', 160]] },
  { group: 'woods', head: ['LOG:1', 'Spruce Wood', 'LOG', 2, 3.4, 8_000_000], steps: [[`${E}SPRUCE_LOG`, 'Enchanted Spruce Wood', 'LOG', 160]] },
  { group: 'woods', head: ['LOG:2', 'Birch Wood', 'LOG', 2, 3.3, 8_000_000], steps: [[`${E}BIRCH_LOG`, 'Enchanted Birch Wood', 'LOG', 160]] },
  { group: 'woods', head: ['LOG:3', 'Jungle Wood', 'LOG', 2, 3.6, 8_000_000], steps: [[`${E}JUNGLE_LOG`, 'Enchanted Jungle Wood', 'LOG', 160]] },
  { group: 'woods', head: ['LOG_2', 'Acacia Wood', 'LOG_2', 2, 3.2, 6_000_000], steps: [[`${E}ACACIA_LOG`, 'Enchanted Acacia Wood', 'LOG_2', 160]] },
  { group: 'woods', head: ['LOG_2:1', 'Dark Oak Wood', 'LOG_2', 2, 3.4, 6_000_000], steps: [[`${E}DARK_OAK_LOG`, 'Enchanted Dark Oak Wood', 'LOG_2', 160]] },
  // fishing
  { group: 'fishing', head: ['RAW_FISH', 'Raw Fish', 'RAW_FISH', 6, 8, 12_000_000], steps: [[`${E}RAW_FISH`, 'Enchanted Raw Fish', 'RAW_FISH', 160], [`${E}COOKED_FISH`, 'Enchanted Cooked Fish', 'COOKED_FISH', 160]] },
  { group: 'fishing', head: ['RAW_FISH:1', 'Raw Salmon', 'RAW_FISH', 10, 12, 5_000_000], steps: [[`${E}RAW_SALMON`, 'Enchanted Raw Salmon', 'RAW_FISH', 160], [`${E}COOKED_SALMON`, 'Enchanted Cooked Salmon', 'COOKED_FISH', 160]] },
  { group: 'fishing', head: ['RAW_FISH:2', 'Clownfish', 'RAW_FISH', 20, 25, 2_000_000], steps: [[`${E}CLOWNFISH`, 'Enchanted Clownfish', 'RAW_FISH', 160]] },
  { group: 'fishing', head: ['RAW_FISH:3', 'Pufferfish', 'RAW_FISH', 15, 18, 3_000_000], steps: [[`${E}PUFFERFISH`, 'Enchanted Pufferfish', 'RAW_FISH', 160]] },
  { group: 'fishing', head: ['PRISMARINE_SHARD', 'Prismarine Shard', 'PRISMARINE_SHARD', 5, 7, 2_000_000], steps: [[`${E}PRISMARINE_SHARD`, 'Enchanted Prismarine Shard', 'PRISMARINE_SHARD', 80]] },
  { group: 'fishing', head: ['PRISMARINE_CRYSTALS', 'Prismarine Crystals', 'PRISMARINE_CRYSTALS', 5, 7, 2_000_000], steps: [[`${E}PRISMARINE_CRYSTALS`, 'Enchanted Prismarine Crystals', 'PRISMARINE_CRYSTALS', 80]] },
  { group: 'fishing', head: ['INK_SACK', 'Ink Sac', 'INK_SACK', 2, 3, 5_000_000], steps: [[`${E}INK_SACK`, 'Enchanted Ink Sac', 'INK_SACK', 80]] },
  { group: 'fishing', head: ['SPONGE', 'Sponge', 'SPONGE', 50, 40, 1_500_000], steps: [[`${E}SPONGE`, 'Enchanted Sponge', 'SPONGE', 40], [`${E}WET_SPONGE`, 'Enchanted Wet Sponge', 'SPONGE', 40]] },
  { group: 'fishing', head: ['CLAY_BALL', 'Clay', 'CLAY_BALL', 3, 4, 4_000_000], steps: [[`${E}CLAY_BALL`, 'Enchanted Clay', 'CLAY_BALL', 160]] },
  { group: 'fishing', head: ['WATER_LILY', 'Lily Pad', 'WATER_LILY', 10, 12, 1_500_000], steps: [[`${E}WATER_LILY`, 'Enchanted Lily Pad', 'WATER_LILY', 160]] },
  // greenhouse crops (Garden greenhouse)
  { group: 'greenhouse', head: ['MOONFLOWER', 'Moonflower', 'RED_ROSE', 4, 6, 10_000_000], steps: [[`${E}MOONFLOWER`, 'Enchanted Moonflower', 'RED_ROSE', 160], ['COMPACTED_MOONFLOWER', 'Compacted Moonflower', 'RED_ROSE', 160]] },
  { group: 'greenhouse', head: ['DOUBLE_PLANT', 'Sunflower', 'DOUBLE_PLANT', 4, 5.5, 10_000_000], steps: [[`${E}SUNFLOWER`, 'Enchanted Sunflower', 'DOUBLE_PLANT', 160], ['COMPACTED_SUNFLOWER', 'Compacted Sunflower', 'DOUBLE_PLANT', 160]] },
  { group: 'greenhouse', head: ['WILD_ROSE', 'Wild Rose', 'RED_ROSE', 4, 5, 9_000_000], steps: [[`${E}WILD_ROSE`, 'Enchanted Wild Rose', 'RED_ROSE', 160], ['COMPACTED_WILD_ROSE', 'Compacted Wild Rose', 'RED_ROSE', 160]] },
];

const GEMSTONES = ['RUBY', 'AMBER', 'SAPPHIRE', 'JADE', 'AMETHYST', 'TOPAZ', 'JASPER', 'OPAL', 'AQUAMARINE', 'CITRINE', 'ONYX', 'PERIDOT'];
const GEM_QUALITIES: ReadonlyArray<[string, Tier, number]> = [
  ['ROUGH', 'COMMON', 1],
  ['FLAWED', 'UNCOMMON', 80],
  ['FINE', 'RARE', 80],
  ['FLAWLESS', 'EPIC', 80],
  ['PERFECT', 'LEGENDARY', 5],
];

const ESSENCES: ReadonlyArray<[string, number, number]> = [
  ['WITHER', 2_500, 3_000_000],
  ['DRAGON', 1_200, 4_000_000],
  ['UNDEAD', 900, 8_000_000],
  ['DIAMOND', 600, 3_000_000],
  ['GOLD', 700, 3_000_000],
  ['ICE', 800, 2_500_000],
  ['SPIDER', 1_500, 2_000_000],
  ['CRIMSON', 1_000, 5_000_000],
];

const SHARDS: ReadonlyArray<[string, Tier, number]> = [
  ['GRIFFIN', 'RARE', 90_000],
  ['ZEALOT', 'UNCOMMON', 12_000],
  ['YETI', 'EPIC', 400_000],
  ['TIAMAT', 'LEGENDARY', 1_500_000],
  ['PHOENIX', 'LEGENDARY', 1_200_000],
  ['GHAST', 'UNCOMMON', 8_000],
  ['BLAZE', 'UNCOMMON', 9_000],
  ['SHEEP', 'COMMON', 1_500],
  ['CHILL', 'COMMON', 2_000],
  ['MIST', 'UNCOMMON', 6_000],
  ['SALMON', 'COMMON', 1_800],
  ['SEA_SERPENT', 'RARE', 60_000],
  ['STARBORN', 'EPIC', 250_000],
  ['MOSSYBIT', 'COMMON', 1_200],
  ['LAPIS_SKELETON', 'UNCOMMON', 7_500],
  ['PYTHON', 'RARE', 45_000],
  ['TITANOBOA', 'LEGENDARY', 2_000_000],
  ['CROW', 'UNCOMMON', 5_000],
  ['DROWNED', 'COMMON', 2_500],
  ['SPIDER', 'COMMON', 1_900],
];

/** Enchantments: bazaar books exist for levels [minBazaar, maxBazaar]. Prices simulated. */
export const ENCHANTS: readonly EnchantDef[] = [
  { name: 'sharpness', display: 'Sharpness', minBazaar: 5, maxBazaar: 7, basePrice: 20_000, ultimate: false },
  { name: 'protection', display: 'Protection', minBazaar: 5, maxBazaar: 7, basePrice: 15_000, ultimate: false },
  { name: 'growth', display: 'Growth', minBazaar: 5, maxBazaar: 7, basePrice: 18_000, ultimate: false },
  { name: 'power', display: 'Power', minBazaar: 5, maxBazaar: 7, basePrice: 25_000, ultimate: false },
  { name: 'critical', display: 'Critical', minBazaar: 5, maxBazaar: 7, basePrice: 40_000, ultimate: false },
  { name: 'ender_slayer', display: 'Ender Slayer', minBazaar: 5, maxBazaar: 7, basePrice: 30_000, ultimate: false },
  { name: 'giant_killer', display: 'Giant Killer', minBazaar: 5, maxBazaar: 7, basePrice: 60_000, ultimate: false },
  { name: 'smite', display: 'Smite', minBazaar: 5, maxBazaar: 7, basePrice: 8_000, ultimate: false },
  { name: 'first_strike', display: 'First Strike', minBazaar: 4, maxBazaar: 5, basePrice: 70_000, ultimate: false },
  { name: 'life_steal', display: 'Life Steal', minBazaar: 3, maxBazaar: 5, basePrice: 90_000, ultimate: false },
  { name: 'luck', display: 'Luck', minBazaar: 5, maxBazaar: 7, basePrice: 35_000, ultimate: false },
  { name: 'looting', display: 'Looting', minBazaar: 4, maxBazaar: 5, basePrice: 40_000, ultimate: false },
  { name: 'scavenger', display: 'Scavenger', minBazaar: 4, maxBazaar: 5, basePrice: 20_000, ultimate: false },
  { name: 'efficiency', display: 'Efficiency', minBazaar: 5, maxBazaar: 5, basePrice: 5_000, ultimate: false },
  { name: 'telekinesis', display: 'Telekinesis', minBazaar: 1, maxBazaar: 1, basePrice: 100, ultimate: false },
  { name: 'harvesting', display: 'Harvesting', minBazaar: 5, maxBazaar: 6, basePrice: 12_000, ultimate: false },
  { name: 'feather_falling', display: 'Feather Falling', minBazaar: 5, maxBazaar: 10, basePrice: 3_000, ultimate: false },
  { name: 'rejuvenate', display: 'Rejuvenate', minBazaar: 1, maxBazaar: 5, basePrice: 8_000, ultimate: false },
  { name: 'dedication', display: 'Dedication', minBazaar: 1, maxBazaar: 4, basePrice: 500_000, ultimate: false },
  { name: 'overload', display: 'Overload', minBazaar: 1, maxBazaar: 5, basePrice: 80_000, ultimate: false },
  { name: 'turbo_wheat', display: 'Turbo-Wheat', minBazaar: 1, maxBazaar: 5, basePrice: 2_000, ultimate: false },
  { name: 'compact', display: 'Compact', minBazaar: 1, maxBazaar: 1, basePrice: 3_000_000, ultimate: false },
  { name: 'cultivating', display: 'Cultivating', minBazaar: 1, maxBazaar: 1, basePrice: 2_500_000, ultimate: false },
  { name: 'expertise', display: 'Expertise', minBazaar: 1, maxBazaar: 1, basePrice: 900_000, ultimate: false },
  { name: 'champion', display: 'Champion', minBazaar: 1, maxBazaar: 1, basePrice: 1_500_000, ultimate: false },
  { name: 'ultimate_wise', display: 'Ultimate Wise', minBazaar: 1, maxBazaar: 5, basePrice: 120_000, ultimate: true },
  { name: 'ultimate_legion', display: 'Legion', minBazaar: 1, maxBazaar: 5, basePrice: 1_500_000, ultimate: true },
  { name: 'ultimate_soul_eater', display: 'Soul Eater', minBazaar: 1, maxBazaar: 5, basePrice: 400_000, ultimate: true },
  { name: 'ultimate_chimera', display: 'Chimera', minBazaar: 1, maxBazaar: 5, basePrice: 40_000_000, ultimate: true },
  { name: 'ultimate_one_for_all', display: 'One For All', minBazaar: 1, maxBazaar: 1, basePrice: 9_000_000, ultimate: true },
  { name: 'ultimate_last_stand', display: 'Last Stand', minBazaar: 1, maxBazaar: 5, basePrice: 100_000, ultimate: true },
  { name: 'ultimate_wisdom', display: 'Wisdom', minBazaar: 1, maxBazaar: 5, basePrice: 150_000, ultimate: true },
  { name: 'ultimate_combo', display: 'Combo', minBazaar: 1, maxBazaar: 5, basePrice: 60_000, ultimate: true },
  { name: 'ultimate_rend', display: 'Rend', minBazaar: 1, maxBazaar: 5, basePrice: 50_000, ultimate: true },
  { name: 'ultimate_swarm', display: 'Swarm', minBazaar: 1, maxBazaar: 5, basePrice: 70_000, ultimate: true },
  { name: 'ultimate_bank', display: 'Bank', minBazaar: 1, maxBazaar: 5, basePrice: 90_000, ultimate: true },
  { name: 'ultimate_jerry', display: 'Ultimate Jerry', minBazaar: 1, maxBazaar: 5, basePrice: 2_000, ultimate: true },
];

const ROMAN = ['', 'I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];
/** Roman numeral for enchantment levels 1–10 (plain digits above). */
export function roman(n: number): string {
  return ROMAN[n] ?? String(n);
}

/** Simulated fair price of an enchanted book: each level ≈ 2 × the previous, ±15–20 % so combining is sometimes profitable. */
export function enchantBookPrice(e: EnchantDef, level: number): number {
  let p = e.basePrice;
  for (let l = e.minBazaar + 1; l <= level; l++) p *= 2 * jitter(`${e.name}:${l}`, 0.85, 1.2);
  for (let l = e.minBazaar - 1; l >= level && l >= 1; l--) p /= 2 * jitter(`${e.name}:${l + 1}`, 0.85, 1.2);
  return Math.max(10, Math.round(p));
}

const MISC_BAZAAR: ReadonlyArray<[string, string, Tier, string, number, number, number]> = [
  // id, name, tier, material, npc, fair, weeklyVolume
  ['BOOSTER_COOKIE', 'Booster Cookie', 'LEGENDARY', 'COOKIE', 0, 2_600_000, 120_000],
  ['RECOMBOBULATOR_3000', 'Recombobulator 3000', 'LEGENDARY', 'SKULL_ITEM', 0, 6_500_000, 25_000],
  ['HOT_POTATO_BOOK', 'Hot Potato Book', 'EPIC', 'ENCHANTED_BOOK', 0, 85_000, 400_000],
  ['FUMING_POTATO_BOOK', 'Fuming Potato Book', 'EPIC', 'ENCHANTED_BOOK', 0, 1_200_000, 30_000],
  ['STOCK_OF_STONKS', 'Stock of Stonks', 'EPIC', 'PAPER', 0, 4_000_000, 3_000],
  ['KISMET_FEATHER', 'Kismet Feather', 'RARE', 'FEATHER', 0, 1_500_000, 40_000],
  ['SUMMONING_EYE', 'Summoning Eye', 'EPIC', 'SKULL_ITEM', 0, 700_000, 8_000],
  ['JACOBS_TICKET', "Jacob's Ticket", 'UNCOMMON', 'PAPER', 0, 40_000, 80_000],
  ['COMPOST', 'Compost', 'UNCOMMON', 'SKULL_ITEM', 0, 9_000, 200_000],
  ['ENCHANTED_LAVA_BUCKET', 'Enchanted Lava Bucket', 'EPIC', 'SKULL_ITEM', 50_000, 90_000, 60_000],
  ['GOLDEN_TOOTH', 'Golden Tooth', 'RARE', 'GOLD_NUGGET', 500, 120_000, 50_000],
  ['PLASMA', 'Plasma', 'EPIC', 'SKULL_ITEM', 0, 1_800_000, 10_000],
  ['NULL_SPHERE', 'Null Sphere', 'UNCOMMON', 'FIREBALL', 100, 1_100, 2_000_000],
  ['NULL_OVOID', 'Null Ovoid', 'RARE', 'SKULL_ITEM', 0, 140_000, 30_000],
  ['REVENANT_FLESH', 'Revenant Flesh', 'UNCOMMON', 'ROTTEN_FLESH', 1, 50, 20_000_000],
  ['TARANTULA_WEB', 'Tarantula Web', 'UNCOMMON', 'STRING', 1, 90, 10_000_000],
  ['WOLF_TOOTH', 'Wolf Tooth', 'UNCOMMON', 'GHAST_TEAR', 1, 60, 12_000_000],
  ['GIANT_FRAGMENT_LASER', 'L.A.S.R.\'s Eye', 'EPIC', 'SKULL_ITEM', 0, 900_000, 3_000],
  ['DUNGEON_CHEST_KEY', 'Dungeon Chest Key', 'RARE', 'SKULL_ITEM', 0, 200_000, 30_000],
  ['TITANIC_EXP_BOTTLE', 'Titanic Experience Bottle', 'RARE', 'EXP_BOTTLE', 0, 200_000, 20_000],
  ['GRAND_EXP_BOTTLE', 'Grand Experience Bottle', 'UNCOMMON', 'EXP_BOTTLE', 0, 6_000, 300_000],
];

function buildBazaar(): BazaarProductDef[] {
  const out: BazaarProductDef[] = [];
  for (const c of CHAINS) {
    const [id, name, material, npc, fair, weekly] = c.head;
    out.push({ id, name, tier: 'COMMON', material, npcSellPrice: npc, fairPrice: fair, weeklyVolume: weekly, group: c.group });
    let prev = out[out.length - 1] as BazaarProductDef;
    let step = 0;
    for (const [sid, sname, smat, ratio] of c.steps) {
      step++;
      // Enchanted forms trade at 85–115 % of their ingredient cost: some crafts are profitable.
      const fairPrice = roundPrice(prev.fairPrice * ratio * jitter(sid, 0.85, 1.15));
      const tier: Tier = step === 1 ? 'UNCOMMON' : 'RARE';
      const p: BazaarProductDef = {
        id: sid,
        name: sname,
        tier,
        material: smat,
        npcSellPrice: roundPrice(prev.npcSellPrice * ratio),
        fairPrice,
        weeklyVolume: Math.max(2_000, Math.round((prev.weeklyVolume / ratio) * jitter(`${sid}:v`, 0.3, 1.2))),
        craftedFrom: { id: prev.id, count: ratio },
        group: c.group,
      };
      out.push(p);
      prev = p;
    }
  }
  for (const g of GEMSTONES) {
    let prev: BazaarProductDef | undefined;
    for (const [q, tier, ratio] of GEM_QUALITIES) {
      const id = `${q}_${g}_GEM`;
      const base = jitter(`${g}:base`, 2, 6);
      const fairPrice = prev ? roundPrice(prev.fairPrice * ratio * jitter(id, 0.9, 1.12)) : roundPrice(base);
      const p: BazaarProductDef = {
        id,
        name: `${q[0]}${q.slice(1).toLowerCase()} ${g[0]}${g.slice(1).toLowerCase()} Gemstone`,
        tier,
        material: 'SKULL_ITEM',
        npcSellPrice: prev ? roundPrice(prev.npcSellPrice * ratio) : 3,
        fairPrice,
        weeklyVolume: Math.round(40_000_000 / Math.pow(40, GEM_QUALITIES.findIndex((x) => x[0] === q)) * jitter(`${id}:v`, 0.5, 1.5)) + 500,
        group: 'gemstones',
        ...(prev ? { craftedFrom: { id: prev.id, count: ratio } } : {}),
      };
      out.push(p);
      prev = p;
    }
  }
  for (const [name, fair, weekly] of ESSENCES) {
    out.push({ id: `ESSENCE_${name}`, name: `${name[0]}${name.slice(1).toLowerCase()} Essence`, tier: 'RARE', material: 'SKULL_ITEM', npcSellPrice: 0, fairPrice: fair, weeklyVolume: weekly, group: 'essence' });
  }
  for (const [name, tier, fair] of SHARDS) {
    const pretty = name.split('_').map((w) => w[0] + w.slice(1).toLowerCase()).join(' ');
    out.push({ id: `SHARD_${name}`, name: `${pretty} Shard`, tier, material: 'PRISMARINE_SHARD', npcSellPrice: 0, fairPrice: fair, weeklyVolume: Math.round(2_000_000_000 / fair) + 300, group: 'shards' });
  }
  for (const e of ENCHANTS) {
    for (let level = e.minBazaar; level <= e.maxBazaar; level++) {
      const fair = enchantBookPrice(e, level);
      out.push({
        id: enchantmentBookTag(e.name, level),
        name: `${e.display} ${roman(level)}`,
        tier: e.ultimate ? 'RARE' : 'UNCOMMON',
        material: 'ENCHANTED_BOOK',
        npcSellPrice: 0,
        fairPrice: fair,
        weeklyVolume: Math.max(500, Math.round(3_000_000_000 / fair / (level - e.minBazaar + 1))),
        group: 'enchantments',
        ...(level > e.minBazaar ? { craftedFrom: { id: enchantmentBookTag(e.name, level - 1), count: 2 } } : {}),
      });
    }
  }
  for (const [id, name, tier, material, npc, fair, weekly] of MISC_BAZAAR) {
    out.push({ id, name, tier, material, npcSellPrice: npc, fairPrice: fair, weeklyVolume: weekly, group: 'misc' });
  }
  return out;
}

/** All simulated bazaar products, in a stable order. */
export const BAZAAR_PRODUCTS: readonly BazaarProductDef[] = buildBazaar();

/** Bazaar products by product id. */
export const BAZAAR_BY_ID: ReadonlyMap<string, BazaarProductDef> = new Map(BAZAAR_PRODUCTS.map((p) => [p.id, p]));

// ---------------------------------------------------------------------------
// Auction-house items

type Row = [id: string, name: string, tier: Tier, itemClass: string, material: string, fair: number, npc: number];

const WEAPONS: Row[] = [
  ['HYPERION', 'Hyperion', 'LEGENDARY', 'SWORD', 'IRON_SWORD', 900_000_000, 100_000],
  ['VALKYRIE', 'Valkyrie', 'LEGENDARY', 'SWORD', 'IRON_SWORD', 650_000_000, 100_000],
  ['SCYLLA', 'Scylla', 'LEGENDARY', 'SWORD', 'IRON_SWORD', 680_000_000, 100_000],
  ['ASTRAEA', 'Astraea', 'LEGENDARY', 'SWORD', 'IRON_SWORD', 600_000_000, 100_000],
  ['GIANTS_SWORD', "Giant's Sword", 'LEGENDARY', 'SWORD', 'IRON_SWORD', 22_000_000, 50_000],
  ['LIVID_DAGGER', 'Livid Dagger', 'LEGENDARY', 'SWORD', 'IRON_SWORD', 5_500_000, 20_000],
  ['SHADOW_FURY', 'Shadow Fury', 'LEGENDARY', 'SWORD', 'DIAMOND_SWORD', 12_000_000, 30_000],
  ['JUJU_SHORTBOW', 'Juju Shortbow', 'EPIC', 'BOW', 'BOW', 18_000_000, 20_000],
  ['TERMINATOR', 'Terminator', 'LEGENDARY', 'BOW', 'BOW', 1_100_000_000, 100_000],
  ['ASPECT_OF_THE_END', 'Aspect of the End', 'RARE', 'SWORD', 'DIAMOND_SWORD', 120_000, 2_000],
  ['ASPECT_OF_THE_DRAGON', 'Aspect of the Dragons', 'LEGENDARY', 'SWORD', 'DIAMOND_SWORD', 1_100_000, 10_000],
  ['ASPECT_OF_THE_VOID', 'Aspect of the Void', 'EPIC', 'SWORD', 'DIAMOND_SWORD', 3_200_000, 5_000],
  ['MIDAS_SWORD', "Midas' Sword", 'LEGENDARY', 'SWORD', 'GOLD_SWORD', 35_000_000, 50_000],
  ['AXE_OF_THE_SHREDDED', 'Axe of the Shredded', 'LEGENDARY', 'SWORD', 'DIAMOND_AXE', 11_000_000, 20_000],
  ['FLOWER_OF_TRUTH', 'Flower of Truth', 'LEGENDARY', 'SWORD', 'RED_ROSE', 9_000_000, 20_000],
  ['SPIRIT_SCEPTRE', 'Spirit Sceptre', 'LEGENDARY', 'SWORD', 'RED_ROSE', 5_000_000, 20_000],
  ['DARK_CLAYMORE', 'Dark Claymore', 'LEGENDARY', 'LONGSWORD', 'STONE_SWORD', 55_000_000, 50_000],
  ['RAGNAROCK_AXE', 'Ragnarock Axe', 'LEGENDARY', 'SWORD', 'GOLD_AXE', 25_000_000, 30_000],
  ['HURRICANE_BOW', 'Hurricane Bow', 'EPIC', 'BOW', 'BOW', 900_000, 5_000],
  ['RUNAANS_BOW', "Runaan's Bow", 'LEGENDARY', 'BOW', 'BOW', 1_500_000, 5_000],
  ['MOSQUITO_BOW', 'Mosquito Bow', 'LEGENDARY', 'BOW', 'BOW', 3_000_000, 10_000],
  ['SCORPION_FOIL', 'Scorpion Foil', 'LEGENDARY', 'SWORD', 'WOOD_SWORD', 3_500_000, 10_000],
  ['TACTICIAN_SWORD', "Tactician's Sword", 'LEGENDARY', 'SWORD', 'GOLD_SWORD', 2_500_000, 10_000],
  ['YETI_SWORD', 'Yeti Sword', 'LEGENDARY', 'SWORD', 'IRON_SWORD', 1_800_000, 10_000],
  ['ZOMBIE_SWORD', 'Zombie Sword', 'RARE', 'SWORD', 'IRON_SWORD', 45_000, 1_000],
  ['ORNATE_ZOMBIE_SWORD', 'Ornate Zombie Sword', 'EPIC', 'SWORD', 'GOLD_SWORD', 180_000, 2_000],
  ['FLORID_ZOMBIE_SWORD', 'Florid Zombie Sword', 'LEGENDARY', 'SWORD', 'DIAMOND_SWORD', 2_200_000, 10_000],
  ['RAIDER_AXE', 'Raider Axe', 'RARE', 'SWORD', 'IRON_AXE', 90_000, 1_000],
  ['ENDER_BOW', 'Ender Bow', 'RARE', 'BOW', 'BOW', 70_000, 1_000],
  ['SOUL_WHIP', 'Soul Whip', 'LEGENDARY', 'SWORD', 'FISHING_ROD', 3_000_000, 10_000],
  ['BONZO_STAFF', "Bonzo's Staff", 'RARE', 'SWORD', 'BLAZE_ROD', 400_000, 2_000],
  ['EMBER_ROD', 'Ember Rod', 'EPIC', 'SWORD', 'BLAZE_ROD', 350_000, 2_000],
  ['DAEDALUS_AXE', 'Daedalus Axe', 'LEGENDARY', 'AXE', 'GOLD_AXE', 40_000_000, 20_000],
  ['REAPER_SCYTHE', 'Reaper Scythe', 'LEGENDARY', 'SWORD', 'DIAMOND_HOE', 45_000_000, 20_000],
];

/** Armor sets: [idPrefix, setName, tier, materialFamily ('LEATHER'|'DIAMOND'|…), set fair (all 4), helmetIsSkull] */
const ARMOR_SETS: ReadonlyArray<[string, string, Tier, string, number, boolean, ('dungeon' | 'attr' | 'plain')?]> = [
  ['SUPERIOR_DRAGON', 'Superior Dragon', 'LEGENDARY', 'LEATHER', 180_000_000, true],
  ['STRONG_DRAGON', 'Strong Dragon', 'LEGENDARY', 'LEATHER', 12_000_000, true],
  ['YOUNG_DRAGON', 'Young Dragon', 'LEGENDARY', 'LEATHER', 9_000_000, true],
  ['WISE_DRAGON', 'Wise Dragon', 'LEGENDARY', 'LEATHER', 8_000_000, true],
  ['UNSTABLE_DRAGON', 'Unstable Dragon', 'LEGENDARY', 'LEATHER', 7_500_000, true],
  ['OLD_DRAGON', 'Old Dragon', 'LEGENDARY', 'LEATHER', 14_000_000, true],
  ['PROTECTOR_DRAGON', 'Protector Dragon', 'LEGENDARY', 'LEATHER', 6_000_000, true],
  ['POWER_WITHER', 'Necron\'s', 'LEGENDARY', 'LEATHER', 300_000_000, true, 'dungeon'],
  ['WISE_WITHER', 'Storm\'s', 'LEGENDARY', 'LEATHER', 120_000_000, true, 'dungeon'],
  ['TANK_WITHER', 'Goldor\'s', 'LEGENDARY', 'LEATHER', 90_000_000, true, 'dungeon'],
  ['SPEED_WITHER', 'Maxor\'s', 'LEGENDARY', 'LEATHER', 60_000_000, true, 'dungeon'],
  ['SHADOW_ASSASSIN', 'Shadow Assassin', 'LEGENDARY', 'LEATHER', 30_000_000, false, 'dungeon'],
  ['TARANTULA', 'Tarantula', 'EPIC', 'LEATHER', 3_000_000, true],
  ['FARM_ARMOR', 'Farm Armor', 'RARE', 'LEATHER', 80_000, false],
  ['MINER_OUTFIT', "Miner's Outfit", 'UNCOMMON', 'LEATHER', 40_000, false],
  ['CRIMSON', 'Crimson', 'LEGENDARY', 'LEATHER', 40_000_000, true, 'attr'],
  ['AURORA', 'Aurora', 'LEGENDARY', 'LEATHER', 35_000_000, true, 'attr'],
  ['TERROR', 'Terror', 'LEGENDARY', 'LEATHER', 38_000_000, true, 'attr'],
  ['FERVOR', 'Fervor', 'LEGENDARY', 'LEATHER', 30_000_000, true, 'attr'],
  ['HOLLOW', 'Hollow', 'LEGENDARY', 'LEATHER', 25_000_000, true, 'attr'],
  ['FINAL_DESTINATION', 'Final Destination', 'LEGENDARY', 'LEATHER', 60_000_000, true],
  ['SORROW', 'Sorrow', 'LEGENDARY', 'CHAINMAIL', 20_000_000, false],
  ['ELEGANT_TUXEDO', 'Elegant Tuxedo', 'LEGENDARY', 'LEATHER', 80_000_000, false],
  ['GLACITE', 'Glacite', 'RARE', 'LEATHER', 600_000, false],
  ['DIVER', "Diver's", 'LEGENDARY', 'GOLD', 12_000_000, false],
];

const ATTRIBUTES = ['mana_pool', 'mana_regeneration', 'dominance', 'veteran', 'lifeline', 'magic_find', 'vitality', 'breeze', 'speed', 'arachno_resistance', 'blazing_resistance', 'fortitude'];

const ACCESSORIES: Row[] = [
  ['HEGEMONY_ARTIFACT', 'Hegemony Artifact', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 180_000_000, 100_000],
  ['SEAL_OF_THE_FAMILY', 'Seal of the Family', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 15_000_000, 50_000],
  ['TREASURE_ARTIFACT', 'Treasure Artifact', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 30_000_000, 50_000],
  ['BAT_PERSON_ARTIFACT', 'Bat Person Artifact', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 1_500_000, 10_000],
  ['CATACOMBS_EXPERT_RING', 'Catacombs Expert Ring', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 600_000, 5_000],
  ['SPEED_ARTIFACT', 'Speed Artifact', 'RARE', 'ACCESSORY', 'SKULL_ITEM', 90_000, 1_000],
  ['WOLF_RING', 'Wolf Ring', 'RARE', 'ACCESSORY', 'SKULL_ITEM', 300_000, 2_000],
  ['WITHER_ARTIFACT', 'Wither Artifact', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 4_000_000, 10_000],
  ['ENDER_ARTIFACT', 'Ender Artifact', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 7_000_000, 10_000],
  ['DEVOUR_RING', 'Devour Ring', 'RARE', 'ACCESSORY', 'SKULL_ITEM', 1_200_000, 5_000],
  ['RED_CLAW_ARTIFACT', 'Red Claw Artifact', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 1_800_000, 5_000],
  ['CANDY_RELIC', 'Candy Relic', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 2_500_000, 5_000],
  ['ZOMBIE_ARTIFACT', 'Zombie Artifact', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 150_000, 2_000],
  ['INTIMIDATION_ARTIFACT', 'Intimidation Artifact', 'RARE', 'ACCESSORY', 'SKULL_ITEM', 50_000, 1_000],
  ['HUNTER_RING', 'Hunter Ring', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 1_000_000, 5_000],
  ['SCARF_GRIMOIRE', "Scarf's Grimoire", 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 20_000_000, 20_000],
  ['PERSONAL_COMPACTOR_7000', 'Personal Compactor 7000', 'EPIC', 'ACCESSORY', 'DROPPER', 9_000_000, 20_000],
  ['POTION_AFFINITY_ARTIFACT', 'Potion Affinity Artifact', 'RARE', 'ACCESSORY', 'SKULL_ITEM', 300_000, 2_000],
  ['NEW_YEAR_CAKE_BAG', 'New Year Cake Bag', 'UNCOMMON', 'ACCESSORY', 'SKULL_ITEM', 900_000, 1_000],
  ['BURSTSTOPPER_ARTIFACT', 'Burststopper Artifact', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 6_000_000, 10_000],
  ['MASTER_SKULL_TIER_7', 'Master Skull - Tier 7', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 140_000_000, 50_000],
  ['AUTO_RECOMBOBULATOR', 'Auto Recombobulator', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 60_000_000, 50_000],
  ['BOOK_OF_PROGRESSION', 'Book of Progression', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 12_000_000, 20_000],
  ['CROOKED_ARTIFACT', 'Crooked Artifact', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 2_000_000, 10_000],
  ['MINOS_RELIC', 'Minos Relic', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 6_000_000, 10_000],
  ['BAT_ARTIFACT', 'Bat Artifact', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 500_000, 5_000],
  ['TITANIUM_RELIC', 'Titanium Relic', 'LEGENDARY', 'ACCESSORY', 'SKULL_ITEM', 22_000_000, 20_000],
  ['KUUDRA_MANDIBLE', 'Kuudra Mandible', 'EPIC', 'ACCESSORY', 'SKULL_ITEM', 3_000_000, 10_000],
];

const PLAIN: Array<[...Row, AhCategory, AuctionKind]> = [
  ['MINION_EXPANDER', 'Minion Expander', 'RARE', 'MINION_UPGRADE', 'COMMAND', 70_000, 1_000, 'blocks', 'plain'],
  ['SUPER_COMPACTOR_3000', 'Super Compactor 3000', 'RARE', 'MINION_UPGRADE', 'DROPPER', 600_000, 5_000, 'blocks', 'plain'],
  ['DIAMOND_SPREADING', 'Diamond Spreading', 'RARE', 'MINION_UPGRADE', 'SKULL_ITEM', 80_000, 1_000, 'blocks', 'plain'],
  ['ENCHANTED_HOPPER', 'Enchanted Hopper', 'RARE', 'MINION_UPGRADE', 'HOPPER', 200_000, 2_000, 'blocks', 'plain'],
  ['BUDGET_HOPPER', 'Budget Hopper', 'UNCOMMON', 'MINION_UPGRADE', 'HOPPER', 60_000, 500, 'blocks', 'plain'],
  ['FLYCATCHER_UPGRADE', 'Flycatcher', 'EPIC', 'MINION_UPGRADE', 'SKULL_ITEM', 1_200_000, 5_000, 'blocks', 'plain'],
  ['PLASMAFLUX_POWER_ORB', 'Plasmaflux Power Orb', 'LEGENDARY', 'DEPLOYABLE', 'SKULL_ITEM', 280_000_000, 50_000, 'misc', 'plain'],
  ['JUDGEMENT_CORE', 'Judgement Core', 'LEGENDARY', 'REFORGE_STONE', 'SKULL_ITEM', 700_000_000, 100_000, 'misc', 'plain'],
  ['PET_ITEM_TIER_BOOST', 'Tier Boost', 'LEGENDARY', 'PET_ITEM', 'SKULL_ITEM', 90_000_000, 0, 'misc', 'plain'],
  ['PET_ITEM_EXP_SHARE', 'Exp Share', 'EPIC', 'PET_ITEM', 'SKULL_ITEM', 3_500_000, 0, 'misc', 'plain'],
  ['MINOS_INQUISITOR_DYE', 'Pure White Dye', 'LEGENDARY', 'DYE', 'INK_SACK', 250_000_000, 0, 'misc', 'plain'],
  ['KAT_FLOWER', 'Kat Flower', 'RARE', 'PET_UPGRADE', 'RED_ROSE', 350_000, 0, 'misc', 'plain'],
  ['GOD_POTION_2', 'God Potion', 'SPECIAL', 'POTION', 'SKULL_ITEM', 1_800_000, 0, 'consumables', 'plain'],
  ['KAT_BOUQUET', 'Kat Bouquet', 'EPIC', 'PET_UPGRADE', 'DOUBLE_PLANT', 2_500_000, 0, 'consumables', 'plain'],
  ['NEW_YEAR_CAKE', 'New Year Cake', 'SPECIAL', 'CAKE', 'CAKE', 150_000, 0, 'misc', 'plain'],
  ['DUNGEON_STONE', 'Dungeon Stone', 'RARE', 'DUNGEON_UPGRADE', 'SKULL_ITEM', 20_000, 100, 'misc', 'stack'],
  ['WITHER_BLOOD', 'Wither Blood', 'EPIC', 'REFORGE_STONE', 'SKULL_ITEM', 2_500_000, 0, 'misc', 'plain'],
  ['ENCHANTED_DIAMOND', 'Enchanted Diamond', 'UNCOMMON', 'NONE', 'DIAMOND', 1_550, 1_280, 'misc', 'stack'],
  ['ENCHANTED_IRON_BLOCK', 'Enchanted Iron Block', 'RARE', 'NONE', 'IRON_BLOCK', 105_000, 76_800, 'blocks', 'stack'],
  ['ENCHANTED_EGG', 'Enchanted Egg', 'UNCOMMON', 'NONE', 'EGG', 600, 432, 'misc', 'stack'],
];

/** Pets: type, display, skill, tiers offered, LEGENDARY-equivalent fair price. */
const PETS: ReadonlyArray<[string, string, string, readonly Tier[], number]> = [
  ['ENDER_DRAGON', 'Ender Dragon', 'Combat', ['EPIC', 'LEGENDARY'], 550_000_000],
  ['GOLDEN_DRAGON', 'Golden Dragon', 'Combat', ['LEGENDARY'], 650_000_000],
  ['BLUE_WHALE', 'Blue Whale', 'Fishing', ['RARE', 'EPIC', 'LEGENDARY'], 12_000_000],
  ['ELEPHANT', 'Elephant', 'Farming', ['RARE', 'EPIC', 'LEGENDARY'], 20_000_000],
  ['GRIFFIN', 'Griffin', 'Combat', ['UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY'], 8_000_000],
  ['TIGER', 'Tiger', 'Combat', ['RARE', 'EPIC', 'LEGENDARY'], 9_000_000],
  ['LION', 'Lion', 'Foraging', ['RARE', 'EPIC', 'LEGENDARY'], 15_000_000],
  ['WOLF', 'Wolf', 'Combat', ['RARE', 'EPIC', 'LEGENDARY'], 6_000_000],
  ['BLAZE', 'Blaze', 'Combat', ['EPIC', 'LEGENDARY'], 10_000_000],
  ['SHEEP', 'Sheep', 'Alchemy', ['RARE', 'EPIC', 'LEGENDARY'], 7_000_000],
  ['SKELETON_HORSE', 'Skeleton Horse', 'Combat', ['LEGENDARY'], 6_500_000],
  ['ENDERMAN', 'Enderman', 'Combat', ['RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'], 14_000_000],
  ['SILVERFISH', 'Silverfish', 'Mining', ['RARE', 'EPIC', 'LEGENDARY'], 2_500_000],
  ['BEE', 'Bee', 'Farming', ['RARE', 'EPIC', 'LEGENDARY'], 3_000_000],
  ['RABBIT', 'Rabbit', 'Farming', ['RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'], 4_000_000],
  ['MONKEY', 'Monkey', 'Foraging', ['RARE', 'EPIC', 'LEGENDARY'], 12_000_000],
  ['GIRAFFE', 'Giraffe', 'Foraging', ['EPIC', 'LEGENDARY'], 4_000_000],
  ['OCELOT', 'Ocelot', 'Foraging', ['EPIC', 'LEGENDARY'], 3_500_000],
  ['PARROT', 'Parrot', 'Alchemy', ['EPIC', 'LEGENDARY'], 9_000_000],
  ['TURTLE', 'Turtle', 'Combat', ['EPIC', 'LEGENDARY'], 12_000_000],
  ['JELLYFISH', 'Jellyfish', 'Alchemy', ['EPIC', 'LEGENDARY'], 8_000_000],
  ['GHOUL', 'Ghoul', 'Combat', ['EPIC', 'LEGENDARY'], 4_000_000],
  ['SCATHA', 'Scatha', 'Mining', ['RARE', 'EPIC', 'LEGENDARY'], 45_000_000],
  ['MITHRIL_GOLEM', 'Mithril Golem', 'Mining', ['RARE', 'EPIC', 'LEGENDARY'], 6_000_000],
  ['BAT', 'Bat', 'Mining', ['RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'], 3_000_000],
  ['SQUID', 'Squid', 'Fishing', ['RARE', 'EPIC', 'LEGENDARY'], 1_500_000],
  ['DOLPHIN', 'Dolphin', 'Fishing', ['RARE', 'EPIC', 'LEGENDARY'], 9_000_000],
  ['FLYING_FISH', 'Flying Fish', 'Fishing', ['RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'], 20_000_000],
  ['BLACK_CAT', 'Black Cat', 'Combat', ['LEGENDARY', 'MYTHIC'], 30_000_000],
  ['PHOENIX', 'Phoenix', 'Combat', ['EPIC', 'LEGENDARY'], 8_000_000],
  ['SPIDER', 'Spider', 'Combat', ['RARE', 'EPIC', 'LEGENDARY'], 2_000_000],
  ['TARANTULA', 'Tarantula', 'Combat', ['EPIC', 'LEGENDARY'], 5_000_000],
  ['ROCK', 'Rock', 'Mining', ['RARE', 'EPIC', 'LEGENDARY'], 2_500_000],
  ['ENDERMITE', 'Endermite', 'Mining', ['RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'], 3_000_000],
  ['HOUND', 'Hound', 'Combat', ['EPIC', 'LEGENDARY'], 2_000_000],
  ['MEGALODON', 'Megalodon', 'Fishing', ['EPIC', 'LEGENDARY'], 3_000_000],
  ['SNOWMAN', 'Snowman', 'Combat', ['LEGENDARY'], 1_500_000],
  ['AMMONITE', 'Ammonite', 'Fishing', ['LEGENDARY'], 25_000_000],
  ['WITHER_SKELETON', 'Wither Skeleton', 'Mining', ['EPIC', 'LEGENDARY'], 4_000_000],
  ['ARMADILLO', 'Armadillo', 'Mining', ['RARE', 'EPIC', 'LEGENDARY'], 4_000_000],
];

/** Skill line shown at the top of pet lore, by pet type. */
export const PET_SKILL: ReadonlyMap<string, string> = new Map(PETS.map((p) => [p[0], p[2]]));

const RUNES: ReadonlyArray<[string, string, Tier, number]> = [
  ['BLOOD_2', 'Blood 2.0', 'RARE', 300_000],
  ['MUSIC', 'Music', 'LEGENDARY', 25_000_000],
  ['LAVA', 'Lava', 'UNCOMMON', 15_000],
  ['SPARKLING', 'Sparkling', 'RARE', 40_000],
  ['HEARTS', 'Hearts', 'UNCOMMON', 10_000],
  ['FIRE_SPIRAL', 'Fire Spiral', 'UNCOMMON', 20_000],
  ['SMOKEY', 'Smokey', 'UNCOMMON', 12_000],
  ['ENCHANT', 'Enchant', 'RARE', 50_000],
  ['DRAGON', 'Dragon', 'EPIC', 900_000],
  ['WHITE_SPIRAL', 'White Spiral', 'UNCOMMON', 30_000],
  ['BITE', 'Bite', 'UNCOMMON', 8_000],
  ['ZOMBIE_SLAYER', 'Zombie Slayer', 'RARE', 60_000],
];

const POTIONS: ReadonlyArray<[string, string, number, number]> = [
  ['speed', 'Speed', 8, 6_000],
  ['strength', 'Strength', 8, 15_000],
  ['critical', 'Critical', 4, 10_000],
  ['true_defense', 'True Resistance', 4, 20_000],
  ['spirit', 'Spirit', 4, 25_000],
  ['archery', 'Archery', 4, 8_000],
  ['magic_find', 'Magic Find', 4, 40_000],
  ['mana', 'Mana', 8, 5_000],
  ['agility', 'Agility', 4, 9_000],
  ['haste', 'Haste', 4, 3_000],
];

function armorPieces(family: string): Array<[string, string, string]> {
  // [suffix, class, material]
  const m = family === 'CHAINMAIL' ? 'CHAINMAIL' : family;
  return [
    ['HELMET', 'HELMET', `${m}_HELMET`],
    ['CHESTPLATE', 'CHESTPLATE', `${m}_CHESTPLATE`],
    ['LEGGINGS', 'LEGGINGS', `${m}_LEGGINGS`],
    ['BOOTS', 'BOOTS', `${m}_BOOTS`],
  ];
}

const PIECE_SHARE: Readonly<Record<string, number>> = { HELMET: 0.25, CHESTPLATE: 0.35, LEGGINGS: 0.25, BOOTS: 0.15 };
const SWORD_GEMS = ['COMBAT_0', 'COMBAT_1'];
const ARMOR_GEMS = ['COMBAT_0', 'DEFENSIVE_0'];

function buildAuctionItems(): AuctionItemDef[] {
  const out: AuctionItemDef[] = [];
  for (const [id, name, tier, itemClass, material, fair, npc] of WEAPONS) {
    const dungeon = ['HYPERION', 'VALKYRIE', 'SCYLLA', 'ASTRAEA', 'GIANTS_SWORD', 'LIVID_DAGGER', 'SHADOW_FURY', 'FLOWER_OF_TRUTH', 'SPIRIT_SCEPTRE', 'DARK_CLAYMORE', 'BONZO_STAFF'].includes(id);
    out.push({ key: id, id, name, tier, category: 'weapon', itemClass, material, npcSellPrice: npc, fairPrice: fair, kind: 'weapon', dungeon, gemSlots: fair > 5_000_000 ? SWORD_GEMS : [], weight: fair > 100_000_000 ? 0.6 : 1.2 });
  }
  for (const [prefix, setName, tier, family, setFair, skullHelmet, flavour] of ARMOR_SETS) {
    for (const [suffix, itemClass, mat] of armorPieces(family)) {
      const isSkullHelm = suffix === 'HELMET' && skullHelmet;
      const material = isSkullHelm ? 'SKULL_ITEM' : mat;
      const fair = Math.round(setFair * (PIECE_SHARE[suffix] ?? 0.25));
      const pieceName = setName.endsWith("'s") || setName.endsWith('Outfit') || setName === 'Farm Armor'
        ? `${setName.replace(/ Outfit$| Armor$/, '')} ${suffix[0]}${suffix.slice(1).toLowerCase()}`
        : `${setName} ${suffix[0]}${suffix.slice(1).toLowerCase()}`;
      out.push({
        key: `${prefix}_${suffix}`,
        id: `${prefix}_${suffix}`,
        name: pieceName,
        tier,
        category: 'armor',
        itemClass,
        material: MATERIALS[material] ? material : 'LEATHER_CHESTPLATE',
        npcSellPrice: Math.round(fair / 500),
        fairPrice: fair,
        kind: 'armor',
        dungeon: flavour === 'dungeon',
        ...(flavour === 'attr' ? { attributes: ATTRIBUTES } : {}),
        gemSlots: flavour === 'dungeon' || flavour === 'attr' ? ARMOR_GEMS : [],
        weight: 1.4,
      });
    }
  }
  for (const [id, name, tier, itemClass, material, fair, npc] of ACCESSORIES) {
    out.push({ key: id, id, name, tier, category: 'accessories', itemClass, material, npcSellPrice: npc, fairPrice: fair, kind: 'accessory', weight: 0.6 });
  }
  for (const [id, name, tier, itemClass, material, fair, npc, category, kind] of PLAIN) {
    out.push({ key: id, id, name, tier, category, itemClass, material, npcSellPrice: npc, fairPrice: fair, kind, weight: 1 });
  }
  const TIER_SHARE: Partial<Record<Tier, number>> = { COMMON: 0.02, UNCOMMON: 0.04, RARE: 0.08, EPIC: 0.25, LEGENDARY: 1, MYTHIC: 2.5 };
  for (const [type, display, , tiers, legendaryFair] of PETS) {
    for (const tier of tiers) {
      out.push({
        key: `PET_${type}`,
        id: 'PET',
        name: display,
        tier,
        category: 'misc',
        itemClass: 'PET',
        material: 'SKULL_ITEM',
        npcSellPrice: 0,
        fairPrice: Math.max(5_000, Math.round(legendaryFair * (TIER_SHARE[tier] ?? 1))),
        kind: 'pet',
        petType: type,
        weight: 2.6 / tiers.length,
      });
    }
  }
  for (const [type, display, tier, fair] of RUNES) {
    out.push({ key: `RUNE_${type}`, id: 'RUNE', name: `${display} Rune`, tier, category: 'misc', itemClass: 'COSMETIC', material: 'SKULL_ITEM', npcSellPrice: 0, fairPrice: fair, kind: 'rune', runeType: type, weight: 0.5 });
  }
  for (const [potion, display, maxLevel, fair] of POTIONS) {
    out.push({ key: `POTION_${potion.toUpperCase()}`, id: 'POTION', name: `${display} ${roman(maxLevel)} Potion`, tier: 'RARE', category: 'consumables', itemClass: 'POTION', material: 'POTION', npcSellPrice: 0, fairPrice: fair, kind: 'potion', potion, potionLevel: maxLevel, weight: 0.3 });
  }
  for (const e of ENCHANTS) {
    // AH books: the top bazaar level plus one level above it (not on the bazaar).
    for (const level of [e.maxBazaar, e.maxBazaar + 1]) {
      if (e.ultimate && level > 5) continue;
      const fair = enchantBookPrice(e, level);
      out.push({
        key: enchantmentBookTag(e.name, level),
        id: 'ENCHANTED_BOOK',
        name: 'Enchanted Book',
        tier: level > e.maxBazaar ? 'EPIC' : e.ultimate ? 'RARE' : 'UNCOMMON',
        category: 'consumables',
        itemClass: 'NONE',
        material: 'ENCHANTED_BOOK',
        npcSellPrice: 0,
        fairPrice: fair,
        kind: 'book',
        enchant: { name: e.name, level },
        weight: 0.15,
      });
    }
  }
  return out;
}

/** All simulated auction-house item definitions (several rows per pet type: one per tier). */
export const AUCTION_ITEMS: readonly AuctionItemDef[] = buildAuctionItems();

/** Enchantments by name (lowercase game key). */
export const ENCHANTS_BY_NAME: ReadonlyMap<string, EnchantDef> = new Map(ENCHANTS.map((e) => [e.name, e]));

/** Reforges the simulator applies, by item class. */
export const REFORGES: Readonly<Record<'weapon' | 'bow' | 'armor' | 'accessory', readonly string[]>> = {
  weapon: ['fabled', 'withered', 'heroic', 'spicy', 'sharp', 'legendary', 'suspicious', 'gentle', 'dirty'],
  bow: ['spiritual', 'precise', 'rapid', 'hasty', 'fine'],
  armor: ['ancient', 'necrotic', 'giant', 'renowned', 'pure', 'fierce', 'wise', 'perfect', 'reinforced'],
  accessory: ['itchy', 'unpleasant', 'strong', 'hurtful', 'shaded', 'bizarre', 'godly'],
};

/** Enchantments the simulator puts on items, by slot. */
export const ITEM_ENCHANTS: Readonly<Record<'weapon' | 'bow' | 'armor', ReadonlyArray<[string, number, number]>>> = {
  weapon: [['sharpness', 5, 7], ['critical', 5, 6], ['giant_killer', 5, 7], ['ender_slayer', 5, 7], ['first_strike', 4, 5], ['looting', 3, 5], ['luck', 5, 7], ['life_steal', 3, 5], ['scavenger', 3, 5], ['telekinesis', 1, 1], ['ultimate_wise', 1, 5], ['ultimate_soul_eater', 1, 5], ['ultimate_chimera', 1, 5]],
  bow: [['power', 5, 7], ['overload', 1, 5], ['infinite_quiver', 8, 10], ['snipe', 3, 4], ['chance', 3, 5], ['ultimate_soul_eater', 1, 5], ['ultimate_rend', 1, 5]],
  armor: [['protection', 5, 7], ['growth', 5, 7], ['rejuvenate', 1, 5], ['feather_falling', 5, 10], ['ultimate_legion', 1, 5], ['ultimate_wisdom', 1, 5], ['ultimate_last_stand', 1, 5]],
};

/** A row of the items resource (`/v2/resources/skyblock/items`). */
export interface ResourceItem {
  id: string;
  material: string;
  name: string;
  tier?: Tier;
  category?: string;
  npc_sell_price?: number;
}

/** Items resource rows: every non-expanded AH item and every bazaar product except enchantment books. */
export function resourceItems(): ResourceItem[] {
  const seen = new Set<string>();
  const out: ResourceItem[] = [];
  for (const a of AUCTION_ITEMS) {
    if (a.kind === 'pet' || a.kind === 'rune' || a.kind === 'potion' || a.kind === 'book' || seen.has(a.id)) continue;
    seen.add(a.id);
    const row: ResourceItem = { id: a.id, material: a.material, name: a.name, tier: a.tier, category: a.itemClass };
    if (a.npcSellPrice > 0) row.npc_sell_price = a.npcSellPrice;
    out.push(row);
  }
  for (const p of BAZAAR_PRODUCTS) {
    if (p.group === 'enchantments' || seen.has(p.id)) continue;
    seen.add(p.id);
    const row: ResourceItem = { id: p.id, material: p.material, name: p.name };
    // The real resource omits tier for COMMON items.
    if (p.tier !== 'COMMON') row.tier = p.tier;
    if (p.npcSellPrice > 0) row.npc_sell_price = p.npcSellPrice;
    out.push(row);
  }
  return out;
}
