/**
 * Fills a store with simulator data for flip tests and benchmarks: items, election history,
 * bazaar history (backfill) and a few live auctions generations.
 */
import { ManualClock } from '../../src/clock.ts';
import { AuctionIngester } from '../../src/ingest/auctions.ts';
import { BazaarIngester } from '../../src/ingest/bazaar.ts';
import type { IngestContext } from '../../src/ingest/context.ts';
import { EndedIngester } from '../../src/ingest/ended.ts';
import { ingestHistory } from '../../src/ingest/history.ts';
import { ResourcesIngester } from '../../src/ingest/resources.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type BackfillOptions, type SimulatorHandle } from '../../src/simulator/index.ts';
import type { Store } from '../../src/store/index.ts';
import { testIngestContext } from './ingest-context.ts';

export interface SimMarket {
  sim: SimulatorHandle;
  clock: ManualClock;
  ctx: IngestContext;
  auctions: AuctionIngester;
  ended: EndedIngester;
  bazaar: BazaarIngester;
  close(): Promise<void>;
}

export const SIM_START = Date.UTC(2026, 10, 22, 12, 0, 0);

export async function fillFromSimulator(
  store: Store,
  opts: { seed?: number; auctions?: number; historyHours?: number; generations?: number; yearHours?: number; detailedMinutes?: number; products?: number; backfill?: BackfillOptions; clock?: ManualClock } = {},
): Promise<SimMarket> {
  const clock = opts.clock ?? new ManualClock(SIM_START);
  const sim = await startSimulator(
    {
      ...DEFAULT_SIMULATOR_OPTIONS,
      seed: opts.seed ?? 11,
      auctions: opts.auctions ?? 1500,
      backfillMs: (opts.historyHours ?? 6) * 3_600_000,
      yearMs: (opts.yearHours ?? 124) * 3_600_000,
      ...(opts.products !== undefined ? { products: opts.products } : {}),
      port: 0,
    },
    { clock, tickMs: 0 },
  );
  const ctx = testIngestContext({ store, clock, baseUrl: sim.url, source: 'simulator' });
  const resources = new ResourcesIngester(ctx);
  await resources.pollItems();
  await resources.pollElection();
  let t0 = performance.now();
  await ingestHistory(sim.backfill({ detailedMs: opts.detailedMinutes === undefined ? 40 * 60_000 : opts.detailedMinutes * 60_000, ...opts.backfill }), ctx);
  if (process.env.SIM_FILL_DEBUG) console.log('history', performance.now() - t0);
  t0 = performance.now();
  const auctions = new AuctionIngester(ctx);
  const ended = new EndedIngester(ctx, (uuid) => auctions.forget(uuid));
  const bazaar = new BazaarIngester(ctx);
  await auctions.pollOnce();
  for (let i = 0; i < (opts.generations ?? 3); i++) {
    clock.advance(60_000);
    sim.market.advanceTo(clock.now());
    await auctions.pollOnce();
    await ended.pollOnce();
    await bazaar.pollOnce();
  }
  if (process.env.SIM_FILL_DEBUG) console.log('live', performance.now() - t0);
  return {
    sim,
    clock,
    ctx,
    auctions,
    ended,
    bazaar,
    async close() {
      await ctx.client.close();
      await sim.close();
    },
  };
}
