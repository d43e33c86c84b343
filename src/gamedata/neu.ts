/**
 * Loader for the NotEnoughUpdates repository format: a directory with `items/*.json`
 * (one file per NEU id) and `constants/*.json`. Produces skymarket's GameData with NEU ids
 * mapped to skymarket tags:
 *
 * | NEU id                        | tag                           |
 * |-------------------------------|-------------------------------|
 * | listed in bazaarstocks.json   | its bazaar product id (`SHARD_GROVE`, `ENCHANTMENT_LUCK_6`) |
 * | `ID-DAMAGE`                   | `ID:DAMAGE` (the bazaar's form, e.g. `INK_SACK:3` cocoa beans) |
 * | `NAME;N` pets, books, runes, potions | see domain/tags.ts `neuIdToTag` |
 * | anything else                 | the id itself                 |
 *
 * Damage variants keep the damage: `INK_SACK:3` (cocoa beans) and `INK_SACK` (ink sac) are
 * different crafting ingredients with different prices.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { neuIdToTag } from '../domain/tags.ts';
import {
  GRID_SLOTS,
  type AttributeShard,
  type CopperPrice,
  type Currency,
  type CurrencyCost,
  type GameData,
  type GameItem,
  type GridSlot,
  type Ingredient,
  type KatUpgrade,
  type LevelingTables,
  type Recipe,
  type Requirement,
  type UnresolvedIngredient,
} from './types.ts';

/** True when `dir` looks like a NEU repository checkout (items/ and constants/). */
export function isNeuRepository(dir: string): boolean {
  return existsSync(join(dir, 'items')) && existsSync(join(dir, 'constants'));
}

export interface NeuLoadReport {
  itemFiles: number;
  /** files that could not be read or parsed, with the reason */
  failed: Array<{ file: string; error: string }>;
}

