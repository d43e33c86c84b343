/**
 * Upstream records → rows. Decoding happens here (base64 → gzip → NBT via domain/nbt);
 * a blob that does not decode throws ItemDecodeError for the caller to count and skip.
 */
import { decodeAuctionItem, type DecodedItem } from '../domain/nbt.ts';
import { tierFromLore } from '../domain/wire-enums.ts';
import { coopColumn, compactItemBytes, itemBytesColumn } from '../store/auction-encoding.ts';
import type { AuctionsTable, BidsTable } from '../store/schema.ts';
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
    enchantments: Object.keys(item.enchantments).length ? item.enchantments : null,
    flat_nbt: item.flatNbt,
  };
}

export function listingRow(a: UpstreamAuction, item: DecodedItem): AuctionsTable {
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
    item_bytes: itemBytesColumn(a.item_bytes),
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

export function saleRow(s: UpstreamSale, item: DecodedItem): AuctionsTable {
  return {
    uuid: s.auction_id.toLowerCase(),
    ...itemColumns(item),
    item_name: item.name,
    count: item.count,
    seller: s.seller,
    profile_id: s.seller_profile ?? null,
    coop: null,
    start_at: null,
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
