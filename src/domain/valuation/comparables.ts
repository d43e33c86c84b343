/**
 * The comparable-sales estimate: the median and spread of recent sales of items that match the
 * one being valued on the traits that move the price, with the count behind it, the cheapest
 * matching active BIN and a fast-sell price. Pure.
 *
 * Each item is reduced to one key per dimension (`DIMENSIONS`, least important first). Which
 * dimensions matter for a tag is decided from its own sales (`decideDimensions`): a dimension
 * matters when the median prices of its two most common values (each with at least
 * `MIN_GROUP` sales) differ by at least `MATTERS_RATIO`; when the sales cannot tell (too few
 * with two values), the family's default applies (`FAMILY_DEFAULTS`). Only those dimensions are
 * matched. With fewer than `MIN_COMPARABLES` matching sales the match widens step by step, dropping
 * the least important dimension still matched, and says which it dropped.
 */
import type { ItemFamily, ItemTraits } from './traits.ts';

/** The dimensions items are compared on, least important first (the order in which a match widens). */
export const DIMENSIONS = [
  'reforge',
  'cosmetic',
  'applied',
  'gems',
  'potato_books',
  'enchantments',
  'recombobulated',
  'attributes',
  'stars',
  'pet_item',
  'pet_candy',
  'tier',
  'pet_level',
] as const;

export type Dimension = (typeof DIMENSIONS)[number];

/** Dimensions matched when a tag's sales cannot decide, per family. */
export const FAMILY_DEFAULTS: Readonly<Record<ItemFamily, readonly Dimension[]>> = {
  pet: ['tier', 'pet_level', 'pet_item', 'cosmetic'],
  armor: ['tier', 'stars', 'recombobulated', 'attributes', 'potato_books', 'enchantments', 'gems'],
  weapon: ['tier', 'stars', 'recombobulated', 'attributes', 'potato_books', 'enchantments', 'gems'],
  other: ['tier', 'recombobulated', 'attributes', 'pet_level'],
};

/** Dimensions always matched: a pet's rarity and level band are what the pet is. */
const ALWAYS: ReadonlySet<Dimension> = new Set(['tier', 'pet_level']);

export const MIN_COMPARABLES = 5;
export const MIN_GROUP = 3;
/** Two values of a dimension whose medians differ by this factor or more: the dimension matters. */
export const MATTERS_RATIO = 1.15;
/** Newest matching sales a median is taken over. */
export const MAX_COMPARABLES = 40;

/** An item's key per dimension, in `DIMENSIONS` order. */
export type ItemKeys = readonly string[];

const sortedEntries = (r: Readonly<Record<string, number>>): string =>
  Object.keys(r)
    .sort()
    .map((k) => `${k}${r[k]}`)
    .join(',');

/** Enchantments that move the price: ultimate ones and levels above what a table gives (6+). */
function keyEnchantments(e: Readonly<Record<string, number>>): string {
  const out: string[] = [];
  for (const name of Object.keys(e).sort()) {
    const level = e[name]!;
    if (name.startsWith('ultimate_') || level >= 6) out.push(`${name}${level}`);
  }
  return out.join(',');
}

/** The keys of an item, one per dimension. */
export function keysOf(t: ItemTraits): ItemKeys {
  const cosmetic = t.applied
    .filter((a) => a.kind === 'skin' || a.kind === 'dye')
    .map((a) => a.id)
    .sort()
    .join(',');
  const applied = t.applied
    .filter((a) => a.kind !== 'skin' && a.kind !== 'dye' && a.kind !== 'winning_bid')
    .map((a) => `${a.id}${a.count}`)
    .sort()
    .join(',');
  const gems = t.gems
    .map((g) => `${g.type ?? '?'}:${g.quality}`)
    .sort()
    .join(',');
  return [
    t.reforge ?? '',
    cosmetic,
    applied,
    gems,
    `${t.hotPotatoBooks}+${t.fumingPotatoBooks}`,
    keyEnchantments(t.enchantments),
    t.recombobulated ? 'R' : '',
    sortedEntries(t.attributes),
    `${t.stars}+${t.masterStars}`,
    t.pet?.heldItem ?? '',
    t.pet && t.pet.candyUsed > 0 ? 'C' : '',
    t.tier ?? '',
    t.pet?.band ?? '',
  ];
}

