/**
 * Keeps the price rollups (store.priceRollups, domain/prices.ts) current:
 * - every closed hour of sales is rolled up per tag and price variant, one hour at a time (memory
 *   bounded by an hour's sales, the event loop served between hours), from the first stored sale
 *   on (the first run after migration 017 builds the whole history this way);
 * - every closed day is merged from its hours into the daily tables;
 * - the lowest BIN per tag and variant is recorded for the current hour from the active view.
 * Any process may run it: the store's compare-and-set lets exactly one roll each hour and day,
 * and the lowest-BIN upsert keeps the lower of two observations.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { PriceRollupState } from '../store/repositories/price-rollups.ts';
import { ALL_VARIANTS, bucketOf, cellOf, DAY_MS, HOUR_MS, MINUTE_MS, priceVariantKey, type PricedSale } from '../domain/prices.ts';
import type { ActiveAuctionsView } from './active-auctions.ts';

/** An hour is rolled up this long after it ends: sales reach the store up to a minute late. */
export const PRICE_ROLLUP_GRACE_MS = 10 * MINUTE_MS;
/** How often the rollup catches up and the lowest BINs are recorded. */
export const PRICE_ROLLUP_INTERVAL_MS = MINUTE_MS;

export class PriceRollups {
  private catching: Promise<PriceRollupState> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** set by stop(): a long catch-up ends after the hour it is rolling */
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly view: Pick<ActiveAuctionsView, 'tags' | 'lowestBin' | 'ready'> | undefined,
    private readonly logger?: Logger,
  ) {}

  /** Starts the periodic catch-up and lowest-BIN recording. */
  start(intervalMs = PRICE_ROLLUP_INTERVAL_MS): void {
    if (this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => {
      if (this.ticking) return;
      this.ticking = this.tick()
        .then(() => undefined)
        .catch((err: unknown) => this.logger?.warn({ err }, 'price rollup failed'))
        .finally(() => {
          this.ticking = undefined;
        });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
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
   * Records the lowest BIN (per unit) of every tag and price variant on the auction house now, for
   * the hour holding `now`. Reads only the cheapest listings of each tag: the whole tag's lowest is
   * its first, and a variant's lowest the first of that variant.
   */
  async recordLowestBins(now = this.clock.now()): Promise<number> {
    if (!this.view) return 0;
    await this.view.ready();
    const bins: Array<{ tag: string; variant: string; lowest: number; uuid: string }> = [];
    for (const tag of this.view.tags()) {
      const seen = new Map<string, { lowest: number; uuid: string }>();
      for (const l of this.view.lowestBin(tag, () => true, Number.MAX_SAFE_INTEGER)) {
        const unit = l.startingBid / Math.max(1, l.count);
        if (!(unit > 0)) continue;
        const keep = (variant: string) => {
          const e = seen.get(variant);
          if (!e || unit < e.lowest) seen.set(variant, { lowest: unit, uuid: l.uuid });
        };
        keep(ALL_VARIANTS);
        const variant = priceVariantKey(l);
        if (variant !== ALL_VARIANTS) keep(variant);
      }
      for (const [variant, b] of seen) bins.push({ tag, variant, ...b });
    }
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
