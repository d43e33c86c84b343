/**
 * The open hours of a tag's prices: the sales after the last rolled-up hour (an hour or so while
 * the rollup keeps up), as one cell per hour, per tag and price variant. Every unfiltered price
 * answer adds them to the rollups; at Hypixel's volume the most sold tag has ~3,000 of them, and
 * reading them raw on every request was most of the summary's and `/current`'s cost (issue 24).
 *
 * So each serving process keeps them, per tag and variant, and checks them at every request
 * against the store's fingerprint of the tag's sales since the last rolled-up hour (count, sum
 * and newest of their sale times, read from the (tag, sold_at) index alone). When it matches, the
 * held cells answer. When only newer sales were added (the ingester records a minute's sales at
 * a time), only those are read. Anything else (a sale arriving late, a sale's time rewritten by
 * the other feed) reads the open hours again. It works whichever process writes the sales.
 *
 * A sale's price is taken as fixed once it is stored at a given time: both feeds report an
 * auction's final bid, and only its time can differ between them.
 */
import type { Store } from '../store/index.ts';
import type { SoldFingerprint } from '../store/repositories/auction-queries.ts';
import type { AuctionRecord } from '../domain/auction-records.ts';
import type { LeanSale } from '../store/repositories/auction-queries.ts';
import type { StoredCell } from '../store/repositories/price-rollups.ts';
import { ALL_VARIANTS, bucketOf, figuresOf, HOUR_MS, priceVariantKey, totalsOf, type PriceCell, type PricedSale } from '../domain/prices.ts';
import { digestOfSorted } from '../domain/sales-rollup.ts';

/** Tag and variant pairs held (least recently used dropped first): ~2 open hours of sales each. */
export const OPEN_HOURS_ENTRIES = 2_000;
/** Open hours held only while the rollup is this close to now; a longer tail (a first catch-up) is read raw. */
export const OPEN_HOURS_MAX_SPAN = 3 * HOUR_MS;

/**
 * One open hour of one tag and variant: its cell's figures (the variant's sales, non-positive
 * prices left out as `cellOf` does) kept as sales are added, and its prices in ascending order,
 * so that a minute's sales cost a merge, not a sort of the hour.
 */
interface Hour extends Omit<PriceCell, 'prices'> {
  /** the prices per unit, ascending */
  prices: Float64Array;
  /** every sale of the tag in the hour read (any variant): its share of the fingerprint */
  tagCount: number;
  /** their sale times' sum after the hour's start */
  tagTimeSum: number;
  /** the hour's cell, computed when first asked */
  cell?: StoredCell | null;
}

/**
 * What is held for one tag and variant. Its sales never change once stored (a refresh builds a new
 * entry, copying only the hours it adds to), so two requests refreshing at once cannot mix; each
 * hour's cell is computed once.
 */
interface Entry {
  /** the first open hour */
  from: number;
  hours: ReadonlyMap<number, Hour>;
  /** the newest sale time read (any variant) */
  newest: number | null;
}

export class OpenHours {
  private readonly entries = new Map<string, Entry>();
  /** counts: answered from what was held, after reading newer sales only, after reading the open hours again */
  readonly stats = { held: 0, newer: 0, reread: 0 };

  constructor(
    private readonly store: Store,
    private readonly capacity = OPEN_HOURS_ENTRIES,
  ) {}

  /**
   * The cells of the sales of `tag` (one variant, or ALL_VARIANTS) at or after `from` (the first
   * open hour's start), one per hour with sales, oldest first.
   */
  async cells(tag: string, variant: string, from: number): Promise<StoredCell[]> {
    const key = `${tag}\u0000${variant}`;
    const probe = await this.store.auctionQueries.soldFingerprint(tag, from);
    const cached = this.entries.get(key);
    const entry = cached && advance(cached, from);
    if (entry) {
      const held = fingerprintOf(entry);
      if (sameFingerprint(held, probe)) {
        this.stats.held++;
        this.touch(key, entry);
        return cellsOf(tag, variant, entry);
      }
      if (held.newest !== null && probe.count > held.count) {
        const newer = withSales(entry, await this.read(tag, variant, held.newest + 1));
        if (sameFingerprint(fingerprintOf(newer), probe)) {
          this.stats.newer++;
          this.touch(key, newer);
          return cellsOf(tag, variant, newer);
        }
      }
    }
    this.stats.reread++;
    const fresh = withSales({ from, hours: new Map(), newest: null }, await this.read(tag, variant, from));
    this.touch(key, fresh);
    return cellsOf(tag, variant, fresh);
  }

