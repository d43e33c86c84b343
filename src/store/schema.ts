/**
 * Kysely table types: the shape of every table as the repositories see it.
 * Timestamps are UTC epoch milliseconds (int8 on PostgreSQL, parsed to number).
 */
import type { Generated } from 'kysely';

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

export type { AuctionState } from '../domain/auction-records.ts';
import type { AuctionState } from '../domain/auction-records.ts';

export interface AuctionsTable {
  /** auction uuid, 32 hex without dashes */
  uuid: string;
  tag: string;
  item_name: string;
  count: number;
  seller: string;
  profile_id: string | null;
  /**
   * coop member uuids, stored compactly (store/auction-encoding.ts: `coopColumn`, `coopOf`):
   * joined by `,` with the seller as an empty entry; NULL = no coop list
   */
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
  /**
   * last 12 hex characters of the item uuid (the item's lookup id). The full item uuid is in
   * the item bytes; migration 013 dropped its column (no reader used it).
   */
  item_uid: string | null;
  item_created_at: number | null;
  /** JSON object enchantment → level */
  enchantments: string | Record<string, number> | null;
  /** JSON object of flattened NBT, all values strings */
  flat_nbt: string | Record<string, string> | null;
  /** the item's gzipped NBT: upstream's base64 `item_bytes` decoded (store/auction-encoding.ts) */
  item_bytes: Uint8Array;
  state: AuctionState;
  /** upstream last_updated (or the sale time for ended-only rows) */
  last_updated: number;
  sold_price: number | null;
  buyer: string | null;
  sold_at: number | null;
  /**
   * Set when auctions_ended recorded the sale (migration 013): the buyer's profile, '' when the
   * feed named none. The sale's winning bid (buyer, price, time, this profile) is then read as a
   * bid of the auction unless a stored bid has that amount; it is no longer stored in `bids`
   * (store/auction-encoding.ts `withSaleBid`).
   */
  buyer_profile: string | null;
}

/**
 * An auction row as the ingester writes it: a listing's `item_bytes` may still be upstream's base64
 * text, which the insert decodes statement by statement (store/bulk.ts). A cold sweep then holds its
 * 60,000 items as strings in the JS heap until the generation is stored, not as 60,000 small native
 * buffers whose freed memory the C allocator kept afterwards (issue 29: ~23 MB of resident memory).
 */
export type AuctionRowWrite = Omit<AuctionsTable, 'item_bytes'> & { item_bytes: Uint8Array | string };

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

/** Products numbered once (migration 010): snapshot rows and keyframes carry `id`. */
export interface BazaarProductsTable {
  id: Generated<number>;
  product_id: string;
}

/**
 * The stored form of a snapshot (migration 010; since migration 011 the recent rows):
 * BazaarSnapshotsTable with the product's number. `book`: null = unchanged since the
 * product's previous row; otherwise a full book or a delta from a keyframe
 * (domain/bazaar-book-delta.ts). Read snapshots through the repositories, which merge recent
 * rows with chunks and resolve deltas.
 */
export interface BazaarSnapshotRowsTable extends Omit<BazaarSnapshotsTable, 'product_id'> {
  product: number;
}

/** One product's snapshot rows of one closed window (migration 011, domain/bazaar-chunk.ts). */
export interface BazaarSnapshotChunksTable {
  product: number;
  /** window start (a multiple of CHUNK_MS), UTC epoch ms */
  start: number;
  /** ts of the window's oldest and newest rows */
  first_ts: number;
  last_ts: number;
  row_count: number;
  payload: Uint8Array;
}

/** Full order books that book deltas refer to, by (product number, ts). */
export interface BazaarBookKeyframesTable {
  product: number;
  ts: number;
  book: Uint8Array;
}

/** A bazaar history rollup row (bazaar_5m, bazaar_2h, bazaar_1d): one product, one bucket. */
export interface BazaarRollupTable {
  product_id: string;
  /** bucket start, UTC epoch ms */
  ts: number;
  /** the bucket's first snapshot: prices, volumes, moving weeks, order counts */
  buy_price: number;
  sell_price: number;
  buy_volume: number;
  sell_volume: number;
  buy_moving_week: number;
  sell_moving_week: number;
  buy_orders: number;
  sell_orders: number;
  /** extremes of the instant-buy and instant-sell prices over the bucket */
  min_buy: number;
  max_buy: number;
  min_sell: number;
  max_sell: number;
  /** 20-second snapshots in the bucket */
  samples: number;
}

export interface BazaarRollupStateTable {
  /** '5m', '2h' or '1d' */
  resolution: string;
  /** every bucket starting before this is rolled up */
  done_until: number;
}

export interface ElectionsTable {
  year: number;
  mayor_key: string;
  mayor_name: string;
  payload: string | Record<string, unknown>;
  updated_at: number;
}

