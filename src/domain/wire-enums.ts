/**
 * The established service's wire enums (api-shapes.md §1-2; Coflnet's generated client schema
 * `skyApi.schemas.ts`: `Reforge`, `Category`, `Tier`), restated as data, and the rules that map
 * what upstream and the game store onto them. Pure: no I/O.
 *
 * Upstream spells these differently: the auctions feed sends categories in lower case
 * (`armor`), the item NBT stores the reforge as the game's modifier id (`ancient`,
 * `renowned`, `aote_stone`), and old items say `SUPREME` for `DIVINE`. Clients generated from
 * the established schema accept only the exact spellings below.
 */

/**
 * Every `Reforge` value of the established schema (174, as its client has them since July 2026),
 * in its order and exact spelling: some capitalised (`Fabled`), most in lower case (`ancient`).
 */
export const REFORGES: readonly string[] = [
  'None', 'Demonic', 'Forceful', 'Gentle', 'Godly', 'Hurtful', 'Keen', 'Strong', 'Superior', 'Unpleasant', 'Zealous',
  'Odd', 'Rich', 'Epic', 'Fair', 'Fast', 'Heroic', 'Legendary', 'Spicy', 'Deadly', 'Fine', 'Grand', 'Hasty', 'Neat',
  'Papid', 'Unreal', 'Clean', 'Fierce', 'Heavy', 'Light', 'Mythic', 'Pure', 'Smart', 'Titanic', 'Wise', 'Very',
  'Highly', 'Bizarre', 'Itchy', 'Omnious', 'Pleasant', 'Pretty', 'Shiny', 'Simple', 'Strange', 'Vivid', 'Ominous',
  'Sharp', 'Rapid', 'Necrotic', 'Fabled', 'Precise', 'Giant', 'aoteStone', 'Spiritual', 'Treacherous', 'Renowned',
  'Reinforced', 'rich_bow', 'Spiked', 'Perfect', 'Magnetic', 'Loving', 'Gilded', 'odd_sword', 'Salty', 'Silky',
  'Refined', 'suspicious', 'toil', 'empowered', 'fruitful', 'blessed', 'shaded', 'awkward', 'dirty', 'undead',
  'cubic', 'bloody', 'moil', 'ridiculous', 'rich_sword', 'warped', 'odd_bow', 'candied', 'submerged', 'ancient',
  'withered', 'sweet', 'fleet', 'stellar', 'mithraic', 'Auspicious', 'headstrong', 'stiff', 'bulky', 'lucky',
  'bountiful', 'heated', 'jaded', 'ambered', 'double_bit', 'excellent', 'fortunate', 'prospector', 'lush', 'sturdy',
  'lumberjack', 'unyielding', 'great', 'robust', 'rugged', 'zooming', 'peasant', 'strengthened', 'glistening',
  'waxed', 'fortified', 'green_thumb', 'pitchin', 'coldfusion', 'bustling', 'earthy', 'mossy', 'blooming', 'rooted',
  'festive', 'snowy', 'Unknown', 'Any', 'chomp', 'full_jaw_fanging_kit', 'presumed_gallon_of_red_paint',
  'displaced_leech', 'Fang_tastic_chocolate_chip', 'bubba_blister', 'fanged', 'blood_soaked', 'stained', 'menacing',
  'hefty', 'soft', 'honored', 'blended', 'astute', 'colossal', 'brilliant', 'greater_spook', 'beady', 'buzzing',
  'jerry_stone', 'hyper', 'coldfused', 'Earthly', 'glacial', 'lustrous', 'blazing', 'scraped', 'royal',
  'dimensional', 'squeaky', 'trashy', 'calcified', 'groovy', 'moonglade', 'bloodshot', 'blood_shot', 'erudite',
  'lunar', 'sunny', 'mantid', 'deep_fried', 'overpriced', 'geometric'
];

/** Modifier ids the game stores that the established enum spells as another value (aliases in its C# enum). */
const REFORGE_ALIASES: Readonly<Record<string, string>> = {
  aote_stone: 'aoteStone',
};

const REFORGE_BY_LOWER = new Map(REFORGES.map((r) => [r.toLowerCase(), r]));

/**
 * The `Reforge` value of an item's modifier: `None` without one, the enum's own spelling when the
 * modifier names a value (case-insensitively, as the established service parses it), `Unknown` otherwise.
 */
export function reforgeName(modifier: string | null | undefined): string {
  if (!modifier) return 'None';
  const lower = modifier.toLowerCase();
  return REFORGE_ALIASES[lower] ?? REFORGE_BY_LOWER.get(lower) ?? 'Unknown';
}

/** The established `Category` enum: seven upper-case values and two lower-case ones, exactly so. */
export const CATEGORIES: readonly string[] = ['UNKNOWN', 'WEAPON', 'ARMOR', 'ACCESSORIES', 'CONSUMABLES', 'BLOCKS', 'MISC', 'cosmetic', 'dyes'];

