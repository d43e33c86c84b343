/**
 * Kysely table types: the shape of every table as the repositories see it.
 * Timestamps are UTC epoch milliseconds (int8 on PostgreSQL, parsed to number).
 */
export interface FeedsTable {
  /** feed name: 'auctions', 'auctions_ended', 'bazaar', 'items', 'election' */
  name: string;
  /** upstream `lastUpdated` of the newest stored data */
  last_updated: number;
  /** when skymarket stored it */
  stored_at: number;
  /** how many records that generation or snapshot held */
  records: number;
  /** 'upstream' or 'simulator' */
  source: string;
}

export interface ItemsTable {
  tag: string;
  name: string;
  tier: string | null;
  category: string | null;
  npc_sell_price: number | null;
  updated_at: number;
}

export type AuctionState = 'active' | 'sold' | 'expired';

export interface AuctionsTable {
  /** auction uuid, 32 hex without dashes */
  uuid: string;
  tag: string;
  item_name: string;
  count: number;
  seller: string;
  profile_id: string | null;
  /** JSON array of coop member uuids */
  coop: string | null;
  /** null for sales first seen in auctions_ended */
  start_at: number | null;
  end_at: number;
  starting_bid: number;
  highest_bid: number;
  /** boolean; 0/1 on SQLite */
  bin: boolean | number;
  tier: string | null;
  category: string | null;
  reforge: string | null;
  /** item uuid, 32 hex without dashes, lower case */
  item_uuid: string | null;
  /** last 12 hex characters of the item uuid */
  item_uid: string | null;
  item_created_at: number | null;
  /** JSON object enchantment → level */
  enchantments: string | Record<string, number> | null;
  /** JSON object of flattened NBT, all values strings */
  flat_nbt: string | Record<string, string> | null;
  /** upstream base64 gzip NBT */
  item_bytes: string;
  state: AuctionState;
  /** upstream last_updated (or the sale time for ended-only rows) */
  last_updated: number;
  sold_price: number | null;
  buyer: string | null;
  sold_at: number | null;
}

export interface BidsTable {
  auction_uuid: string;
  amount: number;
  bidder: string;
  profile_id: string | null;
  placed_at: number;
}

export interface BazaarSnapshotsTable {
  product_id: string;
  /** upstream lastUpdated of the snapshot */
  ts: number;
  /** instant-buy price: the lowest sell offer */
  buy_price: number;
  /** instant-sell price: the highest buy order */
  sell_price: number;
  buy_volume: number;
  sell_volume: number;
  buy_moving_week: number;
  sell_moving_week: number;
  buy_orders: number;
  sell_orders: number;
  /** encoded order book (see domain/bazaar-book.ts); null = same as the product's previous snapshot */
  book: Uint8Array | null;
}

export interface ElectionsTable {
  year: number;
  mayor_key: string;
  mayor_name: string;
  payload: string | Record<string, unknown>;
  updated_at: number;
}

export interface Database {
  feeds: FeedsTable;
  items: ItemsTable;
  auctions: AuctionsTable;
  bids: BidsTable;
  bazaar_snapshots: BazaarSnapshotsTable;
  elections: ElectionsTable;
}
