/**
 * The in-memory view of active auctions, by tag: what lowest BIN, the active overviews,
 * the cross-item filter, active-uuid checks and low supply read instead of scanning
 * the store.
 *
 * It loads every active listing from the store once, then stays current two ways:
 * - in-process: the store's auctions repository emits a change after every committed
 *   generation (upserted listings, removed uuids) and after every batch of sales;
 * - across processes (role `api` without ingestion): it polls the feed state every
 *   `pollMs` and reloads when a generation or sales batch appeared that no event covered.
 * Listings whose end time passed stay until the next generation drops them; readers
 * filter on `end > now`.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { FilterPredicate, FilterSubject } from '../domain/filters.ts';
import { priceOf } from '../domain/filters.ts';
import type { Store } from '../store/index.ts';
import { toRecord, type AuctionRecord } from '../store/repositories/auction-queries.ts';
import type { AuctionsChange } from '../store/repositories/auctions.ts';
import type { AuctionRow } from '../store/repositories/flip-inputs.ts';

/** An active auction as the view holds it (also a filter subject). */
export type ActiveListing = AuctionRecord & FilterSubject & { sold: false };

export interface ActiveAuctionsOptions {
  /** how often to compare the feed state with what the view has seen (ms); 0 = on every read */
  pollMs?: number;
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

const SHARED = new WeakMap<Store, ActiveAuctionsView>();

export class ActiveAuctionsView {
  private maps = new ListingMaps();
  /** binRows' row per listing object (a changed listing is a new object) */
  private readonly binRowCache = new WeakMap<ActiveListing, AuctionRow>();
  private readonly pollMs: number;
  private loaded: Promise<void> | undefined;
  /** the first load has completed */
  private settled = false;
  private loading = false;
  private buffered: AuctionsChange[] = [];
  private seen = { auctions: 0, auctions_ended: 0 };
  private lastCheck = 0;
  private checking: Promise<void> | undefined;
  private readonly onChange = (change: AuctionsChange) => this.apply(change);
  /** bumped on every change: a key for memoized responses */
  version = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: ActiveAuctionsOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 5000;
    store.auctions.changes.on('change', this.onChange);
  }

  /** Stops listening to the store. */
  close(): void {
    this.store.auctions.changes.off('change', this.onChange);
    if (SHARED.get(this.store) === this) SHARED.delete(this.store);
  }

  /** One view per store in a process, shared by the auction and crafting routes (one copy of the listings). */
  static shared(store: Store, clock: Clock, options?: ActiveAuctionsOptions): ActiveAuctionsView {
    let view = SHARED.get(store);
    if (!view) SHARED.set(store, (view = new ActiveAuctionsView(store, clock, options)));
    return view;
  }

  /**
   * Resolves once the view holds the store's active auctions. When `pollMs` has passed
   * since the last check, compares the feed state first (awaited when pollMs is 0,
   * in the background otherwise) and reloads if something changed without an event.
   */
  async ready(): Promise<void> {
    this.loaded ??= this.reload();
    await this.loaded;
    this.settled = true;
    const now = this.clock.now();
    if (this.pollMs === 0 || now - this.lastCheck >= this.pollMs) {
      this.lastCheck = now;
      this.checking ??= this.check().finally(() => (this.checking = undefined));
      if (this.pollMs === 0) await this.checking;
      else void this.checking.catch(() => undefined);
    }
  }

  /**
   * The synchronous form of ready() for hot paths: true when the view is loaded and reads
   * need not wait (pollMs > 0); starts a due feed-state check in the background like
   * ready(). False: call `await ready()` instead.
   */
  isReady(): boolean {
    if (!this.settled || this.pollMs === 0) return false;
    const now = this.clock.now();
    if (now - this.lastCheck >= this.pollMs) {
      this.lastCheck = now;
      this.checking ??= this.check().finally(() => (this.checking = undefined));
      void this.checking.catch(() => undefined);
    }
    return true;
  }