const CATEGORY_BY_LOWER = new Map(CATEGORIES.map((c) => [c.toLowerCase(), c]));

/** The `Category` value of an auction's category (upstream sends `armor`, `misc` …); `UNKNOWN` when absent or not in the enum. */
export function categoryName(raw: string | null | undefined): string {
  return (raw && CATEGORY_BY_LOWER.get(raw.toLowerCase())) || 'UNKNOWN';
}

/**
 * The established `ItemCategory` enum (`SkyblockItem.category`, never null), in its order and
 * exact spelling: mostly the items resource's upper-case categories, a few in camel case.
 */
export const ITEM_CATEGORIES: readonly string[] = [
  'UNKNOWN', 'PET_ITEM', 'SWORD', 'CHESTPLATE', 'HELMET', 'REFORGE_STONE', 'COSMETIC', 'AXE', 'LEGGINGS',
  'ACCESSORY', 'BOW', 'TRAVEL_SCROLL', 'BOOTS', 'HOE', 'BAIT', 'FISHING_ROD', 'DUNGEON_PASS', 'ARROW', 'SPADE',
  'SHEARS', 'PICKAXE', 'ARROW_POISON', 'WAND', 'DRILL', 'FISHING_WEAPON', 'GAUNTLET', 'FURNITURE', 'GENERATOR',
  'MINION_SKIN', 'PRIVATE_ISLAND', 'ISLAND_CRYSTAL', 'FRAGMENT', 'SLAYER', 'DUNGEON', 'DUNGEON_ITEM', 'SACK',
  'PORTAL', 'DEEP_CAVERNS', 'BACKPACK', 'TALISMAN_ENRICHMENT', 'THE_FISH', 'PET', 'PET_SKIN', 'RUNE', 'ArmorDye',
  'Vanilla', 'NullNamed', 'CLOAK', 'NECKLACE', 'BELT', 'GLOVES', 'BRACELET', 'InfernoMinionFuel', 'MEMENTO',
  'ABIPHONE', 'Fossil', 'FISHING_ROD_PART', 'VACUUM', 'CHISEL', 'FISHING_NET', 'LASSO', 'TRAP', 'DEPLOYABLE',
  'LONGSWORD', 'BOOSTER', 'CARNIVAL_MASK', 'SALT', 'WATERING_CAN', 'MUTATION', 'FARMING_TOOL', 'GARDEN_CHIP',
  'CONSUMABLE',
];

/**
 * Categories of the items resource the enum has no value of, onto the nearest one: upgrades for
 * pets, dungeon gear and minions are their items; potions and cakes are consumed; dyes dye armour.
 */
const ITEM_CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  pet_upgrade: 'PET_ITEM',
  dungeon_upgrade: 'DUNGEON_ITEM',
  minion_upgrade: 'GENERATOR',
  potion: 'CONSUMABLE',
  cake: 'CONSUMABLE',
  dye: 'ArmorDye',
  none: 'UNKNOWN',
};

const ITEM_CATEGORY_BY_LOWER = new Map(ITEM_CATEGORIES.map((c) => [c.toLowerCase(), c]));

/** The `ItemCategory` value of an item's category in the items resource: `UNKNOWN` when it has none or one the enum cannot say. */
export function itemCategoryName(raw: string | null | undefined): string {
  if (!raw) return 'UNKNOWN';
  const lower = raw.toLowerCase();
  return ITEM_CATEGORY_ALIASES[lower] ?? ITEM_CATEGORY_BY_LOWER.get(lower) ?? 'UNKNOWN';
}

/**
 * The established `EnchantmentType` enum (the `type` of an auction's enchantments), in its order
 * and exact spelling: the game's enchantment ids in lower case, with a few oddities of its own.
 */
