/**
 * Auctions in the established wire shapes (api-shapes.md §2.1 SaveAuction, §2.3 SoldAuction):
 * enum values spelt as the established schema spells them, every required field present
 * (`itemCreatedAt`, `start` never null), `flatNbt` with the item's `uid` and `uuid`. Built from
 * plain facts, so stored auctions and items offered in-game (lowball offers) come out alike.
 * Pure: no I/O.
 */
import { enchantmentColor } from './enchantments.ts';
import { auctionExtraAttributesOfNbt, ItemDecodeError } from './nbt.ts';
import { UNKNOWN_TIME } from './player-data.ts';
import { enchantmentBookTag } from './tags.ts';
import { categoryName, enchantmentTypeName, reforgeName, tierName } from './wire-enums.ts';

/** What an auction is made of: a stored auction (the store's AuctionRecord has these fields) or an item offered for a price. */
export interface AuctionFacts {
  /** auction uuid, 32 hex; null for an item that is not an auction */
  uuid: string | null;
  tag: string;
  itemName: string;
  count: number;
  seller: string | null;
  profileId: string | null;
  coop: readonly string[];
  /** epoch ms; null only on sales stored before every sale had a start (see `auctionStart`) */
  start: number | null;
  end: number;
  startingBid: number;
  highestBid: number;
  soldPrice: number | null;
  soldAt: number | null;
  bin: boolean;
  /** rarity as stored (upstream's tier, or read from the lore) */
  tier: string | null;
  /** upstream's auction category (`armor`, `misc` …) */
  category: string | null;
  /** the item's modifier id (`ancient`), or null */
  reforge: string | null;
  /** last 12 hex characters of the item uuid */
  itemUid: string | null;
  itemCreatedAt: number | null;
  enchantments: Readonly<Record<string, number>>;
  flatNbt: Readonly<Record<string, string>>;
}

export interface BidFacts {
  bidder: string | null;
  profileId: string | null;
  amount: number;
  /** epoch ms */
  at: number;
}

export interface NbtDataWire {
  data?: Record<string, unknown>;
}

