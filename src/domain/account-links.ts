/** A site account linked to a Minecraft player (by a challenge bid, or by an operator); stored in store/repositories/mod-links.ts. */
export interface AccountLink {
  accountId: number;
  playerUuid: string;
  playerName: string | null;
  linkedAt: number;
  method: 'bid' | 'operator';
}
