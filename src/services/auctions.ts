/**
 * What the auction endpoints ask: active listings (lowest BIN, the active filter and overview, a
 * random auction, listed items, low supply) from the market's in-memory view, and stored auctions
 * (one auction, sold history by tag and by item) from the store. Transport-free: answers are
 * records or established wire shapes (domain/auction-wire.ts); an unknown tag throws
 * UnknownTagError and a bad filter FilterError.
 */
import type { SellerNames, TagHistory } from './auction-filters.ts';
import type { Clock } from '../clock.ts';
import { colorSaveAuctionWire, nbtDataOf, saveAuctionWire, type BidFacts, type SaveAuctionWire } from '../domain/auction-wire.ts';
import type { CompiledFilter, FilterSubject } from '../domain/filters.ts';
import { enchantmentBookTag } from '../domain/tags.ts';
import type { ActiveListing } from '../market/active-auctions.ts';
import type { Market } from '../market/index.ts';
import type { AuctionQueryRepository } from '../store/repositories/auction-queries.ts';
import type { BazaarRepository } from '../store/repositories/bazaar.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';
import type { AuctionRecord, ItemSaleRow } from '../domain/auction-records.ts';
import type { BidsTable } from '../store/schema.ts';
import { compileAuctionFilters, KnownTags } from './auction-filters.ts';
import { priceVariantKey } from '../domain/prices.ts';

/** Listings on a lowest-BIN page. */
export const LOWEST_BIN_COUNT = 10;
const anyListing = () => true;

const DAY = 86_400_000;
export const OVERVIEW_PAGE_SIZE = 12;
export const SOLD_WINDOW_DAYS = 7;
export const SOLD_PARTNER_WINDOW_DAYS = 30;
/** Tags with fewer active listings than this are "low supply". */
export const LOW_SUPPLY_BELOW = 20;
/** The newest sales of a window the recent overview reads at most. */
const RECENT_SCAN_LIMIT = 5000;

export type ActiveOrder = 'LOWEST_PRICE' | 'HIGHEST_PRICE' | 'ENDING_SOON';

/** What AuctionService reads: sold and active auctions' details, bids and sales, bazaar prices (item values), seller names. */
export type AuctionsStore = SellerNames & TagHistory & {
  readonly auctionQueries: Pick<AuctionQueryRepository, 'bidsFor' | 'detail' | 'itemNbtOf' | 'medianPrices' | 'saleCounts' | 'salesByItemUid' | 'salesOfItem' | 'soldChunks' | 'soldPage'>;
  readonly bazaar: Pick<BazaarRepository, 'latestBuyPrices'>;
  readonly playerNames: Pick<PlayerNameRepository, 'namesOf'>;
};

export interface AuctionServiceDeps {
  store: AuctionsStore;
  /** the market's pieces it reads: the active listings, item NBT */
  market: {
    readonly activeAuctions: Pick<Market['activeAuctions'], 'ready' | 'isReady' | 'version' | 'hasTag' | 'lowestBin' | 'filterAll' | 'activeOf' | 'random' | 'hasItemUid' | 'lowSupply'>;
    readonly auctionNbt: Pick<Market['auctionNbt'], 'of'>;
  };
  clock: Clock;
}

/** Records to show as previews, with the names skymarket knows of their sellers. */
export interface Previews {
  records: AuctionRecord[];
  /** seller uuid → player name */
  names: ReadonlyMap<string, string>;
}

export interface LowSupply {
  tag: string;
  supply: number;
  median: number;
  /** the cheapest BIN listing and the next one, when listed */
  lowest: { startingBid: number; uuid: string } | null;
  secondLowest: { startingBid: number } | null;
  /** sales per day over the sold window */
  volume: number;
}

/** A sold record as a filter sees it: ended when it sold. */
export function soldSubject(r: AuctionRecord): FilterSubject {
  return { ...r, end: r.soldAt ?? r.end, sold: true };
}

export function bidFacts(b: BidsTable): BidFacts {
  return { bidder: b.bidder, profileId: b.profile_id, amount: Number(b.amount), at: Number(b.placed_at) };
}

