/**
 * The /flips page's tabs: one per feed anyone may read without a token (the token-only feeds,
 * demand spread, NPC sell, multi-step fusion, mayor and attribute, are left out), each with the
 * columns shown and the JSON endpoint behind it. Rows are flattened to { item, cells } here.
 * Bazaar feeds link their rows to /bazaar/TAG; forge rows to where the result sells, Kat rows
 * (pets) to /item/TAG.
 */
import type { FlipsService } from '../services/flips.ts';
import type { UnderpricedService } from '../services/underpriced.ts';

export type CellKind = 'coins' | 'number' | 'percent' | 'text';
export interface Column {
  key: string;
  label: string;
  kind: CellKind;
  /** a detail left out on phones, where the tab has more columns than 390 px hold (the JSON keeps it) */
  wideOnly?: boolean;
}

export interface FlipRow {
  /** the item the row links to: tag and name */
  tag: string;
  name: string;
  /** bazaar product (links to /bazaar/TAG) or auction item (/item/TAG) */
  bazaar: boolean;
  cells: Record<string, number | string | null>;
  /** an auction listing's uuid (the Underpriced tab): the row links to its value, `/value?auction=` */
  listing?: string;
}

interface Tab {
  label: string;
  api: string;
  note: string;
  /** the cells: these fields of the flip's `values` */
  columns: Column[];
  feed(service: FlipsService, underpriced: Pick<UnderpricedService, 'ranked' | 'computedAt'>): { computedAt: number | null; flips: readonly unknown[] };
  /** the item a flip's row links to (a bazaar product unless `bazaar` is false), and the object its columns are read from */
  subject(flip: Record<string, any>): { tag: string; name: string; values: Record<string, any>; bazaar?: boolean; listing?: string };
}

const c = (key: string, label: string, kind: CellKind = 'coins'): Column => ({ key, label, kind });
const wide = (column: Column): Column => ({ ...column, wideOnly: true });