/** A sale as the estimate reads it. */
export interface ComparableSale {
  /** price per item */
  price: number;
  /** epoch ms of the sale */
  at: number;
  keys: ItemKeys;
}

/** An active BIN as the estimate reads it. */
export interface ComparableListing {
  uuid: string;
  /** price per item */
  price: number;
  keys: ItemKeys;
}

function median(sorted: readonly number[]): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * Which dimensions matter for a tag, read from its sales (see the module comment). Returns the
 * dimension indexes to match, least important first; `fromSales`: whether the sales decided
 * (false: the family default).
 */
export function decideDimensions(sales: readonly ComparableSale[], family: ItemFamily): { dims: number[]; fromSales: boolean } {
  const dims: number[] = [];
  let decided = 0;
  for (let d = 0; d < DIMENSIONS.length; d++) {
    const name = DIMENSIONS[d]!;
    if (ALWAYS.has(name)) {
      dims.push(d);
      continue;
    }
    const groups = new Map<string, number[]>();
    for (const s of sales) {
      const k = s.keys[d]!;
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(s.price);
    }
    const big = [...groups.values()].filter((g) => g.length >= MIN_GROUP).sort((a, b) => b.length - a.length);
    if (big.length >= 2) {
      decided++;
      const a = median(big[0]!.sort((x, y) => x - y));
      const b = median(big[1]!.sort((x, y) => x - y));
      const ratio = Math.max(a, b) / Math.max(1, Math.min(a, b));
      if (ratio >= MATTERS_RATIO) dims.push(d);
    } else if (groups.size > 1 && FAMILY_DEFAULTS[family].includes(name)) {
      // Too few sales to tell, and the item family says it matters.
      dims.push(d);
    }
  }
  return { dims, fromSales: decided > 0 };
}

export interface ComparablesEstimate {
  /** median price per item of the comparables, null when none matched */
  median: number | null;
  /** 25th and 75th percentiles (the spread) */
  p25: number | null;
  p75: number | null;
  count: number;
  /** dimensions matched */
  matchedOn: Dimension[];
  /** dimensions dropped to find enough comparables, in the order dropped */
  widenedBy: Dimension[];
  /** dimensions the tag's sales decided (false: the family default) */
  decidedFromSales: boolean;
  /** cheapest active BIN matching as the median did, per item */
  cheapestBin: { uuid: string; price: number } | null;
  /**
   * price per item of the cheapest matching active BIN that is not the item's own listing
   * (`ComparablesOptions.self`): an equivalent the buyer could take instead, the value's ceiling
   */
  cheapestOtherBin: number | null;
  /** a price to sell within minutes: below the cheapest matching BIN and the lower quartile */
  fastSell: number | null;
  itemKey: string;
  medianKey: string;
  lbinKey: string;
}

const ALL_DIMS: readonly number[] = DIMENSIONS.map((_, i) => i);

function keyString(tag: string, keys: ItemKeys, dims: readonly number[]): string {
  let s = tag;
  for (const d of dims) if (keys[d] !== '') s += `|${DIMENSIONS[d]}=${keys[d]}`;
  return s;
}

function matches(a: ItemKeys, b: ItemKeys, dims: readonly number[]): boolean {
  for (const d of dims) if (a[d] !== b[d]) return false;
  return true;
}

export interface ComparablesOptions {
  /** the time of the valuation: only sales before it count */
  now: number;
  /** how far back sales count */
  windowMs: number;
  /** dimensions to match (decideDimensions), least important first */
  dims: { dims: readonly number[]; fromSales: boolean };
  minCount?: number;
  /**
   * The tag's sales and dimensions prepared for many valuations (`PreparedComparables` over the
   * same `sales` array and `dims.dims` array): the same estimate, from indexes instead of a scan
   * per item. Ignored when it was prepared over other arrays.
   */
  prepared?: PreparedComparables;
  /** the uuid of the item's own listing when it is one: never its own alternative */
  self?: string;
}

/** The dimensions matched in each widening step: the tag's, then one dropped at a time (least important first, never an always-matched one). */
function wideningSteps(dims: readonly number[]): Array<{ dims: number[]; dropped: Dimension | null }> {
  const steps: Array<{ dims: number[]; dropped: Dimension | null }> = [{ dims: [...dims], dropped: null }];
  for (;;) {
    const last = steps[steps.length - 1]!.dims;
    const drop = last.findIndex((d) => !ALWAYS.has(DIMENSIONS[d]!));
    if (drop < 0) return steps;
    const next = last.slice();
    const [gone] = next.splice(drop, 1);
    steps.push({ dims: next, dropped: DIMENSIONS[gone!]! });
  }
}

