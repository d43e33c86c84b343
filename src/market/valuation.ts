/**
 * What the valuation reads of the market per tag, kept in memory: the tag's recent sales reduced
 * to comparison keys (read once from the store through the (tag, sold_at) index, bounded by the
 * window), the dimensions its sales say matter, and its active BINs' keys (from the active-auctions
 * view). A projection that follows the spine: a committed sale of a tag drops that tag's sales, so
 * the next valuation of the tag reads them again; a hole drops every tag. Read-only.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { MarketChange } from '../domain/market-change.ts';
import { decideDimensions, keysOf, PreparedComparables, type ComparableListing, type ComparableSale, type ItemKeys } from '../domain/valuation/comparables.ts';
import type { TagMarket } from '../domain/valuation/estimate.ts';
import { familyOf, traitsOf, type ItemTraits } from '../domain/valuation/traits.ts';
import type { ChangeSource } from '../spine/index.ts';
import { type Follower, type Followers, viewFollower } from '../spine/follower.ts';
import type { Store } from '../store/index.ts';
import type { ActiveAuctionsView, ActiveListing } from './active-auctions.ts';

/** How far back comparable sales are read. */
export const VALUATION_WINDOW_MS = 7 * 86_400_000;
/** Newest sales kept per tag: enough for the medians and the dimension rule, bounded per tag. */
export const SALES_PER_TAG = 400;
/** A tag's sales are read again after this long even without a sale (the window slides). */
const MAX_AGE_MS = 10 * 60_000;
/** Tags kept at most (least recently used dropped first). */
const MAX_TAGS = 5_000;

export interface TagMarketEntry extends TagMarket {
  tag: string;
  /** sales with their traits (clean base prices read them) */
  saleTraits: readonly ItemTraits[];
  loadedAt: number;
}

export class ValuationMarket {
  private readonly sales = new Map<string, { sales: ComparableSale[]; traits: ItemTraits[]; dims: TagMarket['dims']; prepared: PreparedComparables; loadedAt: number }>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly bins = new Map<string, { version: number; bins: ComparableListing[]; listings: ActiveListing[] }>();
  /** keys of a listing object (a changed listing is a new object) */
  private readonly listingKeys = new WeakMap<ActiveListing, { keys: ItemKeys; traits: ItemTraits }>();
  private readonly follower: Follower;
  /** tag reads from the store (for tests and metrics) */
  reads = 0;

  constructor(
    private readonly store: Pick<Store, 'auctionQueries' | 'changes'>,
    private readonly clock: Clock,
    private readonly view: ActiveAuctionsView,
    options: { changes?: ChangeSource; followers?: Followers; logger?: Logger | undefined } = {},
  ) {
    this.follower = viewFollower('valuation', { load: async () => this.sales.clear(), apply: (change) => this.apply(change) }, { changes: store.changes, now: () => clock.now() }, options);
  }

  start(): Promise<void> {
    return this.follower.start();
  }

  close(): void {
    this.follower.stop();
  }

  private apply(change: MarketChange): void {
    if (change.kind !== 'auctions' && change.kind !== 'auctions_ended') return;
    for (const sale of change.sales) {
      const tag = sale.tag ?? this.view.get(sale.uuid)?.tag;
      if (tag === undefined) {
        // A sale of a listing no view still holds: which tag it was is unknown, so every tag reads again.
        this.sales.clear();
        return;
      }
      this.sales.delete(tag);
    }
  }

  /** The tag's market for a valuation at `now` (sales read from the store when not held). */
  async forTag(tag: string, category?: string | null): Promise<TagMarketEntry> {
    const now = this.clock.now();
    let held = this.sales.get(tag);
    if (!held || now - held.loadedAt > MAX_AGE_MS) {
      let pending = this.loading.get(tag);
      if (!pending) {
        pending = this.load(tag, now, category).finally(() => this.loading.delete(tag));
        this.loading.set(tag, pending);
      }
      await pending;
      held = this.sales.get(tag);
    }
    const bins = this.binsOf(tag, category);
    if (!held) return { tag, sales: [], saleTraits: [], dims: { dims: [], fromSales: false }, bins: bins.bins, loadedAt: now };
    return { tag, sales: held.sales, saleTraits: held.traits, dims: held.dims, prepared: held.prepared, bins: bins.bins, loadedAt: held.loadedAt };
  }

  /** The held entry without reading the store (undefined when the tag is not held). */
  held(tag: string): boolean {
    return this.sales.has(tag);
  }

  private async load(tag: string, now: number, category?: string | null): Promise<void> {
    this.reads++;
    const rows = await this.store.auctionQueries.soldForValuation(tag, now - VALUATION_WINDOW_MS, SALES_PER_TAG);
    const sales: ComparableSale[] = [];
    const traits: ItemTraits[] = [];
    for (const r of rows) {
      if (!(r.price > 0) || r.count <= 0) continue;
      const t = traitsOf({ tag, tier: r.tier, count: r.count, enchantments: r.enchantments, flatNbt: r.flatNbt }, r.category ?? category);
      traits.push(t);
      sales.push({ price: r.price / r.count, at: r.at, keys: keysOf(t) });
    }
    const dims = decideDimensions(sales, familyOf(tag, category));
    if (this.sales.size >= MAX_TAGS) this.sales.delete(this.sales.keys().next().value!);
    // The comparables' indexes belong to these sales: a sale of the tag drops them with the sales (apply).
    this.sales.set(tag, { sales, traits, dims, prepared: new PreparedComparables(sales, dims.dims), loadedAt: now });
  }

  /** Keys and traits of an active listing (computed once per listing object). */
  keysOfListing(l: ActiveListing): { keys: ItemKeys; traits: ItemTraits } {
    let k = this.listingKeys.get(l);
    if (!k) {
      const traits = traitsOf(l, l.category);
      k = { keys: keysOf(traits), traits };
      this.listingKeys.set(l, k);
    }
    return k;
  }

  /** The tag's active BINs without bids, per item, with their keys (rebuilt when the view changed). */
  binsOf(tag: string, _category?: string | null): { bins: ComparableListing[]; listings: ActiveListing[] } {
    const version = this.view.version;
    const held = this.bins.get(tag);
    if (held && held.version === version) return held;
    const now = this.clock.now();
    const listings = this.view.isReady() ? this.view.lowestBin(tag, () => true, 2_000) : [];
    const bins: ComparableListing[] = [];
    const kept: ActiveListing[] = [];
    for (const l of listings) {
      if (l.end <= now || l.count <= 0) continue;
      bins.push({ uuid: l.uuid, price: l.startingBid / l.count, keys: this.keysOfListing(l).keys });
      kept.push(l);
    }
    const entry = { version, bins, listings: kept };
    if (this.bins.size >= MAX_TAGS) this.bins.clear();
    this.bins.set(tag, entry);
    return entry;
  }
}
