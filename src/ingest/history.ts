/**
 * Replays past upstream payloads (the simulator's backfill) through the same apply
 * path as live polling, with ingesters of its own so the live feeds keep their state.
 */
import { BazaarIngester } from './bazaar.ts';
import type { IngestContext } from './context.ts';
import { EndedIngester } from './ended.ts';
import { ResourcesIngester } from './resources.ts';

export interface HistoryBatch {
  bazaar: unknown[];
  auctionsEnded: unknown[];
  /** election resources, each stored as seen at its own `lastUpdated` (past mayor terms) */
  elections?: unknown[];
}

export interface HistoryResult {
  snapshots: number;
  sales: number;
  elections: number;
  ms: number;
}

export async function ingestHistory(batches: Iterable<HistoryBatch>, ctx: IngestContext): Promise<HistoryResult> {
  const started = performance.now();
  const bazaar = new BazaarIngester(ctx, { fresh: true });
  const ended = new EndedIngester(ctx);
  const resources = new ResourcesIngester(ctx);
  let snapshots = 0;
  let sales = 0;
  let elections = 0;
  for (const batch of batches) {
    for (const payload of batch.bazaar) if ((await bazaar.apply(payload)) !== 'unchanged') snapshots++;
    for (const payload of batch.elections ?? []) {
      try {
        if ((await resources.applyElection(payload, 'payload')) !== 'unchanged') elections++;
      } catch (err) {
        // A bad replayed election is skipped like any bad upstream record.
        ctx.logger.warn({ err }, 'history: election resource skipped');
      }
    }
    for (const payload of batch.auctionsEnded) {
      const result = await ended.apply(payload);
      if (result !== 'unchanged') sales += result.sales;
    }
    // Let requests in between batches: the API serves while history loads.
    await new Promise((resolve) => setImmediate(resolve));
  }
  // A replay is a bulk load: fresh planner statistics now, not when autovacuum comes round
  // (PostgreSQL; without them the sold-history reads pick the wrong indexes).
  const analyzed = await ctx.store.statistics.refresh({ outdated: true });
  if (analyzed.length > 0) ctx.logger.info({ tables: analyzed }, 'history: planner statistics refreshed');
  return { snapshots, sales, elections, ms: Math.round(performance.now() - started) };
}
