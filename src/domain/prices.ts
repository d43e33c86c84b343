/**
 * Prices and price history (issue 24): the price variant of a sold or listed item, defined once,
 * the history ranges and their bucket sizes, and the cells the price rollups keep.
 *
 * A price variant is what a price means for one tag: pets by rarity and level band, runes and
 * potions by level. Everything else is one variant, the empty key. Enchanted books need none: a
 * single-enchantment book's tag carries its level already (`ENCHANTMENT_ULTIMATE_WISE_5`).
 *
 * A cell (one tag and variant over one hour or one day) keeps count (sales), items (sum of stack
 * sizes), coins (sum of whole sale prices), sum, min, max of prices per unit, and a price digest (domain/sales-rollup.ts
 * `priceDigest`): every price when the cell had at most DIGEST_SIZE sales, else DIGEST_SIZE
 * quantiles. Medians read from digests are exact whenever every cell merged had at most
 * DIGEST_SIZE sales, and otherwise a weighted median of quantiles (error bounded by the spread of
 * one 1/DIGEST_SIZE slice of the cell's prices).
 */
import { petLevelOf } from './filters.ts';
import { DIGEST_SIZE, digestPoints, priceDigest, weightedMedian, type WeightedPrice } from './sales-rollup.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The whole tag (every variant together). */
export const ALL_VARIANTS = '';

/** What the variant key reads of an item. */
export interface PriceVariantSource {
  tag: string;
  tier: string | null;
  flatNbt: Readonly<Record<string, string>>;
}

/** A pet's level band: '' for 1–99, '+100' for 100–199, '+200' for 200 (golden dragons). */
export function petLevelBand(level: number): '' | '+100' | '+200' {
  return level >= 200 ? '+200' : level >= 100 ? '+100' : '';
}

/**
 * The price variant of an item of its tag:
 * - pets (`PET_*`): rarity, plus the level band (`LEGENDARY`, `LEGENDARY+100`, `LEGENDARY+200`);
 * - runes (`RUNE_*`, `UNIQUE_RUNE_*`): the rune's level (`3`);
 * - potions (`POTION_*`): the potion level (`5`);
 * - anything else: '' (the tag is the variant).
 * A pet's tier comes from its pet data (`petInfo.tier`), else the item's tier.
 */
export function priceVariantKey(item: PriceVariantSource): string {
  const { tag, flatNbt } = item;
  if (tag.startsWith('PET_')) {
    const tier = (flatNbt['petInfo.tier'] ?? item.tier ?? 'COMMON').toUpperCase();
    return tier + petLevelBand(petLevelOf({ flatNbt }));
  }
  if (tag.startsWith('RUNE_') || tag.startsWith('UNIQUE_RUNE_')) {
    for (const k in flatNbt) if (k.startsWith('runes.')) return levelKey(flatNbt[k]);
    return '';
  }
  if (tag.startsWith('POTION_')) return levelKey(flatNbt['potion_level']);
  return '';
}

function levelKey(raw: string | undefined): string {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? String(n) : '';
}

// ---------------------------------------------------------------------------------------------
// History ranges

export type HistoryRange = 'day' | 'week' | 'month' | 'full';
export const HISTORY_RANGES: readonly HistoryRange[] = ['day', 'week', 'month', 'full'];

/**
 * Each range's span and bucket. The rollups are hourly and daily, so no bucket is shorter than
 * an hour: a day is 24 hourly points, a week 84 two-hour points (168 hourly rows), a month 30
 * daily points and the full history one point per day, both from the daily rollup (as the
 * established service's month chart: a month of hourly rows, with their digests, cost ~4× a
 * week's to read). `span` null: everything stored.
 */
export const RANGE_BUCKETS: Readonly<Record<HistoryRange, { span: number | null; bucket: number }>> = {
  day: { span: DAY_MS, bucket: HOUR_MS },
  week: { span: 7 * DAY_MS, bucket: 2 * HOUR_MS },
  month: { span: 30 * DAY_MS, bucket: DAY_MS },
  full: { span: null, bucket: DAY_MS },
};

/** The start of the bucket of `size` holding `ts` (buckets aligned on the UTC epoch). */
export function bucketOf(ts: number, size: number): number {
  return Math.floor(ts / size) * size;
}

/** The first bucket start of a range ending at `now`: the bucket holding `now - span`. */
export function rangeStart(range: HistoryRange, now: number): number {
  const { span, bucket } = RANGE_BUCKETS[range];
  return span === null ? 0 : bucketOf(now - span, bucket) + bucket;
}

