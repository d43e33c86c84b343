/**
 * What item upgrades cost in game materials (the attribute/upgrade flips price them at market
 * prices): dungeon stars (essence per star, NEU constants/essencecosts.json) and attribute levels
 * (shards per level by the shard's rarity, NEU constants/attribute_shards.json). Read from the same
 * game-data location as the rest (GAME_DATA_DIR, then the synced copy), else the built-in tables.
 * Reforge stones and gemstone slot unlock costs come with them (gamedata/part-costs.ts).
 * Only these constants files are read, so the flip engine does not load the whole repository.
 */
import { syncedGameDataPath, type GameDataLocations } from './index.ts';
import { isNeuRepository, readNeuConstant } from './neu.ts';
import { partCostTablesFromNeu, type PartCostTables } from './part-costs.ts';
import { ATTRIBUTE_LEVELLING, ATTRIBUTE_SHARDS, REFORGE_STONES, STAR_COSTS } from './tables/upgrades.ts';

export interface StarCost {
  /** bazaar product of the essence, e.g. `ESSENCE_WITHER` */
  essence: string;
  /** essence for star i + 1 */
  perStar: readonly number[];
  /** coins for star i + 1 (besides the essence) */
  coinsPerStar: readonly number[];
  /** other items for star i + 1 (master stars …), as tag → count */
  itemsPerStar: ReadonlyArray<Readonly<Record<string, number>>>;
}

export interface AttributeShardCost {
  /** what the shard is bought as (bazaar product or auction tag) */
  productId: string;
  rarity: string;
}

export interface UpgradeCosts {
  /** item tag → star costs */
  stars: ReadonlyMap<string, StarCost>;
  /** item attribute name as in NBT (`mana_pool`) → its shard */
  attributeShards: ReadonlyMap<string, AttributeShardCost>;
  /** rarity → shards to reach level i + 1 from level i */
  attributeLevelling: Readonly<Record<string, readonly number[]>>;
  /** reforge stones and gemstone slot unlock costs (NEU reforgestones.json, gemstonecosts.json; gamedata/part-costs.ts) */
  parts: PartCostTables;
  source: 'neu' | 'builtin';
}

export function builtinUpgradeCosts(): UpgradeCosts {
  const stars = new Map<string, StarCost>();
  for (const [tag, essence, perStar, coinsPerStar] of STAR_COSTS) {
    stars.set(tag, { essence: `ESSENCE_${essence}`, perStar, coinsPerStar, itemsPerStar: perStar.map(() => ({})) });
  }
  const attributeShards = new Map<string, AttributeShardCost>();
  for (const [attribute, productId, rarity] of ATTRIBUTE_SHARDS) attributeShards.set(attribute, { productId, rarity });
  // The catalog's reforge stones (no gemstone slot costs: the catalog has none).
  return { stars, attributeShards, attributeLevelling: ATTRIBUTE_LEVELLING, parts: partCostTablesFromNeu(REFORGE_STONES, undefined), source: 'builtin' };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Upgrade costs from parsed NEU constants; malformed entries are skipped (the part tables count theirs). */
export function upgradeCostsFromNeu(essenceCosts: unknown, attributeShards: unknown, reforgeStones?: unknown, gemstoneCosts?: unknown): UpgradeCosts {
  const stars = new Map<string, StarCost>();
  if (isRecord(essenceCosts)) {
    for (const [tag, entry] of Object.entries(essenceCosts)) {
      if (!isRecord(entry) || typeof entry.type !== 'string') continue;
      const perStar: number[] = [];
      const coinsPerStar: number[] = [];
      const itemsPerStar: Array<Record<string, number>> = [];
      const items = isRecord(entry.items) ? entry.items : {};
      for (let star = 1; typeof entry[String(star)] === 'number'; star++) {
        perStar.push(entry[String(star)] as number);
        let coins = 0;
        const others: Record<string, number> = {};
        const list = items[String(star)];
        for (const spec of Array.isArray(list) ? list : []) {
          if (typeof spec !== 'string') continue;
          const [id, n] = spec.split(':');
          const count = Number(n ?? 1);
          if (!id || !Number.isFinite(count)) continue;
          if (id === 'SKYBLOCK_COIN') coins += count;
          else others[id] = (others[id] ?? 0) + count;
        }
        coinsPerStar.push(coins);
        itemsPerStar.push(others);
      }
      if (perStar.length > 0) stars.set(tag, { essence: `ESSENCE_${entry.type.toUpperCase()}`, perStar, coinsPerStar, itemsPerStar });
    }
  }
  const shards = new Map<string, AttributeShardCost>();
  const levelling: Record<string, number[]> = {};
  if (isRecord(attributeShards)) {
    if (isRecord(attributeShards.attribute_levelling)) {
      for (const [rarity, list] of Object.entries(attributeShards.attribute_levelling)) {
        if (Array.isArray(list) && list.every((n) => typeof n === 'number')) levelling[rarity] = list as number[];
      }
    }
    for (const a of Array.isArray(attributeShards.attributes) ? attributeShards.attributes : []) {
      if (!isRecord(a) || typeof a.abilityName !== 'string' || typeof a.bazaarName !== 'string' || typeof a.rarity !== 'string') continue;
      // Items name an attribute in snake case ("Magic Find" → magic_find).
      shards.set(attributeKey(a.abilityName), { productId: a.bazaarName, rarity: a.rarity });
    }
  }
  return { stars, attributeShards: shards, attributeLevelling: levelling, parts: partCostTablesFromNeu(reforgeStones, gemstoneCosts), source: 'neu' };
}

/** An attribute's display or ability name as items store it: `Magic Find` → `magic_find`. */
export function attributeKey(name: string): string {
  return name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
}

/** Upgrade costs from the configured game-data location (see gamedata/index.ts), else built in. */
export function loadUpgradeCosts(locations: GameDataLocations): UpgradeCosts {
  const dir = locations.gameDataDir ?? syncedGameDataPath(locations.dataDir);
  if (!isNeuRepository(dir)) return builtinUpgradeCosts();
  return upgradeCostsFromNeu(
    readNeuConstant(dir, 'essencecosts.json'),
    readNeuConstant(dir, 'attribute_shards.json'),
    readNeuConstant(dir, 'reforgestones.json'),
    readNeuConstant(dir, 'gemstonecosts.json'),
  );
}
