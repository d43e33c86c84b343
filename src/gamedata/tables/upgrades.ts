/**
 * Upgrade costs for the built-in catalog (the simulator's items), used when no NEU repository is
 * loaded. Data, not logic:
 * - STAR_COSTS: dungeon stars 1–5 of the catalog's dungeon items, copied from the NEU repository's
 *   constants/essencecosts.json (MIT): [tag, essence type, essence per star, coins per star].
 *   (SPIRIT_SCEPTRE has no entry there, so its stars only match themselves.)
 * - ATTRIBUTE_SHARDS: the simulator's armour attributes, each levelled with one of the catalog's
 *   shard products (a simulator choice: the catalog's attributes are the Kuudra-era names, the
 *   NEU table lists the current hunting attributes); rarity sets the shards per level.
 * - ATTRIBUTE_LEVELLING: shards per level by rarity, copied from NEU attribute_shards.json.
 * - REFORGE_STONES: the reforge stones the catalog has as items, copied from NEU
 *   constants/reforgestones.json (MIT), in its shape (read by gamedata/part-costs.ts). The catalog
 *   has no gemstone slot unlock costs: without a NEU repository unlocked slots stay unpriced.
 */
export const STAR_COSTS: ReadonlyArray<[tag: string, essence: string, perStar: number[], coinsPerStar: number[]]> = [
  ['HYPERION', 'WITHER', [150, 300, 500, 900, 1500], [0, 0, 0, 10000, 25000]],
  ['VALKYRIE', 'WITHER', [150, 300, 500, 900, 1500], [0, 0, 0, 10000, 25000]],
  ['SCYLLA', 'WITHER', [150, 300, 500, 900, 1500], [0, 0, 0, 10000, 25000]],
  ['ASTRAEA', 'WITHER', [150, 300, 500, 900, 1500], [0, 0, 0, 10000, 25000]],
  ['GIANTS_SWORD', 'WITHER', [75, 150, 300, 600, 1200], [0, 0, 0, 10000, 25000]],
  ['LIVID_DAGGER', 'WITHER', [30, 60, 120, 250, 400], [0, 0, 0, 10000, 25000]],
  ['SHADOW_FURY', 'WITHER', [50, 100, 200, 400, 800], [0, 0, 0, 10000, 25000]],
  ['FLOWER_OF_TRUTH', 'WITHER', [50, 100, 200, 400, 800], [0, 0, 0, 10000, 25000]],
  ['DARK_CLAYMORE', 'WITHER', [150, 300, 500, 900, 1500], [0, 0, 0, 10000, 25000]],
  ['BONZO_STAFF', 'WITHER', [5, 10, 25, 50, 100], [0, 0, 0, 10000, 25000]],
  ['POWER_WITHER_HELMET', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['POWER_WITHER_CHESTPLATE', 'WITHER', [100, 200, 350, 600, 1000], [0, 0, 0, 10000, 25000]],
  ['POWER_WITHER_LEGGINGS', 'WITHER', [75, 150, 250, 400, 700], [0, 0, 0, 10000, 25000]],
  ['POWER_WITHER_BOOTS', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['WISE_WITHER_HELMET', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['WISE_WITHER_CHESTPLATE', 'WITHER', [100, 200, 350, 600, 1000], [0, 0, 0, 10000, 25000]],
  ['WISE_WITHER_LEGGINGS', 'WITHER', [75, 150, 250, 400, 700], [0, 0, 0, 10000, 25000]],
  ['WISE_WITHER_BOOTS', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['TANK_WITHER_HELMET', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['TANK_WITHER_CHESTPLATE', 'WITHER', [100, 200, 350, 600, 1000], [0, 0, 0, 10000, 25000]],
  ['TANK_WITHER_LEGGINGS', 'WITHER', [75, 150, 250, 400, 700], [0, 0, 0, 10000, 25000]],
  ['TANK_WITHER_BOOTS', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['SPEED_WITHER_HELMET', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['SPEED_WITHER_CHESTPLATE', 'WITHER', [100, 200, 350, 600, 1000], [0, 0, 0, 10000, 25000]],
  ['SPEED_WITHER_LEGGINGS', 'WITHER', [75, 150, 250, 400, 700], [0, 0, 0, 10000, 25000]],
  ['SPEED_WITHER_BOOTS', 'WITHER', [50, 100, 200, 350, 500], [0, 0, 0, 10000, 25000]],
  ['SHADOW_ASSASSIN_HELMET', 'WITHER', [25, 50, 100, 200, 300], [0, 0, 0, 10000, 25000]],
  ['SHADOW_ASSASSIN_CHESTPLATE', 'WITHER', [35, 75, 150, 300, 500], [0, 0, 0, 10000, 25000]],
  ['SHADOW_ASSASSIN_LEGGINGS', 'WITHER', [30, 60, 120, 250, 400], [0, 0, 0, 10000, 25000]],
  ['SHADOW_ASSASSIN_BOOTS', 'WITHER', [20, 50, 100, 200, 300], [0, 0, 0, 10000, 25000]],
];

export const ATTRIBUTE_SHARDS: ReadonlyArray<[attribute: string, productId: string, rarity: string]> = [
  ['mana_pool', 'SHARD_STARBORN', 'EPIC'],
  ['mana_regeneration', 'SHARD_MIST', 'UNCOMMON'],
  ['dominance', 'SHARD_TIAMAT', 'LEGENDARY'],
  ['veteran', 'SHARD_GHAST', 'UNCOMMON'],
  ['lifeline', 'SHARD_PHOENIX', 'LEGENDARY'],
  ['magic_find', 'SHARD_GRIFFIN', 'RARE'],
  ['vitality', 'SHARD_YETI', 'EPIC'],
  ['breeze', 'SHARD_CHILL', 'COMMON'],
  ['speed', 'SHARD_CROW', 'UNCOMMON'],
  ['arachno_resistance', 'SHARD_SPIDER', 'COMMON'],
  ['blazing_resistance', 'SHARD_BLAZE', 'UNCOMMON'],
  ['fortitude', 'SHARD_PYTHON', 'RARE'],
];

export const ATTRIBUTE_LEVELLING: Readonly<Record<string, readonly number[]>> = {
  COMMON: [1, 3, 5, 6, 7, 8, 10, 14, 18, 24],
  UNCOMMON: [1, 2, 3, 4, 5, 6, 7, 8, 12, 16],
  RARE: [1, 2, 3, 3, 4, 4, 5, 6, 8, 12],
  EPIC: [1, 1, 2, 2, 3, 3, 4, 4, 5, 7],
  LEGENDARY: [1, 1, 1, 2, 2, 2, 3, 3, 4, 5],
};

export const REFORGE_STONES: Readonly<Record<string, unknown>> = {
  WITHER_BLOOD: {
    internalName: 'WITHER_BLOOD',
    reforgeName: 'Withered',
    itemTypes: 'SWORD',
    reforgeCosts: { COMMON: 10000, UNCOMMON: 20000, RARE: 30000, EPIC: 40000, LEGENDARY: 50000, MYTHIC: 60000 },
  },
  KUUDRA_MANDIBLE: {
    internalName: 'KUUDRA_MANDIBLE',
    reforgeName: 'Chomp',
    itemTypes: 'ROD',
    reforgeCosts: { COMMON: 20000, UNCOMMON: 40000, RARE: 80000, EPIC: 150000, LEGENDARY: 300000, MYTHIC: 600000 },
  },
  ONYX: {
    internalName: 'ONYX',
    reforgeName: 'Fruitful',
    itemTypes: 'PICKAXE',
    reforgeCosts: { COMMON: 100, UNCOMMON: 250, RARE: 500, EPIC: 1000, LEGENDARY: 2500, MYTHIC: 5000, DIVINE: 10000 },
  },
};
