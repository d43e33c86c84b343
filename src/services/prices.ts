/**
 * Prices and price history of an item (issue 24): history at every range, the 2-day summary, the
 * lowest BINs, what buying N costs now, the year's statistics and NEU's graph format.
 *
 * Without filters every answer reads the price rollups (store.priceRollups, kept by
 * market/price-rollups.ts) for the rolled-up hours and days of the window, plus the sales after
 * the last rolled-up hour (an hour or so), which each process holds per tag and reads again only
 * as far as they changed (market/open-hours.ts): the cost follows the window, never the
 * history stored. With filters the sales of the window are
 * read through the same index, newest first in keyset chunks, under FILTERED_DEADLINE_MS; when the
 * deadline cuts the read the answer says from when on it is complete (`cut`).
 */
import type { SellerNames } from './auction-filters.ts';
import type { BazaarHistoryReads } from './bazaar-history.ts';
import type { Clock } from '../clock.ts';
import type { Market } from '../market/index.ts';
import { OPEN_HOURS_MAX_SPAN, pricedLean, pricedRecord } from '../market/open-hours.ts';
import type { AuctionQueryRepository } from '../store/repositories/auction-queries.ts';
import type { BazaarRepository } from '../store/repositories/bazaar.ts';
import type { BazaarHistoryRepository } from '../store/repositories/bazaar-history.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';
import type { AuctionRecord } from '../domain/auction-records.ts';
import type { LeanSale } from '../store/repositories/auction-queries.ts';
import type { StoredCell, PriceRollupRepository } from '../store/repositories/price-rollups.ts';
import { decodeBook, type BookLevel } from '../domain/bazaar-book.ts';
import type { FilterPredicate } from '../domain/filters.ts';
import { neuIdCandidates } from '../domain/item-names.ts';
import {
  ALL_VARIANTS,
  bucketOf,
  cellOf,
  DAY_MS,
  HOUR_MS,
  PointBuilder,
  priceVariantKey,
  rangeStart,
  RANGE_BUCKETS,
  summaryOf,
  totalsOf,
  type HistoryRange,
  type PriceCell,
  type PricedSale,
  type PricePoint,
  type PriceSummary,
} from '../domain/prices.ts';
import { UnknownTagError } from '../domain/tags.ts';
import { compileAuctionFilters, type KnownTags } from './auction-filters.ts';
import { soldSubject } from './auctions.ts';
import { readHistory } from './bazaar-history.ts';
import { DeadlineExceeded, withDeadline } from './deadline.ts';

/** A filtered read (raw sales) stops after this long and answers what it read. */
export const FILTERED_DEADLINE_MS = 3_000;
/** The summary's window. */
export const SUMMARY_WINDOW_MS = 2 * DAY_MS;
/** `/current?count=N`: the largest N. */
export const MAX_CURRENT_COUNT = 1_000_000;
/** The year's statistics: how many recent sales `recentSamples` holds. */
const RECENT_SAMPLES = 10;

/** What PriceService reads: price rollups, the sales after them, bazaar prices and history, seller names (and the filters'). */
export type PricesStore = SellerNames & BazaarHistoryReads & {
  readonly auctionQueries: Pick<AuctionQueryRepository, 'soldChunks' | 'soldLeanChunks'>;
  readonly bazaar: Pick<BazaarRepository, 'snapshotAt'>;
  readonly bazaarHistory: Pick<BazaarHistoryRepository, 'productExists'>;
  readonly playerNames: Pick<PlayerNameRepository, 'namesOf'>;
  readonly priceRollups: Pick<PriceRollupRepository, 'state' | 'days' | 'hours' | 'binDays' | 'binHours'>;
};

