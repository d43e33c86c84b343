/**
 * Player profiles queued by requests (the craft profit list's `?player=`, see
 * services/player-progress.ts, and `GET /api/player/{uuid}/networth`, services/networth.ts): each poll takes the oldest queued players from the store, fetches
 * their profiles from `/v2/skyblock/profiles?uuid=` (needs UPSTREAM_API_KEY) and stores them,
 * trimmed to what the progress filter and networth read, or the failure in words. Runs with the other
 * pollers, only in the process that leads ingestion; requests never wait for it.
 */
import { trimProfiles } from '../domain/craft/progress.ts';
import type { IngestContext } from './context.ts';

/** Players fetched per poll: upstream keys allow a few hundred requests per 5 minutes, so at most 2 a second. */
export const PROFILES_PER_POLL = 2;
/** How often the queue is looked at. */
export const PROFILE_POLL_MS = 1000;
/** A player neither asked for nor fetched for this long leaves the store. */
export const PROFILE_RETENTION_MS = 3_600_000;

export interface ProfilePollResult {
  stored: number;
  failed: number;
  pruned: number;
}

export class ProfileIngester {
  constructor(private readonly ctx: IngestContext) {}

  async pollOnce(): Promise<ProfilePollResult> {
    const { store, clock } = this.ctx;
    const pruned = await store.profileRequests.prune(clock.now() - PROFILE_RETENTION_MS);
    const players = await store.profileRequests.queued(PROFILES_PER_POLL);
    const outcomes = await Promise.all(players.map((uuid) => this.fetch(uuid)));
    return { stored: outcomes.filter(Boolean).length, failed: outcomes.filter((ok) => !ok).length, pruned };
  }

  /** Fetches and stores one player's profiles; false when the fetch failed (the failure is stored). */
  private async fetch(uuid: string): Promise<boolean> {
    const { client, store, clock, logger, metrics } = this.ctx;
    let error: string;
    try {
      const res = await client.getJson<{ success?: boolean; profiles?: unknown }>(`/v2/skyblock/profiles?uuid=${uuid}`, [403, 404]);
      if (res.status === 200 && res.body.success !== false) {
        await store.profileRequests.stored(uuid, trimProfiles(res.body.profiles, uuid), clock.now());
        metrics.records.inc({ feed: 'profiles', outcome: 'stored' });
        return true;
      }
      error = `upstream answered ${res.status} for the player profile`;
    } catch (err) {
      logger.warn({ err, uuid }, 'player profile fetch failed');
      error = 'the upstream profile endpoint is unreachable';
    }
    await store.profileRequests.failed(uuid, error, clock.now());
    metrics.records.inc({ feed: 'profiles', outcome: 'failed' });
    return false;
  }
}
