/**
 * Attribute ("upgrade") flips on auction items: buy the lowest BIN of a cheaper variant of an
 * item, apply the upgrades the target variant has on top and sell at the target variant's median
 * sold price after the auction fee. Upgrades priced: recombobulator, hot/fuming potato books,
 * enchantment books, dungeon stars (essence per star from game data, at the essence's bazaar
 * price, plus the coins the star costs), attribute levels (shards per level by the shard's rarity,
 * at the shard's bazaar price or lowest BIN), gemstones put into a slot the item already has open
 * (the gem's bazaar product) and a pet's held item (bazaar price or lowest BIN).
 *
 * A variant ("key") is: tag, a pet's level and rarity, the set of attribute names (these must match: they
 * cannot be bought), then stars, attribute levels, recombobulated or not, potato books,
 * enchantments, gemstones and the pet item. A listing can become a target when every upgrade is
 * an increase (nothing removed or lowered) and every upgrade has a price. Targets need at least
 * `minSales` sales in the window.
 */
import type { UpgradeCosts } from '../../gamedata/upgrades.ts';
import { auctionFeeRate, round1, type Market } from './common.ts';
import { enchantmentBookTag } from '../tags.ts';
import { tierName } from '../wire-enums.ts';

export interface VariantModifiers {
  tier: string | null;
  reforge: string | null;
  stars: number;
  rarityUpgrades: number;
  hotPotatoCount: number;
  enchantments: Readonly<Record<string, number>>;
  attributes: Readonly<Record<string, number>>;
  /** gemstones: slot → quality (`JASPER_0: "FINE"`), and `<slot>_gem` → gem type for universal slots */
  gems?: Readonly<Record<string, string>>;
  /** gem slots unlocked on the item (`gems.unlocked_slots`) */
  unlockedGemSlots?: readonly string[];
  /** a pet's held item tag */
  petHeldItem?: string | null;
  /** a pet's level (pets of different levels are different items) */
  petLevel?: number | null;
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
  /** coin amounts are whole coins (longs in the established AttributeFlip) */
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

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/** What cannot be bought as an upgrade: variants must agree on it. */
export function baseKey(tag: string, m: VariantModifiers): string {
  const attrs = Object.keys(m.attributes).sort();
  // A pet's rarity is part of what it is (for other items the tier moves with the recombobulator).
  const pet = m.petLevel != null ? `${m.petLevel}:${m.tier ?? ''}` : '';
  return `${tag}|${pet}|${attrs.join(',')}`;
}

/** Everything that makes a variant: two items with the same full key are the same thing to buy or sell. */
export function fullKey(tag: string, m: VariantModifiers): string {
  const ench = Object.entries(m.enchantments).sort(byKey);
  const attrs = Object.entries(m.attributes).sort(byKey);
  const gems = Object.entries(m.gems ?? {}).sort(byKey);
  return `${baseKey(tag, m)}|${m.stars}|${JSON.stringify(attrs)}|${m.rarityUpgrades > 0 ? 1 : 0}|${m.hotPotatoCount}|${JSON.stringify(ench)}|${JSON.stringify(gems)}|${m.petHeldItem ?? ''}`;
}

function instantBuy(market: Market, id: string): number | null {
  const p = market.get(id);
  return p && p.buyPrice > 0 ? p.buyPrice : null;
}

/** What the upgrades beyond the bazaar's own products need: game data and lowest BINs. */
export interface UpgradeContext {
  /** star and attribute costs; without them stars and attribute levels only match themselves */
  upgrades?: UpgradeCosts | undefined;
  /** the lowest BIN of a tag, for upgrades not on the bazaar (pet items, some shards) */
  lowestBin?: ((tag: string) => number | null) | undefined;
  /** the item's tag (star costs are per item) */
  tag?: string;
}

const GEM_QUALITIES = ['ROUGH', 'FLAWED', 'FINE', 'FLAWLESS', 'PERFECT'];
const UNIVERSAL_SLOT = /^(COMBAT|DEFENSIVE|OFFENSIVE|UNIVERSAL|MINING|CHISEL)_\d+$/;

/** The slots holding a gem (the `<slot>_gem` type entries left out). */
function gemSlots(gems: Readonly<Record<string, string>> | undefined): string[] {
  return Object.keys(gems ?? {}).filter((k) => !k.endsWith('_gem'));
}

/** The gem type in a slot: the slot's own type (`JASPER_0`), or what a universal slot names. */
function gemType(slot: string, gems: Readonly<Record<string, string>>): string | null {
  const named = gems[`${slot}_gem`];
  if (named) return named;
  if (UNIVERSAL_SLOT.test(slot)) return null;
  return slot.replace(/_\d+$/, '');
}

/** The upgrades that turn `from` into `to`, priced now, or null when impossible or unpriced. */
export function upgradeIngredients(market: Market, from: VariantModifiers, to: VariantModifiers, ctx: UpgradeContext = {}): AttributeFlipIngredient[] | null {
  const out: AttributeFlipIngredient[] = [];
  const unitPrice = (id: string): number | null => instantBuy(market, id) ?? ctx.lowestBin?.(id) ?? null;
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
    out.push({ itemId: id, attributeName: null, amount: n, price: Math.round(price * n) });
  }
  for (const [name, level] of Object.entries(from.enchantments)) {
    const target = to.enchantments[name];
    if (target === undefined || target < level) return null;
  }
  for (const [name, level] of Object.entries(to.enchantments)) {
    if ((from.enchantments[name] ?? 0) === level) continue;
    const id = enchantmentBookTag(name, level);
    const price = instantBuy(market, id);
    if (price === null) return null;
    out.push({ itemId: id, attributeName: null, amount: 1, price });
  }
  if (!addStars(out, market, from.stars, to.stars, ctx, unitPrice)) return null;
  if (!addAttributeLevels(out, from.attributes, to.attributes, ctx, unitPrice)) return null;
  if (!addGems(out, market, from, to)) return null;
  const held = to.petHeldItem ?? null;
  if ((from.petHeldItem ?? null) !== held) {
    if (held === null) return null; // taking the item off is not an upgrade
    const price = unitPrice(held);
    if (price === null) return null;
    out.push({ itemId: held, attributeName: null, amount: 1, price });
  }
  return out;
}

