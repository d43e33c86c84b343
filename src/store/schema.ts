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

export interface Database {
  feeds: FeedsTable;
  items: ItemsTable;
}
