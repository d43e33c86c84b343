/**
 * The live feeds' events (docs/streaming.md): their topics and payloads, the event ids, what a
 * subscription is and whether an event matches it, and the small pure diffs the market derives
 * events with (an item's lowest-BIN variant, whether a bazaar product moved). No I/O.
 */
import type { BookLevel } from './bazaar-book.ts';
import { petLevelOf, type FilterPredicate, type FilterSubject } from './filters.ts';
import type { Tier } from './tiers.ts';
import type { AlertBody } from './alerts/targets.ts';

export const TOPICS = ['auction.new', 'auction.sold', 'auction.ended', 'lbin.changed', 'bazaar.changed', 'generation', 'auction.underpriced', 'alert'] as const;
export type Topic = (typeof TOPICS)[number];

export function isTopic(value: string): value is Topic {
  return (TOPICS as readonly string[]).includes(value);
}

/** What an auction event says of the item (also what variant filters read). */
export interface AuctionItem {
  itemName: string;
  count: number;
  tier: string | null;
  reforge: string | null;
  /** last 12 hex characters of the item's uuid */
  itemUid: string | null;
  itemCreatedAt: number | null;
  enchantments: Readonly<Record<string, number>>;
  flatNbt: Readonly<Record<string, string>>;
}

/** An auction as the auction events carry it. */
export interface AuctionFacts {
  uuid: string;
  tag: string;
  /** the lowest-BIN variant (see variantOf), null for items that have none */
  variant: string | null;
  bin: boolean;
  startingBid: number;
  highestBid: number;
  seller: string;
  start: number | null;
  end: number;
  item: AuctionItem;
}

export interface AuctionNewPayload extends AuctionFacts {
  /** what the listing asks now: the highest bid, else the starting bid */
  price: number;
}

/** A new BIN listing the underpriced list kept (docs/flips.md): the listing and its value. */
export interface AuctionUnderpricedPayload extends AuctionNewPayload {
  /** the stack's value */
  value: number;
  /** the value less the auction fees of reselling at it */
  valueAfterFees: number;
  /** valueAfterFees − price */
  profit: number;
  /** how far the price is below valueAfterFees, in % */
  percentBelow: number;
  /** 0–1 */
  confidence: number;
  /** comparable sales behind the value */
  comparables: number;
  medianKey: string;
}

export interface AuctionSoldPayload {
  uuid: string;
  tag: string | null;
  variant: string | null;
  price: number;
  bin: boolean | null;
  buyer: string;
  seller: string | null;
  /** when the auction sold (epoch ms) */
  soldAt: number;
  /** the item, when the listing was seen active (null for a sale of an auction never seen listed) */
  item: AuctionItem | null;
}

export interface AuctionEndedPayload extends AuctionFacts {
  price: number;
  /** `expired`: its end time passed without a sale; `cancelled`: it left early and no sale was reported for it */
  reason: 'expired' | 'cancelled';
}

export interface LbinListing {
  uuid: string;
  price: number;
  seller: string;
  end: number;
  item: AuctionItem;
}

export interface LbinChangedPayload {
  tag: string;
  variant: string | null;
  /** null: there was no BIN listing of this tag and variant */
  oldPrice: number | null;
  /** null: there is none now */
  newPrice: number | null;
  /** the listing now lowest (null when none) */
  listing: LbinListing | null;
}

export interface BazaarChangedPayload {
  product: string;
  /** instant-buy price: the lowest sell offer */
  buyPrice: number;
  /** instant-sell price: the highest buy order */
  sellPrice: number;
  buyVolume: number;
  sellVolume: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  buyOrders: number;
  sellOrders: number;
  /** the best standing buy orders (highest first), when the book changed in this snapshot; else null */
  topBuyOrders: BookLevel[] | null;
  /** the best standing sell offers (lowest first), when the book changed in this snapshot; else null */
  topSellOffers: BookLevel[] | null;
}

export interface GenerationPayload {
  feed: 'auctions' | 'auctions_ended' | 'bazaar';
  /** upstream lastUpdated of what was applied */
  lastUpdated: number;
  counts: Record<string, number>;
}

/**
 * An alert of one account (docs/alerts.md, target LIVE_FEED): only connections authenticated as
 * that account and asking for the `alert` topic by name receive it.
 */
