/**
 * What a player API key reads: the key's player's extracted in-game state, current bazaar
 * orders and completed bazaar flips, as the mod last uploaded them. The player comes from the
 * key, never from a parameter; a key bound to a profile does not read state synced from another.
 */
import { extractedView } from '../domain/player-data.ts';
import type { PlayerKeyIdentity } from '../domain/identities.ts';
import type { StoredFlip, PlayerRepository } from '../store/repositories/players.ts';

/** What PlayersService reads: the players' uploaded state, orders and flips. */
export interface PlayersStore {
  readonly players: Pick<PlayerRepository, 'state' | 'orders' | 'flips'>;
}

export class PlayersService {
  constructor(private readonly store: PlayersStore) {}

  /** Every extracted field, defaults where nothing usable was uploaded. */
  async extracted(key: PlayerKeyIdentity): Promise<Record<string, unknown>> {
    const stored = await this.store.players.state(key.playerUuid);
    const usable = stored && (key.profileUuid === null || stored.profileUuid === null || stored.profileUuid === key.profileUuid);
    return extractedView(usable ? stored.state : null);
  }

  orders(key: PlayerKeyIdentity) {
    return this.store.players.orders(key.playerUuid);
  }

  /** Completed flips, newest first. */
  flips(key: PlayerKeyIdentity): Promise<StoredFlip[]> {
    return this.store.players.flips(key.playerUuid);
  }
}
