/**
 * Upstream (Hypixel API v2) wire types served by the simulator, and their serialisation.
 * Field order in the interfaces is the order real responses use, and objects are built
 * in that order so `JSON.stringify` reproduces it.
 */

/** A bid on `/v2/skyblock/auctions`. */
export interface HypixelBid {
  auction_id: string;
  bidder: string;
  profile_id: string;
  amount: number;
  timestamp: number;
}

/** One active auction on `/v2/skyblock/auctions`. */
export interface HypixelAuction {
  uuid: string;
  auctioneer: string;
  profile_id: string;
  coop: string[];
  start: number;
  end: number;
  item_name: string;
  item_lore: string;
  extra: string;
  category: string;
  tier: string;
  starting_bid: number;
  item_bytes: string;
  claimed: boolean;
  claimed_bidders: string[];
  highest_bid_amount: number;
  last_updated: number;
  bin: boolean;
  bids: HypixelBid[];
  item_uuid?: string;
}

/** One sale on `/v2/skyblock/auctions_ended`. */
export interface HypixelEndedAuction {
  auction_id: string;
  seller: string;
  seller_profile: string;
  buyer: string;
  timestamp: number;
  price: number;
  bin: boolean;
  item_bytes: string;
  /**
   * Not in Hypixel's feed: only the simulator's history replay (`backfill`) sets it, with the
   * listing start a live poller would have read from the auctions pages before the sale.
   */
  start?: number;
}

export interface AuctionsPageResponse {
  success: true;
  page: number;
  totalPages: number;
  totalAuctions: number;
  lastUpdated: number;
  auctions: HypixelAuction[];
}

export interface AuctionsEndedResponse {
  success: true;
  lastUpdated: number;
  auctions: HypixelEndedAuction[];
}

/** One order-book level: `sell_summary` = buy orders (price DESC), `buy_summary` = sell offers (price ASC). */
export interface BazaarLevel {
  amount: number;
  pricePerUnit: number;
  orders: number;
}

export interface BazaarQuickStatus {
  productId: string;
  sellPrice: number;
  sellVolume: number;
  sellMovingWeek: number;
  sellOrders: number;
  buyPrice: number;
  buyVolume: number;
  buyMovingWeek: number;
  buyOrders: number;
}

export interface BazaarProduct {
  product_id: string;
  sell_summary: BazaarLevel[];
  buy_summary: BazaarLevel[];
  quick_status: BazaarQuickStatus;
}

export interface BazaarResponse {
  success: true;
  lastUpdated: number;
  products: Record<string, BazaarProduct>;
}

export interface ItemsResponse {
  success: true;
  lastUpdated: number;
  items: Array<{ id: string; material: string; name: string; tier?: string; category?: string; npc_sell_price?: number }>;
}

export interface ElectionPerk {
  name: string;
  description: string;
  minister?: boolean;
}

export interface ElectionCandidate {
  key: string;
  name: string;
  perks: ElectionPerk[];
  votes: number;
}

export interface ElectionResponse {
  success: true;
  lastUpdated: number;
  mayor: {
    key: string;
    name: string;
    perks: ElectionPerk[];
    minister: { key: string; name: string; perk: ElectionPerk };
    election: { year: number; candidates: ElectionCandidate[] };
  };
  current?: { year: number; candidates: ElectionCandidate[] };
}

/** Error body the real API uses. */
export interface HypixelError {
  success: false;
  cause: string;
}

// Auctions are served many times per generation; their JSON is cached until the auction changes.
const jsonCache = new WeakMap<HypixelAuction, string>();

/** JSON of one auction, cached per object. */
export function serializeAuction(a: HypixelAuction): string {
  let s = jsonCache.get(a);
  if (s === undefined) {
    s = JSON.stringify(a);
    jsonCache.set(a, s);
  }
  return s;
}

/** Drops the cached JSON after an auction was mutated (a bid). */
export function invalidateAuction(a: HypixelAuction): void {
  jsonCache.delete(a);
}

/**
 * Body of one auctions page, built by joining cached auction JSON.
 * `transform` may replace an auction (e.g. corrupt its item_bytes) for this body only.
 */
export function auctionsPageBody(
  auctions: readonly HypixelAuction[],
  page: number,
  pageSize: number,
  lastUpdated: number,
  transform?: (a: HypixelAuction) => HypixelAuction,
): string {
  const totalPages = Math.max(1, Math.ceil(auctions.length / pageSize));
  const from = page * pageSize;
  const to = Math.min(auctions.length, from + pageSize);
  const parts: string[] = new Array(Math.max(0, to - from));
  for (let i = from; i < to; i++) {
    const a = auctions[i] as HypixelAuction;
    const t = transform ? transform(a) : a;
    parts[i - from] = t === a ? serializeAuction(a) : JSON.stringify(t);
  }
  return `{"success":true,"page":${page},"totalPages":${totalPages},"totalAuctions":${auctions.length},"lastUpdated":${lastUpdated},"auctions":[${parts.join(',')}]}`;
}
