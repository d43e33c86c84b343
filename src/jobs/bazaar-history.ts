/**
 * Bazaar history jobs: roll 20-second snapshots up into 5-minute buckets, 5-minute rows
 * into 2-hour and daily buckets, pack closed windows of 20-second snapshots into chunks
 * (one row per product and window, migration 011), and delete 20-second snapshots older
 * than 14 days once they are rolled up. Every run continues from the stored progress marks, so a run after
 * downtime catches up on everything missed; re-running a window rewrites the same rows.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import {
  bucketStart,
  completeBefore,
  DAY,
  HOUR,
  MINUTE,
  rawHorizon,
  RESOLUTION_MS,
  type RollupResolution,
} from '../domain/bazaar-history.ts';

export interface BazaarHistoryJobOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** how late a snapshot may be stored after its upstream time; buckets close after this */
  graceMs?: number;
}

export interface BazaarHistoryReport {
  /** rollup rows written per resolution */
  rows: Record<RollupResolution, number>;
  /** progress after the run */
  doneUntil: Partial<Record<RollupResolution, number>>;
  /** 20-second snapshots packed into chunks */
  packed: number;
  /** 20-second snapshots deleted by retention */
  deleted: number;
  ms: number;
}

/** Each run recomputes this much before its progress mark too: snapshots stored late still count. */
const LOOKBACK: Record<RollupResolution, number> = { '5m': 10 * MINUTE, '2h': 2 * HOUR, '1d': DAY };
/**
 * Rollup rows per statement the window size adapts to: bounds the time one statement holds
 * the database (about 90,000 snapshots for 1,500 products), while sparse history is crossed quickly.
 */
const TARGET_ROWS = 6000;
const FIRST_CHUNK: Record<RollupResolution, number> = { '5m': 30 * MINUTE, '2h': DAY, '1d': 30 * DAY };
const MAX_CHUNK = 30 * DAY;

export class BazaarHistoryJobs {
  private readonly graceMs: number;

  constructor(private readonly options: BazaarHistoryJobOptions) {
    this.graceMs = options.graceMs ?? 30_000;
  }

  async runOnce(): Promise<BazaarHistoryReport> {
    const started = performance.now();
    const repo = this.options.store.bazaarHistory;
    const now = this.options.clock.now();
    const rows: Record<RollupResolution, number> = { '5m': 0, '2h': 0, '1d': 0 };

    const oldestRaw = await repo.oldestSnapshot();
    let done = await repo.doneUntil();
    const fiveFrom = done['5m'] ?? (oldestRaw === undefined ? undefined : bucketStart(oldestRaw, RESOLUTION_MS['5m']));
    if (fiveFrom !== undefined) rows['5m'] = await this.rollUp('5m', fiveFrom, completeBefore(now, '5m', this.graceMs));

    done = await repo.doneUntil();
    const fiveDone = done['5m'];
    if (fiveDone !== undefined) {
      const oldestFive = await repo.oldestRollup('5m');
      for (const res of ['2h', '1d'] as const) {
        const from = done[res] ?? (oldestFive === undefined ? undefined : bucketStart(oldestFive, RESOLUTION_MS[res]));
        if (from === undefined) continue;
        // Only buckets whose 5-minute rows are all final, and that have ended.
        const to = Math.min(completeBefore(now, res, this.graceMs), bucketStart(fiveDone, RESOLUTION_MS[res]));
        rows[res] = await this.rollUp(res, from, to);
      }
    }

    // Closed windows of recent rows into chunks (a window closes once no snapshot for it can still arrive).
    const packed = await repo.compact(now - this.graceMs);

    // Retention: never delete snapshots that are not rolled up yet (after downtime the
    // rollup catches up first). The cutoff is a 5-minute boundary, so a bucket is kept whole or not at all.
    let deleted = 0;
    const rolled = (await repo.doneUntil())['5m'];
    if (rolled !== undefined) deleted = await repo.deleteSnapshotsBefore(Math.min(rawHorizon(now), rolled));

    const report = { rows, doneUntil: await repo.doneUntil(), packed, deleted, ms: Math.round(performance.now() - started) };
    this.options.logger.debug({ ...report }, 'bazaar history jobs ran');
    return report;
  }

  private async rollUp(res: RollupResolution, doneUntil: number, to: number): Promise<number> {
    const size = RESOLUTION_MS[res];
    const repo = this.options.store.bazaarHistory;
    let start = Math.max(0, bucketStart(doneUntil - LOOKBACK[res], size));
    // Progress is only moved on while it is where this run left it: a rewind meanwhile wins.
    let guard = doneUntil;
    let written = 0;
    let chunk = FIRST_CHUNK[res];
    while (start < to) {
      // Skip stretches without data (downtime, a gap before a backfill) in one step.
      const next = await repo.nextSourceTime(res, start);
      if (next === undefined || next >= to) {
        await repo.setDoneUntil(res, to, guard);
        break;
      }
      start = Math.max(start, bucketStart(next, size));
      const end = Math.min(to, Math.max(start + size, bucketStart(start + chunk, size)));
      const n = await repo.rollup(res, start, end, guard);
      written += n;
      if (n < TARGET_ROWS / 2) chunk = Math.min(MAX_CHUNK, chunk * 2);
      else if (n > TARGET_ROWS) chunk = Math.max(size, chunk / 2);
      guard = end;
      start = end;
      // SQLite statements run on the event loop: let requests in between windows.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return written;
  }
}