export interface PriceServiceDeps {
  store: PricesStore;
  clock: Clock;
  /** the market's pieces it reads (the active listings of a tag, the open hours' price cells) */
  market: { readonly activeAuctions: Pick<Market['activeAuctions'], 'ready' | 'lowestBin' | 'activeOf'>; readonly openHours: Pick<Market['openHours'], 'cells'> };
  knownTags: KnownTags;
  /** how long a filtered read of raw sales may take (default FILTERED_DEADLINE_MS) */
  filteredDeadlineMs?: number;
}

export interface HistoryOptions {
  /** item filters (as query parameters); none = the rollups */
  filters?: Record<string, string>;
  /** a price variant of the tag (domain/prices.ts priceVariantKey); '' = the whole tag */
  variant?: string;
}

/** A history, and whether it is complete. */
export interface PriceHistory {
  points: PricePoint[];
  /**
   * null: complete. Otherwise a read of raw sales hit its deadline and read the sales from this
   * time (epoch ms) to now only: with filters, every sale before it is missing; without, the sales
   * between the last rolled-up hour and it (only while the rollup is catching up).
   */
  cut: number | null;
  /** 'rollups' (unfiltered) or 'sales' (filtered: raw sales) */
  source: 'rollups' | 'sales';
}

export interface SummaryAnswer {
  summary: PriceSummary;
  cut: number | null;
}

/** `BinResponse`. */
export interface BinAnswer {
  lowest: number;
  uuid: string | null;
  secondLowest: number;
}

/** `CurrentPrice`. */
export interface CurrentPrice {
  /** what selling `count` fetches now (bazaar: into the buy orders; auction house: at the 2-day median sale price) */
  sell: number;
  /** what buying `count` costs now (bazaar: from the sell offers; auction house: from the cheapest BINs) */
  buy: number;
  /** items on offer (bazaar: in the sell offers; auction house: on active BINs) */
  available: number;
  updatedAt: string;
  isAh: boolean;
}

/** `PriceStatistics` (history/year). */
export interface PriceStatistics {
  averageSellTimeSeconds: number;
  totalAuctionsSold: number;
  totalListed: number;
  totalSellers: number;
  totalBuyers: number;
  totalBids: number;
  totalCoinsTransferred: number;
  totalAuctions: number;
  totalItemsSold: number;
  binCount: number;
  prices: PricePoint[];
  recentSamples: Array<{ seller: string | null; price: number; end: string; uuid: string | null; playerName: string | null }>;
}

export class PriceService {
  private readonly store: PricesStore;
  private readonly clock: Clock;
  private readonly market: PriceServiceDeps['market'];
  private readonly knownTags: KnownTags;
  private readonly deadlineMs: number;

  constructor(deps: PriceServiceDeps) {
    this.deadlineMs = deps.filteredDeadlineMs ?? FILTERED_DEADLINE_MS;
    this.store = deps.store;
    this.clock = deps.clock;
    this.market = deps.market;
    this.knownTags = deps.knownTags;
  }

  /**
   * The price history of a known tag over a range, oldest first (UnknownTagError, FilterError).
   * This is the function the item page's chart calls.
   */
  async history(tag: string, range: HistoryRange, options: HistoryOptions = {}): Promise<PriceHistory> {
    const filter = await compileAuctionFilters(this.store, options.filters ?? {});
    await this.knownTags.require(tag);
    const now = this.clock.now();
    const from = rangeStart(range, now);
    const { bucket } = RANGE_BUCKETS[range];
    const builder = new PointBuilder(bucket);
    if (filter.names.length > 0) {
      const { sales, cut } = await this.filteredSales(tag, from, filter.test);
      builder.addSales(sales);
      return { points: builder.points(), cut, source: 'sales' };
    }
    const variant = options.variant ?? ALL_VARIANTS;
    // Daily buckets read the daily rollup for closed days.
    const days = bucket >= DAY_MS;
    const { cells, cut } = await this.cells(tag, variant, from, now, days);
    for (const c of cells) builder.addCell(c.at, c);
    for (const b of await this.bins(tag, variant, from, now, days)) builder.addLowestBin(b.at, b.lowest);
    return { points: builder.points(), cut, source: 'rollups' };
  }

