/**
 * The market's events: what each committed auctions generation, batch of sales and bazaar
 * snapshot changed, as typed events for the live feeds (domain/stream-events.ts, docs/streaming.md).
 *
 * It follows the spine in the process that writes the store (role all, or the ingest leader),
 * where every change arrives synchronously after its commit (store.changes); an api replica builds
 * one over the spine it follows (`changes`) for its underpriced list, never for the live feeds. It keeps an index of the active listings (loaded
 * once by start(), then kept by the same events), because a change says which uuids left, not what
 * they were: the active-auctions view's own listing objects where the process has the view (role
 * all), compact listings of its own in the ingest role, which has no market views.
 *
 * Per change it emits one 'batch' of events:
 * - auctions: `auction.new` for every listing not seen before, `auction.sold` for auctions that
 *   ended with bids, `auction.ended` (`expired`) for listings gone past their end time,
 *   `lbin.changed` for every tag and variant whose lowest BIN moved, then `generation`;
 * - auctions_ended: `auction.sold` per sale (each auction once), lbin changes, `generation`;
 * - bazaar: `bazaar.changed` for the products that moved, then `generation`.
 * Changes about upstream data more than 5 minutes old (a history replay) update the index silently.
 * A listing that leaves before its end time without a reported sale was bought or cancelled:
 * it waits up to `pendingMs` for the ended feed to report its sale (`auction.sold`), else it is
 * `auction.ended` (`cancelled`).
 */
import { EventEmitter } from 'node:events';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { OrderBook } from '../domain/bazaar-book.ts';
import {
  bazaarMoved,
  TOP_ORDERS,
  variantOf,
  type AuctionFacts,
  type AuctionItem,
  type BazaarQuick,
  type DraftEvent,
} from '../domain/stream-events.ts';
import type { Store } from '../store/index.ts';
import { listingOf as compactListing, type ActiveAuctionsView, type ActiveListing } from './active-auctions.ts';
import type { AuctionsChangeBody, BazaarChangeBody, ChangedListing, MarketChange, SaleNote } from '../domain/market-change.ts';
import type { ChangeSource, SpineEvent } from '../spine/index.ts';

/**
 * An active listing as the index keeps it: the market's compact listing (repeated names, maps and NBT
 * shared with the active-auctions view's pools), its variant and lowest-BIN key.
 */
interface Listing {
  uuid: string;
  l: ActiveListing;
  variant: string | null;
  /** the lowest-BIN key: tag, or tag|variant */
  key: string;
}

/** The cheapest BIN without bids of one key. */
interface Lowest {
  uuid: string;
  price: number;
}

export interface MarketEventsOptions {
  /** how long a listing that left early waits for its sale before it is `cancelled` (ms) */
  pendingMs?: number;
  /**
   * The market's active-auctions view, where this process has one (role all): the index then holds
   * the view's own listing objects (loaded from it, and taken from it as it applies each change)
   * instead of building its own, so the listings are held once.
   */
  view?: ActiveAuctionsView;
  /**
   * What to follow instead of the store's own changes: the process's spine, in a process that does
   * not write (role api over Redis). Its events there feed this process's own followers (the
   * underpriced list, compose.ts), never the live feeds' hub, which the writer's events fill.
   */
  changes?: ChangeSource;
  logger?: Logger;
}

/**
 * A change about upstream data older than this is a history replay (the demo's backfill of a day
 * of snapshots and sales): it updates the index but is not pushed as live events.
 */
const HISTORY_MS = 5 * 60_000;

/** Baseline listings indexed per turn of the event loop. */
const BASELINE_SLICE = 2_000;

/** How long a sold uuid is remembered, so each sale is told once and never re-listed as new. */
const SOLD_MEMORY_MS = 60 * 60_000;