/** What withSellerNames reads: the names skymarket has seen of players. */
export interface KnownNames {
  readonly playerNames: Pick<PlayerNameRepository, 'namesOf'>;
}

/** Records with the names skymarket has seen of their sellers. */
export async function withSellerNames(store: KnownNames, records: AuctionRecord[]): Promise<Previews> {
  const names = records.length ? await store.playerNames.namesOf(records.map((r) => r.seller)) : new Map<string, string>();
  return { records, names };
}

export class AuctionService {
  /** tags ever seen (active, sold, in the catalog); shared by the auction use cases */
  readonly knownTags: KnownTags;
  private readonly store: AuctionsStore;
  private readonly market: AuctionServiceDeps['market'];
  private readonly clock: Clock;

  constructor(deps: AuctionServiceDeps) {
    this.store = deps.store;
    this.market = deps.market;
    this.clock = deps.clock;
    this.knownTags = new KnownTags(deps.store, deps.market.activeAuctions);
  }

  private get view() {
    return this.market.activeAuctions;
  }

  /** The filters, compiled (FilterError when one is bad). */
  compile(filters: Record<string, string>): Promise<CompiledFilter> {
    return compileAuctionFilters(this.store, filters);
  }

  // --- active listings ---------------------------------------------------------

  /**
   * The generation of the active listings the lowest-BIN pages are built from: it moves with every
   * `auctions`/`auctions_ended` change the view applies (a prepared page built at another is stale).
   */
  listingsGeneration(): number {
    return this.view.version;
  }

  /** Whether the loaded view lists the tag: only then may a kept first page be served from memory. */
  listsTag(tag: string): boolean {
    return this.view.isReady() && this.view.hasTag(tag);
  }

  /**
   * The unfiltered first lowest-BIN page of a tag (`[]` without active BINs), and until when it
   * holds: the first of its listings to end (a listing ending changes the page without a change).
   */
  async firstLowestBinPage(tag: string): Promise<{ auctions: SaveAuctionWire[]; validUntil: number }> {
    await this.view.ready();
    const found = this.view.lowestBin(tag, anyListing, LOWEST_BIN_COUNT);
    const validUntil = found.reduce((min, l) => Math.min(min, l.end), Number.POSITIVE_INFINITY);
    const nbt = await this.market.auctionNbt.of(found.map((l) => l.uuid));
    return { auctions: found.map((l) => saveAuctionWire(l, [], nbt.get(l.uuid) ?? {})), validUntil };
  }

  /**
   * The cheapest active BINs of a tag matching the filters, a page of LOWEST_BIN_COUNT; `first-page`
   * for the unfiltered first page, which the route answers from its prepared page (firstLowestBinPage).
   */
  async lowestBin(tag: string, filters: Record<string, string>, page: number): Promise<SaveAuctionWire[] | 'first-page'> {
    const filter = await this.compile(filters);
    await this.view.ready();
    await this.knownTags.require(tag);
    if (filter.names.length === 0 && page === 0) return 'first-page';
    return this.saveAuctions(this.view.lowestBin(tag, filter.test, LOWEST_BIN_COUNT, page * LOWEST_BIN_COUNT));
  }

  /** Active auctions of every tag matching the filters, in `order`, one page. */
  async activeMatching(filters: Record<string, string>, order: ActiveOrder, page: number, pageSize: number): Promise<SaveAuctionWire[]> {
    const filter = await this.compile(filters);
    await this.view.ready();
    let found: ActiveListing[];
    if (order === 'ENDING_SOON') found = this.view.filterAll(filter.test, pageSize, page * pageSize);
    else {
      const all = this.view.filterAll(filter.test, Number.MAX_SAFE_INTEGER);
      all.sort(order === 'LOWEST_PRICE' ? byPriceAsc : byPriceDesc);
      found = all.slice(page * pageSize, page * pageSize + pageSize);
    }
    const bids = await this.store.auctionQueries.bidsFor(found.filter((l) => l.highestBid > 0).map((l) => l.uuid));
    // nbtData costs ~0.5 ms per item the first time an auction is shown (then it is remembered).
    return this.saveAuctions(found, bids);
  }

