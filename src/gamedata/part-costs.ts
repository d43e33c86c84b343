/**
 * What two parts of an item cost to put on, from the NEU repository's constants (the parts
 * estimate prices them, docs/valuation.md):
 * - reforge stones (`constants/reforgestones.json`): stone internal name → the reforge it applies
 *   (`reforgeName`), the item types it fits and the coins to apply it per rarity;
 * - gemstone slot unlocks (`constants/gemstonecosts.json`): item tag → slot id (`JADE_0`,
 *   `COMBAT_0`) → items and coins (`["FINE_JADE_GEM:40", "SKYBLOCK_COIN:250000"]`).
 * The files are untrusted JSON: a malformed entry is skipped and counted, never thrown on. Pure.
 */

export interface ReforgeStone {
  /** the stone's item tag (NEU internal name), e.g. `WITHER_BLOOD` */
  stone: string;
  /** the reforge as the game writes it on the stone (`Withered`) */
  reforgeName: string;
  /** the reforge as items store it (`modifier`): `withered` */
  modifier: string;
  /** item types the stone applies to (`SWORD`, `ARMOR`, `SWORD/ROD` split), null when it names items instead */
  itemTypes: readonly string[] | null;
  /** the items it applies to, when the table names them instead of types */
  items: readonly string[] | null;
  /** the vanilla materials it applies to (`minecraft:iron_sword`), when the table names those instead */
  materials: readonly string[] | null;
  /** rarity → coins the blacksmith charges to apply it (not priced: the networth convention prices the stone only) */
  applyCoins: Readonly<Record<string, number>>;
}

export interface GemstoneSlotCost {
  /** items consumed, tag → amount */
  items: Readonly<Record<string, number>>;
  coins: number;
}

export interface PartCostTables {
  /** item modifier (`withered`) → the stones applying it (one in today's table; several kept when names collide) */
  reforgeStones: ReadonlyMap<string, readonly ReforgeStone[]>;
  /** item tag → slot id → unlock cost */
  gemstoneSlots: ReadonlyMap<string, ReadonlyMap<string, GemstoneSlotCost>>;
  /** entries skipped as malformed, per table */
  skipped: { reforgeStones: number; gemstoneSlots: number };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** A reforge's display name as items store it: `Withered` → `withered`, `Jerry's` → `jerrys`, `To Market` → `to_market`. */
export function reforgeModifier(reforgeName: string): string {
  return reforgeName
    .trim()
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

/** Reforge stones from a parsed `reforgestones.json`; malformed entries are skipped and counted. */
export function reforgeStonesFromNeu(json: unknown): { stones: Map<string, ReforgeStone[]>; skipped: number } {
  const stones = new Map<string, ReforgeStone[]>();
  let skipped = 0;
  if (!isRecord(json)) return { stones, skipped: json === undefined ? 0 : 1 };
  for (const [key, entry] of Object.entries(json)) {
    if (!isRecord(entry) || typeof entry.reforgeName !== 'string') {
      skipped++;
      continue;
    }
    const stone = typeof entry.internalName === 'string' && entry.internalName !== '' ? entry.internalName : key;
    const modifier = reforgeModifier(entry.reforgeName);
    let itemTypes: string[] | null = null;
    let items: string[] | null = null;
    let materials: string[] | null = null;
    if (typeof entry.itemTypes === 'string') itemTypes = entry.itemTypes.split('/').filter((t) => t !== '');
    else if (isRecord(entry.itemTypes) && isStringList(entry.itemTypes.internalName)) items = entry.itemTypes.internalName;
    else if (isRecord(entry.itemTypes) && isStringList(entry.itemTypes.itemId)) materials = entry.itemTypes.itemId;
    if (modifier === '' || (itemTypes === null && items === null && materials === null)) {
      skipped++;
      continue;
    }
    const applyCoins: Record<string, number> = {};
    if (isRecord(entry.reforgeCosts)) {
      for (const [rarity, coins] of Object.entries(entry.reforgeCosts)) if (typeof coins === 'number' && Number.isFinite(coins) && coins >= 0) applyCoins[rarity] = coins;
    }
    const list = stones.get(modifier) ?? [];
    list.push({ stone, reforgeName: entry.reforgeName, modifier, itemTypes, items, materials, applyCoins });
    stones.set(modifier, list);
  }
  return { stones, skipped };
}

/** Gemstone slot unlock costs from a parsed `gemstonecosts.json`; a malformed item or slot is skipped and counted. */
export function gemstoneSlotCostsFromNeu(json: unknown): { slots: Map<string, Map<string, GemstoneSlotCost>>; skipped: number } {
  const slots = new Map<string, Map<string, GemstoneSlotCost>>();
  let skipped = 0;
  if (!isRecord(json)) return { slots, skipped: json === undefined ? 0 : 1 };
  for (const [tag, perSlot] of Object.entries(json)) {
    if (!isRecord(perSlot)) {
      skipped++;
      continue;
    }
    const costs = new Map<string, GemstoneSlotCost>();
    for (const [slot, list] of Object.entries(perSlot)) {
      const cost = slotCost(list);
      if (cost) costs.set(slot, cost);
      else skipped++;
    }
    if (costs.size > 0) slots.set(tag, costs);
  }
  return { slots, skipped };
}

/** `["FINE_JADE_GEM:40", "SKYBLOCK_COIN:250000"]` → items and coins; undefined when any entry is unreadable. */
function slotCost(list: unknown): GemstoneSlotCost | undefined {
  if (!isStringList(list)) return undefined;
  const items: Record<string, number> = {};
  let coins = 0;
  for (const spec of list) {
    const colon = spec.lastIndexOf(':');
    const id = colon > 0 ? spec.slice(0, colon) : spec;
    const amount = colon > 0 ? Number(spec.slice(colon + 1)) : 1;
    if (id === '' || colon === 0 || !Number.isFinite(amount) || amount <= 0 || amount > 1e12) return undefined;
    if (id === 'SKYBLOCK_COIN') coins += amount;
    else items[id] = (items[id] ?? 0) + amount;
  }
  return { items, coins };
}

/** Both tables from the parsed constants (undefined: the file is absent). */
export function partCostTablesFromNeu(reforgeStones: unknown, gemstoneCosts: unknown): PartCostTables {
  const r = reforgeStonesFromNeu(reforgeStones);
  const g = gemstoneSlotCostsFromNeu(gemstoneCosts);
  return { reforgeStones: r.stones, gemstoneSlots: g.slots, skipped: { reforgeStones: r.skipped, gemstoneSlots: g.skipped } };
}