  /** `{min, median, mean, mode, volume, max}` of the last 2 days of sales (prices per unit; volume in items). */
  async summary(tag: string, filters: Record<string, string> = {}): Promise<SummaryAnswer> {
    const filter = await compileAuctionFilters(this.store, filters);
    await this.knownTags.require(tag);
    const now = this.clock.now();
    // Whole hours from the one holding now − 2 days: the window is 48 to 49 hours, filtered or not.
    const from = bucketOf(now - SUMMARY_WINDOW_MS, HOUR_MS);
    if (filter.names.length > 0) {
      const { sales, cut } = await this.filteredSales(tag, from, filter.test);
      const cell = cellOf(sales);
      return { summary: summaryOf(cell ? [cell] : []), cut };
    }
    const { cells, cut } = await this.cells(tag, ALL_VARIANTS, from, now, false);
    return { summary: summaryOf(cells), cut };
  }

  /** The cheapest active BIN (whole price) matching the filters, its uuid, and the second cheapest; zeros when none. */
  async bin(tag: string, filters: Record<string, string> = {}): Promise<BinAnswer> {
    const filter = await compileAuctionFilters(this.store, filters);
    await this.knownTags.require(tag);
    const view = this.market.activeAuctions;
    await view.ready();
    const [first, second] = view.lowestBin(tag, filter.test, 2);
    return { lowest: first?.startingBid ?? 0, uuid: first?.uuid ?? null, secondLowest: second?.startingBid ?? 0 };
  }

  /**
   * What buying and selling `count` costs now: bazaar products walk the newest order book; auction
   * items buy from the cheapest active BINs (price per unit × the items taken from each) and sell
   * at the 2-day median sale price per unit.
   */
  async current(tag: string, count: number): Promise<CurrentPrice> {
    const now = this.clock.now();
    const snap = await this.store.bazaar.snapshotAt(tag, now);
    if (snap) {
      const book = snap.book ? decodeBook(snap.book) : null;
      const updatedAt = new Date(Number(snap.ts)).toISOString();
      if (book) {
        const buy = walkBook(book.sellOffers, count);
        const sell = walkBook(book.buyOrders, count);
        return { buy: buy.cost, sell: sell.cost, available: buy.available, updatedAt, isAh: false };
      }
      return { buy: snap.buy_price * count, sell: snap.sell_price * count, available: Number(snap.sell_volume), updatedAt, isAh: false };
    }
    if (!(await this.knownTags.has(tag))) {
      if (await this.store.bazaarHistory.productExists(tag)) return { buy: 0, sell: 0, available: 0, updatedAt: new Date(now).toISOString(), isAh: false };
      throw new UnknownTagError(tag);
    }
    const view = this.market.activeAuctions;
    await view.ready();
    // Cheapest per unit first (the view orders by whole price).
    const offers = view
      .lowestBin(tag, () => true, Number.MAX_SAFE_INTEGER)
      .map((l) => ({ amount: Math.max(1, l.count), pricePerUnit: l.startingBid / Math.max(1, l.count), orders: 1 }))
      .sort((a, b) => a.pricePerUnit - b.pricePerUnit);
    const { cost: buy, available } = walkBook(offers, count);
    const { summary } = await this.summary(tag);
    return { buy, sell: summary.median * count, available, updatedAt: new Date(now).toISOString(), isAh: true };
  }

