/**
 * Reads bazaar history at one resolution: stored rollup rows up to the jobs' progress,
 * then the not-yet-rolled tail aggregated on the fly from finer data (5-minute rows and
 * 20-second snapshots), so every resolution is current to the latest snapshot.
 */
import type { BazaarHistoryRepository } from '../store/repositories/bazaar-history.ts';
import { aggregate, bucketStart, RESOLUTION_MS, type HistoryPoint, type Resolution } from '../domain/bazaar-history.ts';

/** What reading history reads: snapshots, rollups and how far the rollup jobs got. */
export interface BazaarHistoryReads {
  readonly bazaarHistory: Pick<BazaarHistoryRepository, 'snapshots' | 'doneUntil' | 'rollups'>;
}

/** Points of `productId` at `resolution` for the buckets starting in [from, to), oldest first. */
export async function readHistory(store: BazaarHistoryReads, productId: string, resolution: Resolution, from: number, to: number): Promise<HistoryPoint[]> {
  const repo = store.bazaarHistory;
  if (to <= from) return [];
  if (resolution === '20s') return repo.snapshots(productId, from, to);

  const size = RESOLUTION_MS[resolution];
  // Whole buckets: every bucket starting in [from, to), with all of its data.
  const start = bucketStart(from, size);
  to = bucketStart(to - 1, size) + size;
  const done = await repo.doneUntil();
  const rolledUntil = Math.max(start, Math.min(to, done[resolution] ?? start));
  const stored = rolledUntil > start ? await repo.rollups(resolution, productId, start, rolledUntil) : [];
  if (rolledUntil >= to) return stored;

  // The tail: 5-minute rows where they exist (for coarser resolutions), 20-second snapshots after.
  let tail: HistoryPoint[] = [];
  let rawFrom = rolledUntil;
  if (resolution !== '5m') {
    const fiveUntil = Math.max(rolledUntil, Math.min(to, done['5m'] ?? rolledUntil));
    if (fiveUntil > rolledUntil) tail = await repo.rollups('5m', productId, rolledUntil, fiveUntil);
    rawFrom = fiveUntil;
  }
  if (rawFrom < to) tail = tail.concat(await repo.snapshots(productId, rawFrom, to));
  return stored.concat(aggregate(tail, size));
}
