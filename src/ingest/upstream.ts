/**
 * Shapes of Hypixel API v2 payloads that ingestion relies on. Upstream data is
 * untrusted: envelopes are checked whole, records one by one, and a record that
 * fails its check is counted and skipped, never fatal.
 */
import { Compile } from 'typebox/compile';
import { Type, type Static } from 'typebox';

const Hex32 = Type.String({ pattern: '^[0-9a-fA-F]{32}$' });
const Ms = Type.Number({ minimum: 0 });
const Coins = Type.Number({ minimum: 0 });

export const UpstreamBid = Type.Object({
  auction_id: Type.String(),
  bidder: Type.String(),
  profile_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  amount: Coins,
  timestamp: Ms,
});

export const UpstreamAuction = Type.Object({
  uuid: Hex32,
  auctioneer: Type.String({ minLength: 1 }),
  profile_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  coop: Type.Optional(Type.Array(Type.String())),
  start: Ms,
  end: Ms,
  item_name: Type.String(),
  category: Type.Optional(Type.String()),
  tier: Type.Optional(Type.String()),
  starting_bid: Coins,
  item_bytes: Type.String({ minLength: 1 }),
  highest_bid_amount: Type.Optional(Coins),
  last_updated: Type.Optional(Ms),
  bin: Type.Optional(Type.Boolean()),
  bids: Type.Optional(Type.Array(UpstreamBid)),
  item_uuid: Type.Optional(Type.String()),
});
export type UpstreamAuction = Static<typeof UpstreamAuction>;

export const AuctionPage = Type.Object({
  success: Type.Literal(true),
  page: Type.Integer({ minimum: 0 }),
  totalPages: Type.Integer({ minimum: 0 }),
  totalAuctions: Type.Integer({ minimum: 0 }),
  lastUpdated: Ms,
  auctions: Type.Array(Type.Unknown()),
});
export type AuctionPage = Static<typeof AuctionPage>;

export const UpstreamSale = Type.Object({
  auction_id: Hex32,
  seller: Type.String({ minLength: 1 }),
  seller_profile: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  buyer: Type.String(),
  buyer_profile: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  timestamp: Ms,
  price: Coins,
  bin: Type.Boolean(),
  item_bytes: Type.String({ minLength: 1 }),
});
export type UpstreamSale = Static<typeof UpstreamSale>;

export const EndedPage = Type.Object({
  success: Type.Literal(true),
  lastUpdated: Ms,
  auctions: Type.Array(Type.Unknown()),
});

const Summary = Type.Array(
  Type.Object({ amount: Type.Number({ minimum: 0 }), pricePerUnit: Type.Number({ minimum: 0 }), orders: Type.Number({ minimum: 0 }) }),
);

export const UpstreamProduct = Type.Object({
  product_id: Type.String({ minLength: 1, maxLength: 100 }),
  sell_summary: Summary,
  buy_summary: Summary,
  quick_status: Type.Object({
    sellPrice: Type.Number(),
    sellVolume: Type.Number(),
    sellMovingWeek: Type.Number(),
    sellOrders: Type.Number(),
    buyPrice: Type.Number(),
    buyVolume: Type.Number(),
    buyMovingWeek: Type.Number(),
    buyOrders: Type.Number(),
  }),
});
export type UpstreamProduct = Static<typeof UpstreamProduct>;

export const BazaarPayload = Type.Object({
  success: Type.Literal(true),
  lastUpdated: Ms,
  products: Type.Record(Type.String(), Type.Unknown()),
});

export const UpstreamItem = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  name: Type.String(),
  tier: Type.Optional(Type.String()),
  category: Type.Optional(Type.String()),
  npc_sell_price: Type.Optional(Type.Number({ minimum: 0 })),
});
export type UpstreamItem = Static<typeof UpstreamItem>;

export const ItemsPayload = Type.Object({
  success: Type.Literal(true),
  lastUpdated: Ms,
  items: Type.Array(Type.Unknown()),
});

export const ElectionPayload = Type.Object({
  success: Type.Literal(true),
  lastUpdated: Ms,
  mayor: Type.Object({
    key: Type.String(),
    name: Type.String(),
    election: Type.Optional(Type.Object({ year: Type.Integer() })),
  }),
});

export const check = {
  auctionPage: Compile(AuctionPage),
  auction: Compile(UpstreamAuction),
  endedPage: Compile(EndedPage),
  sale: Compile(UpstreamSale),
  bazaar: Compile(BazaarPayload),
  product: Compile(UpstreamProduct),
  items: Compile(ItemsPayload),
  item: Compile(UpstreamItem),
  election: Compile(ElectionPayload),
};