  /**
   * The last 365 days: daily points and totals from the rollups (sales, items, coins); the
   * listing-side totals (listed, auctions, BINs, bids, sellers, buyers, sell time) over the
   * sales and listings of the last 7 days only (see docs/api.md), and the newest sales.
   */
  async year(tag: string, filters: Record<string, string> = {}): Promise<PriceStatistics & { cut: number | null; detailWindowDays: number }> {
    const filter = await compileAuctionFilters(this.store, filters);
    await this.knownTags.require(tag);
    const now = this.clock.now();
    const from = bucketOf(now - 365 * DAY_MS, DAY_MS) + DAY_MS;
    const builder = new PointBuilder(DAY_MS);
    let cut: number | null = null;
    let totals: Omit<PriceCell, 'prices'> | null;
    if (filter.names.length > 0) {
      const read = await this.filteredSales(tag, from, filter.test);
      cut = read.cut;
      builder.addSales(read.sales);
      totals = cellOf(read.sales);
    } else {
      const read = await this.cells(tag, ALL_VARIANTS, from, now, true);
      cut = read.cut;
      const cells = read.cells;
      for (const c of cells) builder.addCell(c.at, c);
      for (const b of await this.bins(tag, ALL_VARIANTS, from, now, true)) builder.addLowestBin(b.at, b.lowest);
      totals = totalsOf(cells);
    }
    const detail = await this.recentDetail(tag, now - 7 * DAY_MS, filter.names.length > 0 ? filter.test : null);
    return {
      averageSellTimeSeconds: detail.sellTimes > 0 ? detail.sellTimeSum / detail.sellTimes / 1000 : 0,
      totalAuctionsSold: totals?.count ?? 0,
      totalListed: detail.listed,
      totalSellers: detail.sellers.size,
      totalBuyers: detail.buyers.size,
      totalBids: detail.bids,
      totalCoinsTransferred: Math.round(totals?.coins ?? 0),
      totalAuctions: detail.listed,
      totalItemsSold: totals?.items ?? 0,
      binCount: detail.bins,
      prices: builder.points(),
      recentSamples: detail.recent,
      cut: cut ?? detail.cut,
      detailWindowDays: 7,
    };
  }

  /**
   * NEU's graph format for a NEU id (or a tag): `{ISO instant: {b, s?}}` over the last 7 days:
   * auction items `b` = the average sale price per unit of each 2-hour bucket with sales (the
   * week history); bazaar products the 2-hour rollup's instant-buy `b` and instant-sell `s`. Null when the id names nothing known.
   */
  async neuHistory(item: string): Promise<Record<string, { b: number; s?: number }> | null> {
    const now = this.clock.now();
    const from = now - 7 * DAY_MS;
    for (const tag of [item, ...neuIdCandidates(item.replace(/\+\d+$/, ''))]) {
      if (await this.store.bazaarHistory.productExists(tag)) {
        const out: Record<string, { b: number; s?: number }> = {};
        for (const p of await readHistory(this.store, tag, '2h', from, now)) out[new Date(p.ts).toISOString()] = { b: p.buy, s: p.sell };
        return out;
      }
      if (await this.knownTags.has(tag)) {
        const variant = variantOfNeuId(tag, item);
        const { points } = await this.history(tag, 'week', { variant });
        const out: Record<string, { b: number; s?: number }> = {};
        for (const p of points) if (p.sales > 0) out[p.time] = { b: p.avg };
        return out;
      }
    }
    return null;
  }

  // -------------------------------------------------------------------------------------------

