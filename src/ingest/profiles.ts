/**
 * Player progress from the upstream profile endpoint (`/v2/skyblock/profiles?uuid=`, needs
 * UPSTREAM_API_KEY), for filtering the craft profit list. Requests never wait for upstream:
 * a miss starts one background fetch and answers "unavailable, retry shortly"; results are
 * kept for a while (a bounded in-memory cache), failures briefly, so a missing player does
 * not cause a fetch per request.
 */
import type { Clock } from '../clock.ts';
import { normalizeUuid, pickProfile, progressOfMember, type PlayerProgressSource, type ProgressLookup } from '../domain/craft/progress.ts';
import type { PlayerProgress } from '../domain/craft/profit.ts';
import type { GameData } from '../gamedata/types.ts';
import type { Logger } from '../logger.ts';
import { HypixelClient } from './hypixel-client.ts';

export interface ProfileProgressOptions {
  ttlMs?: number;
  failureTtlMs?: number;
  maxEntries?: number;
}

type Entry = { at: number; profiles: unknown[] } | { at: number; error: string };

export class UpstreamProfileProgress implements PlayerProgressSource {
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly client: HypixelClient,
    private readonly game: GameData,
    private readonly clock: Clock,
    private readonly logger?: Logger,
    options: ProfileProgressOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.failureTtlMs = options.failureTtlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 2_000;
  }

  async lookup(player: string, profile: string | undefined): Promise<ProgressLookup> {
    const uuid = normalizeUuid(player);
    if (!uuid) return { status: 'unavailable', reason: 'player names are not resolved; pass the player uuid' };
    const entry = this.cache.get(uuid);
    const now = this.clock.now();
    if (entry && now - entry.at < ('error' in entry ? this.failureTtlMs : this.ttlMs)) {
      if ('error' in entry) return { status: 'unavailable', reason: entry.error };
      const chosen = pickProfile(entry.profiles, profile);
      if (!chosen) return { status: 'unavailable', reason: profile ? `the player has no profile ${profile}` : 'the player has no SkyBlock profile' };
      const progress: PlayerProgress | undefined = progressOfMember(chosen, uuid, this.game);
      return progress ? { status: 'known', progress } : { status: 'unavailable', reason: 'the player is not a member of that profile' };
    }
    this.fetch(uuid);
    return { status: 'unavailable', reason: 'fetching the player profile from upstream; retry in a few seconds' };
  }

  async close(): Promise<void> {
    await this.settled();
    await this.client.close();
  }

  /** Resolves when every fetch in flight has settled (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.pending.values());
  }

  private fetch(uuid: string): void {
    if (this.pending.has(uuid)) return;
    const job = (async () => {
      let entry: Entry;
      try {
        const res = await this.client.getJson<{ success?: boolean; profiles?: unknown }>(`/v2/skyblock/profiles?uuid=${uuid}`, [403, 404]);
        if (res.status !== 200 || res.body.success === false) entry = { at: this.clock.now(), error: `upstream answered ${res.status} for the player profile` };
        else entry = { at: this.clock.now(), profiles: Array.isArray(res.body.profiles) ? res.body.profiles : [] };
      } catch (err) {
        this.logger?.warn({ err, uuid }, 'player profile fetch failed');
        entry = { at: this.clock.now(), error: 'the upstream profile endpoint is unreachable' };
      }
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(uuid, entry);
    })().finally(() => this.pending.delete(uuid));
    this.pending.set(uuid, job);
  }
}

/**
 * The upstream profile source when UPSTREAM_API_KEY is set (the profiles endpoint needs a key),
 * as a factory over the loaded game data; undefined otherwise.
 */
export function upstreamProfileProgress(options: {
  upstreamUrl: string;
  upstreamApiKey: string | undefined;
  timeoutMs: number;
  clock: Clock;
  logger?: Logger;
}): ((game: GameData) => PlayerProgressSource) | undefined {
  if (!options.upstreamApiKey) return undefined;
  return (game) =>
    new UpstreamProfileProgress(
      new HypixelClient({ baseUrl: options.upstreamUrl, apiKey: options.upstreamApiKey, timeoutMs: options.timeoutMs, retries: 1, concurrency: 2 }),
      game,
      options.clock,
      options.logger,
    );
}
