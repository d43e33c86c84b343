/**
 * Player profiles requests asked for, queued for the ingest poller (ingest/profiles.ts), and what
 * it fetched. One row per player: asking again while a fetch is queued changes nothing, and the
 * queue holds at most `maxQueued` players and at most `perClient` of one client's, so a client can
 * neither grow it without limit nor fill it for everyone else (issue 45). Fetched rows
 * leave after their retention (`prune`).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export interface ProfileRequest {
  playerUuid: string;
  requestedAt: number;
  /** when the last fetch finished, stored or failed; null before the first */
  fetchedAt: number | null;
  /** failed fetches in a row (0 after a success) */
  attempts: number;
  /** the last failure in words; null after a success */
  lastError: string | null;
  /** the player's profiles from the last successful fetch (trimmed), null before one */
  profiles: unknown[] | null;
}

/** What `request` did: queued the player (or found it queued), or refused: the queue is full, or holds the client's share. */
export type RequestOutcome = 'queued' | 'full' | 'client_full';

/** Who asks, and how many queued fetches one client may hold. */
export interface RequestClient {
  /** `account:<id>` or `ip:<address>` */
  key: string;
  perClient: number;
}

export class ProfileRequestRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async get(playerUuid: string): Promise<ProfileRequest | undefined> {
    const row = await this.db.selectFrom('profile_requests').selectAll().where('player_uuid', '=', playerUuid).executeTakeFirst();
    if (!row) return undefined;
    return {
      playerUuid: row.player_uuid,
      requestedAt: row.requested_at,
      fetchedAt: row.fetched_at,
      attempts: row.attempts,
      lastError: row.last_error,
      profiles: row.profiles === null ? null : (JSON.parse(row.profiles) as unknown[]),
    };
  }

  /**
   * Queues a fetch of the player's profiles, unless one is queued already, `maxQueued` players
   * are, or (with a client) `client.perClient` of the players queued were asked for by that client.
   */
  async request(playerUuid: string, now: number, maxQueued: number, client?: RequestClient): Promise<RequestOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('profile_requests').select(['requested_at', 'fetched_at']).where('player_uuid', '=', playerUuid).executeTakeFirst();
      // Already queued: keep its place (its first request time) in the queue.
      if (row && (row.fetched_at === null || row.requested_at > row.fetched_at)) return 'queued';
      const queued = await trx
        .selectFrom('profile_requests')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => eb.or([eb('fetched_at', 'is', null), eb('requested_at', '>', eb.ref('fetched_at'))]))
        .executeTakeFirstOrThrow();
      if (Number(queued.n) >= maxQueued) return 'full';
      if (client) {
        const own = await trx
          .selectFrom('profile_requests')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('requested_by', '=', client.key)
          .where((eb) => eb.or([eb('fetched_at', 'is', null), eb('requested_at', '>', eb.ref('fetched_at'))]))
          .executeTakeFirstOrThrow();
        if (Number(own.n) >= client.perClient) return 'client_full';
      }
      const requestedBy = client?.key ?? null;
      await trx
        .insertInto('profile_requests')
        .values({ player_uuid: playerUuid, requested_at: now, requested_by: requestedBy, fetched_at: null, last_error: null, profiles: null })
        .onConflict((oc) => oc.column('player_uuid').doUpdateSet({ requested_at: now, requested_by: requestedBy }))
        .execute();
      return 'queued';
    });
  }

  /** Players whose fetch is queued, first asked first, at most `limit`. */
  async queued(limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('profile_requests')
      .select('player_uuid')
      .where((eb) => eb.or([eb('fetched_at', 'is', null), eb('requested_at', '>', eb.ref('fetched_at'))]))
      .orderBy('requested_at')
      .orderBy('player_uuid')
      .limit(limit)
      .execute();
    return rows.map((r) => r.player_uuid);
  }

  /** A fetch succeeded: the profiles replace the previous ones, the failure count resets. */
  async stored(playerUuid: string, profiles: unknown[], now: number): Promise<void> {
    await this.db
      .updateTable('profile_requests')
      .set({ fetched_at: now, attempts: 0, last_error: null, profiles: JSON.stringify(profiles) })
      .where('player_uuid', '=', playerUuid)
      .execute();
  }

  /** A fetch failed: the reason is kept beside the last good profiles (if any). */
  async failed(playerUuid: string, error: string, now: number): Promise<void> {
    await this.db
      .updateTable('profile_requests')
      .set({ fetched_at: now, attempts: sql<number>`attempts + 1`, last_error: error })
      .where('player_uuid', '=', playerUuid)
      .execute();
  }

  /** Removes the players neither asked for nor fetched since `before` (queued ones too: nobody waits for them); returns how many. */
  async prune(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('profile_requests')
      .where('requested_at', '<', before)
      .where((eb) => eb.or([eb('fetched_at', 'is', null), eb('fetched_at', '<', before)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