/** One `constants/*.json` file of a NEU repository, parsed; undefined when absent or not JSON. */
export function readNeuConstant(dir: string, name: string): unknown {
  const path = join(dir, 'constants', name);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Loads a NEU repository directory. Throws when the directory is not one. */
export function loadNeuRepository(dir: string, kind: 'directory' | 'synced' = 'directory'): GameData & { report: NeuLoadReport } {
  if (!isNeuRepository(dir)) throw new Error(`${dir} is not a NotEnoughUpdates repository (no items/ and constants/)`);
  const constants = (name: string): unknown => readNeuConstant(dir, name);

  // Bazaar stock names first: they decide the tag of shards and books.
  const stockById = new Map<string, string>();
  const stocks = constants('bazaarstocks.json');
  if (Array.isArray(stocks)) {
    for (const s of stocks) {
      if (isRecord(s) && typeof s.stock === 'string' && typeof s.id === 'string') stockById.set(s.id, s.stock);
    }
  }

  const report: NeuLoadReport = { itemFiles: 0, failed: [] };
  const raws: Array<{ id: string; json: Record<string, unknown> }> = [];
  for (const file of readdirSync(join(dir, 'items')).sort()) {
    if (!file.endsWith('.json')) continue;
    report.itemFiles++;
    try {
      const json: unknown = JSON.parse(readFileSync(join(dir, 'items', file), 'utf8'));
      if (!isRecord(json)) throw new Error('not a JSON object');
      const id = typeof json.internalname === 'string' ? json.internalname : file.slice(0, -5);
      raws.push({ id, json });
    } catch (err) {
      report.failed.push({ file, error: err instanceof Error ? err.message : String(err) });
    }
  }

  // NEU id → tag for every known item, so recipe ingredients map the same way.
  const tagOf = new Map<string, string>();
  for (const { id, json } of raws) tagOf.set(id, mapNeuId(id, typeof json.itemid === 'string' ? json.itemid : undefined, stockById));
  const resolve = (neuId: string): string | undefined => tagOf.get(neuId);

  const items = new Map<string, GameItem>();
  const recipes = new Map<string, Recipe[]>();
  const npcOffers = new Map<string, Recipe[]>();
  const unresolved: UnresolvedIngredient[] = [];
  const seenRecipes = new Set<string>();
  const katUpgrades: KatUpgrade[] = [];
  const seenKat = new Set<string>();
  const addRecipe = (recipe: Recipe) => {
    const key = `${recipe.type}|${recipe.output}|${recipe.count}|${recipe.inputs.map((i) => `${i.tag}*${i.count}`).join(',')}|${recipe.currencies.map((c) => `${c.currency}*${c.amount}`).join(',')}`;
    if (seenRecipes.has(key)) return;
    seenRecipes.add(key);
    push(recipes, recipe.output, recipe);
    if (recipe.type === 'npc_shop') push(npcOffers, recipe.output, recipe);
  };

  for (const { id, json } of raws) {
    const tag = tagOf.get(id)!;
    if (!items.has(tag)) {
      items.set(tag, {
        tag,
        sourceId: id,
        name: stripColors(typeof json.displayname === 'string' ? json.displayname : id),
        tier: tierFromLore(json.lore),
        material: typeof json.itemid === 'string' ? json.itemid : null,
        requirements: requirementsOf(json),
      });
    }
    const unknown = (ingredient: string) => unresolved.push({ output: tag, ingredient });

    if (isRecord(json.recipe)) {
      const r = gridRecipe(json.recipe, tag, resolve, unknown);
      if (r) addRecipe(r);
    }
    if (Array.isArray(json.recipes)) {
      for (const raw of json.recipes) {
        if (!isRecord(raw)) continue;
        if (raw.type === 'crafting') {
          const output = typeof raw.overrideOutputId === 'string' ? (resolve(raw.overrideOutputId) ?? tag) : tag;
          const r = gridRecipe(raw, output, resolve, unknown);
          if (r) addRecipe(r);
        } else if (raw.type === 'forge') {
          const output = typeof raw.overrideOutputId === 'string' ? (resolve(raw.overrideOutputId) ?? tag) : tag;
          const r = forgeRecipe(raw, output, resolve, unknown);
          if (r) addRecipe(r);
        } else if (raw.type === 'npc_shop') {
          const r = npcRecipe(raw, id, resolve, (ingredient, output) => unresolved.push({ output: output ?? tag, ingredient }));
          if (r) addRecipe(r);
        } else if (raw.type === 'katgrade') {
          // Pet rarity upgrades are not crafts: kept apart for the Kat flips.
          const k = katUpgrade(raw, resolve, unknown);
          if (k && !seenKat.has(`${k.petTag}|${k.fromTier}`)) {
            seenKat.add(`${k.petTag}|${k.fromTier}`);
            katUpgrades.push(k);
          }
        }
        // drops, trade: not purchasable crafts.
      }
    }
  }

  const enchantsByClass = new Map<string, string[]>();
  const enchants = constants('enchants.json');
  if (isRecord(enchants) && isRecord(enchants.enchants)) {
    for (const [cls, list] of Object.entries(enchants.enchants)) {
      if (Array.isArray(list)) enchantsByClass.set(cls, list.filter((x): x is string => typeof x === 'string').map((x) => x.toLowerCase()));
    }
  }

  const copper = new Map<string, CopperPrice>();
  const skymart = constants('skymart.json');
  if (isRecord(skymart)) {
    for (const [id, entry] of Object.entries(skymart)) {
      if (!isRecord(entry) || typeof entry.price !== 'number') continue;
      const currency = entry.currency === 'coins' || entry.currency === 'gems' ? entry.currency : 'copper';
      copper.set(resolve(id) ?? mapNeuId(id, undefined, stockById), { price: entry.price, currency });
    }
  }

  const attributeShards: AttributeShard[] = [];
  const shards = constants('attribute_shards.json');
  if (isRecord(shards) && Array.isArray(shards.attributes)) {
    for (const a of shards.attributes) {
      if (!isRecord(a) || typeof a.internalName !== 'string' || typeof a.bazaarName !== 'string') continue;
      attributeShards.push({
        neuId: a.internalName,
        bazaarId: a.bazaarName,
        displayName: typeof a.displayName === 'string' ? a.displayName : a.bazaarName,
        rarity: typeof a.rarity === 'string' ? a.rarity : 'COMMON',
        abilityName: typeof a.abilityName === 'string' ? a.abilityName : '',
      });
    }
  }

  const georgePrices = new Map<string, number>();
  const george = constants('george.json');
  if (isRecord(george) && isRecord(george.prices)) {
    for (const [id, price] of Object.entries(george.prices)) if (typeof price === 'number') georgePrices.set(id, price);
  }

  const bazaarIds = new Map<string, string>();
  for (const [id, stock] of stockById) bazaarIds.set(tagOf.get(id) ?? mapNeuId(id, undefined, stockById), stock);
  for (const tag of tagOf.values()) if (/^[A-Z0-9_]+:\d+$/.test(tag)) bazaarIds.set(tag, tag);

  const leveling = levelingTables(constants('leveling.json'));

  let version: string | null = null;
  const snapshot = join(dir, 'SNAPSHOT');
  if (existsSync(snapshot)) version = readFileSync(snapshot, 'utf8').trim().split(/\s+/)[0] ?? null;

  return {
    source: { kind, path: dir, version },
    items,
    recipes,
    npcOffers,
    bazaarIds,
    enchantsByClass,
    copper,
    attributeShards,
    georgePrices,
    unresolved,
    katUpgrades: katUpgrades.map((k) => ({ ...k, name: petName(items.get(k.petTag)?.name ?? k.name) })),
    report,
    ...(leveling ? { leveling } : {}),
  };
}

function levelingTables(raw: unknown): LevelingTables | undefined {
  if (!isRecord(raw)) return undefined;
  const numbers = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : []);
  const skill = numbers(raw.leveling_xp);
  if (skill.length === 0) return undefined;
  const caps: Record<string, number> = {};
  if (isRecord(raw.leveling_caps)) for (const [k, v] of Object.entries(raw.leveling_caps)) if (typeof v === 'number') caps[k.toLowerCase()] = v;
  return { skill, runecrafting: numbers(raw.runecrafting_xp), social: numbers(raw.social), hotm: numbers(raw.HOTM), caps };
}