  /**
   * Reloads every active listing from the store, chunk by chunk into fresh maps (each chunk's
   * rows become listings at once and are garbage young), then swaps them in: readers see the
   * old listings until the new ones are complete.
   */
  async reload(): Promise<void> {
    this.loading = true;
    try {
      const feeds = await this.feedState();
      const next = new ListingMaps();
      for await (const records of this.store.auctionQueries.activeListingChunks()) for (const r of records) next.put(listingOf(r));
      this.maps = next;
      this.seen = {
        auctions: Math.max(this.seen.auctions, feeds.auctions),
        auctions_ended: Math.max(this.seen.auctions_ended, feeds.auctions_ended),
      };
      this.version++;
    } finally {
      this.loading = false;
    }
    const pending = this.buffered;
    this.buffered = [];
    for (const change of pending) this.apply(change);
    this.options.logger?.debug({ active: this.maps.byUuid.size }, 'active auctions view loaded');
  }

  private async feedState(): Promise<{ auctions: number; auctions_ended: number }> {
    const feeds = await this.store.feeds.all();
    const of = (name: string) => feeds.find((f) => f.name === name)?.lastUpdated ?? 0;
    return { auctions: of('auctions'), auctions_ended: of('auctions_ended') };
  }

  private async check(): Promise<void> {
    const feeds = await this.feedState();
    if (feeds.auctions > this.seen.auctions || feeds.auctions_ended > this.seen.auctions_ended) await this.reload();
  }

  /** Applies one committed change (called by the store's event; public for tests). */
  apply(change: AuctionsChange): void {
    if (this.loading || !this.loaded) {
      // Not loaded yet: the coming load reads the store after this commit. While loading: re-apply afterwards.
      if (this.loading) this.buffered.push(change);
      return;
    }
    const maps = this.maps;
    for (const uuid of change.removed) maps.remove(uuid);
    for (const row of change.upserted) {
      if (row.state === 'active') maps.put(listingOf(toRecord(row)));
      else maps.remove(row.uuid);
    }
    this.seen[change.feed] = Math.max(this.seen[change.feed], change.lastUpdated);
    this.version++;
  }

  // -------------------------------------------------------------------------
  // Reads (call ready() first)

  get size(): number {
    return this.maps.byUuid.size;
  }

  get(uuid: string): ActiveListing | undefined {
    return this.maps.byUuid.get(uuid);
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

  /** Listing count and the two cheapest BINs of every tag with fewer than `below` active listings. */
  lowSupply(below: number): TagSupply[] {
    const now = this.clock.now();
    const out: TagSupply[] = [];
    for (const [tag, index] of this.maps.byTag) {
      let supply = 0;
      for (const l of index.listings.values()) if (l.end > now) supply++;
      if (supply >= below) continue;
      const bins = index.bins().filter((l) => l.end > now);
      out.push({ tag, supply, lowest: bins[0] ?? null, secondLowest: bins[1] ?? null });
    }
    return out.sort((a, b) => a.supply - b.supply || (a.tag < b.tag ? -1 : 1));
  }
}

/**
 * Memory: 60,000 listings repeat the same few thousand names, tiers, reforges and NBT
 * values, each read from SQLite as a fresh string; one shared copy of each is kept (the
 * pool is dropped when it grows past POOL_MAX distinct values, so unique values cannot
 * grow it without bound). Empty coop lists and enchantment/NBT maps share one frozen
 * instance, as most listings have none.
 */
const POOL_MAX = 200_000;
let pool = new Map<string, string>();
const EMPTY_LIST: string[] = Object.freeze([]) as unknown as string[];
const EMPTY_MAP = Object.freeze({}) as Record<string, never>;

function intern<T extends string | null>(s: T): T {
  if (s === null || s.length > 64) return s;
  const shared = pool.get(s);
  if (shared !== undefined) return shared as T;
  if (pool.size >= POOL_MAX) pool = new Map();
  pool.set(s, s);
  return s;
}

function listingOf(r: AuctionRecord): ActiveListing {
  r.tag = intern(r.tag);
  r.itemName = intern(r.itemName);
  r.tier = intern(r.tier);
  r.category = intern(r.category);
  r.reforge = intern(r.reforge);
  if (r.coop.length === 0) r.coop = EMPTY_LIST;
  if (isEmpty(r.enchantments)) r.enchantments = EMPTY_MAP;
  if (isEmpty(r.flatNbt)) r.flatNbt = EMPTY_MAP;
  else for (const key in r.flatNbt) r.flatNbt[key] = intern(r.flatNbt[key]!);
  return Object.assign(r, { sold: false as const });
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}

export { priceOf };