/** An item's keys on `dims` as one unambiguous string. */
const groupKey = (keys: ItemKeys, dims: readonly number[]): string => JSON.stringify(dims.map((d) => keys[d]));

/**
 * A tag's sales (newest first) and its dimensions, indexed for the comparables estimate of many
 * items: per widening step, the newest `MAX_COMPARABLES` prices of the sales in the window per
 * group of keys, and per active-BIN list the cheapest listing per group. Built lazily; the sales
 * indexes again when the window covers other sales (`now` moved past one), the BIN indexes per
 * BIN array. Hold one per sales array: when a tag's sales change, its holder builds a new one
 * (market/valuation.ts). Results equal `comparablesEstimate` without it (test/unit/domain/valuation).
 */
export class PreparedComparables {
  readonly steps: ReadonlyArray<{ dims: number[]; dropped: Dimension | null }>;
  /** false when the sales are not newest first: the estimate then scans as without it */
  readonly usable: boolean;
  private rangeFrom = -1;
  private rangeTo = -1;
  private readonly stepIndexes: Array<Map<string, number[]> | undefined> = [];
  private readonly binIndexes = new WeakMap<readonly ComparableListing[], Array<Map<string, ComparableListing> | undefined>>();
  /** indexes built (for tests) */
  builds = 0;

  constructor(
    readonly sales: readonly ComparableSale[],
    readonly dims: readonly number[],
  ) {
    this.steps = wideningSteps(dims);
    let sorted = true;
    for (let i = 1; i < sales.length && sorted; i++) if (sales[i]!.at > sales[i - 1]!.at) sorted = false;
    this.usable = sorted;
  }

  /** The window's sales as a range of `sales`: those before `now` and at or after `since`. */
  private range(now: number, since: number): void {
    const from = this.firstBefore(now, 0);
    const to = this.firstBefore(since, from);
    if (from !== this.rangeFrom || to !== this.rangeTo) {
      this.rangeFrom = from;
      this.rangeTo = to;
      this.stepIndexes.length = 0;
    }
  }