/** Maps one NEU id to a skymarket tag (see the module comment). */
export function mapNeuId(neuId: string, material: string | undefined, stockById: ReadonlyMap<string, string>): string {
  const stock = stockById.get(neuId);
  if (stock) return stock;
  const damage = /^([A-Z0-9_]+)-(\d+)$/.exec(neuId);
  if (damage) return `${damage[1]}:${damage[2]}`;
  return neuIdToTag(neuId, material);
}

type Resolve = (neuId: string) => string | undefined;

/** Splits "TAG:count" (count may be fractional, e.g. "SKYBLOCK_COIN:8.0"); a bare tag counts 1. */
export function splitCount(entry: string): { id: string; count: number } | undefined {
  const s = entry.trim();
  if (s === '') return undefined;
  const colon = s.lastIndexOf(':');
  if (colon === -1) return { id: s, count: 1 };
  const count = Number(s.slice(colon + 1));
  if (!Number.isFinite(count) || count <= 0) return undefined;
  return { id: s.slice(0, colon), count };
}

function gridRecipe(raw: Record<string, unknown>, output: string, resolve: Resolve, unknown: (id: string) => void): Recipe | undefined {
  const grid = {} as Record<GridSlot, string>;
  const inputs = new Map<string, number>();
  let ok = true;
  for (const slot of GRID_SLOTS) {
    const value = raw[slot];
    const parsed = typeof value === 'string' ? splitCount(value) : undefined;
    if (!parsed) {
      grid[slot] = '';
      continue;
    }
    const tag = resolve(parsed.id);
    if (!tag) {
      unknown(parsed.id);
      ok = false;
      grid[slot] = '';
      continue;
    }
    grid[slot] = `${tag}:${parsed.count}`;
    inputs.set(tag, (inputs.get(tag) ?? 0) + parsed.count);
  }
  if (!ok || inputs.size === 0) return undefined;
  const count = typeof raw.count === 'number' && raw.count > 0 ? raw.count : typeof raw.count === 'string' && Number(raw.count) > 0 ? Number(raw.count) : 1;
  return { type: 'crafting', output, count, inputs: toIngredients(inputs), currencies: [], grid };
}