/**
 * The hours an average over `windowMs` reads: whole hours ending at the last rolled-up hour
 * (`rolledTo`), so the averages change once an hour, not with every sale.
 */
export function averageWindow(rolledTo: number, windowMs: number): { from: number; to: number } {
  return { from: rolledTo - Math.ceil(windowMs / HOUR_MS) * HOUR_MS, to: rolledTo };
}

// ---------------------------------------------------------------------------------------------
// Cells

/** Sales of one tag and variant over one hour or one day; prices per unit. */
export interface PriceCell {
  count: number;
  items: number;
  /** coins paid: the sum of whole sale prices (price per unit × items) */
  coins: number;
  /** sum of prices per unit */
  sum: number;
  min: number;
  max: number;
  /** the price digest, ascending (see the module comment) */
  prices: ArrayLike<number>;
}

/** One sale as the rollups read it: price per unit, stack size, time. */
export interface PricedSale {
  price: number;
  count: number;
  at: number;
}

/** The cell of a set of sales (non-positive prices left out); null when none is left. */
export function cellOf(sales: Iterable<PricedSale>): PriceCell | null {
  const { totals, prices } = figuresOf(sales);
  return totals.count === 0 ? null : { ...totals, prices: priceDigest(prices) };
}

/** The figures of a set of sales and their prices per unit, in the given order (non-positive prices left out). */
export function figuresOf(sales: Iterable<PricedSale>): { totals: Omit<PriceCell, 'prices'>; prices: number[] } {
  let count = 0;
  let items = 0;
  let coins = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  const prices: number[] = [];
  for (const s of sales) {
    if (!(s.price > 0)) continue;
    count++;
    const n = Math.max(1, s.count);
    items += n;
    coins += s.price * n;
    sum += s.price;
    if (s.price < min) min = s.price;
    if (s.price > max) max = s.price;
    prices.push(s.price);
  }
  return { totals: { count, items, coins, sum, min, max }, prices };
}

/**
 * Cells merged into one (a day from its hours): count, items, sum, min and max exact; the digest
 * is every point when the cells held every price and together at most DIGEST_SIZE, else
 * DIGEST_SIZE weighted quantiles of their points.
 */
export function mergeCells(cells: readonly PriceCell[]): PriceCell | null {
  if (cells.length === 0) return null;
  if (cells.length === 1) return cells[0]!;
  const totals = totalsOf(cells)!;
  const points: WeightedPrice[] = [];
  let exact = true;
  for (const c of cells) {
    if (c.prices.length !== c.count) exact = false;
    digestPoints(c.count, c.prices, points);
  }
  const prices = exact && totals.count <= DIGEST_SIZE ? points.map((p) => p.price).sort((a, b) => a - b) : weightedQuantiles(points, DIGEST_SIZE);
  return { ...totals, prices };
}

/** `n` evenly spaced weighted quantiles (the middle of each of n equal slices of the weight). */
export function weightedQuantiles(points: readonly WeightedPrice[], n: number): number[] {
  const sorted = [...points].sort((a, b) => a.price - b.price);
  const total = sorted.reduce((s, p) => s + p.weight, 0);
  const out: number[] = [];
  let i = 0;
  let cumulative = 0;
  for (let q = 0; q < n; q++) {
    const target = ((q + 0.5) / n) * total;
    while (i < sorted.length - 1 && cumulative + sorted[i]!.weight < target) cumulative += sorted[i++]!.weight;
    out.push(sorted[i]!.price);
  }
  return out;
}

/**
 * The median of cells' digests (exact when every cell held all its prices): the weighted median
 * of their points (domain/sales-rollup.ts `weightedMedian`: the mean of the two middle prices when
 * the weight splits exactly between them). A few cells (a 6-hour bucket merges 6 digests of 32
 * points) are walked together in place; many (the 2-day summary's 49) are flattened and sorted
 * once, since the walk's cost grows with points × cells.
 */