/** `nbtData` from the stored item's NBT: `{ data: ExtraAttributes }`, `{}` when absent or undecodable. */
export function nbtDataOf(itemNbt: Uint8Array | null | undefined): NbtDataWire {
  if (!itemNbt) return {};
  try {
    return { data: auctionExtraAttributesOfNbt(itemNbt) };
  } catch (err) {
    if (err instanceof ItemDecodeError) return {};
    throw err;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * When the auction started. Every sale stored since skymarket 0.1 has a start (observed, or
 * derived at ingestion, see ingest/records.ts `saleStart`); a sale stored before that from
 * auctions_ended alone has none, and reads as having started when it sold.
 */
export function auctionStart(a: Pick<AuctionFacts, 'start' | 'soldAt' | 'end'>): number {
  return a.start ?? a.soldAt ?? a.end;
}

/**
 * `itemCreatedAt` on the wire: the item's creation time, or, when the item carries none (books,
 * potions, runes and other stackables), what the established service sends for a missing
 * DateTime: 0001-01-01T00:00:00Z.
 */
export function itemCreatedAtWire(ms: number | null): string {
  return ms === null ? UNKNOWN_TIME : iso(ms);
}

/**
 * The flattened NBT as the established service sends it: the stored values plus the item's
 * lookup id `uid` (last 12 hex of its uuid, what `/api/auctions/uid/{uid}/sold` takes) and its
 * full dashed `uuid` when known.
 */
export function flatNbtWire(flat: Readonly<Record<string, string>>, itemUid: string | null, itemUuid?: string | null): Record<string, string> {
  // Copied key by key: a sold page copies 1,000 of these, and a spread copy of objects fresh from
  // JSON.parse cost about twice as much, and made the page's JSON.stringify slower too.
  const out: Record<string, string> = {};
  for (const key in flat) out[key] = flat[key]!;
  if (itemUid) out['uid'] = itemUid;
  if (itemUuid) out['uuid'] = itemUuid;
  return out;
}

/** The item uuid inside decoded NBT (`ExtraAttributes.uuid`), if any. */
export function itemUuidOf(nbtData: NbtDataWire): string | null {
  const uuid = nbtData.data?.['uuid'];
  return typeof uuid === 'string' ? uuid : null;
}

/**
 * A sale's numeric id: the first 13 hex digits of its auction uuid, the version digit skipped
 * (52 random bits, below 2^53). Stable (the same auction has the same id on every instance and
 * after every re-ingestion) and costs no storage. Not guaranteed unique: among n sales about
 * n²/2^53 pairs share an id (one pair in a hundred million sales; 10^-4 among a million).
 */
export function saleId(auctionUuid: string): number {
  const hex = auctionUuid.length === 32 ? auctionUuid : auctionUuid.replace(/-/g, '');
  // 12 digits, then the 14th: 2^48 · 16 + 15 < 2^53, exact in a double; no joined string to parse.
  return Number.parseInt(hex.slice(0, 12), 16) * 16 + Number.parseInt(hex.charAt(13), 16);
}

export function bidWire(b: BidFacts) {
  return { bidder: b.bidder, profileId: b.profileId, amount: b.amount, timestamp: iso(b.at) };
}

/**
 * Enchantments as the established `Enchantment` list: `type` as its EnchantmentType enum spells
 * them (lower case: some items store `PROSECUTE`; renamed ids under their new name; `unknown`
 * for one the enum lacks).
 */
export function enchantList(e: Readonly<Record<string, number>>): Array<{ type: string; level: number }> {
  return Object.entries(e).map(([type, level]) => ({ type: enchantmentTypeName(type), level }));
}

/** SaveAuction (key order as on the established wire: enchantments first, flatNbt last). */
export function saveAuctionWire(a: AuctionFacts, bids: readonly BidFacts[], nbtData: NbtDataWire, itemUuid: string | null = itemUuidOf(nbtData)) {
  return {
    enchantments: enchantList(a.enchantments),
    uuid: a.uuid,
    count: a.count,
    startingBid: a.startingBid,
    tag: a.tag,
    itemName: a.itemName,
    start: iso(auctionStart(a)),
    end: iso(a.end),
    auctioneerId: a.seller,
    profileId: a.profileId,
    coop: a.coop.length ? [...a.coop] : null,
    coopMembers: null,
    highestBidAmount: a.soldPrice ?? a.highestBid,
    bids: bids.map(bidWire),
    anvilUses: Number(a.flatNbt['anvil_uses'] ?? 0) || 0,
    nbtData,
    itemCreatedAt: itemCreatedAtWire(a.itemCreatedAt),
    reforge: reforgeName(a.reforge),
    category: categoryName(a.category),
    tier: tierName(a.tier),
    bin: a.bin,
    flatNbt: flatNbtWire(a.flatNbt, a.itemUid, itemUuid),
  };
}

export type SaveAuctionWire = ReturnType<typeof saveAuctionWire>;

/**
 * ColorSaveAuction: a SaveAuction whose enchantments carry their colour and coin value (`values`:
 * enchantment book tag → latest bazaar buy price), most valuable first.
 */
export function colorSaveAuctionWire(a: AuctionFacts, bids: readonly BidFacts[], nbtData: NbtDataWire, values: ReadonlyMap<string, number>) {
  const base = saveAuctionWire(a, bids, nbtData);
  // Colour and value from the id the item stores (the book on the bazaar has that name).
  const enchantments = Object.entries(a.enchantments)
    .map(([id, level]) => ({
      type: enchantmentTypeName(id),
      level,
      color: enchantmentColor(id.toLowerCase(), level),
      value: Math.round(values.get(enchantmentBookTag(id.toLowerCase(), level)) ?? 0),
    }))
    .sort((x, y) => y.value - x.value || (x.type < y.type ? -1 : 1));
  return { ...base, enchantments };
}

/** SoldAuction: `flattenedNbt` carries `uid` (the full item uuid would need every sale's item decoded). */
export function soldAuctionWire(a: AuctionFacts & { uuid: string }) {
  return {
    id: saleId(a.uuid),
    uuid: a.uuid,
    tag: a.tag,
    itemName: a.itemName,
    auctioneerId: a.seller,
    startingBid: a.startingBid,
    highestBidAmount: a.soldPrice ?? a.highestBid,
    start: iso(auctionStart(a)),
    end: iso(a.soldAt ?? a.end),
    bin: a.bin,
    count: a.count,
    enchantments: enchantList(a.enchantments),
    shortItemBytes: null,
    flattenedNbt: flatNbtWire(a.flatNbt, a.itemUid),
    tier: tierName(a.tier),
  };
}
