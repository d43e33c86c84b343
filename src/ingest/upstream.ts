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
  /** not in Hypixel's feed; the simulator's history replay carries the listing start (records.ts saleStart) */
  start: Type.Optional(Ms),
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

/**
 * check.product.Check, answered by a hand-written check first: every snapshot validates 1,500
 * products of ~60 levels, and TypeBox's code (an `every` callback per level) was the largest
 * single cost of ingesting one. The fast check only accepts what the schema accepts (plain
 * objects with finite numbers ≥ 0 in every level, a 1–100 character id, a finite quick status);
 * anything it does not accept is decided by TypeBox, so the answer is always the schema's.
 */
export function isProduct(value: unknown): value is UpstreamProduct {
  return fastProduct(value) || check.product.Check(value);
}

function plain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fastProduct(value: unknown): boolean {
  if (!plain(value)) return false;
  const id = value.product_id;
  // Code units bound code points: 1–100 units means 1–100 code points.
  if (typeof id !== 'string' || id.length < 1 || id.length > 100) return false;
  if (!fastLevels(value.sell_summary) || !fastLevels(value.buy_summary)) return false;
  const q = value.quick_status;
  return (
    plain(q) &&
    Number.isFinite(q.sellPrice) &&
    Number.isFinite(q.sellVolume) &&
    Number.isFinite(q.sellMovingWeek) &&
    Number.isFinite(q.sellOrders) &&
    Number.isFinite(q.buyPrice) &&
    Number.isFinite(q.buyVolume) &&
    Number.isFinite(q.buyMovingWeek) &&
    Number.isFinite(q.buyOrders)
  );
}

function fastLevels(levels: unknown): boolean {
  if (!Array.isArray(levels)) return false;
  for (let i = 0; i < levels.length; i++) {
    const level: unknown = levels[i];
    if (!plain(level)) return false;
    const { amount, pricePerUnit, orders } = level;
    // `x >= 0 && x !== Infinity` is Number.isFinite(x) && x >= 0 (NaN fails the comparison).
    if (!(typeof amount === 'number' && amount >= 0 && amount !== Infinity)) return false;
    if (!(typeof pricePerUnit === 'number' && pricePerUnit >= 0 && pricePerUnit !== Infinity)) return false;
    if (!(typeof orders === 'number' && orders >= 0 && orders !== Infinity)) return false;
  }
  return true;
}