export function medianOf(cells: readonly PriceCell[]): number | null {
  const n = cells.length;
  if (n === 0) return null;
  if (n === 1) return medianOfOne(cells[0]!);
  if (n > WALK_CELLS) return medianOfSorted(sortedPoints(cells));
  const heads = new Int32Array(n);
  const weights = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const c = cells[i]!;
    weights[i] = c.prices.length > 0 ? c.count / c.prices.length : 0;
    total += c.count;
  }
  if (total === 0) return null;
  const half = total / 2;
  const eps = total * 1e-12;
  let cumulative = 0;
  // The next price in ascending order across the digests (-1: none left).
  const next = (): number => {
    let best = -1;
    let bestPrice = Infinity;
    for (let i = 0; i < n; i++) {
      const c = cells[i]!;
      const h = heads[i]!;
      if (h < c.prices.length && c.prices[h]! < bestPrice) {
        bestPrice = c.prices[h]!;
        best = i;
      }
    }
    return best;
  };
  for (let i = next(); i >= 0; ) {
    const price = cells[i]!.prices[heads[i]!]!;
    heads[i]!++;
    cumulative += weights[i]!;
    const j = next();
    if (Math.abs(cumulative - half) <= eps && j >= 0) return (price + cells[j]!.prices[heads[j]!]!) / 2;
    if (cumulative > half) return price;
    if (j < 0) return price;
    i = j;
  }
  return null;
}

/** Up to this many cells the median walks the digests in place. */
const WALK_CELLS = 8;

/** Every digest point of the cells, ascending by price, with its weight. */
interface SortedPoints {
  prices: Float64Array;
  weights: Float64Array;
  total: number;
}

/**
 * The digests (each ascending) merged pairwise, bottom-up: ~3× faster than sorting the points
 * with a comparator (49 digests of 32 points: ~0.1 ms against ~0.3 ms on the project's machine).
 */
function sortedPoints(cells: readonly PriceCell[]): SortedPoints {
  let m = 0;
  let total = 0;
  let runs: number[] = [0];
  for (const c of cells) {
    m += c.prices.length;
    total += c.count;
    runs.push(m);
  }
  let prices = new Float64Array(m);
  let weights = new Float64Array(m);
  let k = 0;
  for (const c of cells) {
    const w = c.prices.length > 0 ? c.count / c.prices.length : 0;
    for (let i = 0; i < c.prices.length; i++, k++) {
      prices[k] = c.prices[i]!;
      weights[k] = w;
    }
  }
  let toPrices = new Float64Array(m);
  let toWeights = new Float64Array(m);
  while (runs.length > 2) {
    const next = [0];
    for (let r = 0; r + 1 < runs.length; r += 2) {
      const lo = runs[r]!;
      const mid = runs[r + 1]!;
      const hi = r + 2 < runs.length ? runs[r + 2]! : mid;
      let i = lo;
      let j = mid;
      let o = lo;
      while (i < mid && j < hi) {
        if (prices[j]! < prices[i]!) {
          toPrices[o] = prices[j]!;
          toWeights[o++] = weights[j++]!;
        } else {
          toPrices[o] = prices[i]!;
          toWeights[o++] = weights[i++]!;
        }
      }
      for (; i < mid; i++, o++) {
        toPrices[o] = prices[i]!;
        toWeights[o] = weights[i]!;
      }
      for (; j < hi; j++, o++) {
        toPrices[o] = prices[j]!;
        toWeights[o] = weights[j]!;
      }
      next.push(hi);
    }
    [prices, toPrices] = [toPrices, prices];
    [weights, toWeights] = [toWeights, weights];
    runs = next;
  }
  return { prices, weights, total };
}

function medianOfSorted({ prices, weights, total }: SortedPoints): number | null {
  if (total === 0) return null;
  const half = total / 2;
  const eps = total * 1e-12;
  let cumulative = 0;
  for (let i = 0; i < prices.length; i++) {
    cumulative += weights[i]!;
    if (Math.abs(cumulative - half) <= eps && i + 1 < prices.length) return (prices[i]! + prices[i + 1]!) / 2;
    if (cumulative > half) return prices[i]!;
  }
  return prices.length > 0 ? prices[prices.length - 1]! : null;
}

/** The median of one cell's digest (its points weigh alike). */
function medianOfOne(c: PriceCell): number | null {
  const m = c.prices.length;
  if (m === 0) return null;
  return m % 2 ? c.prices[m >> 1]! : (c.prices[m / 2 - 1]! + c.prices[m / 2]!) / 2;
}

/**
 * The most frequent price among the cells' digest points, by weight (ties: the lower price); exact
 * when every cell held all its prices.
 */
export function modeOf(cells: readonly PriceCell[]): number | null {
  return modeOfSorted(sortedPoints(cells));
}

