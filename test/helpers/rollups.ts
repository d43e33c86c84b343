/**
 * The jobs' rollup writers over a test app: what the jobs leader runs each minute (jobs/index.ts),
 * run by hand where a test needs the rollups and the lowest-BIN record written.
 */
import { PriceRollupJob, viewBins } from '../../src/jobs/price-rollups.ts';
import type { TestApp } from './app.ts';

/** The price rollups and lowest-BIN record of role all: the store, the app's clock, the market's view. */
export function priceRollupsOf(t: Pick<TestApp, 'store' | 'clock' | 'app'>): PriceRollupJob {
  return new PriceRollupJob(t.store, t.clock, viewBins(t.app.market.activeAuctions));
}
