/**
 * Where a player's unlocked collections, skills and slayers come from, for filtering the craft
 * profit list: what the player's mod uploaded, and the player's profiles fetched from upstream.
 * A request never calls upstream: it queues the player in the store, the ingest poller
 * (ingest/profiles.ts) fetches and stores the profiles, and a later request reads them.
 */
import type { Clock } from '../clock.ts';
import { compactPlayerUuid } from '../domain/player-data.ts';
import { pickProfile, progressFromUploadedState, progressOfMember, type PlayerProgressSource, type ProgressLookup } from '../domain/craft/progress.ts';
import type { GameData } from '../gamedata/types.ts';
import type { PlayerRepository } from '../store/repositories/players.ts';
import type { ProfileRequestRepository, RequestOutcome } from '../store/repositories/profile-requests.ts';

/** What UploadedProgress reads: the state the player's mod uploaded. */
export interface UploadedStates {
  readonly players: Pick<PlayerRepository, 'state'>;
}

export class UploadedProgress implements PlayerProgressSource {
  constructor(
    private readonly store: UploadedStates,
    private readonly game: GameData,
  ) {}

  /**
   * Known when the player's mod uploaded unlocks, for the profile it synced from: a `profile`
   * given must be that profile's uuid (the mod does not report profile names).
   */
  async lookup(player: string, profile: string | undefined): Promise<ProgressLookup> {
    const uuid = compactPlayerUuid(player);
    if (!uuid) return { status: 'unavailable', reason: 'mod uploads are looked up by player uuid' };
    const stored = await this.store.players.state(uuid);
    const progress = stored ? progressFromUploadedState(stored.state as Record<string, unknown>, this.game) : undefined;
    if (!stored || !progress) return { status: 'unavailable', reason: 'no collections, skills or slayers uploaded by the player\'s mod' };
    if (profile !== undefined) {
      const wanted = compactPlayerUuid(profile);
      const synced = stored.profileUuid ? compactPlayerUuid(stored.profileUuid) : undefined;
      if (!wanted || wanted !== synced) return { status: 'unavailable', reason: `the mod's upload is not for profile ${profile}` };
    }
    return { status: 'known', progress };
  }
}

/** Fetched profiles are used this long before a request queues a newer fetch (served meanwhile). */
export const PROFILE_TTL_MS = 10 * 60_000;
/** A failed fetch is answered this long before a request queues another; doubles per failure in a row, up to an hour. */
export const PROFILE_FAILURE_TTL_MS = 60_000;
/** Players queued for a fetch at most: beyond, a request is answered unfiltered and queues nothing. */
export const MAX_QUEUED_PROFILES = 500;
/** Of those, queued by one client (account, else address) at most, so that one client cannot fill the queue. */
export const MAX_QUEUED_PROFILES_PER_CLIENT = 10;

/** The reason an unfiltered answer gives while the player's profile is being fetched. */
export const FETCHING = 'fetching the player profile from upstream; retry in a few seconds';

/** What FetchedProfileProgress reads and queues: the fetched profiles and their fetch requests. */
export interface ProfileRequests {
  readonly profileRequests: Pick<ProfileRequestRepository, 'get' | 'request'>;
}

/** Progress from the player's profiles as the ingest poller stored them, queuing a fetch when they are missing or old. */
export class FetchedProfileProgress implements PlayerProgressSource {
  constructor(
    private readonly store: ProfileRequests,
    private readonly game: GameData,
    private readonly clock: Clock,
  ) {}

  /** `client`: who asks (`account:…` or `ip:…`), for the per-client share of the queue. */
  async lookup(player: string, profile: string | undefined, client?: string): Promise<ProgressLookup> {
    const uuid = compactPlayerUuid(player);
    if (!uuid) return { status: 'unavailable', reason: 'player names are not resolved; pass the player uuid' };
    const now = this.clock.now();
    const row = await this.store.profileRequests.get(uuid);
    const queued = row !== undefined && (row.fetchedAt === null || row.requestedAt > row.fetchedAt);
    const ttl = row?.lastError ? Math.min(3_600_000, PROFILE_FAILURE_TTL_MS * 2 ** Math.max(0, Math.min(6, row.attempts - 1))) : PROFILE_TTL_MS;
    const fresh = row?.fetchedAt != null && now - row.fetchedAt < ttl;
    let outcome: RequestOutcome = 'queued';
    if (!queued && !fresh) {
      const asker = client === undefined ? undefined : { key: client, perClient: MAX_QUEUED_PROFILES_PER_CLIENT };
      outcome = await this.store.profileRequests.request(uuid, now, MAX_QUEUED_PROFILES, asker);
    }
    // The last profiles fetched answer, even while a newer fetch is queued.
    if (row?.profiles) {
      const chosen = pickProfile(row.profiles, profile);
      if (!chosen) return { status: 'unavailable', reason: profile ? `the player has no profile ${profile}` : 'the player has no SkyBlock profile' };
      const progress = progressOfMember(chosen, uuid, this.game);
      return progress ? { status: 'known', progress } : { status: 'unavailable', reason: 'the player is not a member of that profile' };
    }
    if (row?.lastError && fresh) return { status: 'unavailable', reason: row.lastError };
    if (outcome === 'full') return { status: 'unavailable', reason: 'too many player profiles are queued for fetching; retry in a minute' };
    if (outcome === 'client_full') {
      return { status: 'unavailable', reason: `you have ${MAX_QUEUED_PROFILES_PER_CLIENT} player profiles queued for fetching already; retry in a minute` };
    }
    return { status: 'unavailable', reason: FETCHING };
  }
}