  /**
   * The cells of a tag and variant from `from` to now: rolled-up hours (and, with `days`, the
   * daily cells of every closed day), plus one cell per hour of the raw sales after the last
   * rolled-up hour. That tail is an hour or so while the rollup keeps up, and held by
   * the market's open hours (market/open-hours.ts); while a first catch-up is still behind (after migration
   * 017 on a large history) it is read newest first under the deadline, and `cut` says from when
   * on it was read.
   */
  private async cells(tag: string, variant: string, from: number, now: number, days: boolean): Promise<{ cells: StoredCell[]; cut: number | null }> {
    const repo = this.store.priceRollups;
    const state = await repo.state();
    const rolledTo = Math.min(state.rolledTo, now);
    const out: StoredCell[] = [];
    let hoursFrom = from;
    if (days && state.daysTo > from) {
      out.push(...(await repo.days(tag, variant, from, state.daysTo)));
      hoursFrom = state.daysTo;
    }
    if (rolledTo > hoursFrom) out.push(...(await repo.hours(tag, variant, hoursFrom, rolledTo)));
    // Sales after the last rolled-up hour: the open hours this process holds (checked against
    // the store at each request) while the rollup keeps up; else (a first catch-up, or a window
    // starting after the last rolled-up hour) read raw through the (tag, sold_at) index, newest
    // first under the deadline: the whole tag's price columns only; a variant's with their NBT.
    const tailFrom = Math.max(from, rolledTo);
    let cut: number | null = null;
    if (tailFrom === rolledTo && now - rolledTo <= OPEN_HOURS_MAX_SPAN) {
      out.push(...(await this.market.openHours.cells(tag, variant, rolledTo)));
    } else if (tailFrom <= now) {
      const byHour = new Map<number, PricedSale[]>();
      const add = (sale: PricedSale) => {
        const h = bucketOf(sale.at, HOUR_MS);
        const list = byHour.get(h);
        if (list) list.push(sale);
        else byHour.set(h, [sale]);
      };
      try {
        if (variant === ALL_VARIANTS) {
          await this.underDeadline(this.store.auctionQueries.soldLeanChunks(tag, tailFrom), (chunk: LeanSale[]) => {
            for (const s of chunk) add(pricedLean(s));
            return chunk[chunk.length - 1]!.end;
          });
        } else {
          await this.underDeadline(this.store.auctionQueries.soldChunks({ tag, since: tailFrom }), (chunk: AuctionRecord[]) => {
            for (const r of chunk) {
              if (priceVariantKey(r) === variant) add(pricedRecord(r));
            }
            const last = chunk[chunk.length - 1]!;
            return last.soldAt ?? last.end;
          });
        }
      } catch (err) {
        if (!(err instanceof CutAt)) throw err;
        cut = err.at;
      }
      for (const [hour, list] of [...byHour].sort(([a], [b]) => a - b)) {
        const cell = cellOf(list);
        if (cell) out.push({ ...cell, tag, variant, at: hour });
      }
    }
    return { cells: out, cut };
  }

  /**
   * Consumes `chunks` (newest first), handing each to `each`, which returns the time of the oldest
   * row it got; throws CutAt(the oldest time read) once the deadline passes.
   */
  private async underDeadline<T>(chunks: AsyncGenerator<T[]>, each: (chunk: T[]) => number): Promise<void> {
    const started = performance.now();
    const remaining = () => this.deadlineMs - (performance.now() - started);
    let oldest = this.clock.now();
    try {
      for (;;) {
        let next: IteratorResult<T[]>;
        try {
          next = await withDeadline(chunks.next(), remaining());
        } catch (err) {
          if (err instanceof DeadlineExceeded) throw new CutAt(oldest);
          throw err;
        }
        if (next.done) return;
        if (next.value.length > 0) oldest = each(next.value);
        if (remaining() <= 0) throw new CutAt(oldest);
      }
    } finally {
      void chunks.return(undefined).catch(() => undefined);
    }
  }

  /** Lowest BINs recorded from `from` to now: per closed day (with `days`), then per hour. */
  private async bins(tag: string, variant: string, from: number, now: number, days: boolean) {
    const repo = this.store.priceRollups;
    const state = await repo.state();
    const out = [];
    let hoursFrom = from;
    if (days && state.daysTo > from) {
      out.push(...(await repo.binDays(tag, variant, from, state.daysTo)));
      hoursFrom = state.daysTo;
    }
    out.push(...(await repo.binHours(tag, variant, hoursFrom, now + 1)));
    return out;
  }