  /** Active auctions of a tag matching the filters, in `order`, `pageSize` from `page`. */
  async activeOverview(tag: string, filters: Record<string, string>, order: ActiveOrder, page: number, pageSize = OVERVIEW_PAGE_SIZE): Promise<Previews> {
    const filter = await this.compile(filters);
    await this.view.ready();
    await this.knownTags.require(tag);
    const found = this.view.activeOf(tag, filter.test);
    found.sort(order === 'HIGHEST_PRICE' ? byPriceDesc : order === 'ENDING_SOON' ? byEnd : byPriceAsc);
    return withSellerNames(this.store, found.slice(page * pageSize, (page + 1) * pageSize));
  }

  /** A random active auction (its bids when asked for), or undefined when none is listed. */
  async random(withBids: boolean): Promise<SaveAuctionWire | undefined> {
    await this.view.ready();
    const pick = this.view.random();
    if (!pick) return undefined;
    const bids = withBids ? ((await this.store.auctionQueries.bidsFor([pick.uuid])).get(pick.uuid) ?? []) : [];
    const nbt = await this.store.auctionQueries.itemNbtOf([pick.uuid]);
    return saveAuctionWire(pick, bids.map(bidFacts), nbtDataOf(nbt.get(pick.uuid)));
  }

  /** Which item uids (last 12 hex of an item uuid) are listed right now. */
  async listedItemUids(uids: readonly string[]): Promise<boolean[]> {
    await this.view.ready();
    return uids.map((uid) => this.view.hasItemUid(uid));
  }

  /** Tags with fewer than LOW_SUPPLY_BELOW and more than 2 listings, median at least 1,000,000 or no sales. */
  async lowSupply(): Promise<LowSupply[]> {
    await this.view.ready();
    const low = this.view.lowSupply(LOW_SUPPLY_BELOW).filter((s) => s.supply > 2);
    const since = this.clock.now() - SOLD_WINDOW_DAYS * DAY;
    const [counts, medians] = await Promise.all([this.store.auctionQueries.saleCounts(since), this.store.auctionQueries.medianPrices(low.map((s) => s.tag), since)]);
    return low
      .map((s) => ({
        tag: s.tag,
        supply: s.supply,
        median: medians.get(s.tag) ?? 0,
        lowest: s.lowest,
        secondLowest: s.secondLowest,
        volume: Math.round(((counts.get(s.tag) ?? 0) / SOLD_WINDOW_DAYS) * 100) / 100,
      }))
      .filter((e) => e.median >= 1_000_000 || e.volume === 0);
  }

  /** SaveAuctions of listings with their nbtData (remembered per auction by the market) and bids. */
  private async saveAuctions(listings: readonly ActiveListing[], bids?: ReadonlyMap<string, BidsTable[]>): Promise<SaveAuctionWire[]> {
    const nbt = await this.market.auctionNbt.of(listings.map((l) => l.uuid));
    return listings.map((l) => saveAuctionWire(l, (bids?.get(l.uuid) ?? []).map(bidFacts), nbt.get(l.uuid) ?? {}));
  }

  // --- stored auctions -----------------------------------------------------------

  /** One auction, active or ended, with its bids and its enchantments valued; undefined when not stored. */
  async detail(uuid: string) {
    const found = await this.store.auctionQueries.detail(uuid);
    if (!found) return undefined;
    const books = Object.entries(found.record.enchantments).map(([name, level]) => enchantmentBookTag(name, level));
    const values = await this.store.bazaar.latestBuyPrices(books);
    return colorSaveAuctionWire(found.record, found.bids.map(bidFacts), nbtDataOf(found.itemNbt), values);
  }

  /** The stored auction's item uid (null for an item without a uuid); undefined when the auction is not stored. */
  async itemUidOfAuction(uuid: string): Promise<string | null | undefined> {
    const found = await this.store.auctionQueries.detail(uuid);
    return found ? found.record.itemUid : undefined;
  }

  /** The price variants (domain/prices.ts) the tag's active listings show, sorted; [''] for a tag without variants. */
  variantsOf(tag: string): string[] {
    const keys = new Set<string>();
    for (const l of this.view.activeOf(tag, () => true)) keys.add(priceVariantKey(l));
    return [...keys].sort();
  }

