/**
 * Wire shapes of the auction endpoints (api-shapes.md §2): TypeBox schemas for the OpenAPI
 * document, and the functions that turn sold records into them (SaveAuctions, which need the
 * item's NBT, come shaped from services/auctions.ts through domain/auction-wire.ts).
 */
import { Type, type Static } from 'typebox';
import { soldAuctionWire } from '../domain/auction-wire.ts';
import { priceOf } from '../domain/filters.ts';
import { CATEGORIES, REFORGES, TIERS } from '../domain/wire-enums.ts';
import { isoTime } from '../http/schemas.ts';
import type { AuctionRecord, ItemSaleRow } from '../domain/auction-records.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const StringEnum = (values: readonly string[], description: string) => Type.Unsafe<string>({ type: 'string', enum: [...values], description });
const Reforge = StringEnum(REFORGES, 'the established `Reforge` enum, spelt exactly so (`None` without a reforge, `Unknown` for one the enum lacks)');
const Category = StringEnum(CATEGORIES, 'the established `Category` enum (`UNKNOWN` when the auction named none, e.g. sales seen only in auctions_ended)');
const Tier = StringEnum(TIERS, 'the established `Tier` enum');

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
  uuid: Nullable(Type.String({ description: 'auction uuid, 32 hex (null only inside a lowball offer: that item is not an auction)' })),
  count: Type.Integer(),
  startingBid: Type.Integer(),
  tag: Type.String(),
  itemName: Type.String(),
  start: DateTime,
  end: DateTime,
  auctioneerId: Nullable(Type.String()),
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
  itemCreatedAt: Type.String({ format: 'date-time', description: 'when the item was created; 0001-01-01T00:00:00.000Z when the item carries no creation time (books, potions, runes)' }),
  reforge: Reforge,
  category: Category,
  tier: Tier,
  bin: Type.Boolean(),
  flatNbt: Type.Record(Type.String(), Type.String(), { description: 'flattened NBT, every value a string, with the item\'s `uid` (last 12 hex of its uuid) and dashed `uuid` when it has one' }),
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
    id: Type.Integer({ description: "stable numeric id of the sale, derived from the auction uuid (its first 13 hex digits without the version digit)" }),
    uuid: Type.String(),
    tag: Type.String(),
    itemName: Type.String(),
    auctioneerId: Nullable(Type.String()),
    startingBid: Type.Integer(),
    highestBidAmount: Type.Integer({ description: 'the sale price' }),
    start: Type.String({ format: 'date-time', description: "the auction's start; for a sale first seen in auctions_ended, derived (docs/compatibility.md)" }),
    end: DateTime,
    bin: Type.Boolean(),
    count: Type.Integer(),
    enchantments: Type.Array(Type.Ref('Enchantment')),
    shortItemBytes: Type.Null(),
    flattenedNbt: Type.Record(Type.String(), Type.String(), { description: "flattened NBT with the item's `uid`" }),
    tier: Tier,
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

export function soldAuction(r: AuctionRecord): Static<typeof SoldAuction> {
  return soldAuctionWire(r);
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

/** Previews with the sellers' names skymarket has recorded. */
export function auctionPreviews(previews: { records: readonly AuctionRecord[]; names: ReadonlyMap<string, string> }): Array<Static<typeof AuctionPreview>> {
  return previews.records.map((r) => auctionPreview(r, previews.names));
}

export function itemSell(s: ItemSaleRow, withTag: boolean): Static<typeof ItemSell> {
  return { seller: s.seller, uuid: s.uuid, buyer: s.buyer, itemTag: withTag ? s.tag : null, highestBid: s.price, timestamp: isoTime(s.at) };
}
