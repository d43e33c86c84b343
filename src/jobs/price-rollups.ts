/**
 * Keeps the price rollups (store.priceRollups, domain/prices.ts) current, in the jobs leader only:
 * - every closed hour of sales is rolled up per tag and price variant, one hour at a time (memory
 *   bounded by an hour's sales, the event loop served between hours), from the first stored sale
 *   on (the first run after migration 017 builds the whole history this way);
 * - every closed day is merged from its hours into the daily tables;
 * - the lowest BIN per tag and variant is recorded for the current hour from the active listings
 *   (the market's view where this process holds one, role all; else read from the store).
 * The market only reads these tables. The store's compare-and-set still lets exactly one run roll
 * each hour and day (a leader handing over mid-run), and the lowest-BIN upsert keeps the lower of
 * two observations.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { PriceRollupState } from '../store/repositories/price-rollups.ts';
import { ALL_VARIANTS, bucketOf, cellOf, DAY_MS, HOUR_MS, MINUTE_MS, priceVariantKey, type PricedSale } from '../domain/prices.ts';
import { LowestBins, type BinListing } from '../domain/lowest-bins.ts';

export { LowestBins, type BinListing };

/** An hour is rolled up this long after it ends: sales reach the store up to a minute late. */
export const PRICE_ROLLUP_GRACE_MS = 10 * MINUTE_MS;
/** How often the rollup catches up and the lowest BINs are recorded. */
export const PRICE_ROLLUP_INTERVAL_MS = MINUTE_MS;

/** Every active BIN listing without bids that has not ended at `now`, in chunks, in any order. */
export type ActiveBinSource = (now: number) => AsyncIterable<readonly BinListing[]>;

/** The market's active-auctions view as the source (role all: no second copy of the listings). */
export function viewBins(view: { ready(): Promise<void>; binListings(now: number): Iterable<BinListing> }): ActiveBinSource {
  return async function* (now) {
    await view.ready();
    yield [...view.binListings(now)];
  };
}

/** The store as the source (a jobs process without a market): the active listings, read in chunks. */
export function storeBins(store: Pick<Store, 'auctionQueries'>): ActiveBinSource {
  return async function* (now) {
    for await (const chunk of store.auctionQueries.activeListingChunks()) yield chunk.filter((r) => r.bin && r.highestBid === 0 && r.end > now);
  };
}

export class PriceRollupJob {
  private catching: Promise<PriceRollupState> | undefined;
  /** set by stop(): a long catch-up ends after the hour it is rolling */
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly bins: ActiveBinSource | undefined,
    private readonly logger?: Logger,
  ) {}

  /** A run may start again (leadership regained). */
  resume(): void {
    this.stopped = false;
  }

  /** Ends a running catch-up after the hour it is rolling. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.catching?.catch(() => undefined);
  }

  /** One round: the lowest BINs of now, then every closed hour and day. */
  async tick(now = this.clock.now()): Promise<PriceRollupState> {
    await this.recordLowestBins(now);
    return this.catchUp(now);
  }

  /** Rolls up every hour (and day) closed at `now`. Concurrent calls share one run. */
  catchUp(now = this.clock.now()): Promise<PriceRollupState> {
    if (!this.catching) {
      this.catching = this.run(now).finally(() => {
        this.catching = undefined;
      });
    }
    return this.catching;
  }

  private async run(now: number): Promise<PriceRollupState> {
    const repo = this.store.priceRollups;
    const closedTo = bucketOf(now - PRICE_ROLLUP_GRACE_MS, HOUR_MS);
    let state = await repo.state();
    if (state.rolledTo === 0) {
      const first = await this.store.flipInputs.firstSaleFrom(0);
      await repo.begin(bucketOf(first ?? closedTo, HOUR_MS));
      state = await repo.state();
    }
    let rolled = 0;
    while (state.rolledTo < closedTo && !this.stopped) {
      const hour = state.rolledTo;
      const first = await this.store.flipInputs.firstSaleFrom(hour);
      const next = first === null ? closedTo : Math.min(closedTo, bucketOf(first, HOUR_MS));
      if (next > hour) await repo.rollEmpty(hour, next);
      else {
        const sales = await this.store.flipInputs.soldBetween(hour, hour + HOUR_MS);
        await repo.rollHour(hour, rollHourCells(sales));
        rolled++;
      }
      state = await repo.state();
      await this.rollDays(state);
      state = await repo.state();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.rollDays(state);
    if (rolled > 1) this.logger?.info({ hours: rolled, rolledTo: new Date(state.rolledTo).toISOString() }, 'prices rolled up');
    return repo.state();
  }

  private async rollDays(state: PriceRollupState): Promise<void> {
    let daysTo = state.daysTo;
    while (daysTo + DAY_MS <= state.rolledTo) {
      await this.store.priceRollups.rollDay(daysTo);
      daysTo = (await this.store.priceRollups.state()).daysTo;
    }
  }

  /**
   * Records the lowest BIN (per unit) of every tag and price variant on the auction house now
   * (listings that have not ended by the clock), for the hour holding `now`.
   */
  async recordLowestBins(now = this.clock.now()): Promise<number> {
    if (!this.bins) return 0;
    const lowest = new LowestBins();
    for await (const chunk of this.bins(this.clock.now())) for (const l of chunk) lowest.add(l);
    const bins = lowest.cells();
    await this.store.priceRollups.recordBins(bucketOf(now, HOUR_MS), bins);
    return bins.length;
  }
}

/** A sale as the rollup reads it (store.flipInputs.soldBetween rows). */
export interface RollupSale extends PricedSale {
  tag: string;
  tier: string | null;
  flatNbt: Readonly<Record<string, string>>;
}

/** One hour's sales as cells per tag ('' = the whole tag) and per price variant. */
export function rollHourCells(sales: readonly RollupSale[]): Array<{ tag: string; variant: string; cell: NonNullable<ReturnType<typeof cellOf>> }> {
  const groups = new Map<string, { tag: string; variant: string; sales: PricedSale[] }>();
  const add = (tag: string, variant: string, s: PricedSale) => {
    const k = `${tag}\u0000${variant}`;
    const g = groups.get(k);
    if (g) g.sales.push(s);
    else groups.set(k, { tag, variant, sales: [s] });
  };
  for (const s of sales) {
    if (!(s.price > 0)) continue;
    add(s.tag, ALL_VARIANTS, s);
    const variant = priceVariantKey(s);
    if (variant !== ALL_VARIANTS) add(s.tag, variant, s);
  }
  const out = [];
  for (const g of groups.values()) {
    const cell = cellOf(g.sales);
    if (cell) out.push({ tag: g.tag, variant: g.variant, cell });
  }
  return out;
}