export interface AlertPayload {
  accountId: number;
  alert: AlertBody;
}

export interface PayloadOf {
  'auction.new': AuctionNewPayload;
  'auction.sold': AuctionSoldPayload;
  'auction.ended': AuctionEndedPayload;
  'lbin.changed': LbinChangedPayload;
  'bazaar.changed': BazaarChangedPayload;
  generation: GenerationPayload;
  'auction.underpriced': AuctionUnderpricedPayload;
  alert: AlertPayload;
}

/** An event before the feed numbers it: topic, time (epoch ms) and the topic's payload. */
export type DraftEvent = { [T in Topic]: { topic: T; time: number } & PayloadOf[T] }[Topic];
/** An event on the wire: `id` first. */
export type StreamEvent = DraftEvent & { id: string };

// ---------------------------------------------------------------------------
// Event ids: `<ms>-<seq>-<index>`, the batch's Redis stream id (or one made the same way in
// memory) and the event's place in its batch. Ordered by the three numbers.

export interface EventId {
  ms: number;
  seq: number;
  index: number;
}

const EVENT_ID = /^(\d{1,15})-(\d{1,9})-(\d{1,9})$/;

export function parseEventId(raw: string): EventId | undefined {
  const m = EVENT_ID.exec(raw);
  if (!m) return undefined;
  return { ms: Number(m[1]), seq: Number(m[2]), index: Number(m[3]) };
}

export function formatEventId(id: EventId): string {
  return `${id.ms}-${id.seq}-${id.index}`;
}

/** <0, 0, >0 as a is before, equal to, after b. */
export function compareEventIds(a: EventId, b: EventId): number {
  return a.ms - b.ms || a.seq - b.seq || a.index - b.index;
}

// ---------------------------------------------------------------------------
// Subscriptions

export interface Subscription {
  /** the topics wanted; empty = all */
  topics: ReadonlySet<Topic>;
  /** canonical tags (and bazaar product ids) wanted; empty = all */
  tags: ReadonlySet<string>;
  /** variant filters (domain/filters.ts), applied to auction events; undefined = none */
  filter: FilterPredicate | undefined;
  minPrice: number | undefined;
  maxPrice: number | undefined;
  /** the account the connection authenticated as: its `alert` events pass (undefined: none do) */
  accountId?: number | undefined;
}

export const EVERYTHING: Subscription = { topics: new Set(), tags: new Set(), filter: undefined, minPrice: undefined, maxPrice: undefined };

/** The subscription lets everything through (the fast path: a batch is written whole). */
export function isEverything(s: Subscription): boolean {
  return s.topics.size === 0 && s.tags.size === 0 && s.filter === undefined && s.minPrice === undefined && s.maxPrice === undefined;
}

/** What a subscription checks before it needs the whole event: its topic, tag and price. */
export interface EventKey {
  topic: Topic;
  tag: string | null;
  price: number | null;
  /** the one account an `alert` event is for (null: a public event) */
  account?: number | null;
}

export function keyOf(event: DraftEvent): EventKey {
  switch (event.topic) {
    case 'auction.new':
    case 'auction.ended':
    case 'auction.underpriced':
      return { topic: event.topic, tag: event.tag, price: event.price };
    case 'auction.sold':
      return { topic: event.topic, tag: event.tag, price: event.price };
    case 'lbin.changed':
      return { topic: event.topic, tag: event.tag, price: event.newPrice ?? event.oldPrice };
    case 'bazaar.changed':
      return { topic: event.topic, tag: event.product, price: event.buyPrice };
    case 'generation':
      return { topic: event.topic, tag: null, price: null };
    case 'alert':
      return { topic: event.topic, tag: null, price: null, account: event.accountId };
  }
}

/**
 * Whether `key` passes the subscription's topics, tags and price bounds (a `generation` event
 * passes tags and prices). `needsItem` is true when only the event's item can decide (filters).
 */
