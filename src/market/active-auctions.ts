/**
 * The in-memory view of active auctions, by tag: what lowest BIN, the active overviews,
 * the cross-item filter, active-uuid checks and low supply read instead of scanning
 * the store.
 *
 * It follows the spine (spine/follower.ts): it loads every active listing from the store once,
 * remembers the change it reflects, then applies each committed generation and batch of sales in
 * order (upserted listings, removed uuids), in this process or, in role `api`, as read from Redis.
 * It reads the listings table again only when it finds a hole (resynchronisation).
 * Listings whose end time passed stay until the next generation drops them; readers
 * filter on `end > now`.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { FilterPredicate, FilterSubject } from '../domain/filters.ts';
import { priceOf } from '../domain/filters.ts';
import type { Store } from '../store/index.ts';
import type { AuctionRecord } from '../domain/auction-records.ts';
import type { AuctionRow } from '../store/repositories/flip-inputs.ts';
import type { ChangedListing, MarketChange } from '../domain/market-change.ts';
import type { ChangeSource } from '../spine/index.ts';
import { type Follower, type Followers, viewFollower } from '../spine/follower.ts';

/** An active auction as the view holds it (also a filter subject). */
export type ActiveListing = AuctionRecord & FilterSubject & { sold: false };

export interface ActiveAuctionsOptions {
  /** the spine the view follows (default: the store's, in this process) */
  changes?: ChangeSource;
  /** where the view's follower reports (health, metrics) */
  followers?: Followers;
  logger?: Logger;
}

/** Per-tag index: listings by uuid, plus lazily built sorted arrays. */
class TagIndex {
  readonly listings = new Map<string, ActiveListing>();
  private binSorted: ActiveListing[] | undefined;
  private all: ActiveListing[] | undefined;

  touch(): void {
    this.binSorted = undefined;
    this.all = undefined;
  }

  /** BIN listings without bids, cheapest first (ties: earliest end, then uuid). */
  bins(): ActiveListing[] {
    if (!this.binSorted) {
      this.binSorted = [...this.listings.values()]
        .filter((l) => l.bin && l.highestBid === 0)
        .sort((a, b) => a.startingBid - b.startingBid || a.end - b.end || (a.uuid < b.uuid ? -1 : 1));
    }
    return this.binSorted;
  }

  list(): ActiveListing[] {
    this.all ??= [...this.listings.values()];
    return this.all;
  }
}

export interface TagSupply {
  tag: string;
  /** active listings (not ended) */
  supply: number;
  lowest: ActiveListing | null;
  secondLowest: ActiveListing | null;
}

/** The view's listings: by uuid, by tag, and how many listings each item uid has. */
class ListingMaps {
  readonly byUuid = new Map<string, ActiveListing>();
  readonly byTag = new Map<string, TagIndex>();
  readonly uidCounts = new Map<string, number>();

  put(l: ActiveListing): void {
    // A chunked load may meet a listing twice (its end time moved between chunks): replace it.
    if (this.byUuid.has(l.uuid)) this.remove(l.uuid);
    this.byUuid.set(l.uuid, l);
    let index = this.byTag.get(l.tag);
    if (!index) this.byTag.set(l.tag, (index = new TagIndex()));
    index.listings.set(l.uuid, l);
    index.touch();
    if (l.itemUid) this.uidCounts.set(l.itemUid, (this.uidCounts.get(l.itemUid) ?? 0) + 1);
  }

  remove(uuid: string): void {
    const l = this.byUuid.get(uuid);
    if (!l) return;
    this.byUuid.delete(uuid);
    const index = this.byTag.get(l.tag);
    if (index) {
      index.listings.delete(uuid);
      index.touch();
      if (index.listings.size === 0) this.byTag.delete(l.tag);
    }
    if (l.itemUid) {
      const n = (this.uidCounts.get(l.itemUid) ?? 1) - 1;
      if (n <= 0) this.uidCounts.delete(l.itemUid);
      else this.uidCounts.set(l.itemUid, n);
    }
  }
}

/** What moved the view: a (re)load from the store, or a change of the spine it applied. */
export type ViewChange = 'load' | 'auctions' | 'auctions_ended';