export class MarketEvents {
  /** 'batch': the events of one committed change, in order */
  readonly emitter = new EventEmitter<{ batch: [DraftEvent[]] }>();
  private readonly listings = new Map<string, Listing>();
  /** BIN listings without bids by lowest-BIN key */
  private readonly bins = new Map<string, Set<string>>();
  private readonly lowest = new Map<string, Lowest>();
  /** listings that left early, waiting for their sale: uuid → (listing, since) */
  private readonly pending = new Map<string, { listing: Listing; since: number }>();
  private readonly sold = new Map<string, number>();
  private readonly bazaar = new Map<string, BazaarQuick>();
  private readonly pendingMs: number;
  private started: Promise<void> | undefined;
  /** moved by each stop(), so a start still waiting for the spine's head does not subscribe after it */
  private epoch = 0;
  private loaded = false;
  /**
   * Whether the next auctions generation is the baseline: the store held no active listing when
   * this process started, so that generation lists the whole market as skymarket first sees it.
   * Those listings were not listed just now: they are indexed without an `auction.new` or
   * `lbin.changed` each (60,000 of them on a real market, ~45 MB of events held for the retention
   * window and pushed to every client), and its `generation` event counts them as `baseline`.
   */
  private baselinePending = false;
  /**
   * The baseline's listings not indexed yet (issue 41, the cold generation). The baseline is told by
   * its `generation` event alone, so nothing waits for its index but the next auctions change: it is
   * built in slices that yield (BASELINE_SLICE listings a turn of the event loop) after the change,
   * not inside the writer's publish, and finished at once when the next auctions change comes first.
   */
  private baseline: { rows: readonly ChangedListing[]; next: number; timer: NodeJS.Immediate | undefined } | undefined;
  private buffered: Array<() => void> = [];
  private unsubscribe: (() => void) | undefined;
  private readonly onChange = (event: SpineEvent) => {
    if (event.type !== 'change') return;
    const change: MarketChange = event.change;
    if (change.kind === 'auctions' || change.kind === 'auctions_ended') this.whenLoaded(() => this.applyAuctions(change));
    else if (change.kind === 'bazaar') this.whenLoaded(() => this.applyBazaar(change));
  };

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: MarketEventsOptions = {},
  ) {
    this.pendingMs = options.pendingMs ?? 180_000;
  }

  /** Listens to the store and loads the active listings (changes during the load are applied after it). */
  start(): Promise<void> {
    this.started ??= (async () => {
      const source = this.options.changes;
      if (source) {
        const epoch = this.epoch;
        let head: number | undefined;
        // The transport may be away at start (Redis): asked again until it answers or this stops.
        for (let pause = 250; head === undefined && epoch === this.epoch; pause = Math.min(pause * 2, 5_000)) {
          head = await source.head().catch((err: unknown) => {
            this.options.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'market events: the spine\'s head is unreachable; asking again');
            return new Promise<undefined>((r) => setTimeout(() => r(undefined), pause).unref());
          });
        }
        if (head === undefined || epoch !== this.epoch) return; // stopped meanwhile
        this.unsubscribe = source.subscribe(head, this.onChange);
      } else this.unsubscribe = this.store.changes.subscribe(this.store.changes.last, this.onChange);
      const view = this.options.view;
      if (view) {
        await view.ready();
        for (const l of view.listings()) this.put(entryOf(l));
      } else {
        for await (const records of this.store.auctionQueries.activeListingChunks()) for (const r of records) this.put(entryOf(compactListing(r)));
      }
      for (const key of this.bins.keys()) this.refreshLowest(key);
      this.baselinePending = this.listings.size === 0;
      this.loaded = true;
      const pending = this.buffered;
      this.buffered = [];
      for (const apply of pending) apply();
      this.options.logger?.debug({ active: this.listings.size }, 'market events: active listings indexed');
    })();
    return this.started;
  }

  stop(): void {
    this.epoch++;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.started = undefined;
    this.loaded = false;
    this.baselinePending = false;
    if (this.baseline?.timer) clearImmediate(this.baseline.timer);
    this.baseline = undefined;
    this.buffered = [];
    this.listings.clear();
    this.bins.clear();
    this.lowest.clear();
    this.pending.clear();
  }

  /** active listings indexed (a baseline still being indexed is finished first) */
  get size(): number {
    this.finishBaseline();
    return this.listings.size;
  }

  /** the baseline's listings not indexed yet (0 once its slices are done) */
  get baselineLeft(): number {
    return this.baseline ? this.baseline.rows.length - this.baseline.next : 0;
  }

  private whenLoaded(apply: () => void): void {
    if (this.loaded) apply();
    else this.buffered.push(apply);
  }

  private emit(events: DraftEvent[]): void {
    this.emitter.emit('batch', events);
  }

  // -------------------------------------------------------------------------

  private applyAuctions(change: AuctionsChangeBody): void {
    if (this.baselinePending && change.kind === 'auctions' && change.upserted.length > 0) {
      this.baselinePending = false;
      this.applyBaseline(change);
      return;
    }
    // The next change is told against the whole baseline.
    this.finishBaseline();
    const now = this.clock.now();
    const events: DraftEvent[] = [];
    const touched = new Set<string>();
    const counts = { new: 0, sold: 0, ended: 0, lbinChanged: 0 };
    this.forgetOldSales(now);

    for (const sale of change.sales) {
      if (this.sold.has(sale.uuid)) continue;
      this.sold.set(sale.uuid, now);
      const listing = this.listings.get(sale.uuid) ?? this.pending.get(sale.uuid)?.listing;
      this.pending.delete(sale.uuid);
      if (listing) this.remove(listing, touched);
      events.push(soldEvent(sale, listing, now));
      counts.sold++;
    }
    const saleUuids = new Set(change.sales.map((s) => s.uuid));
    for (const uuid of change.removed) {
      if (saleUuids.has(uuid)) continue;
      const listing = this.listings.get(uuid);
      if (!listing) continue;
      this.remove(listing, touched);
      if (listing.l.end <= now) {
        events.push({ topic: 'auction.ended', time: now, ...facts(listing), price: priceOf(listing), reason: 'expired' });
        counts.ended++;
      } else {
        this.pending.set(uuid, { listing, since: now });
      }
    }
    for (const row of change.upserted) {
      if (row.state !== 'active' || this.sold.has(row.uuid)) continue;
      const listing = this.listingFor(row);
      const before = this.listings.get(listing.uuid);
      if (before) this.remove(before, touched);
      this.put(listing, touched);
      if (!before && !this.pending.has(listing.uuid)) {
        events.push({ topic: 'auction.new', time: now, ...facts(listing), price: priceOf(listing) });
        counts.new++;
      }
      this.pending.delete(listing.uuid);
    }
    for (const [uuid, { listing, since }] of this.pending) {
      if (now - since < this.pendingMs) continue;
      this.pending.delete(uuid);
      events.push({ topic: 'auction.ended', time: now, ...facts(listing), price: priceOf(listing), reason: 'cancelled' });
      counts.ended++;
    }
    for (const key of touched) {
      const event = this.lbinChange(key, now);
      if (event) {
        events.push(event);
        counts.lbinChanged++;
      }
    }
    events.push({ topic: 'generation', time: now, feed: change.kind, lastUpdated: change.lastUpdated, counts: { ...counts, active: this.listings.size } });
    if (change.lastUpdated >= now - HISTORY_MS) this.emit(events);
  }

  /** A changed listing: the view's own object when it holds this version (it follows the spine first), else one built from the record. */
  private listingFor(record: ChangedListing): Listing {
    const held = this.options.view?.get(record.uuid);
    return entryOf(held && held.lastUpdated === record.lastUpdated ? held : compactListing(record));
  }

  /**
   * The baseline generation: told only as a `generation` event with its `baseline` count, at once;
   * indexed afterwards in slices (see `baseline`).
   */
  private applyBaseline(change: AuctionsChangeBody): void {
    const now = this.clock.now();
    let active = this.listings.size;
    for (const row of change.upserted) if (row.state === 'active' && !this.listings.has(row.uuid)) active++;
    this.baseline = { rows: change.upserted, next: 0, timer: undefined };
    this.scheduleBaseline();
    const counts = { new: 0, sold: 0, ended: 0, lbinChanged: 0, baseline: active, active };
    if (change.lastUpdated >= now - HISTORY_MS) this.emit([{ topic: 'generation', time: now, feed: change.kind, lastUpdated: change.lastUpdated, counts }]);
  }

  private scheduleBaseline(): void {
    const baseline = this.baseline;
    if (!baseline) return;
    baseline.timer = setImmediate(() => {
      baseline.timer = undefined;
      if (this.baseline !== baseline) return;
      this.indexBaseline(BASELINE_SLICE);
      this.scheduleBaseline();
    });
  }

  /** Indexes up to `limit` more of the baseline's listings; the lowest BINs once all are in. */
  private indexBaseline(limit: number): void {
    const baseline = this.baseline;
    if (!baseline) return;
    const end = Math.min(baseline.rows.length, baseline.next + limit);
    for (let i = baseline.next; i < end; i++) {
      const row = baseline.rows[i]!;
      if (row.state === 'active') this.put(this.listingFor(row));
    }
    baseline.next = end;
    if (end < baseline.rows.length) return;
    if (baseline.timer) clearImmediate(baseline.timer);
    this.baseline = undefined;
    for (const key of this.bins.keys()) this.refreshLowest(key);
  }

  private finishBaseline(): void {
    if (this.baseline) this.indexBaseline(Number.POSITIVE_INFINITY);
  }

  private applyBazaar(change: BazaarChangeBody): void {
    const now = this.clock.now();
    const events: DraftEvent[] = [];
    for (const row of change.products) {
      const quick: BazaarQuick = {
        buyPrice: row.buy_price,
        sellPrice: row.sell_price,
        buyVolume: row.buy_volume,
        sellVolume: row.sell_volume,
        buyMovingWeek: row.buy_moving_week,
        sellMovingWeek: row.sell_moving_week,
        buyOrders: row.buy_orders,
        sellOrders: row.sell_orders,
      };
      const book: OrderBook | undefined = Object.hasOwn(change.books, row.product_id) ? change.books[row.product_id] : undefined;
      const previous = this.bazaar.get(row.product_id);
      this.bazaar.set(row.product_id, quick);
      if (!bazaarMoved(previous, quick, book !== undefined)) continue;
      events.push({
        topic: 'bazaar.changed',
        time: now,
        product: row.product_id,
        ...quick,
        topBuyOrders: book ? book.buyOrders.slice(0, TOP_ORDERS) : null,
        topSellOffers: book ? book.sellOffers.slice(0, TOP_ORDERS) : null,
      });
    }
    events.push({ topic: 'generation', time: now, feed: 'bazaar', lastUpdated: change.ts, counts: { products: change.products.length, changed: events.length } });
    if (change.ts >= now - HISTORY_MS) this.emit(events);
  }

  // -------------------------------------------------------------------------

  private put(listing: Listing, touched?: Set<string>): void {
    this.listings.set(listing.uuid, listing);
    if (listing.l.bin && listing.l.highestBid === 0) {
      let set = this.bins.get(listing.key);
      if (!set) this.bins.set(listing.key, (set = new Set()));
      set.add(listing.uuid);
      touched?.add(listing.key);
    }
  }

  private remove(listing: Listing, touched: Set<string>): void {
    this.listings.delete(listing.uuid);
    const set = this.bins.get(listing.key);
    if (set?.delete(listing.uuid)) {
      touched.add(listing.key);
      if (set.size === 0) this.bins.delete(listing.key);
    }
  }

  /** The key's cheapest BIN now (ties: earliest end, then uuid, as market/active-auctions.ts). */
  private cheapest(key: string): ActiveListing | undefined {
    let best: ActiveListing | undefined;
    for (const uuid of this.bins.get(key) ?? []) {
      const l = this.listings.get(uuid)!.l;
      if (!best || l.startingBid < best.startingBid || (l.startingBid === best.startingBid && (l.end < best.end || (l.end === best.end && l.uuid < best.uuid)))) best = l;
    }
    return best;
  }

  private refreshLowest(key: string): void {
    const best = this.cheapest(key);
    if (best) this.lowest.set(key, { uuid: best.uuid, price: best.startingBid });
    else this.lowest.delete(key);
  }

  private lbinChange(key: string, now: number): DraftEvent | undefined {
    const old = this.lowest.get(key);
    const best = this.cheapest(key);
    if (best) this.lowest.set(key, { uuid: best.uuid, price: best.startingBid });
    else this.lowest.delete(key);
    const oldPrice = old?.price ?? null;
    const newPrice = best?.startingBid ?? null;
    if (oldPrice === newPrice) return undefined;
    const sep = key.indexOf('|');
    return {
      topic: 'lbin.changed',
      time: now,
      tag: sep < 0 ? key : key.slice(0, sep),
      variant: sep < 0 ? null : key.slice(sep + 1),
      oldPrice,
      newPrice,
      listing: best ? { uuid: best.uuid, price: best.startingBid, seller: best.seller, end: best.end, item: itemOf(best) } : null,
    };
  }

  private forgetOldSales(now: number): void {
    if (this.sold.size < 1000) return;
    for (const [uuid, at] of this.sold) {
      if (now - at < SOLD_MEMORY_MS) break; // insertion order: oldest first
      this.sold.delete(uuid);
    }
  }
}

