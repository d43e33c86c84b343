/**
 * A player's own auctions and the auctions they bid on, newest end first, read in keyset chunks
 * (the seller and bidder indexes): the player routes filter and page them.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { RECORD_COLUMNS, toRecord, type AuctionRecord } from './auction-queries.ts';

/** Where the next chunk starts: just after this auction in (end desc, uuid desc) order. */
export interface EndCursor {
  end: number;
  uuid: string;
}

export class PlayerAuctionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Up to `limit` auctions the player listed (any state), newest end first, after `after`. */
  async bySeller(seller: string, limit: number, after?: EndCursor): Promise<AuctionRecord[]> {
    let q = this.db.selectFrom('auctions').select(RECORD_COLUMNS).where('seller', '=', seller);
    if (after) q = q.where((eb) => eb.or([eb('end_at', '<', after.end), eb.and([eb('end_at', '=', after.end), eb('uuid', '<', after.uuid)])]));
    const rows = await q.orderBy('end_at', 'desc').orderBy('uuid', 'desc').limit(limit).execute();
    return rows.map(toRecord);
  }

  /**
   * Every auction the player bid on with their highest bid, newest end first. A player's bids are
   * a few hundred at most in practice; the answer is read whole and paged by the caller.
   */
  async bidOn(bidder: string): Promise<Array<{ auction: AuctionRecord; ownBid: number }>> {
    const own = await this.db
      .selectFrom('bids')
      .select(['auction_uuid', (eb) => eb.fn.max('amount').as('own')])
      .where('bidder', '=', bidder)
      .groupBy('auction_uuid')
      .execute();
    const ownBid = new Map(own.map((r) => [r.auction_uuid, Number(r.own)]));
    const out: Array<{ auction: AuctionRecord; ownBid: number }> = [];
    const uuids = [...ownBid.keys()];
    for (let i = 0; i < uuids.length; i += 500) {
      const rows = await this.db.selectFrom('auctions').select(RECORD_COLUMNS).where('uuid', 'in', uuids.slice(i, i + 500)).execute();
      for (const r of rows) out.push({ auction: toRecord(r), ownBid: ownBid.get(r.uuid)! });
    }
    return out.sort((a, b) => b.auction.end - a.auction.end || (a.auction.uuid < b.auction.uuid ? 1 : -1));
  }
}