export class ActiveAuctionsView {
  private maps = new ListingMaps();
  /** binRows' row per listing object (a changed listing is a new object) */
  private readonly binRowCache = new WeakMap<ActiveListing, AuctionRow>();
  private readonly follower: Follower;
  /** the first load has completed */
  private settled = false;
  /** listings read from the store (loads and resynchronisations): what following the spine saves */
  listingsLoaded = 0;
  /** bumped on every change: a key for memoized responses */
  version = 0;
  /** told after each change applied and each load (the views built on this one follow it) */
  private readonly changeListeners = new Set<(cause: ViewChange) => void>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: ActiveAuctionsOptions = {},
  ) {
    this.follower = viewFollower('active-auctions', { load: () => this.reload(), apply: (change) => this.apply(change) }, { changes: store.changes, now: () => clock.now() }, options);
  }

  /**
   * Calls `listener` after every change the view applies and every (re)load, once `version` has
   * moved: the views derived from the listings (the bulk files, the catalog's activity) follow the
   * spine through this one. Returns the unsubscribe function.
   */
  onChange(listener: (cause: ViewChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(cause: ViewChange): void {
    for (const listener of this.changeListeners) {
      try {
        listener(cause);
      } catch (err) {
        this.options.logger?.error({ err }, 'active auctions: a listener failed');
      }
    }
  }

  /** Stops following the spine. */
  close(): void {
    this.follower.stop();
  }

  /** Resolves once the view holds the store's active auctions (loaded once; the spine keeps it current). */
  async ready(): Promise<void> {
    await this.follower.start();
    this.settled = true;
  }

  /** The synchronous form of ready() for hot paths: true once the first load has completed. */
  isReady(): boolean {
    return this.settled;
  }

  /** The sequence number of the last change applied. */
  get seq(): number {
    return this.follower.state.seq;
  }

  /**
   * Loads every active listing from the store, chunk by chunk into fresh maps (each chunk's rows
   * become listings at once and are garbage young), then swaps them in: readers see the old
   * listings until the new ones are complete. Only at start and on a hole in the spine.
   */
  private async reload(): Promise<void> {
    const next = new ListingMaps();
    for await (const records of this.store.auctionQueries.activeListingChunks()) {
      for (const r of records) next.put(listingOf(r));
      this.listingsLoaded += records.length;
    }
    this.maps = next;
    this.version++;
    this.changed('load');
    this.options.logger?.debug({ active: this.maps.byUuid.size }, 'active auctions view loaded');
  }

  /** Applies one committed change (the follower calls it in order). */
  private apply(change: MarketChange): void {
    if (change.kind !== 'auctions' && change.kind !== 'auctions_ended') return;
    const maps = this.maps;
    for (const uuid of change.removed) maps.remove(uuid);
    for (const record of change.upserted) {
      if (record.state === 'active') maps.put(listingOf(record));
      else maps.remove(record.uuid);
    }
    this.version++;
    this.changed(change.kind);
  }

  // -------------------------------------------------------------------------
  // Reads (call ready() first)

  get size(): number {
    return this.maps.byUuid.size;
  }

  get(uuid: string): ActiveListing | undefined {
    return this.maps.byUuid.get(uuid);
  }

  /** Every listing the view holds (ended ones included, until a generation drops them). */
  listings(): IterableIterator<ActiveListing> {
    return this.maps.byUuid.values();
  }

  hasTag(tag: string): boolean {
    return this.maps.byTag.has(tag);
  }

  tags(): IterableIterator<string> {
    return this.maps.byTag.keys();
  }

  /** True when an active listing holds the item with this uid (last 12 hex of its uuid). */
  hasItemUid(uid: string): boolean {
    return this.maps.uidCounts.has(uid);
  }

  /** The cheapest BIN auctions of a tag without bids that have not ended and pass `test`. */
  lowestBin(tag: string, test: FilterPredicate, limit: number, offset = 0): ActiveListing[] {
    const index = this.maps.byTag.get(tag);
    if (!index) return [];
    const now = this.clock.now();
    const out: ActiveListing[] = [];
    let skipped = 0;
    for (const l of index.bins()) {
      if (l.end <= now || !test(l)) continue;
      if (skipped < offset) {
        skipped++;
        continue;
      }
      out.push(l);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Every BIN listing without bids that has not ended at `now`, tag by tag, cheapest first within a tag. */
  *binListings(now: number): Generator<ActiveListing> {
    for (const index of this.maps.byTag.values()) {
      for (const l of index.bins()) if (l.end > now) yield l;
    }
  }

  /**
   * The `perTag` cheapest BINs without bids of every tag that have not ended at `now`, as the
   * crafting view prices auction-only ingredients (same rows as the store's `lowestBins`, from memory).
   */
  lowestBinRows(now: number, perTag: number): Array<{ tag: string; uuid: string; startingBid: number; count: number }> {
    const out: Array<{ tag: string; uuid: string; startingBid: number; count: number }> = [];
    for (const [tag, index] of this.maps.byTag) {
      let n = 0;
      for (const l of index.bins()) {
        if (l.end <= now) continue;
        out.push({ tag, uuid: l.uuid, startingBid: l.startingBid, count: Math.max(1, l.count) });
        if (++n >= perTag) break;
      }
    }
    return out;
  }

  /**
   * Active BIN listings of `tags` (with or without bids) that have not ended at `now`, as the
   * attribute flips read them: the same rows as the store's `flipInputs.activeBins`, from memory.
   * A listing keeps its row object until it changes, so callers can cache what they derive from it.
   */
  binRows(tags: readonly string[], now: number): AuctionRow[] {
    const out: AuctionRow[] = [];
    for (const tag of tags) {
      const index = this.maps.byTag.get(tag);
      if (!index) continue;
      for (const l of index.listings.values()) {
        if (!l.bin || l.end <= now) continue;
        let row = this.binRowCache.get(l);
        if (!row) this.binRowCache.set(l, (row = { uuid: l.uuid, tag: l.tag, itemName: l.itemName, count: l.count, price: l.startingBid, at: l.start ?? l.end, tier: l.tier, reforge: l.reforge, enchantments: l.enchantments, flatNbt: l.flatNbt }));
        out.push(row);
      }
    }
    return out;
  }

  /** Active (not ended) listings of a tag passing `test`, unsorted. */
  activeOf(tag: string, test: FilterPredicate): ActiveListing[] {
    const index = this.maps.byTag.get(tag);
    if (!index) return [];
    const now = this.clock.now();
    return index.list().filter((l) => l.end > now && test(l));
  }

  /** Active listings across all tags passing `test`, ending soonest first, then by uuid. */
  filterAll(test: FilterPredicate, limit: number, offset = 0): ActiveListing[] {
    const now = this.clock.now();
    const matches: ActiveListing[] = [];
    for (const l of this.maps.byUuid.values()) if (l.end > now && test(l)) matches.push(l);
    matches.sort((a, b) => a.end - b.end || (a.uuid < b.uuid ? -1 : 1));
    return matches.slice(offset, offset + limit);
  }

  /** A random active listing, or undefined when there is none. */
  random(pick: (n: number) => number = (n) => Math.floor(Math.random() * n)): ActiveListing | undefined {
    const now = this.clock.now();
    const all = [...this.maps.byUuid.values()];
    for (let attempt = 0; attempt < 8 && all.length > 0; attempt++) {
      const l = all[pick(all.length)]!;
      if (l.end > now) return l;
    }
    return all.find((l) => l.end > now);
  }

  /** Listings not yet ended, per tag (the item catalog's activity, the low-supply list). */
  supplyByTag(now = this.clock.now()): Map<string, number> {
    const out = new Map<string, number>();
    for (const [tag, index] of this.maps.byTag) {
      let supply = 0;
      for (const l of index.listings.values()) if (l.end > now) supply++;
      out.set(tag, supply);
    }
    return out;
  }

  /** Listing count and the two cheapest BINs of every tag with fewer than `below` active listings. */
  lowSupply(below: number): TagSupply[] {
    const now = this.clock.now();
    const out: TagSupply[] = [];
    for (const [tag, supply] of this.supplyByTag(now)) {
      if (supply >= below) continue;
      const bins = this.maps.byTag.get(tag)!.bins().filter((l) => l.end > now);
      out.push({ tag, supply, lowest: bins[0] ?? null, secondLowest: bins[1] ?? null });
    }
    return out.sort((a, b) => a.supply - b.supply || (a.tag < b.tag ? -1 : 1));
  }
}

/**
 * Memory: a listing is what the view holds 60,000 of, so it is built compact (~9 MB less heap for
 * 60,000 simulated listings, docs/performance.md 2026-11-26): one object of one shape, every field set at once,
 * and whatever listings repeat shared rather than copied. Of 60,000 simulated listings, 19,000
 * sellers (and profiles), 5,700 coop lists, 780 distinct enchantment maps and ~1,100 flat NBT maps
 * (pets aside, whose uuid makes each unique) are enough; names, tiers, reforges and NBT values
 * repeat likewise. Each arrives from SQLite or the decoder as a fresh copy: one shared copy of
 * each is kept in a pool (dropped whole when it grows past its cap, so unique values cannot grow
 * it without bound). Shared maps and lists are frozen: they are read-only for every reader.
 */
const STRINGS_MAX = 200_000;
const SHARED_MAX = 50_000;
let strings = new Map<string, string>();
let shared = new Map<string, object>();
const EMPTY_LIST: string[] = Object.freeze([]) as unknown as string[];
const EMPTY_MAP = Object.freeze({}) as Record<string, never>;

function intern<T extends string | null>(s: T): T {
  if (s === null || s.length > 64) return s;
  const known = strings.get(s);
  if (known !== undefined) return known as T;
  if (strings.size >= STRINGS_MAX) strings = new Map();
  strings.set(s, s);
  return s;
}

/** The pool's copy of `value` under `key` (which says what it holds, kind included), frozen. */
function share<T extends object>(key: string, value: T): T {
  const known = shared.get(key);
  if (known !== undefined) return known as T;
  if (shared.size >= SHARED_MAX) shared = new Map();
  shared.set(key, Object.freeze(value));
  return value;
}

/**
 * One-member coops (the seller alone: most listings), shared by that member's pooled string. Its
 * hash is already known (the seller was just interned), where a `c…` key for `shared` was a new
 * string to build and hash for every listing: ~0.4 s of a cold 60,000-listing change in a profile.
 */
let soloCoops = new Map<string, string[]>();

function coopOf(coop: string[]): string[] {
  if (coop.length === 0) return EMPTY_LIST;
  // Frozen: already the pool's (a change's record is shared by every follower in the process).
  if (Object.isFrozen(coop)) return coop;
  if (coop.length === 1) {
    const member = intern(coop[0]!);
    const known = soloCoops.get(member);
    if (known !== undefined) return known;
    if (soloCoops.size >= SHARED_MAX) soloCoops = new Map();
    coop[0] = member;
    Object.freeze(coop);
    soloCoops.set(member, coop);
    return coop;
  }
  for (let i = 0; i < coop.length; i++) coop[i] = intern(coop[i]!);
  return share(`c${coop.join(',')}`, coop);
}

function enchantmentsOf(e: Record<string, number>): Record<string, number> {
  // Frozen: already shared by the store's change (store/repositories/auction-queries.ts changedRecordOf).
  if (Object.isFrozen(e)) return isEmpty(e) ? EMPTY_MAP : e;
  return isEmpty(e) ? EMPTY_MAP : share(`e${JSON.stringify(e)}`, e);
}

/** A map with a value longer than a uuid's 32 characters or with one (pets) is kept as its own. */
function flatNbtOf(flat: Record<string, string>): Record<string, string> {
  if (isEmpty(flat)) return EMPTY_MAP;
  if (Object.isFrozen(flat)) return flat;
  let unique = false;
  for (const key in flat) {
    const v = flat[key]!;
    if (v.length >= 32) unique = true;
    else flat[key] = intern(v);
  }
  return unique ? flat : share(`f${JSON.stringify(flat)}`, flat);
}

/**
 * The view's listing of a record: the record's fields in its order (and `sold`), repeated values shared.
 * Also how the live feeds' index (market/events.ts) keeps its listings, sharing the same pools.
 */
export function listingOf(r: AuctionRecord | ChangedListing): ActiveListing {
  return {
    uuid: r.uuid,
    tag: intern(r.tag),
    itemName: intern(r.itemName),
    count: r.count,
    seller: intern(r.seller),
    profileId: intern(r.profileId),
    coop: coopOf(r.coop),
    start: r.start,
    end: r.end,
    startingBid: r.startingBid,
    highestBid: r.highestBid,
    bin: r.bin,
    tier: intern(r.tier),
    category: intern(r.category),
    reforge: intern(r.reforge),
    itemUid: r.itemUid,
    itemCreatedAt: r.itemCreatedAt,
    enchantments: enchantmentsOf(r.enchantments),
    flatNbt: flatNbtOf(r.flatNbt),
    state: r.state,
    lastUpdated: r.lastUpdated,
    soldPrice: r.soldPrice,
    buyer: r.buyer,
    soldAt: r.soldAt,
    sold: false,
  };
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

export { priceOf };