function modeOfSorted({ prices, weights }: SortedPoints): number | null {
  let best: number | null = null;
  let bestWeight = -1;
  for (let i = 0; i < prices.length; ) {
    const price = prices[i]!;
    let w = 0;
    for (; i < prices.length && prices[i] === price; i++) w += weights[i]!;
    // Ascending: a later price wins only by more weight.
    if (w > bestWeight + 1e-9) {
      best = price;
      bestWeight = w;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// Points

/**
 * One history point: the established `AveragePrice` (`min`, `max`, `avg`, `volume`, `time`) plus
 * `median`, `lowestBin` (the lowest BIN price per unit seen on the auction house during the bucket,
 * null when none was recorded), `sales` and `items`. `volume` is the number of items sold (as
 * the established service counts it), `sales` the number of auctions.
 */
export interface PricePoint {
  min: number;
  max: number;
  avg: number;
  volume: number;
  /** bucket start, ISO 8601 */
  time: string;
  median: number | null;
  lowestBin: number | null;
  sales: number;
  items: number;
}

/** A bucket's content: its cells (hours or days) and the lowest BIN recorded in it. */
export interface BucketInput {
  cells: PriceCell[];
  lowestBin: number | null;
}

/** Cells and lowest BINs grouped into buckets of `size`, then points, oldest first. */
export class PointBuilder {
  private readonly buckets = new Map<number, BucketInput>();

  constructor(private readonly size: number) {}

  private at(ts: number): BucketInput {
    const b = bucketOf(ts, this.size);
    let e = this.buckets.get(b);
    if (!e) this.buckets.set(b, (e = { cells: [], lowestBin: null }));
    return e;
  }

  addCell(ts: number, cell: PriceCell): void {
    this.at(ts).cells.push(cell);
  }

  addSales(sales: readonly PricedSale[]): void {
    const byBucket = new Map<number, PricedSale[]>();
    for (const s of sales) {
      const b = bucketOf(s.at, this.size);
      const list = byBucket.get(b);
      if (list) list.push(s);
      else byBucket.set(b, [s]);
    }
    for (const [b, list] of byBucket) {
      const cell = cellOf(list);
      if (cell) this.addCell(b, cell);
    }
  }

  addLowestBin(ts: number, price: number): void {
    const e = this.at(ts);
    if (e.lowestBin === null || price < e.lowestBin) e.lowestBin = price;
  }

  /** The points of buckets that had sales or a lowest BIN, oldest first. */
  points(): PricePoint[] {
    return [...this.buckets.entries()].sort(([a], [b]) => a - b).map(([b, input]) => pointOf(b, input));
  }
}

/** A bucket's point. Without sales, `min`, `max`, `avg` are 0 and `median` null. */
export function pointOf(bucket: number, { cells, lowestBin }: BucketInput): PricePoint {
  const time = new Date(bucket).toISOString();
  const t = totalsOf(cells);
  if (!t || t.count === 0) return { min: 0, max: 0, avg: 0, volume: 0, time, median: null, lowestBin, sales: 0, items: 0 };
  return { min: t.min, max: t.max, avg: t.sum / t.count, volume: t.items, time, median: medianOf(cells), lowestBin, sales: t.count, items: t.items };
}

/** The 2-day summary (`PriceSumary`): min, median, mean, mode, volume (items), max; zeros when nothing sold. */
export interface PriceSummary {
  min: number;
  median: number;
  mean: number;
  mode: number;
  volume: number;
  max: number;
}

export function summaryOf(cells: readonly PriceCell[]): PriceSummary {
  const totals = totalsOf(cells);
  if (!totals) return { min: 0, median: 0, mean: 0, mode: 0, volume: 0, max: 0 };
  const points = sortedPoints(cells);
  return { min: totals.min, median: medianOfSorted(points) ?? 0, mean: totals.sum / totals.count, mode: modeOfSorted(points) ?? 0, volume: totals.items, max: totals.max };
}

/** The cells' figures added up, without merging their digests; null when there is none. */
export function totalsOf(cells: ReadonlyArray<Omit<PriceCell, 'prices'>>): Omit<PriceCell, 'prices'> | null {
  if (cells.length === 0) return null;
  let count = 0;
  let items = 0;
  let coins = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const c of cells) {
    count += c.count;
    items += c.items;
    coins += c.coins;
    sum += c.sum;
    if (c.min < min) min = c.min;
    if (c.max > max) max = c.max;
  }
  return { count, items, coins, sum, min, max };
}