/** Stars from..to: essence per star at the essence's bazaar price, plus the coins and items a star needs. */
function addStars(out: AttributeFlipIngredient[], market: Market, from: number, to: number, ctx: UpgradeContext, unitPrice: (id: string) => number | null): boolean {
  if (to < from) return false;
  if (to === from) return true;
  const cost = ctx.tag !== undefined ? ctx.upgrades?.stars.get(ctx.tag) : undefined;
  if (!cost || cost.perStar.length < to) return false;
  let essence = 0;
  let coins = 0;
  const items = new Map<string, number>();
  for (let star = from + 1; star <= to; star++) {
    essence += cost.perStar[star - 1]!;
    coins += cost.coinsPerStar[star - 1] ?? 0;
    for (const [id, n] of Object.entries(cost.itemsPerStar[star - 1] ?? {})) items.set(id, (items.get(id) ?? 0) + n);
  }
  const essencePrice = instantBuy(market, cost.essence);
  if (essencePrice === null) return false;
  out.push({ itemId: cost.essence, attributeName: null, amount: essence, price: Math.round(essencePrice * essence) });
  if (coins > 0) out.push({ itemId: 'SKYBLOCK_COIN', attributeName: null, amount: coins, price: coins });
  for (const [id, n] of items) {
    const price = unitPrice(id);
    if (price === null) return false;
    out.push({ itemId: id, attributeName: null, amount: n, price: Math.round(price * n) });
  }
  return true;
}

/** Attribute levels: shards per level by the shard's rarity (the same attributes on both sides). */
function addAttributeLevels(out: AttributeFlipIngredient[], from: Readonly<Record<string, number>>, to: Readonly<Record<string, number>>, ctx: UpgradeContext, unitPrice: (id: string) => number | null): boolean {
  for (const [name, target] of Object.entries(to)) {
    const level = from[name];
    if (level === undefined || target < level) return false;
    if (target === level) continue;
    const shard = ctx.upgrades?.attributeShards.get(name);
    const perLevel = shard ? ctx.upgrades?.attributeLevelling[shard.rarity] : undefined;
    if (!shard || !perLevel || perLevel.length < target) return false;
    let shards = 0;
    for (let l = level; l < target; l++) shards += perLevel[l]!;
    const price = unitPrice(shard.productId);
    if (price === null) return false;
    out.push({ itemId: shard.productId, attributeName: name, amount: shards, price: Math.round(price * shards) });
  }
  return true;
}

