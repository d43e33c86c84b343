/**
 * The bulk price files mods read (ecosystem.md §3): which key each listing is priced under, and
 * how a key's lowest BIN is read from its active listings — `raw`, the absolute lowest, and
 * `smooth`, the lowest that survives an outlier fence. Pure: the market passes the listings.
 */
import { petLevelOf } from './filters.ts';
import { isPetTag, neuIdOf, PET_RARITY_INDEX, type NeuIdSubject } from './item-names.ts';
import type { PriceCell } from './prices.ts';
import { digestPoints, type WeightedPrice } from './sales-rollup.ts';

/** Dungeon items whose base stat boost is at its maximum carry Elite's `+PERFECT` key. */
export const MAX_BASE_STAT_BOOST = 50;

/**
 * The key Elite's files price an item under: the NEU id, split further where the price differs a
 * lot — `TYPE;N+100` / `TYPE;N+200` for pets at level 100 / 200, `ID+PERFECT` for dungeon items
 * at the maximum base stat boost, `NEW_YEAR_CAKE+YEAR` for a year's cake. Everything else is the
 * NEU id (which already splits party and balloon hats by colour).
 */
export function eliteIdOf(s: NeuIdSubject): string {
  const id = neuIdOf(s);
  if (isPetTag(s.tag)) {
    const level = petLevelOf(s);
    if (level >= 200) return `${id}+200`;
    if (level >= 100) return `${id}+100`;
    return id;
  }
  if (s.flatNbt['baseStatBoostPercentage'] === String(MAX_BASE_STAT_BOOST)) return `${id}+PERFECT`;
  if (s.tag === 'NEW_YEAR_CAKE') {
    const year = s.flatNbt['new_years_cake'];
    if (year !== undefined && /^\d+$/.test(year)) return `${id}+${year}`;
  }
  return id;
}

/** The smooth price's outlier fence: Q1 − FENCE_K × IQR, as Elite documents (×2.0). */
export const FENCE_K = 2;
/** Below this many listings quartiles say nothing; the fence then reads the key's recent history. */
export const MIN_FENCE_LISTINGS = 4;
/** With few listings, a price under this share of the recent reference is not believed. */
export const REFERENCE_SHARE = 0.5;

/** The value at quantile `q` (0–1) of ascending `sorted`, linearly interpolated. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * The smooth lowest BIN of a key from its active prices (ascending): with at least
 * MIN_FENCE_LISTINGS prices, the lowest at or above Q1 − FENCE_K × IQR; with fewer, the lowest at
 * or above REFERENCE_SHARE × `reference` (the mean of the key's hourly lowest BINs over the last
 * day, when known), else the lowest. Undefined when there is no price.
 */
export function smoothLowest(sorted: readonly number[], reference?: number): number | undefined {
  if (sorted.length === 0) return undefined;
  let floor: number;
  if (sorted.length >= MIN_FENCE_LISTINGS) {
    const q1 = quantile(sorted, 0.25);
    floor = q1 - FENCE_K * (quantile(sorted, 0.75) - q1);
  } else {
    floor = reference !== undefined && reference > 0 ? reference * REFERENCE_SHARE : Number.NEGATIVE_INFINITY;
  }
  for (const price of sorted) if (price >= floor) return price;
  // Every listing is below the recent reference: the market moved; believe it.
  return sorted[0];
}

/** A price as the files write it: whole coins. */
export function coins(price: number): number {
  return Math.round(price);
}

/** The sales fence of the averages' clean figures: Q1 − CLEAN_K × IQR … Q3 + CLEAN_K × IQR. */
export const CLEAN_K = 2;

/** Sales inside the fence: how many, and their mean price per unit. */
export interface CleanSales {
  count: number;
  mean: number | null;
}

/** The weighted quantile `q` of ascending points. */
function weightedQuantile(sorted: readonly WeightedPrice[], total: number, q: number): number {
  const target = q * total;
  let cumulative = 0;
  for (const p of sorted) {
    cumulative += p.weight;
    if (cumulative >= target - total * 1e-12) return p.price;
  }
  return sorted[sorted.length - 1]!.price;
}

/**
 * The sales of hourly cells without outliers (NEU's `clean_*`): the cells' digest points (exact
 * prices for hours of up to 32 sales, 32 weighted quantiles otherwise) inside the fence
 * Q1 − CLEAN_K × IQR … Q3 + CLEAN_K × IQR of all of them. With fewer than 4 sales, every sale.
 */
export function cleanSales(cells: readonly PriceCell[]): CleanSales {
  const points: WeightedPrice[] = [];
  for (const c of cells) digestPoints(c.count, c.prices, points);
  points.sort((a, b) => a.price - b.price);
  const total = points.reduce((s, p) => s + p.weight, 0);
  if (total === 0) return { count: 0, mean: null };
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  if (total >= MIN_FENCE_LISTINGS) {
    const q1 = weightedQuantile(points, total, 0.25);
    const q3 = weightedQuantile(points, total, 0.75);
    low = q1 - CLEAN_K * (q3 - q1);
    high = q3 + CLEAN_K * (q3 - q1);
  }
  let weight = 0;
  let coins = 0;
  for (const p of points) {
    if (p.price < low || p.price > high) continue;
    weight += p.weight;
    coins += p.price * p.weight;
  }
  return { count: weight, mean: weight > 0 ? coins / weight : null };
}

/**
 * The NEU and Elite ids of a price variant of the rollups (domain/prices.ts `priceVariantKey`):
 * pets `TYPE;N` for levels 1–99 and Elite's `TYPE;N+100` / `+200` for the level bands (NEU id
 * null: NEU has no key for them); runes, unique ones too, `TYPE_RUNE;LEVEL`; potions
 * `POTION_TYPE;LEVEL`; anything else by its tag (`ULTIMATE_WISE;5` for a book). Null for the
 * whole-tag row of a variant-keyed item.
 */
export function variantIds(tag: string, variant: string): { neu: string | null; elite: string | null } {
  const keyed = isPetTag(tag) || tag.startsWith('RUNE_') || tag.startsWith('UNIQUE_RUNE_') || tag.startsWith('POTION_');
  if (variant === '') {
    if (keyed) return { neu: null, elite: null };
    const id = neuIdOf({ tag, tier: null, flatNbt: {} });
    return { neu: id, elite: id };
  }
  if (isPetTag(tag)) {
    const m = /^([A-Z_]+?)(\+100|\+200)?$/.exec(variant);
    const index = m ? PET_RARITY_INDEX[m[1]!] : undefined;
    if (index === undefined) return { neu: null, elite: null };
    const base = `${tag.slice(4)};${index}`;
    return m![2] ? { neu: null, elite: base + m![2] } : { neu: base, elite: base };
  }
  if (!/^\d+$/.test(variant)) return { neu: null, elite: null };
  const rune = /^(?:UNIQUE_)?RUNE_(.+)$/.exec(tag);
  const id = rune ? `${rune[1]}_RUNE;${variant}` : tag.startsWith('POTION_') ? `${tag};${variant}` : null;
  return { neu: id, elite: id };
}