export function matchesKey(s: Subscription, key: EventKey): 'yes' | 'no' | 'needs-item' {
  // An account's alerts: to its own connections that named the topic, never to "all topics".
  if (key.topic === 'alert') return s.topics.has('alert') && s.accountId !== undefined && s.accountId === key.account ? 'yes' : 'no';
  if (s.topics.size > 0 && !s.topics.has(key.topic)) return 'no';
  if (key.topic === 'generation') return 'yes';
  if (s.tags.size > 0 && (key.tag === null || !s.tags.has(key.tag))) return 'no';
  if (s.minPrice !== undefined && (key.price === null || key.price < s.minPrice)) return 'no';
  if (s.maxPrice !== undefined && (key.price === null || key.price > s.maxPrice)) return 'no';
  if (s.filter === undefined || key.topic === 'bazaar.changed') return 'yes';
  return 'needs-item';
}

/** The filter subject of an auction event (null: the event carries no item, so no filter can pass it). */
export function subjectOf(event: DraftEvent): FilterSubject | null {
  switch (event.topic) {
    case 'auction.new':
    case 'auction.ended':
    case 'auction.underpriced':
      return { ...event.item, tag: event.tag, bin: event.bin, startingBid: event.startingBid, highestBid: event.highestBid, seller: event.seller, start: event.start, end: event.end, sold: false };
    case 'auction.sold':
      if (!event.item || event.tag === null) return null;
      return { ...event.item, tag: event.tag, bin: event.bin ?? false, startingBid: event.price, highestBid: event.price, seller: event.seller ?? '', start: null, end: event.soldAt, sold: true };
    case 'lbin.changed':
      if (!event.listing) return null;
      return { ...event.listing.item, tag: event.tag, bin: true, startingBid: event.listing.price, highestBid: 0, seller: event.listing.seller, start: null, end: event.listing.end, sold: false };
    default:
      return null;
  }
}

/** The whole check: key, then (for filters) the item. */
export function matches(s: Subscription, event: DraftEvent): boolean {
  const verdict = matchesKey(s, keyOf(event));
  if (verdict !== 'needs-item') return verdict === 'yes';
  const subject = subjectOf(event);
  return subject !== null && s.filter!(subject);
}

// ---------------------------------------------------------------------------
// Derivation helpers

/**
 * The variant a listing's lowest BIN is kept for: a pet's rarity, with `LVL100` once the pet is
 * at level 100 or more; a rune's level (`L3`); null for every other item (one lowest BIN per tag).
 * Enchanted books carry their level in the tag already.
 */
export function variantOf(tag: string, tier: string | null, flatNbt: Readonly<Record<string, string>>): string | null {
  if (tag.startsWith('PET_') && flatNbt['petInfo.type'] !== undefined) {
    const level = petLevelOf({ flatNbt });
    return `${tier ?? 'UNKNOWN'}${level >= 100 ? ':LVL100' : ''}`;
  }
  if (tag.startsWith('RUNE_') || tag.startsWith('UNIQUE_RUNE_')) {
    for (const key in flatNbt) if (key.startsWith('runes.')) return `L${flatNbt[key]}`;
  }
  return null;
}

/** The quick-status fields a bazaar.changed event compares. */
export type BazaarQuick = Omit<BazaarChangedPayload, 'product' | 'topBuyOrders' | 'topSellOffers'>;

/** A product moved when any quick-status number changed or its book changed. */
export function bazaarMoved(previous: BazaarQuick | undefined, next: BazaarQuick, bookChanged: boolean): boolean {
  if (!previous || bookChanged) return true;
  return (
    previous.buyPrice !== next.buyPrice ||
    previous.sellPrice !== next.sellPrice ||
    previous.buyVolume !== next.buyVolume ||
    previous.sellVolume !== next.sellVolume ||
    previous.buyOrders !== next.buyOrders ||
    previous.sellOrders !== next.sellOrders ||
    previous.buyMovingWeek !== next.buyMovingWeek ||
    previous.sellMovingWeek !== next.sellMovingWeek
  );
}

/** How many levels of each side a bazaar.changed event carries. */
export const TOP_ORDERS = 5;

/**
 * Concurrent feed connections a client may hold: the configured base for free clients, raised by
 * tier (starter ×2, premium ×5, premium+ ×10).
 */
export function connectionAllowance(base: number, tier: Tier | undefined): number {
  const factor = tier === 'premium_plus' ? 10 : tier === 'premium' ? 5 : tier === 'starter_premium' ? 2 : 1;
  return base * factor;
}
