/**
 * Retention for the mod channel's data: lowball offers expire 7 days after creation,
 * linking challenges after 30 minutes, raw data uploads after 2 days. Readers already
 * ignore expired rows; this job deletes them so the tables stay small.
 */
import type { Store } from '../store/index.ts';
import { DATA_UPLOAD_RETENTION_MS } from '../store/repositories/data-uploads.ts';

export interface RetentionResult {
  offers: number;
  challenges: number;
  uploads: number;
}

/** One retention pass. */
export async function runModRetention(store: Store, now: number): Promise<RetentionResult> {
  const offers = await store.lowball.deleteExpired(now);
  const challenges = await store.modLinks.deleteExpiredChallenges(now);
  const uploads = await store.dataUploads.deleteOlderThan(now - DATA_UPLOAD_RETENTION_MS);
  return { offers, challenges, uploads };
}