  /** The first index at or after `lo` whose sale is before `t` (binary search: newest first). */
  private firstBefore(t: number, lo: number): number {
    let hi = this.sales.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.sales[mid]!.at >= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The newest matching prices (at most MAX_COMPARABLES) of the window's sales at widening step `step`. */
  pricesAt(step: number, keys: ItemKeys, now: number, since: number): readonly number[] {
    this.range(now, since);
    let index = this.stepIndexes[step];
    if (!index) {
      this.builds++;
      index = new Map();
      const dims = this.steps[step]!.dims;
      for (let i = this.rangeFrom; i < this.rangeTo; i++) {
        const sale = this.sales[i]!;
        const k = groupKey(sale.keys, dims);
        let prices = index.get(k);
        if (!prices) index.set(k, (prices = []));
        if (prices.length < MAX_COMPARABLES) prices.push(sale.price);
      }
      this.stepIndexes[step] = index;
    }
    return index.get(groupKey(keys, this.steps[step]!.dims)) ?? [];
  }

  /** The cheapest of `bins` matching `keys` at widening step `step` (the first of equal prices). */
  cheapestAt(step: number, keys: ItemKeys, bins: readonly ComparableListing[]): ComparableListing | null {
    let perStep = this.binIndexes.get(bins);
    if (!perStep) this.binIndexes.set(bins, (perStep = []));
    let index = perStep[step];
    if (!index) {
      this.builds++;
      index = new Map();
      const dims = this.steps[step]!.dims;
      for (const b of bins) {
        const k = groupKey(b.keys, dims);
        const held = index.get(k);
        if (held === undefined || b.price < held.price) index.set(k, b);
      }
      perStep[step] = index;
    }
    return index.get(groupKey(keys, this.steps[step]!.dims)) ?? null;
  }
}

/**
 * The comparables estimate. `sales` newest first (as the store reads them); sales at or after
 * `now` or before the window are skipped.
 */
export function comparablesEstimate(
  tag: string,
  keys: ItemKeys,
  sales: readonly ComparableSale[],
  bins: readonly ComparableListing[],
  opts: ComparablesOptions,
): ComparablesEstimate {
  const min = opts.minCount ?? MIN_COMPARABLES;
  const since = opts.now - opts.windowMs;
  const prepared = opts.prepared;
  if (prepared && prepared.usable && prepared.sales === sales && prepared.dims === opts.dims.dims) {
    let step = 0;
    let found = prepared.pricesAt(0, keys, opts.now, since);
    const widenedBy: Dimension[] = [];
    while (found.length < min && step + 1 < prepared.steps.length) {
      step++;
      widenedBy.push(prepared.steps[step]!.dropped!);
      found = prepared.pricesAt(step, keys, opts.now, since);
    }
    const dims = prepared.steps[step]!.dims;
    const cheapest = prepared.cheapestAt(step, keys, bins);
    return estimateOf(tag, keys, found.slice(), widenedBy, dims, cheapest, cheapestOther(keys, bins, dims, cheapest, opts.self), opts);
  }
  const inWindow: ComparableSale[] = [];
  for (const s of sales) if (s.at < opts.now && s.at >= since) inWindow.push(s);
  let dims = [...opts.dims.dims];
  const widenedBy: Dimension[] = [];
  let prices: number[] = [];
  for (;;) {
    prices = [];
    for (const s of inWindow) {
      if (matches(keys, s.keys, dims)) {
        prices.push(s.price);
        if (prices.length >= MAX_COMPARABLES) break;
      }
    }
    if (prices.length >= min) break;
    const drop = dims.findIndex((d) => !ALWAYS.has(DIMENSIONS[d]!));
    if (drop < 0) break;
    widenedBy.push(DIMENSIONS[dims[drop]!]!);
    dims.splice(drop, 1);
  }
  // Too few even at the widest: take what the always-matched dimensions give (may be none).
  let cheapest: ComparableListing | null = null;
  let other: number | null = null;
  for (const b of bins) {
    if (!matches(keys, b.keys, dims)) continue;
    if (cheapest === null || b.price < cheapest.price) cheapest = b;
    if (b.uuid !== opts.self && (other === null || b.price < other)) other = b.price;
  }
  return estimateOf(tag, keys, prices, widenedBy, dims, cheapest, other, opts);
}

/**
 * The cheapest matching BIN that is not the item's own listing, from the index's cheapest: a scan
 * only when the cheapest is the item itself (an active listing valued for the underpriced list).
 */
function cheapestOther(keys: ItemKeys, bins: readonly ComparableListing[], dims: readonly number[], cheapest: ComparableListing | null, self: string | undefined): number | null {
  if (cheapest === null) return null;
  if (cheapest.uuid !== self) return cheapest.price;
  let other: number | null = null;
  for (const b of bins) if (b.uuid !== self && matches(keys, b.keys, dims) && (other === null || b.price < other)) other = b.price;
  return other;
}

/** The estimate from the matched prices (sorted here), the dimensions matched, the cheapest matching BIN and the cheapest other than the item's own. */
function estimateOf(
  tag: string,
  keys: ItemKeys,
  prices: number[],
  widenedBy: Dimension[],
  dims: readonly number[],
  cheapest: ComparableListing | null,
  other: number | null,
  opts: ComparablesOptions,
): ComparablesEstimate {
  prices.sort((a, b) => a - b);
  const med = prices.length > 0 ? median(prices) : null;
  const p25 = prices.length > 0 ? quantile(prices, 0.25) : null;
  let fastSell: number | null = p25;
  if (cheapest !== null) fastSell = fastSell === null ? cheapest.price - 1 : Math.min(fastSell, cheapest.price - 1);
  if (fastSell !== null) fastSell = Math.max(0, Math.round(fastSell));
  const usedKey = keyString(tag, keys, dims);
  return {
    median: med,
    p25,
    p75: prices.length > 0 ? quantile(prices, 0.75) : null,
    count: prices.length,
    // A pet's level band is matched always; an item that is not a pet has none to name.
    matchedOn: dims.filter((d) => !(DIMENSIONS[d] === 'pet_level' && keys[d] === '')).map((d) => DIMENSIONS[d]!),
    widenedBy,
    decidedFromSales: opts.dims.fromSales,
    cheapestBin: cheapest === null ? null : { uuid: cheapest.uuid, price: cheapest.price },
    cheapestOtherBin: other,
    fastSell,
    itemKey: keyString(tag, keys, ALL_DIMS),
    medianKey: usedKey,
    lbinKey: usedKey,
  };
}
