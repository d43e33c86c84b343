/**
 * How an auction's bulkier columns are stored (migration 013, issue 29): the ingester builds rows
 * with these helpers and the repositories read them back with them, so nothing else sees the
 * stored form.
 *
 * - `item_bytes`, in one of two formats told apart by the first byte:
 *   - gzip (0x1f 0x8b…): upstream's base64 `item_bytes` decoded, i.e. the item's gzipped NBT as
 *     raw bytes: 25 % smaller than the base64 text, and exactly the bytes the item decoder read
 *     (`Buffer.from(…, 'base64')` is what it decodes too). Listings are stored so: compressing
 *     them again would cost the auctions ingester CPU for rows that mostly change or expire. A
 *     listing row carries the base64 text itself; the insert decodes it (store/bulk.ts).
 *   - format 1 (0x01, then raw deflate): the item's NBT deflated with a preset dictionary of
 *     real items' NBT (store/item-dictionary.ts), ~60 % smaller than the gzip (a ~900-byte item
 *     is mostly structure every item shares: key names, lore lines, rarity footers). Sales from
 *     auctions_ended are stored so (also over a listing's gzip), for ~0.1 ms of CPU per sale;
 *     reading one inflates as fast as the gzip. The NBT is the same; the gzip container is not
 *     kept (nothing serves upstream's bytes).
 * - `coop`: the coop members joined by `,`, the seller written as an empty entry (upstream lists
 *   the seller among them; a solo profile's `[seller]` becomes `''`), NULL when there is no coop
 *   list. A list that does not fit that form (an empty member, a member containing `,`, a first
 *   member starting with `[`) is stored as a JSON array, which is also how rows stored before
 *   migration 013 read on PostgreSQL until it converted them.
 * - A sale recorded from auctions_ended keeps its winning bid in the auction row (`buyer`,
 *   `sold_price`, `sold_at` and `buyer_profile`, '' when the feed named no profile) instead of a
 *   row in `bids` that repeated them: `withSaleBid` adds it to the auction's stored bids when
 *   reading, unless one of them has that amount (then, as when it was inserted with
 *   ON CONFLICT DO NOTHING, the stored bid stands). A sale whose feed entry names an empty
 *   profile string still stores its bid (the '' marker could not tell it from none).
 */
import { deflateRawSync, gunzipSync, inflateRawSync } from 'node:zlib';
import { ITEM_DICTIONARY_V1 } from './item-dictionary.ts';
import type { AuctionsTable, BidsTable } from './schema.ts';

/** First byte of format 1 (raw deflate with ITEM_DICTIONARY_V1); gzip starts with 0x1f. */
export const ITEM_FORMAT_DICTIONARY_V1 = 0x01;

/** Cap on an item's decompressed NBT (as the ingest decoder's): stored items decoded under it once. */
const MAX_NBT_BYTES = 2 * 1024 * 1024;

/**
 * Upstream's base64 `item_bytes` as a sale stores them: format 1 (the NBT deflated with the
 * preset dictionary); the gzip bytes when they do not inflate or the result would not be smaller.
 */
export function compactItemBytes(base64: string): Buffer {
  const gzip = Buffer.from(base64, 'base64');
  const nbt = gunzipOrNull(gzip);
  if (nbt === null) return gzip;
  const deflated = deflateRawSync(nbt, { dictionary: ITEM_DICTIONARY_V1, chunkSize: 4096 });
  if (deflated.length + 1 >= gzip.length) return gzip;
  const out = Buffer.allocUnsafe(deflated.length + 1);
  out[0] = ITEM_FORMAT_DICTIONARY_V1;
  deflated.copy(out, 1);
  return out;
}

/** The item's NBT (decompressed) from its stored bytes, either format; null when they do not inflate. */
export function itemNbtOf(stored: Uint8Array | null | undefined): Uint8Array | null {
  if (!stored || stored.length < 2) return null;
  if (stored[0] === ITEM_FORMAT_DICTIONARY_V1) {
    try {
      return inflateRawSync(stored.subarray(1), { dictionary: ITEM_DICTIONARY_V1, maxOutputLength: MAX_NBT_BYTES, chunkSize: 4096 });
    } catch {
      return null;
    }
  }
  return gunzipOrNull(stored);
}

function gunzipOrNull(gzip: Uint8Array): Buffer | null {
  if (gzip.length < 18 || gzip[0] !== 0x1f || gzip[1] !== 0x8b) return null;
  try {
    return gunzipSync(gzip, { maxOutputLength: MAX_NBT_BYTES, chunkSize: 4096 });
  } catch {
    return null;
  }
}

/** The stored form of a coop list (see the module comment). */
export function coopColumn(coop: readonly string[] | null | undefined, seller: string): string | null {
  if (!coop || coop.length === 0) return null;
  let compact = true;
  for (const m of coop) {
    if (m === '' || m.includes(',')) {
      compact = false;
      break;
    }
  }
  if (compact && coop[0]!.startsWith('[')) compact = false;
  if (!compact) return JSON.stringify(coop);
  let out = '';
  for (let i = 0; i < coop.length; i++) {
    if (i > 0) out += ',';
    if (coop[i] !== seller) out += coop[i];
  }
  return out;
}

/** The coop list of a stored row: [] when there is none. */
export function coopOf(stored: unknown, seller: string): string[] {
  if (stored === null || stored === undefined) return [];
  if (Array.isArray(stored)) return stored as string[];
  if (typeof stored !== 'string') return [];
  if (stored.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(stored);
      return Array.isArray(parsed) ? (parsed as string[]) : [];
    } catch {
      return [];
    }
  }
  return stored.split(',').map((m) => (m === '' ? seller : m));
}

/** The columns of an auction row that hold a sale's winning bid. */
export type SaleColumns = Pick<AuctionsTable, 'uuid' | 'state' | 'sold_price' | 'buyer' | 'sold_at' | 'buyer_profile'>;

/**
 * An auction's bids as read: its stored bids (lowest first, numbers as numbers) and, for a sale
 * recorded from auctions_ended, the winning bid kept in the row, unless a stored bid has its amount.
 */
export function withSaleBid(stored: readonly BidsTable[], sale: SaleColumns | undefined): BidsTable[] {
  const bids = stored.map((b) => ({ ...b, amount: Number(b.amount), placed_at: Number(b.placed_at) }));
  if (!sale || sale.state !== 'sold' || sale.buyer_profile === null || sale.sold_price === null || sale.buyer === null || sale.sold_at === null) return bids;
  const amount = Number(sale.sold_price);
  if (bids.some((b) => b.amount === amount)) return bids;
  const bid: BidsTable = { auction_uuid: sale.uuid, amount, bidder: sale.buyer, profile_id: sale.buyer_profile === '' ? null : sale.buyer_profile, placed_at: Number(sale.sold_at) };
  const at = bids.findIndex((b) => b.amount > amount);
  bids.splice(at < 0 ? bids.length : at, 0, bid);
  return bids;
}