export function forgeRecipe(raw: Record<string, unknown>, output: string, resolve: Resolve, unknown: (id: string) => void): Recipe | undefined {
  if (!Array.isArray(raw.inputs)) return undefined;
  const inputs = new Map<string, number>();
  const currencies: CurrencyCost[] = [];
  for (const entry of raw.inputs) {
    const parsed = typeof entry === 'string' ? splitCount(entry) : undefined;
    if (!parsed) continue;
    const currency = currencyOf(parsed.id);
    if (currency) {
      currencies.push({ ...currency, amount: parsed.count });
      continue;
    }
    const tag = resolve(parsed.id);
    if (!tag) {
      unknown(parsed.id);
      return undefined;
    }
    inputs.set(tag, (inputs.get(tag) ?? 0) + parsed.count);
  }
  if (inputs.size === 0) return undefined;
  const recipe: Recipe = {
    type: 'forge',
    output,
    count: typeof raw.count === 'number' && raw.count > 0 ? raw.count : 1,
    inputs: toIngredients(inputs),
    currencies,
  };
  if (typeof raw.duration === 'number') recipe.durationSeconds = raw.duration;
  return recipe;
}

/** NEU's pet rarity indexes (`NAME;INDEX`). */
const PET_TIERS = ['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'] as const;

/** A pet id `NAME;INDEX` as its name and rarity. */
function petId(id: unknown): { name: string; tier: string } | undefined {
  if (typeof id !== 'string') return undefined;
  const m = /^([A-Z0-9_]+);(\d)$/.exec(id);
  const tier = m ? PET_TIERS[Number(m[2])] : undefined;
  return m && tier ? { name: m[1]!, tier } : undefined;
}

/** `{ type: "katgrade", input: "BEE;3", output: "BEE;4", coins, time, items: ["TAG:n"] }`. */
export function katUpgrade(raw: Record<string, unknown>, resolve: Resolve, unknown: (id: string) => void): KatUpgrade | undefined {
  const from = petId(raw.input);
  const to = petId(raw.output);
  if (!from || !to || from.name !== to.name || from.tier === to.tier) return undefined;
  const coins = typeof raw.coins === 'number' && raw.coins >= 0 ? raw.coins : undefined;
  const seconds = typeof raw.time === 'number' && raw.time >= 0 ? raw.time : undefined;
  if (coins === undefined || seconds === undefined) return undefined;
  const materials = new Map<string, number>();
  for (const entry of Array.isArray(raw.items) ? raw.items : []) {
    const parsed = typeof entry === 'string' ? splitCount(entry) : undefined;
    if (!parsed) continue;
    const tag = resolve(parsed.id);
    if (!tag) {
      unknown(parsed.id);
      return undefined;
    }
    materials.set(tag, (materials.get(tag) ?? 0) + parsed.count);
  }
  return { petTag: `PET_${from.name}`, name: from.name, fromTier: from.tier, toTier: to.tier, coins, durationSeconds: seconds, materials: toIngredients(materials) };
}

/** A pet's display name without NEU's level placeholder ("[Lvl {LVL}] Bee" → "Bee"). */
export function petName(display: string): string {
  return display.replace(/^\[Lvl[^\]]*\]\s*/, '');
}

function npcRecipe(
  raw: Record<string, unknown>,
  npc: string,
  resolve: Resolve,
  unknown: (id: string, output?: string) => void,
): Recipe | undefined {
  if (typeof raw.result !== 'string' || !Array.isArray(raw.cost)) return undefined;
  const result = splitCount(raw.result);
  if (!result) return undefined;
  const output = resolve(result.id);
  if (!output) {
    unknown(result.id, `${npc} (npc shop)`);
    return undefined;
  }
  const inputs = new Map<string, number>();
  const currencies: CurrencyCost[] = [];
  for (const entry of raw.cost) {
    const parsed = typeof entry === 'string' ? splitCount(entry) : undefined;
    if (!parsed || parsed.id === '-') continue;
    const currency = currencyOf(parsed.id);
    if (currency) {
      currencies.push({ ...currency, amount: parsed.count });
      continue;
    }
    const tag = resolve(parsed.id);
    if (!tag) {
      unknown(parsed.id, output);
      return undefined;
    }
    inputs.set(tag, (inputs.get(tag) ?? 0) + parsed.count);
  }
  if (inputs.size === 0 && currencies.length === 0) return undefined;
  return { type: 'npc_shop', output, count: result.count, inputs: toIngredients(inputs), currencies, npc };
}