  /** Every sale of the tag at or after `since`, as (variant's sale or null, sale time). */
  private async read(tag: string, variant: string, since: number): Promise<Array<{ sale: PricedSale | null; at: number }>> {
    const out: Array<{ sale: PricedSale | null; at: number }> = [];
    const queries = this.store.auctionQueries;
    if (variant === ALL_VARIANTS) {
      for await (const chunk of queries.soldLeanChunks(tag, since)) for (const s of chunk) out.push({ sale: pricedLean(s), at: s.end });
    } else {
      for await (const chunk of queries.soldChunks({ tag, since })) {
        for (const r of chunk) {
          const sale = pricedRecord(r);
          out.push({ sale: priceVariantKey(r) === variant ? sale : null, at: sale.at });
        }
      }
    }
    return out;
  }

  private touch(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** A sale as the price rollups count it, from the lean sold rows (the whole tag's reads). */
export function pricedLean(s: LeanSale): PricedSale {
  return { price: s.price / Math.max(1, s.count), count: s.count, at: s.end };
}

/** A sale as the price rollups count it, from a sold record (a variant's reads, which need its NBT). */
export function pricedRecord(r: AuctionRecord): PricedSale {
  return { price: (r.soldPrice ?? r.highestBid) / Math.max(1, r.count), count: r.count, at: r.soldAt ?? r.end };
}

/** The entry from a later first open hour on (the rollup moved): the hours before it dropped. */
function advance(entry: Entry, from: number): Entry | undefined {
  if (from === entry.from) return entry;
  if (from < entry.from) return undefined;
  const hours = new Map([...entry.hours].filter(([h]) => h >= from));
  return { from, hours, newest: hours.size > 0 ? entry.newest : null };
}

/** What the store's fingerprint of the tag's sales since `entry.from` is when `entry` holds all of them. */
function fingerprintOf(entry: Entry): SoldFingerprint {
  let count = 0;
  let timeSum = 0;
  for (const [at, h] of entry.hours) {
    count += h.tagCount;
    timeSum += h.tagTimeSum + h.tagCount * (at - entry.from);
  }
  return { count, timeSum, newest: count === 0 ? null : entry.newest };
}

function sameFingerprint(a: SoldFingerprint, b: SoldFingerprint): boolean {
  return a.count === b.count && a.timeSum === b.timeSum && a.newest === b.newest;
}

/** A new entry: `entry`'s hours with `rows` added (only the hours they touch are copied). */
function withSales(entry: Entry, rows: ReadonlyArray<{ sale: PricedSale | null; at: number }>): Entry {
  const added = new Map<number, Array<{ sale: PricedSale | null; at: number }>>();
  let newest = entry.newest;
  for (const row of rows) {
    const hour = bucketOf(row.at, HOUR_MS);
    const list = added.get(hour);
    if (list) list.push(row);
    else added.set(hour, [row]);
    if (newest === null || row.at > newest) newest = row.at;
  }
  const hours = new Map(entry.hours);
  for (const [hour, list] of added) hours.set(hour, withHourSales(hours.get(hour), hour, list));
  return { from: entry.from, hours, newest };
}

/** A copy of `before` (or a new hour) with `rows` added. */
function withHourSales(before: Hour | undefined, hour: number, rows: ReadonlyArray<{ sale: PricedSale | null; at: number }>): Hour {
  let tagCount = before?.tagCount ?? 0;
  let tagTimeSum = before?.tagTimeSum ?? 0;
  const sales: PricedSale[] = [];
  for (const { sale, at } of rows) {
    tagCount++;
    tagTimeSum += at - hour;
    if (sale) sales.push(sale);
  }
  const added = figuresOf(sales);
  const totals = before ? totalsOf([before, added.totals])! : added.totals;
  return { ...totals, prices: mergeAscending(before?.prices ?? new Float64Array(0), Float64Array.from(added.prices).sort()), tagCount, tagTimeSum };
}

/** Two ascending arrays merged into a new one. */
function mergeAscending(a: Float64Array, b: Float64Array): Float64Array {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) out[o++] = b[j]! < a[i]! ? b[j++]! : a[i++]!;
  while (i < a.length) out[o++] = a[i++]!;
  while (j < b.length) out[o++] = b[j++]!;
  return out;
}

function cellsOf(tag: string, variant: string, entry: Entry): StoredCell[] {
  const out: StoredCell[] = [];
  for (const at of [...entry.hours.keys()].sort((a, b) => a - b)) {
    const h = entry.hours.get(at)!;
    if (h.cell === undefined) {
      h.cell = h.count === 0 ? null : { count: h.count, items: h.items, coins: h.coins, sum: h.sum, min: h.min, max: h.max, prices: digestOfSorted(h.prices), tag, variant, at };
    }
    if (h.cell) out.push(h.cell);
  }
  return out;
}
