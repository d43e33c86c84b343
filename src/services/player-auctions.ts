/**
 * A player's auctions and bids, in the established service's AuctionResult / BidResult shapes,
 * ten to a page, newest end first, with the auction filters; a player's name; players by name.
 */
import type { SellerNames } from './auction-filters.ts';
import type { CompiledFilter, FilterSubject } from '../domain/filters.ts';
import { compileAuctionFilters } from './auction-filters.ts';
import { soldSubject } from './auctions.ts';
import type { PlayerAuctionRepository } from '../store/repositories/player-auctions.ts';
import type { ModLinkRepository } from '../store/repositories/mod-links.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';
import type { AuctionRecord } from '../domain/auction-records.ts';

export const PLAYER_PAGE_SIZE = 10;
/** At most this many sales in a player's export (the newest). */
export const MAX_PLAYER_EXPORT = 10_000;
/** At most this many uuids per `POST /api/player/names`. */
export const MAX_PLAYER_NAME_LOOKUPS = 1000;
/** Rows read per chunk while a filter skips auctions, and at most this many per request. */
const CHUNK = 200;
const SCAN_MAX = 20_000;

export interface AuctionResult {
  auctionId: string;
  highestBid: number;
  itemName: string;
  tag: string;
  end: string;
  startingBid: number;
  bin: boolean;
}

export interface BidResult extends AuctionResult {
  highestOwnBid: number;
}

export interface PlayerResult {
  name: string;
  uuid: string;
  /** how often the player was searched for: skymarket does not count searches, so always 0 */
  hitCount: number;
}

function subjectOf(r: AuctionRecord): FilterSubject {
  return r.state === 'sold' ? soldSubject(r) : { ...r, sold: false };
}

function resultOf(r: AuctionRecord): AuctionResult {
  return {
    auctionId: r.uuid,
    highestBid: r.soldPrice ?? r.highestBid,
    itemName: r.itemName,
    tag: r.tag,
    end: new Date(r.soldAt ?? r.end).toISOString(),
    startingBid: r.startingBid,
    bin: r.bin,
  };
}

/** What PlayerAuctionsService reads: a player's auctions and bids, account links, player names (and the filters' seller names). */
export type PlayerAuctionsStore = SellerNames & {
  readonly playerAuctions: Pick<PlayerAuctionRepository, 'bySeller' | 'bidOn'>;
  readonly modLinks: Pick<ModLinkRepository, 'linkOf'>;
  readonly playerNames: Pick<PlayerNameRepository, 'namesOf' | 'withPrefix'>;
};

export class PlayerAuctionsService {
  constructor(private readonly store: PlayerAuctionsStore) {}

  /** The auction filters of a request, compiled (a seller's name resolved through the names seen). */
  compileFilters(filters: Record<string, string>): Promise<CompiledFilter> {
    return compileAuctionFilters(this.store, filters);
  }

  /** Page `page` of the auctions the player listed that pass `filter`. */
  async auctions(player: string, page: number, filter: CompiledFilter): Promise<AuctionResult[]> {
    const skip = page * PLAYER_PAGE_SIZE;
    const matched: AuctionRecord[] = [];
    let after: { end: number; uuid: string } | undefined;
    for (let read = 0; read < SCAN_MAX && matched.length < skip + PLAYER_PAGE_SIZE; ) {
      const limit = filter.names.length === 0 ? skip + PLAYER_PAGE_SIZE - matched.length : CHUNK;
      const rows = await this.store.playerAuctions.bySeller(player, limit, after);
      read += rows.length;
      for (const r of rows) if (filter.test(subjectOf(r))) matched.push(r);
      if (rows.length < limit) break;
      const last = rows.at(-1)!;
      after = { end: last.end, uuid: last.uuid };
    }
    return matched.slice(skip, skip + PLAYER_PAGE_SIZE).map(resultOf);
  }

  /** Page `page` of the auctions the player bid on that pass `filter`, with their highest bid on each. */
  async bids(player: string, page: number, filter: CompiledFilter): Promise<BidResult[]> {
    const all = await this.store.playerAuctions.bidOn(player);
    const matched = all.filter((b) => filter.test(subjectOf(b.auction)));
    const skip = page * PLAYER_PAGE_SIZE;
    return matched.slice(skip, skip + PLAYER_PAGE_SIZE).map((b) => ({ ...resultOf(b.auction), highestOwnBid: b.ownBid }));
  }

  /** Whether the account has verified (linked through the mod or by the operator) this Minecraft account. */
  async isLinked(accountId: number, player: string): Promise<boolean> {
    return (await this.store.modLinks.linkOf(accountId))?.playerUuid === player;
  }

  /** The auctions the player sold, newest first, at most `max`. */
  async soldAuctions(player: string, max = MAX_PLAYER_EXPORT): Promise<AuctionRecord[]> {
    const out: AuctionRecord[] = [];
    let after: { end: number; uuid: string } | undefined;
    while (out.length < max) {
      const rows = await this.store.playerAuctions.bySeller(player, CHUNK, after);
      for (const r of rows) if (r.state === 'sold' && out.length < max) out.push(r);
      if (rows.length < CHUNK) break;
      const last = rows.at(-1)!;
      after = { end: last.end, uuid: last.uuid };
    }
    return out;
  }

  async name(player: string): Promise<string | undefined> {
    return (await this.store.playerNames.namesOf([player])).get(player);
  }

  /**
   * Names of many players at once: `{asked: name}` for the ones skymarket has seen, keyed as asked;
   * `uuids` pairs each uuid as asked with its compact form.
   */
  async names(uuids: ReadonlyArray<{ asked: string; uuid: string }>): Promise<Record<string, string>> {
    const known = await this.store.playerNames.namesOf(uuids.map((u) => u.uuid));
    const out: Record<string, string> = {};
    for (const { asked, uuid } of uuids) {
      const name = known.get(uuid);
      if (name !== undefined) out[asked] = name;
    }
    return out;
  }

  /** Players whose name starts with `name`, alphabetically. */
  async search(name: string, limit: number): Promise<PlayerResult[]> {
    return (await this.store.playerNames.withPrefix(name, limit)).map((p) => ({ name: p.name, uuid: p.playerUuid, hitCount: 0 }));
  }
}