function entryOf(l: ActiveListing): Listing {
  const variant = variantOf(l.tag, l.tier, l.flatNbt);
  return { uuid: l.uuid, l, variant, key: variant === null ? l.tag : `${l.tag}|${variant}` };
}

function itemOf(l: ActiveListing): AuctionItem {
  return { itemName: l.itemName, count: l.count, tier: l.tier, reforge: l.reforge, itemUid: l.itemUid, itemCreatedAt: l.itemCreatedAt, enchantments: l.enchantments, flatNbt: l.flatNbt };
}

function facts({ l, variant }: Listing): AuctionFacts {
  return { uuid: l.uuid, tag: l.tag, variant, bin: l.bin, startingBid: l.startingBid, highestBid: l.highestBid, seller: l.seller, start: l.start, end: l.end, item: itemOf(l) };
}

function priceOf({ l }: Listing): number {
  return l.highestBid > 0 ? l.highestBid : l.startingBid;
}

function soldEvent(sale: SaleNote, listing: Listing | undefined, now: number): DraftEvent {
  return {
    topic: 'auction.sold',
    time: now,
    uuid: sale.uuid,
    tag: listing?.l.tag ?? sale.tag ?? null,
    variant: listing?.variant ?? null,
    price: sale.price,
    bin: listing?.l.bin ?? sale.bin ?? null,
    buyer: sale.buyer,
    seller: listing?.l.seller ?? sale.seller ?? null,
    soldAt: sale.at,
    item: listing ? itemOf(listing.l) : null,
  };
}
