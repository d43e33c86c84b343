/**
 * Player progress from what the mod uploaded (collections, skills and slayers in the player's
 * extracted state), for filtering the craft profit list without the upstream profile endpoint.
 */
import { normalizeUuid, progressFromUploadedState, type PlayerProgressSource, type ProgressLookup } from '../domain/craft/progress.ts';
import type { GameData } from '../gamedata/types.ts';
import type { Store } from '../store/index.ts';

export class UploadedProgress implements PlayerProgressSource {
  constructor(
    private readonly store: Store,
    private readonly game: GameData,
  ) {}

  /**
   * Known when the player's mod uploaded unlocks, for the profile it synced from: a `profile`
   * given must be that profile's uuid (the mod does not report profile names).
   */
  async lookup(player: string, profile: string | undefined): Promise<ProgressLookup> {
    const uuid = normalizeUuid(player);
    if (!uuid) return { status: 'unavailable', reason: 'mod uploads are looked up by player uuid' };
    const stored = await this.store.players.state(uuid);
    const progress = stored ? progressFromUploadedState(stored.state as Record<string, unknown>, this.game) : undefined;
    if (!stored || !progress) return { status: 'unavailable', reason: 'no collections, skills or slayers uploaded by the player\'s mod' };
    if (profile !== undefined) {
      const wanted = normalizeUuid(profile);
      const synced = stored.profileUuid ? normalizeUuid(stored.profileUuid) : undefined;
      if (!wanted || wanted !== synced) return { status: 'unavailable', reason: `the mod's upload is not for profile ${profile}` };
    }
    return { status: 'known', progress };
  }
}
