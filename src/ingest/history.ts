/**
 * Replays past upstream payloads (the simulator's backfill) through the same apply
 * path as live polling, with ingesters of its own so the live feeds keep their state.
 * The history has no auction snapshots, but each BIN it sold was a listing on the auction house
 * from its start to its sale: those listings give each history hour its recorded lowest BIN, as
 * the jobs record it each minute from the active listings live (jobs/price-rollups.ts), so the
 * averages files have data from the first minute.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { bucketOf, HOUR_MS } from '../domain/prices.ts';
import { LowestBins } from '../domain/lowest-bins.ts';
import type { AuctionsTable } from '../store/schema.ts';
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
  const bins = new HistoryBins();
  const ended = new EndedIngester(ctx, undefined, (rows) => bins.add(rows));
  const resources = new ResourcesIngester(ctx);
  let snapshots = 0;
  let sales = 0;
  let elections = 0;
  // Requests are served while history loads: the loop is let go after every payload (a bazaar
  // snapshot, an election, a page of sales, an hour's lowest BINs), never held for a whole batch.
  // A long turn here is a turn every other piece of work waits for: an upload read a piece per
  // turn waited 52-60 s while the replay took a batch per turn (issue 45 item 1).
  for (const batch of batches) {
    for (const payload of batch.bazaar) {
      if ((await bazaar.apply(payload)) !== 'unchanged') snapshots++;
      await nextTurn();
    }
    for (const payload of batch.elections ?? []) {
      try {
        if ((await resources.applyElection(payload, 'payload')) !== 'unchanged') elections++;
      } catch (err) {
        // A bad replayed election is skipped like any bad upstream record.
        ctx.logger.warn({ err }, 'history: election resource skipped');
      }
      await nextTurn();
    }
    for (const payload of batch.auctionsEnded) {
      const result = await ended.apply(payload);
      if (result !== 'unchanged') sales += result.sales;
      await nextTurn();
    }
    // An hour's record, once the replay has passed it (later sales listed in it are written then).
    if (bins.hourPassed()) await bins.flush(ctx);
    // The next batch is built (the simulator computes it) in a turn of its own.
    await nextTurn();
  }
  await bins.flush(ctx);
  // A replay is a bulk load: fresh planner statistics now, not when autovacuum comes round
  // (PostgreSQL; without them the sold-history reads pick the wrong indexes).
  const analyzed = await ctx.store.statistics.refresh({ outdated: true });
  if (analyzed.length > 0) ctx.logger.info({ tables: analyzed }, 'history: planner statistics refreshed');
  return { snapshots, sales, elections, ms: Math.round(performance.now() - started) };
}

/**
 * The lowest BIN per history hour of the BIN listings the replayed sales were: a listing counts
 * in every hour from its start (not before the history's first hour) to its sale. Written per hour
 * with the store's keep-the-lower upsert, so a replay taken twice and the live record agree.
 */
class HistoryBins {
  private first: number | undefined;
  /** the newest sale time replayed */
  latest = 0;
  private readonly hours = new Map<number, LowestBins>();

  add(rows: readonly AuctionsTable[]): void {
    for (const r of rows) {
      if (r.sold_at === null) continue;
      this.first ??= bucketOf(r.sold_at, HOUR_MS);
      if (r.sold_at > this.latest) this.latest = r.sold_at;
      if (!r.bin || r.start_at === null || !(r.starting_bid > 0)) continue;
      const flatNbt = typeof r.flat_nbt === 'string' ? (JSON.parse(r.flat_nbt) as Record<string, string>) : (r.flat_nbt ?? {});
      const listing = { uuid: r.uuid, tag: r.tag, tier: r.tier, flatNbt, startingBid: r.starting_bid, count: r.count, end: r.sold_at };
      for (let h = Math.max(this.first, bucketOf(r.start_at, HOUR_MS)); h <= r.sold_at; h += HOUR_MS) {
        let lowest = this.hours.get(h);
        if (!lowest) this.hours.set(h, (lowest = new LowestBins()));
        lowest.add(listing);
      }
    }
  }

  private flushedIn = 0;

  /** Whether the replay has reached another hour since the last flush. */
  hourPassed(): boolean {
    return bucketOf(this.latest, HOUR_MS) > this.flushedIn;
  }

  async flush(ctx: IngestContext): Promise<void> {
    for (const [hour, lowest] of this.hours) {
      await ctx.store.priceRollups.recordBins(hour, lowest.cells());
      await nextTurn();
    }
    this.hours.clear();
    this.flushedIn = bucketOf(this.latest, HOUR_MS);
  }
}
