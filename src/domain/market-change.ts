/**
 * The spine's record (docs/architecture.md, "The spine"): one committed change to the market,
 * decoded once by the one writer (the process that ingests) and followed by every view, in
 * order, by its sequence number. Plain data: it crosses processes as JSON (Redis Streams).
 */
import type { AuctionFacts as WireFacts } from './auction-wire.ts';
import type { OrderBook } from './bazaar-book.ts';

/** An auction as a change carries it: the facts of its wire shapes, JSON columns parsed (as the store's AuctionRecord). */
export interface ChangedListing extends WireFacts {
  uuid: string;
  seller: string;
  coop: string[];
  enchantments: Record<string, number>;
  flatNbt: Record<string, string>;
  state: 'active' | 'sold' | 'expired';
  lastUpdated: number;
  buyer: string | null;
}

/** A sale as a change reports it; `tag`, `seller` and `bin` when the sale's row carries them (auctions_ended). */
export interface SaleNote {
  uuid: string;
  price: number;
  buyer: string;
  at: number;
  tag?: string;
  seller?: string;
  bin?: boolean;
}

/** A product's quick status in a snapshot (the store's snapshot row without its encoded book). */
export interface ProductQuick {
  product_id: string;
  ts: number;
  buy_price: number;
  sell_price: number;
  buy_volume: number;
  sell_volume: number;
  buy_moving_week: number;
  sell_moving_week: number;
  buy_orders: number;
  sell_orders: number;
}

/**
 * A committed auctions generation (`auctions`) or batch of sales (`auctions_ended`): listings new
 * or changed (`upserted`), uuids no longer active (`removed`), and the sales among them.
 */
export interface AuctionsChangeBody {
  kind: 'auctions' | 'auctions_ended';
  /** upstream lastUpdated of the generation or batch */
  lastUpdated: number;
  upserted: ChangedListing[];
  removed: string[];
  sales: SaleNote[];
}

/** A committed bazaar snapshot: every product's quick status and the decoded books that changed. */
export interface BazaarChangeBody {
  kind: 'bazaar';
  /** upstream lastUpdated of the snapshot */
  ts: number;
  products: ProductQuick[];
  /** product → its new order book (only the books that changed, when the writer decoded them) */
  books: Record<string, OrderBook>;
}

/** A changed resource the views read whole from the store (item names, the election). */
export interface ResourceChangeBody {
  kind: 'resource';
  resource: 'items' | 'election';
  lastUpdated: number;
}

/**
 * The writer may have lost changes (it could not publish them): every follower resynchronises
 * from the store, which holds them.
 */
export interface LostChangeBody {
  kind: 'lost';
  /** changes the writer could not publish */
  count: number;
}

export type MarketChangeBody = AuctionsChangeBody | BazaarChangeBody | ResourceChangeBody | LostChangeBody;

/** A published change: its body and its place in the spine (1, 2, 3 … with no holes). */
export type MarketChange = MarketChangeBody & { seq: number };

/** Why a follower resynchronised from the store. */
export type HoleReason = 'seq-jump' | 'trimmed' | 'unavailable' | 'restarted' | 'writer-lost' | 'malformed';

/** Whether `next` follows `last` directly (the only change a follower may apply). */
export function follows(last: number, next: number): boolean {
  return next === last + 1;
}