export const ENCHANTMENT_TYPES: readonly string[] = [
  'unknown', 'cleave', 'critical', 'cubism', 'ender_slayer', 'execute', 'experience', 'first_strike', 'giant_killer',
  'impaling', 'lethality', 'life_steal', 'luck', 'scavenger', 'thunderlord', 'telekinesis', 'vampirism', 'venomous',
  'growth', 'aiming', 'dragon_hunter', 'infinite_quiver', 'piercing', 'snipe', 'harvesting', 'rainbow',
  'smelting_touch', 'angler', 'blessing', 'caster', 'frail', 'magnet', 'spiked_hook', 'bane_of_arthropods',
  'fire_aspect', 'looting', 'knockback', 'sharpness', 'smite', 'aqua_affinity', 'blast_protection', 'depth_strider',
  'feather_falling', 'fire_protection', 'frost_walker', 'projectile_protection', 'protection', 'respiration',
  'thorns', 'flame', 'power', 'punch', 'efficiency', 'fortune', 'silk_touch', 'lure', 'luck_of_the_sea',
  'true_protection', 'sugar_rush', 'replenish', 'rejuvenate', 'ultimate_bank', 'ultimate_combo', 'ultimate_jerry',
  'ultimate_last_stand', 'ultimate_no_pain_no_gain', 'ultimate_wisdom', 'ultimate_wise', 'expertise',
  'ultimate_chimera', 'ultimate_rend', 'overload', 'ultimate_legion', 'ultimate_swarm', 'big_brain', 'compact',
  'vicious', 'counter_strike', 'turbo_carrot', 'turbo_cactus', 'turbo_cane', 'turbo_coco', 'turbo_melon',
  'turbo_mushrooms', 'turbo_pumpkin', 'turbo_potato', 'turbo_warts', 'turbo_wheat', 'chance', 'prosecute', 'syphon',
  'respite', 'thunderbolt', 'titan_killer', 'triple_strike', 'ultimate_soul_eater', 'ultimate_one_for_all', 'None',
  'cultivating', 'delicate', 'mana_steal', 'smarty_pants', 'pristine', 'ultimate_fatal_tempo', 'ultimate_inferno',
  'charm', 'corruption', 'ferocious_mana', 'strong_mana', 'hardened_mana', 'mana_vampire', 'smoldering',
  'ultimate_duplex', 'ultimate_flash', 'hecatomb', 'champion', 'ultimate_habanero_tactics', 'cayenne', 'divine_gift',
  'piscary', 'ultimate_bobbin_time', 'tabasco', 'prosperity', 'sunder', 'dedication', 'Any', 'green_thumb',
  'transylvanian', 'reflection', 'ultimate_the_one', 'quantum', 'pesterminator', 'great_spook',
  'ultimate_refrigerate', 'paleontologist', 'ice_cold', 'toxophilite', 'ultimate_flowstate', 'lapidary',
  'small_brain', 'tidal', 'quick_bite', 'absorb', 'arcane', 'drainRenamed', 'ultimate_first_impression',
  'forest_pledge', 'ultimate_missile', 'raspiration', 'scuba', 'stealth', 'ultimate_crop_fever', 'turbo_sunflower',
  'turbo_moonflower', 'turbo_rose', 'ultimate_sunset', 'bug_blender', 'feast', 'magmarizer',
];

/** Enchantment ids items still store under an old name the enum has renamed (Reiterate became Duplex in game). */
const ENCHANTMENT_TYPE_ALIASES: Readonly<Record<string, string>> = {
  ultimate_reiterate: 'ultimate_duplex',
};

const ENCHANTMENT_TYPE_SET = new Set(ENCHANTMENT_TYPES);

/** The `EnchantmentType` value of an enchantment id (any case): `unknown` for one the enum lacks, so the answer still parses. */
export function enchantmentTypeName(raw: string): string {
  const lower = raw.toLowerCase();
  const name = ENCHANTMENT_TYPE_ALIASES[lower] ?? lower;
  return ENCHANTMENT_TYPE_SET.has(name) ? name : 'unknown';
}

/** The established `Tier` enum. */
export const TIERS: readonly string[] = ['UNKNOWN', 'COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'SPECIAL', 'VERY_SPECIAL', 'MYTHIC', 'DIVINE', 'ULTIMATE'];

const TIER_SET = new Set(TIERS);

/** The `Tier` value of a stored rarity: `SUPREME` (the old name of `DIVINE`) becomes `DIVINE`; absent or unknown rarities `UNKNOWN`. */
export function tierName(raw: string | null | undefined): string {
  if (!raw) return 'UNKNOWN';
  const upper = raw.toUpperCase().replace(' ', '_');
  if (upper === 'SUPREME') return 'DIVINE';
  return TIER_SET.has(upper) ? upper : 'UNKNOWN';
}

/** Rarity words as they stand on an item's last lore lines (`VERY SPECIAL` before `SPECIAL`). */
const LORE_RARITIES = ['VERY SPECIAL', 'SPECIAL', 'DIVINE', 'MYTHIC', 'LEGENDARY', 'EPIC', 'RARE', 'UNCOMMON', 'COMMON', 'SUPREME', 'ULTIMATE'];

/** An item's rarity read from its lore: the last line that names one ("§6§lLEGENDARY SWORD"), or null. */
export function tierFromLore(lore: readonly string[]): string | null {
  for (let i = lore.length - 1; i >= 0; i--) {
    const line = lore[i]!.replace(/§./g, '').trim().toUpperCase();
    const match = LORE_RARITIES.find((r) => line.startsWith(r) || line.startsWith(`A ${r}`));
    if (match) return match.replace(' ', '_');
  }
  return null;
}
