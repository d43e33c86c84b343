/**
 * Attribute ("upgrade") flips on auction items: buy the lowest BIN of a cheaper variant of an
 * item, apply the upgrades the target variant has on top (recombobulator, hot/fuming potato
 * books, enchantment books, all bought on the bazaar) and sell at the target variant's median
 * sold price after the auction fee.
 *
 * A variant ("key") is: tag, stars, attributes (both must match: they cannot be bought as an
 * upgrade here), recombobulated or not, potato books, enchantments. A listing can become a
 * target when every upgrade is an increase (no enchantment removed or lowered) and every
 * upgrade has a bazaar price. Targets need at least `minSales` sales in the window.
 */
import { auctionFeeRate, round1, type Market } from './common.ts';

export interface VariantModifiers {
  tier: string | null;
  reforge: string | null;
  stars: number;
  rarityUpgrades: number;
  hotPotatoCount: number;
  enchantments: Readonly<Record<string, number>>;
  attributes: Readonly<Record<string, number>>;
}

export interface AuctionListing extends VariantModifiers {
  uuid: string;
  tag: string;
  itemName: string;
  price: number;
  /** listing start */
  startAt: number;
  count: number;
}

export interface AuctionSale extends VariantModifiers {
  tag: string;
  price: number;
  soldAt: number;
}

export interface AttributeFlipIngredient {
  itemId: string;
  attributeName: string | null;
  amount: number;
  price: number;
}

export interface AttributeFlipAuctionKey {
  reforge: string | null;
  tier: string | null;
  enchants: Array<{ type: string; lvl: number }>;
  modifiers: Array<{ key: string; value: string }>;
  count: number;
}

export interface AttributeFlip {
  tag: string;
  itemName: string;
  auctionToBuy: string;
  auctionPrice: number;
  profitAfterTax: number;
  ingredients: AttributeFlipIngredient[];
  startingKey: AttributeFlipAuctionKey;
  endingKey: AttributeFlipAuctionKey;
  /** median sold price of the target variant */
  target: number;
  estimatedCraftingCost: number;
  foundAt: string;
  /** target sales per day */
  volume: number;
}

export type AttributeSort = 'profit' | 'price' | 'volume' | 'age';

function baseKey(tag: string, m: VariantModifiers): string {
  const attrs = Object.entries(m.attributes).sort(([a], [b]) => a.localeCompare(b));
  return `${tag}|${m.stars}|${JSON.stringify(attrs)}`;
}

function fullKey(tag: string, m: VariantModifiers): string {
  const ench = Object.entries(m.enchantments).sort(([a], [b]) => a.localeCompare(b));
  return `${baseKey(tag, m)}|${m.rarityUpgrades > 0 ? 1 : 0}|${m.hotPotatoCount}|${JSON.stringify(ench)}`;
}

function instantBuy(market: Market, id: string): number | null {
  const p = market.get(id);
  return p && p.buyPrice > 0 ? p.buyPrice : null;
}

/** The bazaar-bought upgrades that turn `from` into `to`, or null when impossible. */
export function upgradeIngredients(market: Market, from: VariantModifiers, to: VariantModifiers): AttributeFlipIngredient[] | null {
  const out: AttributeFlipIngredient[] = [];
  if (from.rarityUpgrades > 0 && !(to.rarityUpgrades > 0)) return null;
  if (!(from.rarityUpgrades > 0) && to.rarityUpgrades > 0) {
    const price = instantBuy(market, 'RECOMBOBULATOR_3000');
    if (price === null) return null;
    out.push({ itemId: 'RECOMBOBULATOR_3000', attributeName: null, amount: 1, price });
  }
  if (to.hotPotatoCount < from.hotPotatoCount) return null;
  const hot = Math.max(0, Math.min(10, to.hotPotatoCount) - Math.min(10, from.hotPotatoCount));
  const fuming = Math.max(0, Math.max(10, to.hotPotatoCount) - Math.max(10, from.hotPotatoCount));
  for (const [id, n] of [['HOT_POTATO_BOOK', hot], ['FUMING_POTATO_BOOK', fuming]] as const) {
    if (n === 0) continue;
    const price = instantBuy(market, id);
    if (price === null) return null;
    out.push({ itemId: id, attributeName: null, amount: n, price: price * n });
  }
  for (const [name, level] of Object.entries(from.enchantments)) {
    const target = to.enchantments[name];
    if (target === undefined || target < level) return null;
  }
  for (const [name, level] of Object.entries(to.enchantments)) {
    if ((from.enchantments[name] ?? 0) === level) continue;
    const id = `ENCHANTMENT_${name.toUpperCase()}_${level}`;
    const price = instantBuy(market, id);
    if (price === null) return null;
    out.push({ itemId: id, attributeName: null, amount: 1, price });
  }
  return out;
}

