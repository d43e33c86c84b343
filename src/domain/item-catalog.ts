/**
 * The item catalog's entries, merged from what skymarket knows of each item: the game data
 * (NEU repository or the built-in catalog), the upstream items resource, and the market itself
 * (tags listed, sold or on the bazaar). Pure: market/item-catalog.ts feeds it and keeps the result.
 */
import type { GameData } from '../gamedata/types.ts';
import { catalogName, isCreatureEntry } from './item-names.ts';

/**
 * The established service's ItemFlags ([Flags] enum; answered as names joined by ", " in value
 * order, "NONE" for none). GLOWING, MUSEUM and FIRE_SALE are never set: no source skymarket
 * reads says which items glow, are museum donations or are on a fire sale.
 */
export const ITEM_FLAGS = { BAZAAR: 1, TRADEABLE: 2, AUCTION: 4, CRAFT: 8 } as const;
export type ItemFlagName = keyof typeof ITEM_FLAGS;

export function itemFlagsText(bits: number): string {
  const names = (Object.keys(ITEM_FLAGS) as ItemFlagName[]).filter((name) => (bits & ITEM_FLAGS[name]) !== 0);
  return names.length === 0 ? 'NONE' : names.join(', ');
}

/** An item of the upstream items resource, as stored. */
export interface CatalogItem {
  tag: string;
  name: string;
  tier: string | null;
  category: string | null;
  npcSellPrice: number | null;
}

export interface CatalogEntry {
  tag: string;
  name: string;
  tier: string | null;
  /** ItemCategory (SWORD, HELMET …) from the items resource, else null */
  category: string | null;
  /** coins the NPCs pay for one, null when they buy none */
  npcSellPrice: number | null;
  /** vanilla material, upper case without namespace (IRON_SWORD) */
  material: string | null;
  /** NEU internal name (`ULTIMATE_WISE;5`), when the game data is a NEU repository */
  neuId: string | null;
  flags: number;
  /** listings active now */
  activeListings: number;
  /** auctions sold per day, over the last 7 days of sales rollups */
  salesPerDay: number;
  /** items bought and sold on the bazaar in the last 7 days (moving week, both sides) */
  bazaarWeekVolume: number;
}

/** What the market knows of tags right now (market/item-catalog.ts reads it from the store and the views). */
export interface MarketActivity {
  /** active listings per tag */
  active: ReadonlyMap<string, number>;
  /** sales per tag over the last 7 days */
  sales7d: ReadonlyMap<string, number>;
  /** bazaar products of the newest snapshot with their moving-week volumes */
  bazaar: ReadonlyArray<{ productId: string; buyMovingWeek: number; sellMovingWeek: number }>;
}

/**
 * Every item: the game data's (creatures and NPCs of the NEU repository left out), the items
 * resource's, and every tag the market holds. The items resource names an item where it has it,
 * then the game data; a tag known only from the market gets a name made from the tag.
 */
export function buildCatalog(game: GameData, resource: readonly CatalogItem[], activity: MarketActivity): CatalogEntry[] {
  const byTag = new Map<string, CatalogEntry>();
  const entry = (tag: string): CatalogEntry => {
    let e = byTag.get(tag);
    if (!e) {
      e = { tag, name: '', tier: null, category: null, npcSellPrice: null, material: null, neuId: null, flags: 0, activeListings: 0, salesPerDay: 0, bazaarWeekVolume: 0 };
      byTag.set(tag, e);
    }
    return e;
  };
  const neu = game.source.kind !== 'builtin';
  for (const item of game.items.values()) {
    if (isCreatureEntry(item.name)) continue;
    const e = entry(item.tag);
    e.name = catalogName(item.tag, item.name);
    e.tier = item.tier;
    e.material = item.material ? item.material.replace(/^minecraft:/, '').toUpperCase() : null;
    if (neu) e.neuId = item.sourceId;
  }
  for (const item of resource) {
    const e = entry(item.tag);
    e.name = catalogName(item.tag, item.name);
    e.tier = item.tier ?? e.tier;
    e.category = item.category;
    e.npcSellPrice = item.npcSellPrice;
  }
  const productTags = new Map<string, string>();
  for (const [tag, product] of game.bazaarIds) productTags.set(product, tag);
  for (const p of activity.bazaar) {
    const e = entry(productTags.get(p.productId) ?? p.productId);
    e.flags |= ITEM_FLAGS.BAZAAR | ITEM_FLAGS.TRADEABLE;
    e.bazaarWeekVolume = p.buyMovingWeek + p.sellMovingWeek;
  }
  for (const [tag, n] of activity.active) {
    const e = entry(tag);
    e.activeListings = n;
    if (n > 0) e.flags |= ITEM_FLAGS.AUCTION | ITEM_FLAGS.TRADEABLE;
  }
  for (const [tag, n] of activity.sales7d) {
    const e = entry(tag);
    e.salesPerDay = n / 7;
    if (n > 0) e.flags |= ITEM_FLAGS.AUCTION | ITEM_FLAGS.TRADEABLE;
  }
  for (const [tag, recipes] of game.recipes) {
    const e = byTag.get(tag);
    if (e && recipes.some((r) => r.type === 'crafting' || r.type === 'forge')) e.flags |= ITEM_FLAGS.CRAFT;
  }
  for (const e of byTag.values()) if (e.name === '') e.name = catalogName(e.tag, null);
  return [...byTag.values()].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
}

/** How much the market trades an item, on a log scale (0 for an item nobody trades): ranks search results. */
export function activityScore(e: Pick<CatalogEntry, 'activeListings' | 'salesPerDay' | 'bazaarWeekVolume'>): number {
  return Math.log10(1 + e.activeListings + e.salesPerDay * 7) + Math.log10(1 + e.bazaarWeekVolume) / 3;
}
