/**
 * The bulk price files mods read (ecosystem.md §3): which key each listing is priced under, and
 * how a key's lowest BIN is read from its active listings — `raw`, the absolute lowest, and
 * `smooth`, the lowest that survives an outlier fence. Pure: the market passes the listings.
 */
import { petLevelOf } from './filters.ts';
import { isPetTag, neuIdOf, type NeuIdSubject } from './item-names.ts';

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
 * or above REFERENCE_SHARE × `reference` (the median of the key's hourly lowest BINs over the last
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
