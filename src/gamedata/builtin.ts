/**
 * GameData from the built-in catalog the simulator uses: the fallback when no NEU repository
 * is configured or synced. Its recipes are the catalog's simplified `craftedFrom` chains
 * (e.g. 160 Wheat → Enchanted Wheat); they match the simulated market, not the real game. Its
 * forge recipes and Kat upgrades are real: a few of the NEU repository's (builtin/neu-recipes.ts),
 * for items and pets the simulator trades, so the demo's Forge and Kat flips have data.
 */
import { AUCTION_ITEMS, BAZAAR_PRODUCTS } from './builtin/catalog.ts';
import { NEU_FORGE_RECIPES, NEU_KAT_UPGRADES } from './builtin/neu-recipes.ts';
import { forgeRecipe, katUpgrade, petName } from './neu.ts';
import { GRID_SLOTS, type GameData, type GameItem, type GridSlot, type KatUpgrade, type Recipe } from './types.ts';

export function builtinGameData(): GameData {
  const items = new Map<string, GameItem>();
  const recipes = new Map<string, Recipe[]>();
  const bazaarIds = new Map<string, string>();
  for (const p of BAZAAR_PRODUCTS) {
    items.set(p.id, { tag: p.id, sourceId: p.id, name: p.name, tier: p.tier, material: p.material, requirements: [] });
    bazaarIds.set(p.id, p.id);
    if (p.craftedFrom) {
      const { id, count } = p.craftedFrom;
      recipes.set(p.id, [{ type: 'crafting', output: p.id, count: 1, inputs: [{ tag: id, count }], currencies: [], grid: spreadOverGrid(id, count) }]);
    }
  }
  for (const a of AUCTION_ITEMS) {
    if (items.has(a.key)) continue;
    items.set(a.key, { tag: a.key, sourceId: a.key, name: a.name, tier: a.tier, material: a.material, requirements: [] });
  }
  // The catalog's ids are NEU's for these items and materials: an unknown one is left out.
  const resolve = (id: string) => (items.has(id) ? id : undefined);
  const unknown = () => {};
  for (const { output, recipe } of NEU_FORGE_RECIPES) {
    const r = forgeRecipe({ ...recipe }, output, resolve, unknown);
    if (r && items.has(output)) recipes.set(output, [...(recipes.get(output) ?? []), r]);
  }
  const katUpgrades: KatUpgrade[] = [];
  for (const raw of NEU_KAT_UPGRADES) {
    const k = katUpgrade({ ...raw }, resolve, unknown);
    if (k) katUpgrades.push({ ...k, name: petName(items.get(k.petTag)?.name ?? k.name) });
  }
  return {
    source: { kind: 'builtin', path: null, version: null },
    items,
    recipes,
    npcOffers: new Map(),
    bazaarIds,
    enchantsByClass: new Map(),
    copper: new Map(),
    attributeShards: [],
    georgePrices: new Map(),
    unresolved: [],
    katUpgrades,
  };
}

/** Lays `count` of one ingredient out on a grid: the enchanted-material "plus" when it fits, else 64 per slot. */
function spreadOverGrid(tag: string, count: number): Record<GridSlot, string> {
  const grid = Object.fromEntries(GRID_SLOTS.map((s) => [s, ''])) as Record<GridSlot, string>;
  if (count % 5 === 0 && count / 5 <= 64) {
    for (const slot of ['A2', 'B1', 'B2', 'B3', 'C2'] as const) grid[slot] = `${tag}:${count / 5}`;
    return grid;
  }
  let left = count;
  for (const slot of GRID_SLOTS) {
    if (left <= 0) break;
    const n = Math.min(64, left);
    grid[slot] = `${tag}:${n}`;
    left -= n;
  }
  return grid;
}