function keyOf(m: VariantModifiers, count: number): AttributeFlipAuctionKey {
  const modifiers: Array<{ key: string; value: string }> = [];
  if (m.rarityUpgrades > 0) modifiers.push({ key: 'rarity_upgrades', value: String(m.rarityUpgrades) });
  if (m.hotPotatoCount > 0) modifiers.push({ key: 'hot_potato_count', value: String(m.hotPotatoCount) });
  if (m.stars > 0) modifiers.push({ key: 'upgrade_level', value: String(m.stars) });
  for (const [a, l] of Object.entries(m.attributes)) modifiers.push({ key: a, value: String(l) });
  return {
    reforge: m.reforge,
    tier: m.tier,
    enchants: Object.entries(m.enchantments).map(([type, lvl]) => ({ type, lvl })),
    modifiers,
    count,
  };
}

export interface AttributeOptions {
  now: number;
  /** length of the sales window in days (for volume per day) */
  windowDays: number;
  minSales?: number;
  derpy?: boolean;
}

export function attributeFlips(market: Market, listings: Iterable<AuctionListing>, sales: Iterable<AuctionSale>, options: AttributeOptions): AttributeFlip[] {
  const minSales = options.minSales ?? 3;
  // Target variants: median sold price per full key, grouped by base key.
  const salesByKey = new Map<string, { mods: AuctionSale; prices: number[] }>();
  for (const s of sales) {
    const k = fullKey(s.tag, s);
    const entry = salesByKey.get(k);
    if (entry) entry.prices.push(s.price);
    else salesByKey.set(k, { mods: s, prices: [s.price] });
  }
  const targetsByBase = new Map<string, Array<{ key: string; mods: AuctionSale; median: number; count: number }>>();
  for (const [key, { mods, prices }] of salesByKey) {
    if (prices.length < minSales) continue;
    prices.sort((a, b) => a - b);
    const mid = prices.length >> 1;
    const med = prices.length % 2 ? prices[mid]! : (prices[mid - 1]! + prices[mid]!) / 2;
    const b = baseKey(mods.tag, mods);
    const list = targetsByBase.get(b) ?? [];
    list.push({ key, mods, median: med, count: prices.length });
    targetsByBase.set(b, list);
  }
  // Only the cheapest listing of each starting variant can be the best buy.
  const cheapest = new Map<string, AuctionListing>();
  for (const l of listings) {
    if (!targetsByBase.has(baseKey(l.tag, l))) continue;
    const k = fullKey(l.tag, l);
    const prev = cheapest.get(k);
    if (!prev || l.price < prev.price) cheapest.set(k, l);
  }
  const best = new Map<string, AttributeFlip>();
  for (const [startKey, l] of cheapest) {
    for (const t of targetsByBase.get(baseKey(l.tag, l)) ?? []) {
      if (t.key === startKey) continue;
      const ingredients = upgradeIngredients(market, l, t.mods);
      if (!ingredients || ingredients.length === 0) continue;
      const cost = ingredients.reduce((s, i) => s + i.price, 0);
      const profitAfterTax = t.median * (1 - auctionFeeRate(t.median, options.derpy)) - l.price - cost;
      if (!(profitAfterTax > 0)) continue;
      const flip: AttributeFlip = {
        tag: l.tag,
        itemName: l.itemName,
        auctionToBuy: l.uuid,
        auctionPrice: l.price,
        profitAfterTax: round1(profitAfterTax),
        ingredients,
        startingKey: keyOf(l, l.count),
        endingKey: keyOf(t.mods, 1),
        target: round1(t.median),
        estimatedCraftingCost: round1(cost),
        foundAt: new Date(l.startAt).toISOString(),
        volume: round1(t.count / options.windowDays),
      };
      const prev = best.get(t.key);
      if (!prev || flip.profitAfterTax > prev.profitAfterTax) best.set(t.key, flip);
    }
  }
  return sortAttributeFlips([...best.values()], 'profit');
}

/** profit: target − crafting cost − price, descending; price: target descending; volume descending; age: newest first. */
export function sortAttributeFlips(flips: AttributeFlip[], sort: AttributeSort): AttributeFlip[] {
  const by: Record<AttributeSort, (f: AttributeFlip) => number> = {
    profit: (f) => f.target - f.estimatedCraftingCost - f.auctionPrice,
    price: (f) => f.target,
    volume: (f) => f.volume,
    age: (f) => Date.parse(f.foundAt),
  };
  const key = by[sort];
  return [...flips].sort((a, b) => key(b) - key(a));
}