  /** Sales of a tag since `from` passing `test` (prices per unit), newest first under the deadline. */
  private async filteredSales(tag: string, from: number, test: FilterPredicate): Promise<{ sales: PricedSale[]; cut: number | null }> {
    const sales: PricedSale[] = [];
    let cut: number | null = null;
    await this.readSold(tag, from, (rows) => {
      for (const r of rows) {
        const s = soldSubject(r);
        if (!test(s)) continue;
        const whole = r.soldPrice ?? r.highestBid;
        sales.push({ price: whole / Math.max(1, r.count), count: r.count, at: s.end });
      }
    }).catch((err: unknown) => {
      if (!(err instanceof CutAt)) throw err;
      cut = err.at;
    });
    return { sales, cut };
  }

  /** Sold records of a tag since `from`, newest first, chunk by chunk; throws CutAt when the deadline passes. */
  private readSold(tag: string, from: number, each: (rows: AuctionRecord[]) => void): Promise<void> {
    return this.underDeadline(this.store.auctionQueries.soldChunks({ tag, since: from }), (rows) => {
      each(rows);
      const last = rows[rows.length - 1]!;
      return last.soldAt ?? last.end;
    });
  }

  /** Sales and listings detail of the last days (the year statistics' listing-side totals). */
  private async recentDetail(tag: string, from: number, test: FilterPredicate | null) {
    const sellers = new Set<string>();
    const buyers = new Set<string>();
    let sellTimeSum = 0;
    let sellTimes = 0;
    let bins = 0;
    let bids = 0;
    let sold = 0;
    const recent: PriceStatistics['recentSamples'] = [];
    let cut: number | null = null;
    await this.readSold(tag, from, (rows) => {
      for (const r of rows) {
        const s = soldSubject(r);
        if (test && !test(s)) continue;
        sold++;
        sellers.add(r.seller);
        if (r.buyer) buyers.add(r.buyer);
        if (r.bin) bins++;
        else bids++;
        if (r.start !== null) {
          sellTimeSum += s.end - r.start;
          sellTimes++;
        }
        if (recent.length < RECENT_SAMPLES) recent.push({ seller: r.seller, price: r.soldPrice ?? r.highestBid, end: new Date(s.end).toISOString(), uuid: r.uuid, playerName: null });
      }
    }).catch((err: unknown) => {
      if (!(err instanceof CutAt)) throw err;
      cut = err.at;
    });
    if (recent.length > 0) {
      const names = await this.store.playerNames.namesOf(recent.map((r) => r.seller ?? ''));
      for (const r of recent) r.playerName = names.get(r.seller ?? '') ?? null;
    }
    const active = this.market.activeAuctions.activeOf(tag, test ?? (() => true));
    return { sellers, buyers, sellTimeSum, sellTimes, bins, bids, listed: sold + active.length, recent, cut };
  }
}

/** The deadline cut a raw read: sales from `at` on were read. */
class CutAt extends Error {
  constructor(readonly at: number) {
    super('cut');
  }
}

/** The cost of `count` items walked through book levels in order, and the items the levels hold. */
export function walkBook(levels: readonly BookLevel[], count: number): { cost: number; available: number } {
  let left = count;
  let cost = 0;
  let available = 0;
  for (const l of levels) {
    available += l.amount;
    if (left <= 0) continue;
    const take = Math.min(left, l.amount);
    cost += take * l.pricePerUnit;
    left -= take;
  }
  return { cost, available };
}

/** The price variant a NEU id names of its tag (`BEE;4` → LEGENDARY, `BEE;4+100` → LEGENDARY+100, `X_RUNE;3` → 3), else ''. */
function variantOfNeuId(tag: string, neuId: string): string {
  const m = /;(\d+)(\+100|\+200)?$/.exec(neuId);
  if (!m) return ALL_VARIANTS;
  if (tag.startsWith('PET_')) {
    const tiers = ['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'];
    const tier = tiers[Number(m[1])];
    return tier ? tier + (m[2] ?? '') : ALL_VARIANTS;
  }
  if (tag.startsWith('RUNE_') || tag.startsWith('POTION_')) return m[1]!;
  return ALL_VARIANTS;
}