export interface AccountsTable {
  id: Generated<number>;
  name: string | null;
  /** stored tier: free, starter_premium, premium, premium_plus */
  tier: string;
  /** when a paid tier ends (null = never); free after */
  tier_expires_at: number | null;
  /** SHA-256 of the token, hex */
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  /** player uuid, 32 hex without dashes, lower case */
  player_uuid: string;
  profile_uuid: string | null;
  token_hash: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface PartnerTokensTable {
  id: Generated<number>;
  name: string;
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
}

/** An open account-linking challenge: bid exactly `amount` as `player_uuid` before `expires_at`. */
export interface ModLinkChallengesTable {
  account_id: number;
  /** 32 hex, lower case */
  player_uuid: string;
  player_name: string | null;
  amount: number;
  created_at: number;
  expires_at: number;
}

/** An account's verified Minecraft account (one per account). */
export interface ModLinksTable {
  account_id: number;
  player_uuid: string;
  player_name: string | null;
  linked_at: number;
  /** 'bid' (proved by a bid) or 'operator' (linked through the CLI) */
  method: string;
}

/** A player profile a request asked for, and what the ingest poller fetched (migration 016). */
export interface ProfileRequestsTable {
  /** 32 hex, lower case */
  player_uuid: string;
  /** the last time a request asked for a fetch */
  requested_at: number;
  /** the client whose request queued the last fetch (`account:…` or `ip:…`); null from before migration 020 */
  requested_by: string | null;
  /** when the last fetch finished (stored or failed); null before the first */
  fetched_at: number | null;
  /** failed fetches in a row (0 after a success) */
  attempts: Generated<number>;
  /** the last failure in words; null after a success */
  last_error: string | null;
  /** JSON: the player's profiles, trimmed to what the progress filter reads (domain/craft/progress.ts) */
  profiles: string | null;
}

export interface PlayerStateTable {
  player_uuid: string;
  profile_uuid: string | null;
  /** JSON: the merged extracted state (see domain/player-state.ts) */
  state: string;
  updated_at: number;
}

export interface PlayerBazaarOrdersTable {
  player_uuid: string;
  /** order of the upload */
  position: number;
  /** boolean; 0/1 on SQLite */
  is_sell: boolean | number;
  item_tag: string;
  item_name: string | null;
  amount: number;
  filled: number;
  price_per_unit: number;
  created_at: number;
  /** JSON array of fills */
  customers: string | null;
  uploaded_at: number;
}

export interface PlayerBazaarFlipsTable {
  player_uuid: string;
  item_tag: string;
  item_name: string | null;
  amount: number;
  /** coins × 10 */
  buy_price: number;
  /** coins × 10 */
  sell_price: number;
  sold_at: number;
}

export interface LowballOffersTable {
  offer_id: string;
  account_id: number;
  player_uuid: string;
  item_tag: string;
  item_name: string | null;
  item_count: number;
  asking_price: number;
  /** JSON object of the item's filter values (all strings) */
  filters: string | null;
  /** JSON of the decoded item as an auction */
  auction_json: string | null;
  lore: string | null;
  created_at: number;
  expires_at: number;
}

export interface PlayerNamesTable {
  player_uuid: string;
  name: string;
  name_lower: string;
  /** who told us: 'mod', 'anonym', … */
  source: string;
  seen_at: number;
}

export interface DataUploadsTable {
  id: string;
  request_id: string;
  kind: string;
  /** the upload's inflated size */
  bytes: number;
  /** gzip bytes (migration 014); rows stored before it hold the JSON text */
  body: string | Uint8Array;
  received_at: number;
}

export type { ExportStatus } from '../domain/export-jobs.ts';
import type { ExportStatus } from '../domain/export-jobs.ts';

export interface ExportJobsTable {
  /** assigned by the database */
  id: Generated<number>;
  account_id: number;
  item_tag: string;
  /** comma-joined ExportFlags, e.g. 'None' or 'IncludeSocial, UniqueItems' */
  flags: string;
  /** JSON object of filters (EndAfter/EndBefore in unix seconds included) */
  filters: string | Record<string, string>;
  /** JSON array of CSV column names */
  columns: string | string[];
  webhook_url: string;
  status: ExportStatus;
  requested_at: number;
  started_at: number | null;
  completed_at: number | null;
  row_count: number | null;
  error: string | null;
  /** last sign of life of the worker running it (migration 015); the lease runs from here */
  heartbeat_at: number | null;
  /** how many times a worker took it */
  attempts: Generated<number>;
}

/** A variant of sold items (migration 012, domain/sales-rollup.ts). */
export interface SaleVariantsTable {
  id: Generated<number>;
  /** 'attr' | 'mayor' | 'tag' */
  kind: string;
  key: string;
  tag: string;
  item_name: string;
  /** JSON VariantModifiers (attr, mayor); null for tag */
  mods: string | null;
  /** rolled-up sales in the hours from sale_rollup_state.aged_7d on */
  sales_7d: number;
  /** rolled-up sales in the hours from sale_rollup_state.aged_14d on */
  sales_14d: number;
}

/** One variant's sales in one hour (migration 012). */
export interface SaleHoursTable {
  variant: number;
  /** hour start, epoch ms */
  hour: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  /** price digest: float64 little-endian, ascending */
  prices: Uint8Array;
}

export interface SaleRollupStateTable {
  id: number;
  /** every hour before this one is rolled up; 0 = not started */
  rolled_to: number;
  /** sale_variants.sales_7d counts the hours from here on */
  aged_7d: number;
  /** sale_variants.sales_14d counts the hours from here on */
  aged_14d: number;
}

/** Sales of one tag and price variant in one hour (`price_hours`, migration 017) or day (`price_days`, with `day`). */
export interface PriceHoursTable {
  tag: string;
  /** domain/prices.ts priceVariantKey; '' = the whole tag */
  variant: string;
  /** hour start, epoch ms */
  hour: number;
  count: number;
  items: number;
  /** sum of whole sale prices */
  coins: number;
  /** sum of prices per unit */
  sum: number;
  min: number;
  max: number;
  /** price digest: float64 little-endian, ascending */
  prices: Uint8Array;
}

export type PriceDaysTable = Omit<PriceHoursTable, 'hour'> & { day: number };

/** The lowest BIN seen per tag, variant and hour (`price_bin_hours`) or day (`price_bin_days`, with `day`). */
export interface PriceBinHoursTable {
  tag: string;
  variant: string;
  hour: number;
  /** price per unit */
  lowest: number;
  uuid: string;
}

export type PriceBinDaysTable = Omit<PriceBinHoursTable, 'hour'> & { day: number };

export interface PriceRollupStateTable {
  id: number;
  /** every hour before this one is rolled up; 0 = not started */
  rolled_to: number;
  /** every day before this one is in price_days / price_bin_days */
  days_to: number;
}

export interface AlertTargetsTable {
  id: Generated<number>;
  account_id: number;
  /** the established TargetType integer (domain/alerts/targets.ts) */
  type: number;
  target: string;
  name: string | null;
  notify_when: number;
  secret: string | null;
  use_count: Generated<number>;
  failing_since: number | null;
  last_error: string | null;
  created_at: number;
}

export interface AlertSubscriptionsTable {
  id: Generated<number>;
  account_id: number;
  spec: string;
  min_interval_ms: number;
  target_ids: string | null;
  listener: string | null;
  created_at: number;
}

export interface AlertRoutesTable {
  id: Generated<number>;
  account_id: number;
  source_type: string;
  source_regex: string | null;
  targets: string;
}

import type { AlertDeliveryStatus } from '../domain/alerts/records.ts';
export type { AlertDeliveryStatus };

export interface AlertDeliveriesTable {
  id: Generated<number>;
  alert_key: string;
  target_id: number;
  account_id: number;
  subscription_id: number | null;
  body: string;
  status: AlertDeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: number;
  created_at: number;
  delivered_at: number | null;
  last_error: string | null;
}

export interface Database {
  alert_targets: AlertTargetsTable;
  alert_subscriptions: AlertSubscriptionsTable;
  alert_routes: AlertRoutesTable;
  alert_deliveries: AlertDeliveriesTable;
  feeds: FeedsTable;
  items: ItemsTable;
  auctions: AuctionsTable;
  bids: BidsTable;
  /** a read-only view over bazaar_recent_rows (migrations 010, 011): the newest snapshots only */
  bazaar_snapshots: BazaarSnapshotsTable;
  bazaar_products: BazaarProductsTable;
  /** snapshots of the open chunk windows (migration 011) */
  bazaar_recent_rows: BazaarSnapshotRowsTable;
  bazaar_snapshot_chunks: BazaarSnapshotChunksTable;
  bazaar_book_keyframes: BazaarBookKeyframesTable;
  elections: ElectionsTable;
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  partner_tokens: PartnerTokensTable;
  bazaar_5m: BazaarRollupTable;
  bazaar_2h: BazaarRollupTable;
  bazaar_1d: BazaarRollupTable;
  bazaar_rollup_state: BazaarRollupStateTable;
  mod_link_challenges: ModLinkChallengesTable;
  mod_links: ModLinksTable;
  player_state: PlayerStateTable;
  profile_requests: ProfileRequestsTable;
  player_bazaar_orders: PlayerBazaarOrdersTable;
  player_bazaar_flips: PlayerBazaarFlipsTable;
  lowball_offers: LowballOffersTable;
  player_names: PlayerNamesTable;
  data_uploads: DataUploadsTable;
  export_jobs: ExportJobsTable;
  sale_variants: SaleVariantsTable;
  sale_hours: SaleHoursTable;
  sale_rollup_state: SaleRollupStateTable;
  price_hours: PriceHoursTable;
  price_days: PriceDaysTable;
  price_bin_hours: PriceBinHoursTable;
  price_bin_days: PriceBinDaysTable;
  price_rollup_state: PriceRollupStateTable;
}
