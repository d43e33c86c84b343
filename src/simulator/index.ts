/**
 * Entry point of the built-in simulator: a fake Hypixel API v2 with a living market,
 * used by `skymarket simulate`, the demo, tests and benchmarks. Its data is simulated
 * and marked as such (`X-Skymarket-Simulated: true`); it never stands in for the real API.
 */
import type { Clock } from '../clock.ts';
import { systemClock } from '../clock.ts';
import type { SimulatorOptions } from './config.ts';
import { Faults } from './faults.ts';
import { Market } from './market.ts';
import type { BackfillBatch, BackfillOptions } from './market.ts';
import { startSimulatorServer } from './server.ts';
import type { SimLogger } from './server.ts';

export { DEFAULT_SIMULATOR_OPTIONS, parseDuration, simulatorOptionsFromEnv } from './config.ts';
export type { SimulatorOptions } from './config.ts';
export { Faults, NO_FAULTS, parseFaultSpec } from './faults.ts';
export type { FaultOptions } from './faults.ts';
export { Market } from './market.ts';
export type { AuctionGeneration, BackfillBatch, BackfillOptions, MarketOptions } from './market.ts';
export { SIM_PATHS, startSimulatorServer } from './server.ts';
export type { SimLogger, SimulatorServerOptions } from './server.ts';
export type * from './wire.ts';

/** A running simulator. */
export interface SimulatorHandle {
  /** base URL to use as UPSTREAM_URL, e.g. http://127.0.0.1:41234 */
  url: string;
  market: Market;
  faults: Faults;
  /** history for the configured `backfillMs` up to the market's start, in time-ordered batches */
  backfill(opts?: BackfillOptions): Generator<BackfillBatch>;
  close(): Promise<void>;
}

/** Extra start options. */
export interface StartSimulatorDeps {
  clock?: Clock;
  logger?: SimLogger;
  /** advance the market on a timer every this many ms (default 1000; 0 = only on requests) */
  tickMs?: number;
}

/**
 * Builds the market, starts the HTTP server, populates the market (requests before that
 * get 503 like upstream) and advances it on a timer so no request pays for a generation.
 */
export async function startSimulator(options: SimulatorOptions, deps: StartSimulatorDeps = {}): Promise<SimulatorHandle> {
  const clock = deps.clock ?? systemClock;
  const market = new Market(
    {
      seed: options.seed,
      auctions: options.auctions,
      generationSeconds: options.generationSeconds,
      bazaarSeconds: options.bazaarSeconds,
      ...(options.products !== undefined ? { products: options.products } : {}),
      ...(options.yearMs !== undefined ? { yearMs: options.yearMs } : {}),
      ...(options.salesPerDay !== undefined ? { salesPerDay: options.salesPerDay } : {}),
    },
    clock.now(),
  );
  const faults = new Faults(options.seed, options.faults);
  const server = await startSimulatorServer({ host: options.host, port: options.port, market, clock, faults, ...(deps.logger ? { logger: deps.logger } : {}) });
  const t0 = performance.now();
  market.populate();
  deps.logger?.info({ auctions: market.generation().auctions.length, products: market.products.length, ms: Math.round(performance.now() - t0) }, 'simulator: market populated');

  const tickMs = deps.tickMs ?? 1000;
  const timer = tickMs > 0 ? setInterval(() => market.advanceTo(clock.now()), tickMs) : null;
  timer?.unref();

  return {
    url: server.url,
    market,
    faults,
    backfill: (opts?: BackfillOptions) => market.backfill(market.startMs - options.backfillMs, market.startMs, opts),
    close: async () => {
      if (timer) clearInterval(timer);
      await server.close();
    },
  };
}