export const FLIP_TABS = {
  spread: {
    label: 'Bazaar spread',
    api: '/api/flip/bazaar/spread',
    note: 'Buy with a buy order, sell with a sell offer: the spread times the tradable volume, after the 1.25 % tax.',
    columns: [c('buyPrice', 'Instant buy'), c('sellPrice', 'Instant sell'), c('profitPerHour', 'Profit / h'), c('volume', 'Volume / h', 'number'), c('medianBuyPrice', '7-day median')],
    feed: (s) => s.bazaar('spread'),
    subject: (f) => ({ tag: f.flip.itemTag, name: f.itemName, values: f.flip }),
  },
  residual: {
    label: 'Residual',
    api: '/api/flip/bazaar/residual',
    note: 'Capacity not taken by open orders times the spread, for a one-hour hold.',
    columns: [c('buyOrderPrice', 'Buy order'), c('sellOfferPrice', 'Sell offer'), c('spread', 'Spread'), c('remainingCapacity', 'Free capacity', 'number'), c('value', 'Value')],
    feed: (s) => s.residual(1),
    subject: (f) => ({ tag: f.itemTag, name: f.itemName, values: f }),
  },
  npc: {
    label: 'NPC → bazaar',
    api: '/api/flip/npc',
    note: 'Buy from an NPC shop, sell on the bazaar.',
    columns: [c('npcBuyPrice', 'NPC price'), c('sellPrice', 'Bazaar sell'), c('profit', 'Profit'), c('profitMargin', 'Margin', 'percent'), c('profitPerHour', 'Profit / h')],
    feed: (s) => s.bazaar('reverseNpc'),
    subject: (f) => ({ tag: f.itemId, name: f.itemName, values: f }),
  },
  books: {
    label: 'Books',
    api: '/api/flip/bazaar/books',
    note: 'Combine two level-N enchanted books into one of level N+1.',
    columns: [c('startBuyPrice', 'Two books cost'), c('endSellPrice', 'Result sells'), c('profitPerHour', 'Profit / h'), c('hourlyVolume', 'Volume / h', 'number')],
    feed: (s) => s.bazaar('books'),
    subject: (f) => ({ tag: f.endTag, name: f.endTag, values: f }),
  },
  fusion: {
    label: 'Fusion',
    api: '/api/flip/fusion',
    note: 'Single-step shard fusion.',
    columns: [c('inputCost', 'Inputs cost'), c('outputValue', 'Output value'), c('profit', 'Profit'), c('profitPerHour', 'Profit / h'), c('volume', 'Volume / h', 'number')],
    feed: (s) => s.bazaar('fusion'),
    subject: (f) => ({ tag: f.output, name: f.output, values: f }),
  },
  copper: {
    label: 'Copper',
    api: '/api/flip/copper',
    note: 'Coins per copper of buying greenhouse crops and analysing them.',
    columns: [c('buyPrice', 'Buy price'), c('totalCost', 'Total cost'), c('copperYield', 'Copper', 'number'), c('coinsPerCopper', 'Coins / copper')],
    feed: (s) => s.bazaar('copper'),
    subject: (f) => ({ tag: f.itemTag, name: f.itemName, values: f }),
  },
  forge: {
    label: 'Forge',
    api: '/api/flip/forge',
    note: "Forge recipes that pay, per hour of forge time: ingredients and sale priced as the craft flips price them, after the sale fee. HotM is the Heart of the Mountain tier the recipe needs.",
    columns: [c('craftCost', 'Inputs cost'), c('sellPrice', 'Sells at'), c('profit', 'Profit'), c('hours', 'Forge hours', 'number'), c('requiredHotMLevel', 'HotM', 'number'), c('profitPerHour', 'Profit / h')],
    feed: (s) => s.forge(),
    subject: (f) => ({
      tag: f.craftData.itemId,
      name: f.craftData.itemName ?? f.craftData.itemId,
      bazaar: f.craftData.market === 'bazaar',
      values: { ...f.craftData, hours: (f.duration + f.ingredientForgeSeconds) / 3600, requiredHotMLevel: f.requiredHotMLevel, profitPerHour: f.profitPerHour },
    }),
  },
  kat: {
    label: 'Kat',
    api: '/api/kat/profit',
    note: 'Buy a pet as the cheapest BIN, have Kat raise its rarity, sell it at the lowest BIN of the higher rarity after the auction fee.',
    columns: [c('rarities', 'Upgrade', 'text'), c('purchaseCost', 'Pet costs'), wide(c('upgradeCost', 'Kat asks')), wide(c('materialCost', 'Materials')), c('referencePrice', 'Sells at'), c('hours', 'Hours', 'number'), c('profit', 'Profit')],
    feed: (s) => s.kat(),
    subject: (f) => ({
      tag: f.coreData.itemTag,
      name: f.coreData.name,
      bazaar: false,
      values: { ...f, rarities: `${tierWord(f.coreData.baseRarity)} → ${tierWord(f.targetRarity)}`, hours: f.coreData.hours },
    }),
  },
  underpriced: {
    label: 'Underpriced',
    api: '/api/flip/auctions',
    note: 'New BIN listings priced well below their value after auction fees, with enough comparable sales behind the value, by expected profit. They leave when they sell or end.',
    columns: [c('price', 'Price'), c('value', 'Value'), c('profit', 'Profit'), c('shareBelow', 'Below value', 'percent'), wide(c('confidence', 'Confidence', 'percent')), wide(c('comparables', 'Comparables', 'number'))],
    feed: (_s, u) => ({ computedAt: u.computedAt, flips: u.ranked({ limit: 200 }) }),
    subject: (f) => ({ tag: f.tag, name: f.itemName, bazaar: false, values: f, listing: f.uuid }),
  },
} satisfies Record<string, Tab>;

function tierWord(tier: string): string {
  return tier.charAt(0) + tier.slice(1).toLowerCase().replaceAll('_', ' ');
}

export type FlipTabId = keyof typeof FLIP_TABS;

export function flipRows(id: FlipTabId, flips: readonly unknown[]): FlipRow[] {
  const tab: Tab = FLIP_TABS[id];
  return flips.map((f) => {
    const { tag, name, values, bazaar, listing } = tab.subject(f as Record<string, any>);
    const row: FlipRow = { tag, name, bazaar: bazaar ?? true, cells: Object.fromEntries(tab.columns.map((col) => [col.key, values[col.key] ?? null])) };
    if (typeof listing === 'string') row.listing = listing;
    return row;
  });
}
