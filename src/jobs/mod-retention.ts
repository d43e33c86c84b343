/**
 * Retention for the mod channel's data: lowball offers expire 7 days after creation,
 * linking challenges after 30 minutes, raw data uploads after 2 days. Readers already
 * ignore expired rows; this job deletes them so the tables stay small.
 */
import { DATA_UPLOAD_RETENTION_MS, type DataUploadRepository } from '../store/repositories/data-uploads.ts';
import type { LowballRepository } from '../store/repositories/lowball.ts';
import type { ModLinkRepository } from '../store/repositories/mod-links.ts';

export interface RetentionResult {
  offers: number;
  challenges: number;
  uploads: number;
}

/** What retention deletes: expired offers and challenges, old uploads. */
export interface ModRetentionStore {
  readonly lowball: Pick<LowballRepository, 'deleteExpired'>;
  readonly modLinks: Pick<ModLinkRepository, 'deleteExpiredChallenges'>;
  readonly dataUploads: Pick<DataUploadRepository, 'deleteOlderThan'>;
}

/** One retention pass. */
export async function runModRetention(store: ModRetentionStore, now: number): Promise<RetentionResult> {
  const offers = await store.lowball.deleteExpired(now);
  const challenges = await store.modLinks.deleteExpiredChallenges(now);
  const uploads = await store.dataUploads.deleteOlderThan(now - DATA_UPLOAD_RETENTION_MS);
  return { offers, challenges, uploads };
}
