/**
 * Keeps the sales rollups (store.saleRollups, domain/sales-rollup.ts) current, in the jobs leader
 * only: rolls every closed hour of sales up, one hour at a time (memory bounded by an hour's sales,
 * the event loop given back between hours), and moves the 7- and 14-day windows. The flip engine
 * (market/sales-rollups.ts) only reads them. The store's compare-and-set still lets exactly one
 * run roll each hour (a leader handing over mid-run).
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { RollupState } from '../store/repositories/sale-rollups.ts';
import { hourOf, HOUR_MS, rollSales, SALES_WINDOW_MS } from '../domain/sales-rollup.ts';

/** An hour is rolled up this long after it ends: sales reach the store up to a minute late. */
export const ROLLUP_GRACE_MS = 10 * 60_000;

export class SalesRollupJob {
  private catching: Promise<RollupState> | undefined;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger?: Logger,
  ) {}

  /** Rolls up every hour closed at `now` (default: the clock) and moves the windows. Concurrent calls share one run. */
  catchUp(now = this.clock.now()): Promise<RollupState> {
    if (!this.catching) {
      this.catching = this.run(now).finally(() => {
        this.catching = undefined;
      });
    }
    return this.catching;
  }

  /** Sales were stored for hours already rolled up (history replay): roll the 14-day window again. */
  async rewind(now = this.clock.now()): Promise<void> {
    await this.store.saleRollups.rewind(hourOf(now - SALES_WINDOW_MS['14d']));
  }

  private async run(now: number): Promise<RollupState> {
    const repo = this.store.saleRollups;
    const start = hourOf(now - SALES_WINDOW_MS['14d']);
    await repo.begin(start);
    // Windows first: hours that are already too old for the windowed kinds are then rolled up for `tag` only.
    await this.age(now);
    const closedTo = hourOf(now - ROLLUP_GRACE_MS);
    let state = await repo.state();
    let rolled = 0;
    while (state.rolledTo < closedTo) {
      const hour = state.rolledTo;
      // Hours without sales (a quiet store, or before a history replay arrives) are passed in one step.
      const first = await this.store.flipInputs.firstSaleFrom(hour);
      const next = first === null ? closedTo : Math.min(closedTo, hourOf(first));
      if (next > hour) {
        await repo.rollEmpty(hour, next);
      } else {
        const sales = await this.store.flipInputs.soldBetween(hour, hour + HOUR_MS);
        await repo.rollHour(hour, rollSales(sales).get(hour) ?? []);
        rolled++;
      }
      state = await repo.state();
      // One hour at a time, the event loop served in between (a first catch-up can be days of sales).
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (rolled > 1) this.logger?.info({ hours: rolled, rolledTo: new Date(state.rolledTo).toISOString() }, 'sales rolled up');
    await this.age(now);
    return repo.state();
  }

  private async age(now: number): Promise<void> {
    for (const w of ['7d', '14d'] as const) await this.store.saleRollups.ageTo(w, hourOf(now - SALES_WINDOW_MS[w]));
  }
}