const CURRENCY_TOKENS: Record<string, Currency> = {
  SKYBLOCK_COIN: 'coins',
  SKYBLOCK_BIT: 'bits',
  SKYBLOCK_COPPER: 'copper',
  SKYBLOCK_MOTE: 'motes',
  SKYBLOCK_GEM: 'gems',
  SKYBLOCK_NORTH_STAR: 'north_stars',
  SKYBLOCK_PELT: 'pelts',
};

/** NEU's pseudo-items for currencies (`SKYBLOCK_COIN`, `SKYBLOCK_BIT`, …). */
export function currencyOf(id: string): { currency: Currency; token?: string } | undefined {
  const known = CURRENCY_TOKENS[id];
  if (known) return { currency: known };
  if (id.startsWith('SKYBLOCK_') && /^SKYBLOCK_[A-Z_]+$/.test(id) && !id.includes('SKYBLOCK_MENU')) return { currency: 'other', token: id };
  return undefined;
}

function toIngredients(map: Map<string, number>): Ingredient[] {
  return [...map].map(([tag, count]) => ({ tag, count }));
}

export function stripColors(s: string): string {
  return s.replace(/§./g, '').trim();
}

const TIER_WORDS = ['VERY SPECIAL', 'COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'MYTHIC', 'DIVINE', 'SPECIAL', 'SUPREME', 'ULTIMATE'];

function tierFromLore(lore: unknown): string | null {
  if (!Array.isArray(lore)) return null;
  for (let i = lore.length - 1; i >= 0; i--) {
    const line = typeof lore[i] === 'string' ? stripColors(lore[i] as string).replace(/^a /, '') : '';
    if (line === '') continue;
    for (const word of TIER_WORDS) if (line === word || line.startsWith(`${word} `)) return word.replace(' ', '_');
    return null;
  }
  return null;
}

const SKILLS = new Set(['farming', 'mining', 'combat', 'foraging', 'fishing', 'enchanting', 'alchemy', 'carpentry', 'taming', 'runecrafting', 'social', 'catacombs', 'hotm', 'heart of the mountain']);
const SLAYER_KEYS: Record<string, string> = { REV: 'zombie', TARA: 'spider', SVEN: 'wolf', WOLF: 'wolf', EMAN: 'enderman', BLAZE: 'blaze', VAMPIRE: 'vampire', ZOMBIE: 'zombie', SPIDER: 'spider', ENDERMAN: 'enderman' };

/** Collection, slayer and skill requirements from `crafttext` ("Requires: Diamond IV") and `slayer_req` ("EMAN_7"). */
export function requirementsOf(json: Record<string, unknown>): Requirement[] {
  const out: Requirement[] = [];
  if (typeof json.slayer_req === 'string') {
    const m = /^([A-Z]+)_(\d+)$/.exec(json.slayer_req);
    if (m) out.push({ kind: 'slayer', name: SLAYER_KEYS[m[1]!] ?? m[1]!.toLowerCase(), level: Number(m[2]) });
  }
  const text = typeof json.crafttext === 'string' ? /^Requires:?\s+(.+)$/.exec(stripColors(json.crafttext))?.[1] : undefined;
  // Several requirements are joined by "&" ("Requires: Gemstone X & HotM 5").
  for (const part of text ? text.split(/\s+&\s+/) : []) {
    const m = /^(.+?)\s+([IVXLC]+|\d+)$/.exec(part.trim());
    if (m) {
      const name = m[1]!;
      const level = /^\d+$/.test(m[2]!) ? Number(m[2]) : roman(m[2]!);
      const slayer = /^(\w+) Slayer$/i.exec(name);
      if (slayer) {
        const key = slayer[1]!.toLowerCase();
        if (!out.some((r) => r.kind === 'slayer')) out.push({ kind: 'slayer', name: key, level });
      } else if (SKILLS.has(name.toLowerCase().replace(/ skill$/, ''))) {
        out.push({ kind: 'skill', name: name.replace(/ Skill$/i, ''), level });
      } else {
        out.push({ kind: 'collection', name, level });
      }
    }
  }
  return out;
}

function roman(s: string): number {
  const values: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100 };
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const v = values[s[i]!]!;
    const next = values[s[i + 1] ?? ''] ?? 0;
    total += v < next ? -v : v;
  }
  return total;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
