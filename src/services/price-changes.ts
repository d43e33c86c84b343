/**
 * Price movers: how far prices moved, over the auction house and the bazaar. One place for the
 * home page's "biggest movers" (bazaar products furthest from their 7-day median, the spread
 * feed's own figures) and `GET /api/prices/change` (the established `DropStatistic` per tag:
 * now, the last 24 hours and the last 30 days).
 */
import type { BazaarHistoryReads } from './bazaar-history.ts';
import type { Clock } from '../clock.ts';
import type { Market } from '../market/index.ts';
import type { BazaarRepository } from '../store/repositories/bazaar.ts';
import { DAY_MS, type PricePoint } from '../domain/prices.ts';
import { UnknownTagError } from '../domain/tags.ts';
import { readHistory } from './bazaar-history.ts';
import type { FlipsService } from './flips.ts';
import type { PriceService } from './prices.ts';

/** At most this many tags per `/api/prices/change`. */
export const MAX_CHANGE_TAGS = 100;

/** The established `DropStatistic`: prices per unit (auction house: per item sold). */
export interface DropStatistic {
  /** the mean price over the last 30 days (auction house: of each sale's price per item; 0 without data) */
  monthly: number;
  /** the mean price over the last 24 hours (0 without data) */
  recent: number;
  tag: string;
  /** items traded per day: auction sales of the last 24 hours; bazaar: the moving week's instant buys / 7 */
  volume: number;
  /** when the figures were current (bazaar: the newest snapshot) */
  lastUpdated: string;
  /** the price now: the lowest BIN per item, or the bazaar's instant-buy price (0 when nothing is offered) */
  now: number;
}

/** A row of the home page's movers. */
export interface Mover {
  tag: string;
  name: string;
  price: number;
  median: number;
  /** price / median − 1 */
  change: number;
}

interface SpreadRow {
  flip: { itemTag: string; buyPrice: number; medianBuyPrice: number };
  itemName: string;
}

/** What PriceChangeService reads: the bazaar's current snapshot and its history. */
export type PriceChangesStore = BazaarHistoryReads & {
  readonly bazaar: Pick<BazaarRepository, 'snapshotAt'>;
};

export class PriceChangeService {
  constructor(
    private readonly deps: {
      store: PriceChangesStore;
      clock: Clock;
      market: { readonly activeAuctions: Pick<Market['activeAuctions'], 'ready' | 'lowestBin'> };
      prices: PriceService;
      flips: FlipsService;
    },
  ) {}

  /** The `n` bazaar products whose instant-buy price is furthest from their 7-day median (the spread feed's figures). */
  bazaarMovers(n: number): Mover[] {
    const rows = this.deps.flips.bazaar('spread').flips as unknown as SpreadRow[];
    return rows
      .filter((f) => f.flip.medianBuyPrice > 0 && f.flip.buyPrice > 0)
      .map((f) => ({ tag: f.flip.itemTag, name: f.itemName, price: f.flip.buyPrice, median: f.flip.medianBuyPrice, change: f.flip.buyPrice / f.flip.medianBuyPrice - 1 }))
      .sort((a, b) => Math.abs(b.change) - Math.abs(a.change))
      .slice(0, n);
  }

  /** `{tag: DropStatistic}` of the tags asked, in their order; tags neither traded on the auction house nor on the bazaar are left out. */
  async changes(tags: readonly string[]): Promise<Record<string, DropStatistic>> {
    const out: Record<string, DropStatistic> = {};
    for (const tag of tags) {
      if (out[tag]) continue;
      const stat = (await this.bazaarChange(tag)) ?? (await this.auctionChange(tag));
      if (stat) out[tag] = stat;
    }
    return out;
  }

  private async bazaarChange(tag: string): Promise<DropStatistic | undefined> {
    const { store, clock } = this.deps;
    const now = clock.now();
    const snap = await store.bazaar.snapshotAt(tag, now);
    if (!snap) return undefined;
    const month = await readHistory(store, tag, '1d', now - 30 * DAY_MS, now);
    const day = await readHistory(store, tag, '2h', now - DAY_MS, now);
    const mean = (points: ReadonlyArray<{ buy: number }>) => {
      const priced = points.filter((p) => p.buy > 0);
      return priced.length === 0 ? 0 : priced.reduce((s, p) => s + p.buy, 0) / priced.length;
    };
    const buy = snap.buy_price;
    const recent = mean(day) || buy;
    return {
      monthly: round2(mean(month) || recent),
      recent: round2(recent),
      tag,
      volume: Math.round(Number(snap.buy_moving_week) / 7),
      lastUpdated: new Date(Number(snap.ts)).toISOString(),
      now: round2(buy),
    };
  }

  private async auctionChange(tag: string): Promise<DropStatistic | undefined> {
    const { prices, clock, market } = this.deps;
    let month: PricePoint[];
    let day: PricePoint[];
    try {
      month = (await prices.history(tag, 'month')).points;
      day = (await prices.history(tag, 'day')).points;
    } catch (err) {
      if (err instanceof UnknownTagError) return undefined;
      throw err;
    }
    await market.activeAuctions.ready();
    // The view orders by whole price: the cheapest per item is among the first few (stacks are few).
    const perItem = market.activeAuctions.lowestBin(tag, () => true, 100).map((l) => l.startingBid / Math.max(1, l.count));
    const recentSales = day.reduce((s, p) => s + p.sales, 0);
    return {
      monthly: round2(averageOf(month)),
      recent: round2(averageOf(day)),
      tag,
      volume: recentSales,
      lastUpdated: new Date(clock.now()).toISOString(),
      now: perItem.length === 0 ? 0 : round2(Math.min(...perItem)),
    };
  }
}

/** The mean sale price per item over points (each sale counts once, a stack at its price per item). */
function averageOf(points: readonly PricePoint[]): number {
  let sum = 0;
  let sales = 0;
  for (const p of points) {
    if (p.sales <= 0) continue;
    sum += p.avg * p.sales;
    sales += p.sales;
  }
  return sales === 0 ? 0 : sum / sales;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
