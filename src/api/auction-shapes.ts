/**
 * Wire shapes of the auction endpoints (api-shapes.md §2): TypeBox schemas for the
 * OpenAPI document and serialisation, and the functions that turn store records into them.
 */
import { Type, type Static } from 'typebox';
import { enchantmentColor } from '../domain/enchantments.ts';
import { priceOf } from '../domain/filters.ts';
import { auctionExtraAttributesOfNbt, ItemDecodeError } from '../domain/nbt.ts';
import { isoTime } from '../http/schemas.ts';
import type { AuctionRecord, ItemSaleRow } from '../store/repositories/auction-queries.ts';
import type { BidsTable } from '../store/schema.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

export const Enchantment = Type.Object({ type: Type.String(), level: Type.Integer() }, { $id: 'Enchantment' });
export const ColorEnchant = Type.Object(
  {
    type: Type.String(),
    level: Type.Integer(),
    color: Nullable(Type.String()),
    value: Type.Integer({ description: 'coin value of the enchantment book (latest bazaar buy price), 0 when unknown' }),
  },
  { $id: 'ColorEnchant' },
);
export const Bid = Type.Object(
  { bidder: Nullable(Type.String()), profileId: Nullable(Type.String()), amount: Type.Integer(), timestamp: DateTime },
  { $id: 'SaveBids' },
);

const auctionFields = {
  uuid: Type.String(),
  count: Type.Integer(),
  startingBid: Type.Integer(),
  tag: Type.String(),
  itemName: Type.String(),
  start: Nullable(DateTime),
  end: DateTime,
  auctioneerId: Type.String(),
  profileId: Nullable(Type.String()),
  coop: Nullable(Type.Array(Type.String())),
  coopMembers: Type.Null(),
  highestBidAmount: Type.Integer(),
  bids: Type.Array(Type.Ref('SaveBids')),
  anvilUses: Type.Integer(),
  nbtData: Type.Object(
    {
      data: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: "the item's ExtraAttributes as nested JSON, every key as stored (longs beyond 2^53 as decimal strings)",
        }),
      ),
    },
    { description: 'the decoded item NBT; `{}` when the stored item bytes cannot be decoded' },
  ),
  itemCreatedAt: Nullable(DateTime),
  reforge: Type.String({ description: '"None" or the reforge, first letter upper case' }),
  category: Type.String(),
  tier: Type.String(),
  bin: Type.Boolean(),
  flatNbt: Type.Record(Type.String(), Type.String()),
};

export const SaveAuction = Type.Object(
  { enchantments: Type.Array(Type.Ref('Enchantment')), ...auctionFields },
  { $id: 'SaveAuction', description: 'An auction (api-shapes §2.1)' },
);
export const ColorSaveAuction = Type.Object(
  { enchantments: Type.Array(Type.Ref('ColorEnchant')), ...auctionFields },
  { $id: 'ColorSaveAuction', description: 'An auction with enchantment colours and values (api-shapes §2.2)' },
);
export const SoldAuction = Type.Object(
  {
    uuid: Type.String(),
    tag: Type.String(),
    itemName: Type.String(),
    auctioneerId: Type.String(),
    startingBid: Type.Integer(),
    highestBidAmount: Type.Integer({ description: 'the sale price' }),
    start: Nullable(DateTime),
    end: DateTime,
    bin: Type.Boolean(),
    count: Type.Integer(),
    enchantments: Type.Array(Type.Ref('Enchantment')),
    shortItemBytes: Type.Null(),
    flattenedNbt: Type.Record(Type.String(), Type.String()),
    tier: Type.String(),
  },
  { $id: 'SoldAuction' },
);
export const AuctionPreview = Type.Object(
  {
    uuid: Type.String(),
    seller: Type.String(),
    playerName: Nullable(Type.String({ description: "the seller's name when skymarket has seen it (mod channel, /api/data/playerName), else null" })),
    price: Type.Integer({ description: 'highest bid, else starting bid' }),
    end: DateTime,
  },
  { $id: 'AuctionPreview' },
);
export const ItemSell = Type.Object(
  {
    seller: Nullable(Type.String()),
    uuid: Type.String({ description: 'auction uuid' }),
    buyer: Nullable(Type.String()),
    itemTag: Nullable(Type.String()),
    highestBid: Type.Integer(),
    timestamp: DateTime,
  },
  { $id: 'ItemSell' },
);
export const BinResponse = Type.Object(
  { lowest: Type.Integer(), uuid: Nullable(Type.String()), secondLowest: Type.Integer() },
  { $id: 'BinResponse' },
);
export const SupplyElement = Type.Object(
  {
    tag: Type.String(),
    supply: Type.Integer({ description: 'active listings' }),
    median: Type.Integer({ description: 'median unit price of the last 7 days of sales' }),
    lbinData: Type.Ref('BinResponse'),
    volume: Type.Number({ description: 'sales per 24 h (last 7 days)' }),
  },
  { $id: 'SupplyElement' },
);

export const SHARED_AUCTION_SCHEMAS = [Enchantment, ColorEnchant, Bid, SaveAuction, ColorSaveAuction, SoldAuction, AuctionPreview, ItemSell, BinResponse, SupplyElement];

