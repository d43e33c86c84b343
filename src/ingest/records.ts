/**
 * Upstream records → rows. Decoding happens here (base64 → gzip → NBT via domain/nbt);
 * a blob that does not decode throws ItemDecodeError for the caller to count and skip.
 */
import { decodeAuctionItem, type DecodedItem } from '../domain/nbt.ts';
import { inStoredKeyOrder } from '../domain/stored-key-order.ts';
import { tierFromLore } from '../domain/wire-enums.ts';
import { coopColumn, compactItemBytes } from '../store/auction-encoding.ts';
import type { AuctionRowWrite, AuctionsTable, BidsTable } from '../store/schema.ts';
import type { UpstreamAuction, UpstreamSale } from './upstream.ts';

/** 32 hex without dashes, lower case; null when absent or malformed. */
export function compactUuid(uuid: string | null | undefined): string | null {
  if (!uuid) return null;
  const hex = uuid.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : null;
}

function itemColumns(item: DecodedItem) {
  const itemUuid = compactUuid(item.itemUuid);
  return {
    tag: item.tag,
    reforge: item.reforge,
    item_uid: itemUuid ? itemUuid.slice(-12) : item.uid,
    item_created_at: item.createdAt,
    // In the order PostgreSQL's jsonb reads them back, so a replica that loads the listing and one that
    // applies the spine's change answer the same bytes (domain/stored-key-order.ts).
    enchantments: Object.keys(item.enchantments).length ? inStoredKeyOrder(item.enchantments) : null,
    flat_nbt: inStoredKeyOrder(item.flatNbt),
  };
}

export function listingRow(a: UpstreamAuction, item: DecodedItem): AuctionRowWrite {
  return {
    uuid: a.uuid.toLowerCase(),
    ...itemColumns(item),
    item_name: a.item_name,
    count: item.count,
    seller: a.auctioneer,
    profile_id: a.profile_id ?? null,
    coop: coopColumn(a.coop, a.auctioneer),
    start_at: a.start,
    end_at: a.end,
    starting_bid: a.starting_bid,
    highest_bid: a.highest_bid_amount ?? 0,
    bin: a.bin === true,
    tier: a.tier ?? null,
    category: a.category ?? null,
    // Stored as the bytes it encodes; decoded by the insert (store/schema.ts AuctionRowWrite).
    item_bytes: a.item_bytes,
    state: 'active',
    last_updated: a.last_updated ?? a.start,
    sold_price: null,
    buyer: null,
    sold_at: null,
    buyer_profile: null,
  };
}

export function bidRows(a: UpstreamAuction): BidsTable[] {
  return (a.bids ?? []).map((b) => ({
    auction_uuid: a.uuid.toLowerCase(),
    amount: b.amount,
    bidder: b.bidder,
    profile_id: b.profile_id ?? null,
    placed_at: b.timestamp,
  }));
}

/** How far before a sale the last auctions scan may lie and still bound the sale's start. */
export const SALE_START_BOUND_MS = 10 * 60_000;

/**
 * The start of a sale first seen in auctions_ended, which names none (a sale whose listing was
 * seen keeps the start the auctions pages gave it):
 * 1. the record's own `start`, when it carries one (only the simulator's history replay does);
 * 2. else the time of the newest auctions scan before the sale, when within 10 minutes of it:
 *    that complete scan did not list the auction, so it was listed after it; the true start lies
 *    between the two, and the sell time is overstated by at most one poll interval;
 * 3. else (no recent scan: first start, or the poller was down) the sale time itself.
 */
export function saleStart(s: Pick<UpstreamSale, 'timestamp' | 'start'>, scans: readonly number[]): number {
  if (s.start !== undefined && s.start <= s.timestamp) return s.start;
  let bound: number | undefined;
  for (const at of scans) if (at <= s.timestamp && (bound === undefined || at > bound)) bound = at;
  return bound !== undefined && s.timestamp - bound <= SALE_START_BOUND_MS ? bound : s.timestamp;
}

export function saleRow(s: UpstreamSale, item: DecodedItem, start: number = s.timestamp): AuctionsTable {
  return {
    uuid: s.auction_id.toLowerCase(),
    ...itemColumns(item),
    item_name: item.name,
    count: item.count,
    seller: s.seller,
    profile_id: s.seller_profile ?? null,
    coop: null,
    start_at: start,
    end_at: s.timestamp,
    starting_bid: s.price,
    highest_bid: s.price,
    bin: s.bin,
    tier: tierFromLore(item.lore),
    category: null,
    item_bytes: compactItemBytes(s.item_bytes),
    state: 'sold',
    last_updated: s.timestamp,
    sold_price: s.price,
    buyer: s.buyer,
    sold_at: s.timestamp,
    // The sale's winning bid is read from these columns (store/auction-encoding.ts withSaleBid).
    buyer_profile: s.buyer_profile === '' ? null : (s.buyer_profile ?? ''),
  };
}

/**
 * The winning bid of a sale as a bid row: stored only when the feed names an empty profile
 * string (otherwise the auction row holds it, see saleRow).
 */
export function saleBid(s: UpstreamSale): BidsTable {
  return {
    auction_uuid: s.auction_id.toLowerCase(),
    amount: s.price,
    bidder: s.buyer,
    profile_id: s.buyer_profile ?? null,
    placed_at: s.timestamp,
  };
}

export { decodeAuctionItem, tierFromLore };
