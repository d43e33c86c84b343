/**
 * Replays past upstream payloads (the simulator's backfill) through the same apply
 * path as live polling, with ingesters of its own so the live feeds keep their state.
 */
import { BazaarIngester } from './bazaar.ts';
import type { IngestContext } from './context.ts';
import { EndedIngester } from './ended.ts';

export interface HistoryBatch {
  bazaar: unknown[];
  auctionsEnded: unknown[];
}

export interface HistoryResult {
  snapshots: number;
  sales: number;
  ms: number;
}

export async function ingestHistory(batches: Iterable<HistoryBatch>, ctx: IngestContext): Promise<HistoryResult> {
  const started = performance.now();
  const bazaar = new BazaarIngester(ctx, { fresh: true });
  const ended = new EndedIngester(ctx);
  let snapshots = 0;
  let sales = 0;
  for (const batch of batches) {
    for (const payload of batch.bazaar) if ((await bazaar.apply(payload)) !== 'unchanged') snapshots++;
    for (const payload of batch.auctionsEnded) {
      const result = await ended.apply(payload);
      if (result !== 'unchanged') sales += result.sales;
    }
    // Let requests in between batches: the API serves while history loads.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { snapshots, sales, ms: Math.round(performance.now() - started) };
}