export type SaveAuctionWire = Static<typeof SaveAuction>;
type BidWire = Static<typeof Bid>;

function reforgeName(reforge: string | null): string {
  if (!reforge) return 'None';
  return reforge.charAt(0).toUpperCase() + reforge.slice(1);
}

function enchantList(e: Readonly<Record<string, number>>): Array<{ type: string; level: number }> {
  return Object.entries(e).map(([type, level]) => ({ type, level }));
}

export function bidWire(b: BidsTable): BidWire {
  return { bidder: b.bidder, profileId: b.profile_id, amount: Number(b.amount), timestamp: isoTime(Number(b.placed_at)) };
}

/** `nbtData` from the stored item's NBT: `{ data: ExtraAttributes }`, `{}` when absent or undecodable. */
export function nbtDataOf(itemNbt: Uint8Array | null | undefined): { data?: Record<string, unknown> } {
  if (!itemNbt) return {};
  try {
    return { data: auctionExtraAttributesOfNbt(itemNbt) };
  } catch (err) {
    if (err instanceof ItemDecodeError) return {};
    throw err;
  }
}

/** SaveAuction from a record; bids when known (lists from the view pass []); `nbtData` from the item's NBT when given. */
export function saveAuction(r: AuctionRecord, bids: readonly BidsTable[] = [], itemNbt?: Uint8Array | null): SaveAuctionWire {
  return {
    enchantments: enchantList(r.enchantments),
    uuid: r.uuid,
    count: r.count,
    startingBid: r.startingBid,
    tag: r.tag,
    itemName: r.itemName,
    start: r.start === null ? null : isoTime(r.start),
    end: isoTime(r.end),
    auctioneerId: r.seller,
    profileId: r.profileId,
    coop: r.coop.length ? r.coop : null,
    coopMembers: null,
    highestBidAmount: r.soldPrice ?? r.highestBid,
    bids: bids.map(bidWire),
    anvilUses: Number(r.flatNbt['anvil_uses'] ?? 0) || 0,
    nbtData: nbtDataOf(itemNbt),
    itemCreatedAt: r.itemCreatedAt === null ? null : isoTime(r.itemCreatedAt),
    reforge: reforgeName(r.reforge),
    category: r.category ?? 'UNKNOWN',
    tier: r.tier ?? 'UNKNOWN',
    bin: r.bin,
    flatNbt: r.flatNbt,
  };
}

/** ColorSaveAuction: enchantments with colour and coin value, most valuable first. */
export function colorSaveAuction(r: AuctionRecord, bids: readonly BidsTable[], values: ReadonlyMap<string, number>, itemNbt?: Uint8Array | null) {
  const base = saveAuction(r, bids, itemNbt);
  const enchantments = Object.entries(r.enchantments)
    .map(([type, level]) => ({
      type,
      level,
      color: enchantmentColor(type, level),
      value: Math.round(values.get(enchantBookTag(type, level)) ?? 0),
    }))
    .sort((a, b) => b.value - a.value || (a.type < b.type ? -1 : 1));
  return { ...base, enchantments };
}

/** Bazaar product of an enchantment book: ENCHANTMENT_<NAME>_<LEVEL>. */
export function enchantBookTag(name: string, level: number): string {
  return `ENCHANTMENT_${name.toUpperCase()}_${level}`;
}

export function soldAuction(r: AuctionRecord): Static<typeof SoldAuction> {
  return {
    uuid: r.uuid,
    tag: r.tag,
    itemName: r.itemName,
    auctioneerId: r.seller,
    startingBid: r.startingBid,
    highestBidAmount: r.soldPrice ?? r.highestBid,
    start: r.start === null ? null : isoTime(r.start),
    end: isoTime(r.soldAt ?? r.end),
    bin: r.bin,
    count: r.count,
    enchantments: enchantList(r.enchantments),
    shortItemBytes: null,
    flattenedNbt: r.flatNbt,
    tier: r.tier ?? 'UNKNOWN',
  };
}

/** `names`: seller uuid → player name, for the names skymarket knows. */
export function auctionPreview(r: AuctionRecord, names?: ReadonlyMap<string, string>): Static<typeof AuctionPreview> {
  return {
    uuid: r.uuid,
    seller: r.seller,
    playerName: names?.get(r.seller) ?? null,
    price: r.soldPrice ?? priceOf(r),
    end: isoTime(r.soldAt ?? r.end),
  };
}

/** Previews with the sellers' names resolved from the names skymarket has recorded. */
export async function auctionPreviews(
  records: readonly AuctionRecord[],
  namesOf: (uuids: readonly string[]) => Promise<Map<string, string>>,
): Promise<Array<Static<typeof AuctionPreview>>> {
  const names = records.length ? await namesOf(records.map((r) => r.seller)) : new Map<string, string>();
  return records.map((r) => auctionPreview(r, names));
}

export function itemSell(s: ItemSaleRow, withTag: boolean): Static<typeof ItemSell> {
  return { seller: s.seller, uuid: s.uuid, buyer: s.buyer, itemTag: withTag ? s.tag : null, highestBid: s.price, timestamp: isoTime(s.at) };
}
