import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { ACTIVE } from './auction-queries.ts';

export interface PlayerName {
  playerUuid: string;
  name: string;
  source: string;
  seenAt: number;
}

/**
 * Where a name comes from. Confirmed: the player's own linked mod session (`self`), an operator,
 * upstream data. A hint (`mod`: a mod user reporting someone else, a link not yet proven) never
 * replaces a confirmed name nor claims a name a confirmed player holds (issue 21).
 */
export type NameSource = 'self' | 'operator' | 'upstream' | 'mod';
export const CONFIRMED_NAME_SOURCES: readonly NameSource[] = ['self', 'operator', 'upstream'];

/** Minecraft names seen for player uuids (latest wins among equals), so responses can show `playerName`. */
export class PlayerNameRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records name ↔ uuid pairs; a newer sighting replaces the name (players rename), a hint only another hint. */
  async record(entries: ReadonlyArray<{ playerUuid: string; name: string }>, source: NameSource, now: number): Promise<void> {
    // One row per uuid in a statement (ON CONFLICT cannot touch a row twice).
    const unique = new Map(entries.map((e) => [e.playerUuid, e]));
    const confirmed = CONFIRMED_NAME_SOURCES.includes(source);
    if (!confirmed && unique.size > 0) {
      const held = await this.db
        .selectFrom('player_names')
        .select(['player_uuid', 'name_lower'])
        .where('name_lower', 'in', [...unique.values()].map((e) => e.name.toLowerCase()))
        .where('source', 'in', CONFIRMED_NAME_SOURCES)
        .execute();
      for (const h of held) for (const e of unique.values()) if (e.name.toLowerCase() === h.name_lower && e.playerUuid !== h.player_uuid) unique.delete(e.playerUuid);
    }
    if (unique.size === 0) return;
    await this.db
      .insertInto('player_names')
      .values([...unique.values()].map((e) => ({ player_uuid: e.playerUuid, name: e.name, name_lower: e.name.toLowerCase(), source, seen_at: now })))
      .onConflict((oc) => {
        const update = oc.column('player_uuid').doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          name_lower: eb.ref('excluded.name_lower'),
          source: eb.ref('excluded.source'),
          seen_at: eb.ref('excluded.seen_at'),
        }));
        return confirmed ? update : update.where('player_names.source', 'not in', CONFIRMED_NAME_SOURCES);
      })
      .execute();
  }

  /** The uuid seen with this name (case-insensitive): a confirmed one first, then the most recent. */
  async findByName(name: string): Promise<PlayerName | undefined> {
    const row = await this.db
      .selectFrom('player_names')
      .selectAll()
      .where('name_lower', '=', name.toLowerCase())
      .orderBy((eb) => eb.case().when('source', 'in', CONFIRMED_NAME_SOURCES).then(0).else(1).end())
      .orderBy('seen_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { playerUuid: row.player_uuid, name: row.name, source: row.source, seenAt: row.seen_at } : undefined;
  }

  /**
   * Players whose name starts with `prefix` (case-insensitive), alphabetically: a range on the
   * lower-case name index, checked again here because a non-C collation may widen the range.
   */
  async withPrefix(prefix: string, limit: number): Promise<PlayerName[]> {
    const low = prefix.toLowerCase();
    if (low === '' || limit <= 0) return [];
    const high = low.slice(0, -1) + String.fromCharCode(low.charCodeAt(low.length - 1) + 1);
    const rows = await this.db
      .selectFrom('player_names')
      .selectAll()
      .where('name_lower', '>=', low)
      .where('name_lower', '<', high)
      .orderBy('name_lower')
      .limit(limit)
      .execute();
    return rows.filter((r) => r.name_lower.startsWith(low)).map((r) => ({ playerUuid: r.player_uuid, name: r.name, source: r.source, seenAt: r.seen_at }));
  }

  /** Marks a name as seen again (a hint confirmed it); false when unknown. */
  async touch(playerUuid: string, now: number): Promise<boolean> {
    const r = await this.db.updateTable('player_names').set({ seen_at: now }).where('player_uuid', '=', playerUuid).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** uuid → name for the known ones among `uuids` (for overviews showing `playerName`). */
  async namesOf(uuids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const distinct = [...new Set(uuids)];
    for (let i = 0; i < distinct.length; i += 500) {
      const rows = await this.db
        .selectFrom('player_names')
        .select(['player_uuid', 'name'])
        .where('player_uuid', 'in', distinct.slice(i, i + 500))
        .execute();
      for (const r of rows) out.set(r.player_uuid, r.name);
    }
    return out;
  }

  /** How many active auctions the player has listed (the hint endpoints answer it as `item2`). */
  async activeAuctionCount(playerUuid: string): Promise<number> {
    const r = await this.db
      .selectFrom('auctions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('seller', '=', playerUuid)
      .where('state', '=', ACTIVE)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