/** Gemstones into slots the item already has open (filled, or listed as unlocked); better gems may replace worse. */
function addGems(out: AttributeFlipIngredient[], market: Market, from: VariantModifiers, to: VariantModifiers): boolean {
  const have = from.gems ?? {};
  const want = to.gems ?? {};
  for (const slot of gemSlots(have)) {
    if (want[slot] === undefined) return false; // removing a gem is not an upgrade
  }
  for (const slot of gemSlots(want)) {
    const quality = want[slot]!;
    const type = gemType(slot, want);
    const current = have[slot];
    if (current !== undefined) {
      if (current === quality && gemType(slot, have) === type) continue;
      if (GEM_QUALITIES.indexOf(quality) <= GEM_QUALITIES.indexOf(current)) return false;
    } else if (!(from.unlockedGemSlots ?? []).includes(slot)) {
      return false; // unlocking a slot is not priced
    }
    if (type === null) return false;
    const id = `${quality}_${type}_GEM`;
    const price = instantBuy(market, id);
    if (price === null) return false;
    out.push({ itemId: id, attributeName: null, amount: 1, price });
  }
  return true;
}

function keyOf(m: VariantModifiers, count: number): AttributeFlipAuctionKey {
  const modifiers: Array<{ key: string; value: string }> = [];
  if (m.rarityUpgrades > 0) modifiers.push({ key: 'rarity_upgrades', value: String(m.rarityUpgrades) });
  if (m.hotPotatoCount > 0) modifiers.push({ key: 'hot_potato_count', value: String(m.hotPotatoCount) });
  if (m.stars > 0) modifiers.push({ key: 'upgrade_level', value: String(m.stars) });
  for (const [a, l] of Object.entries(m.attributes)) modifiers.push({ key: a, value: String(l) });
  for (const [slot, value] of Object.entries(m.gems ?? {})) modifiers.push({ key: slot, value });
  if (m.petHeldItem) modifiers.push({ key: 'heldItem', value: m.petHeldItem });
  return {
    reforge: m.reforge,
    // The established key's tier is its Tier enum, never null.
    tier: tierName(m.tier),
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
  /** star and attribute costs (game data) */
  upgrades?: UpgradeCosts;
  /** lowest BIN per tag, for upgrades not on the bazaar */
  lowestBin?: (tag: string) => number | null;
}

/** A target variant: the median sold price of one full variant over the sales window. */
export interface AttributeTarget {
  /** fullKey(tag, mods) */
  key: string;
  tag: string;
  mods: VariantModifiers;
  median: number;
  /** sales in the window */
  count: number;
}

/** Targets from individual sales: median sold price per full key, with at least `minSales` sales. */
export function attributeTargets(sales: Iterable<AuctionSale>, minSales = 3): AttributeTarget[] {
  const salesByKey = new Map<string, { mods: AuctionSale; prices: number[] }>();
  for (const s of sales) {
    const k = fullKey(s.tag, s);
    const entry = salesByKey.get(k);
    if (entry) entry.prices.push(s.price);
    else salesByKey.set(k, { mods: s, prices: [s.price] });
  }
  const out: AttributeTarget[] = [];
  for (const [key, { mods, prices }] of salesByKey) {
    if (prices.length < minSales) continue;
    prices.sort((a, b) => a - b);
    const mid = prices.length >> 1;
    const median = prices.length % 2 ? prices[mid]! : (prices[mid - 1]! + prices[mid]!) / 2;
    out.push({ key, tag: mods.tag, mods, median, count: prices.length });
  }
  return out;
}

export function attributeFlips(market: Market, listings: Iterable<AuctionListing>, sales: Iterable<AuctionSale>, options: AttributeOptions): AttributeFlip[] {
  return attributeFlipsForTargets(market, listings, attributeTargets(sales, options.minSales ?? 3), options);
}

/** Attribute flips towards the given target variants (each with its median and sales count). */
export function attributeFlipsForTargets(market: Market, listings: Iterable<AuctionListing>, targets: Iterable<AttributeTarget>, options: AttributeOptions): AttributeFlip[] {
  const targetsByBase = new Map<string, AttributeTarget[]>();
  for (const t of targets) {
    const b = baseKey(t.tag, t.mods);
    const list = targetsByBase.get(b) ?? [];
    list.push(t);
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
      const ingredients = upgradeIngredients(market, l, t.mods, { upgrades: options.upgrades, lowestBin: options.lowestBin, tag: l.tag });
      if (!ingredients || ingredients.length === 0) continue;
      const cost = ingredients.reduce((s, i) => s + i.price, 0);
      const profitAfterTax = t.median * (1 - auctionFeeRate(t.median, options.derpy)) - l.price - cost;
      if (!(profitAfterTax > 0)) continue;
      const flip: AttributeFlip = {
        tag: l.tag,
        itemName: l.itemName,
        auctionToBuy: l.uuid,
        auctionPrice: l.price,
        profitAfterTax: Math.round(profitAfterTax),
        ingredients,
        startingKey: keyOf(l, l.count),
        endingKey: keyOf(t.mods, 1),
        target: Math.round(t.median),
        estimatedCraftingCost: Math.round(cost),
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