  /** How many listings of a tag are active now (its supply). */
  supplyOf(tag: string): number {
    return this.view.activeOf(tag, () => true).length;
  }

  /**
   * The cheapest `n` BIN listings of a known tag matching the filters and one price variant
   * (domain/prices.ts priceVariantKey; '' = every variant), with how many listings of that choice
   * are active (its supply, auctions included).
   */
  async cheapestBins(tag: string, filters: Record<string, string>, variant: string, n: number): Promise<Previews & { supply: number }> {
    const filter = await this.compile(filters);
    await this.view.ready();
    await this.knownTags.require(tag);
    const test = (l: FilterSubject) => filter.test(l) && (variant === '' || priceVariantKey(l) === variant);
    const bins = this.view.lowestBin(tag, test, n);
    return { ...(await withSellerNames(this.store, bins)), supply: this.view.activeOf(tag, test).length };
  }

  /** Sold auctions of a known tag, newest first: SOLD_WINDOW_DAYS back, SOLD_PARTNER_WINDOW_DAYS for partners. */
  async sold(tag: string, partner: boolean, page: number, pageSize: number): Promise<AuctionRecord[]> {
    await this.knownTags.require(tag);
    const days = partner ? SOLD_PARTNER_WINDOW_DAYS : SOLD_WINDOW_DAYS;
    return this.store.auctionQueries.soldPage({ tag, since: this.clock.now() - days * DAY }, page * pageSize, pageSize);
  }

  /**
   * The newest `want` sales of a known tag matching the filters: the last day, widened to 14
   * days when fewer match, then to 90 unless more than 2 filters are set.
   */
  async recentSales(tag: string, filters: Record<string, string>, want = OVERVIEW_PAGE_SIZE): Promise<Previews> {
    const filter = await this.compile(filters);
    await this.knownTags.require(tag);
    const now = this.clock.now();
    let found: AuctionRecord[] = [];
    for (const days of [1, 14, 90]) {
      if (days === 90 && filter.names.length > 2) break;
      // The newest RECENT_SCAN_LIMIT sales of the window at most, read in chunks until enough match.
      found = [];
      for await (const rows of this.store.auctionQueries.soldChunks({ tag, since: now - days * DAY }, { max: RECENT_SCAN_LIMIT })) {
        for (const r of rows) if (found.length < want && filter.test(soldSubject(r))) found.push(r);
        if (found.length >= want) break;
      }
      if (found.length >= want) break;
    }
    return withSellerNames(this.store, found);
  }

  /** Sales of one item (by uid), newest first, one page; `more` when a next page exists. */
  async salesOfItem(uid: string, page: number, pageSize: number): Promise<{ sales: ItemSaleRow[]; more: boolean }> {
    // One row past the page says whether a next page exists.
    const rows = await this.store.auctionQueries.salesOfItem(uid, pageSize + 1, page * pageSize);
    return { sales: rows.slice(0, pageSize), more: rows.length > pageSize };
  }

  /** Sales of several items, per uid ([] for an item without sales). */
  async salesOfItems(uids: readonly string[]): Promise<Map<string, ItemSaleRow[]>> {
    const sales = await this.store.auctionQueries.salesByItemUid([...new Set(uids)]);
    const out = new Map<string, ItemSaleRow[]>(uids.map((uid) => [uid, []]));
    for (const s of sales) if (s.itemUid !== null) out.get(s.itemUid)?.push(s);
    return out;
  }

  /** Whether an auction (as a filter subject) matches the filters. */
  async matches(filters: Record<string, string>, subject: FilterSubject): Promise<boolean> {
    return (await this.compile(filters)).test(subject);
  }
}

const price = (l: ActiveListing) => (l.highestBid > 0 ? l.highestBid : l.startingBid);
const byPriceAsc = (a: ActiveListing, b: ActiveListing) => price(a) - price(b) || a.end - b.end;
const byPriceDesc = (a: ActiveListing, b: ActiveListing) => price(b) - price(a) || a.end - b.end;
const byEnd = (a: ActiveListing, b: ActiveListing) => a.end - b.end || (a.uuid < b.uuid ? -1 : 1);
