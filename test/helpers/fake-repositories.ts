/**
 * In-memory fakes of the repository methods services read (the Picks each service declares, e.g.
 * services/uploads.ts UploadsStore), for service specs in test/unit/services/: no database.
 * Each fake keeps what the real repository keeps and answers as it does, for the methods it has.
 */
import type { PlayerName, PlayerNameRepository } from '../../src/store/repositories/player-names.ts';

/** Player names, looked up case-insensitively as the repository does; `touched` records touch() calls. */
export function fakePlayerNames(names: ReadonlyArray<{ playerUuid: string; name: string; activeAuctions?: number }>) {
  const rows: PlayerName[] = names.map((n) => ({ playerUuid: n.playerUuid, name: n.name, source: 'test', seenAt: 0 }));
  const active = new Map(names.map((n) => [n.playerUuid, n.activeAuctions ?? 0]));
  const touched: Array<{ playerUuid: string; now: number }> = [];
  const repo: Pick<PlayerNameRepository, 'findByName' | 'touch' | 'activeAuctionCount' | 'namesOf' | 'withPrefix'> = {
    findByName: async (name) => rows.find((r) => r.name.toLowerCase() === name.toLowerCase()),
    touch: async (playerUuid, now) => {
      touched.push({ playerUuid, now });
      return rows.some((r) => r.playerUuid === playerUuid);
    },
    activeAuctionCount: async (playerUuid) => active.get(playerUuid) ?? 0,
    namesOf: async (uuids) => new Map(rows.filter((r) => uuids.includes(r.playerUuid)).map((r) => [r.playerUuid, r.name])),
    withPrefix: async (prefix, limit) => rows.filter((r) => prefix !== '' && r.name.toLowerCase().startsWith(prefix.toLowerCase())).slice(0, Math.max(0, limit)),
  };
  return { repo, touched };
}
