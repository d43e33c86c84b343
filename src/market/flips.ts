/**
 * The flip engine: keeps the inputs of every flip model in memory and recomputes the flips
 * off the request path whenever their inputs change — a new bazaar snapshot, a new auctions
 * generation or sales, an election change — when the change arrives on the spine (in this process,
 * or from Redis when ingestion runs in another); each run compares the feed state ingestion records
 * to see which inputs moved, so a change missed on the way is caught by the next. Requests read the
 * latest results.
 *
 * Bazaar-driven flips (spread, demand, residual, books, NPC both ways, fusion, copper) are
 * recomputed after each snapshot; auction-driven ones (attribute, mayor) after each auctions
 * generation or election change (at most once per `auctionsMinIntervalMs`). Forge and Kat flips
 * are priced by the crafting view (market/craft.ts, the craft flips' own prices) and recomputed
 * whenever it was rebuilt.
 */
import { electionLeader } from '../domain/elections.ts';
import { displayName } from '../domain/tags.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { FeedState } from '../store/repositories/feeds.ts';
import type { ChangeSource } from '../spine/index.ts';
import type { AuctionRow, PriceBucket } from '../store/repositories/flip-inputs.ts';
import { decodeBook, type OrderBook } from '../domain/bazaar-book.ts';
import { median, type ProductMarket } from '../domain/flips/common.ts';
import {
  demandFlips,
  realtimeRates,
  residualFlips,
  spreadFlips,
  type DemandSpreadFlip,
  type HourlyRates,
  type OpenOrderUnits,
  type ResidualEntry,
  type SpreadFlip,
  type VolumeSample,
} from '../domain/flips/bazaar.ts';
import { bookFlips, type BookFlip } from '../domain/flips/books.ts';
import { NPC_SHOP_UPLOAD_KIND, npcFlips, coinPricesPerUnit, npcOffersFromShopRows, npcOffersFromUploads, reverseNpcFlips, type NpcFlip, type NpcShopOffer, type ReverseNpcFlip } from '../domain/flips/npc.ts';
import { fusionFlips, multistepFusionFlips, type FuseFlip } from '../domain/flips/fusion.ts';
import { copperFlips, type CopperFlip } from '../domain/flips/copper.ts';
import { bazaarDailyVolume, mayorFlips, termsFromElections, type MayorDiffFlip, type MayorItemInput, type PriceSample } from '../domain/flips/mayor.ts';
import { attributeFlipsForTargets, type AttributeFlip, type AttributeTarget, type AuctionListing } from '../domain/flips/attribute.ts';
import { modifiersOf } from '../domain/sales-rollup.ts';
import { SalesRollups, type AttributeTargetSales } from './sales-rollups.ts';
import { combinable } from '../gamedata/tables/enchant-combining.ts';
import { FUSION_RECIPES, type FusionRecipe } from '../gamedata/tables/fusion.ts';
import { COPPER_YIELDS, type CopperYield } from '../gamedata/tables/copper.ts';
import { NPC_SHOP_ROWS } from '../gamedata/tables/npc-shops.ts';
import { builtinUpgradeCosts, type UpgradeCosts } from '../gamedata/upgrades.ts';
import type { GameData } from '../gamedata/types.ts';
import { CraftEngine } from '../domain/craft/engine.ts';
import { forgeFlips, type ForgeFlip } from '../domain/flips/forge.ts';
import { katFlips, type KatFlip } from '../domain/flips/kat.ts';
import type { CraftState } from './craft.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface FlipEngineOptions {
  /** 0 = never on its own (tests call refresh()); otherwise it runs on every change of `changes` */
  pollMs: number;
  /** the spine whose changes trigger a run (without it: a run every `pollMs`) */
  changes?: ChangeSource;
  /** window of recent snapshots for real-time demand (default 30 min) */
  demandWindowMs?: number;
  /** bucket of the price history (default 1 h) */
  bucketMs?: number;
  /** price history kept for mayor flips (default 14 days, the snapshot retention) */
  historyMs?: number;
  /** window of the "7-day" medians (default 7 days) */
  medianWindowMs?: number;
  auctionsMinIntervalMs?: number;
  /** units held by players' open orders per product; default: the orders the mod uploaded (player_bazaar_orders) */
  openOrders?: () => ReadonlyMap<string, OpenOrderUnits>;
  /** orders uploaded longer ago than this are ignored for residual capacity (default 2 h) */
  openOrdersMaxAgeMs?: number;
  /** NPC shop offers beyond the NEU table; default: the mod uploads stored in data_uploads */
  extraNpcOffers?: () => Iterable<NpcShopOffer>;
  /** distinct uploaders an uploaded NPC offer needs before it is used (default 2) */
  npcUploadQuorum?: number;
  fusionRecipes?: readonly FusionRecipe[];
  copperYields?: readonly CopperYield[];
  /** SkyBlock year length, for the first observed mayor term (default 124 h) */
  yearMs?: number;
  /** smallest relative expected price change a mayor flip needs (default 0.05) */
  mayorMinChange?: number;
  /** how often the bucketed price history is reloaded from the store (default 1 h) */
  historyReloadMs?: number;
  /**
   * Where bucketed price history comes from; default: aggregated from raw snapshots
   * (store.flipInputs.priceBuckets). The bazaar rollups (bazaar_2h) are the cheaper source at scale.
   */
  priceHistory?: (since: number, bucketMs: number) => Promise<PriceBucket[]>;
  /** star and attribute-level costs for attribute flips (default: the built-in tables) */
  upgradeCosts?: UpgradeCosts;
  /**
   * The process's in-memory active auctions (the API's view); when given, attribute flips read
   * active BINs from it instead of re-reading and re-parsing them from the store every generation.
   */
  activeBins?: ActiveBinSource;
  /** the crafting view: forge and Kat flips are priced from its state (none without it) */
  craft?: CraftSource;
  /** how long the 24-hour pet sale counts of the Kat flips are reused (default 10 min) */
  katVolumesMs?: number;
}

/** What the forge and Kat flips read: the game data and the crafting view's current state. */
export interface CraftSource {
  readonly game: GameData;
  current(): Promise<CraftState>;
}

export interface CraftFlipResults {
  computedAt: number;
  forge: ForgeFlip[];
  kat: KatFlip[];
}

/**
 * What the attribute flips read active BINs from: rows as `store.flipInputs.activeBins` returns
 * them, the same row object for a listing as long as it is unchanged.
 */
export interface ActiveBinSource {
  ready(): Promise<void>;
  binRows(tags: readonly string[], now: number): AuctionRow[];
}

export interface BazaarFlipResults {
  computedAt: number;
  /** upstream time of the snapshot the results are based on */
  snapshotAt: number;
  spread: SpreadFlip[];
  demand: DemandSpreadFlip[];
  books: BookFlip[];
  /** buy on the bazaar, sell to an NPC */
  npc: NpcFlip[];
  /** buy from an NPC, sell on the bazaar */
  reverseNpc: ReverseNpcFlip[];
  fusion: FuseFlip[];
  multistep: FuseFlip[];
  copper: CopperFlip[];
  /** residual flips at the default hold time of 1 h */
  residual: ResidualEntry[];
}

export interface AuctionFlipResults {
  computedAt: number;
  attribute: AttributeFlip[];
  mayor: MayorDiffFlip[];
}

/** A stored order book, decoded on first use (a corrupt one reads as no book: top prices only). */
class LazyBook {
  private decoded: OrderBook | null | undefined;
  constructor(private readonly data: Uint8Array) {}
  get(): OrderBook | null {
    if (this.decoded === undefined) {
      try {
        this.decoded = decodeBook(this.data);
      } catch {
        this.decoded = null;
      }
    }
    return this.decoded;
  }
}

/** A product as the engine holds it: the models read `book`, decoded lazily. */
class HeldProduct implements ProductMarket {
  buyPrice = 0;
  sellPrice = 0;
  buyMovingWeek = 0;
  sellMovingWeek = 0;
  lazyBook: LazyBook | null = null;
  constructor(
    readonly productId: string,
    public name: string,
  ) {}
  get book(): OrderBook | null {
    return this.lazyBook?.get() ?? null;
  }
}

export class FlipEngine {
  private opts: Required<Omit<FlipEngineOptions, 'openOrders' | 'extraNpcOffers' | 'priceHistory' | 'upgradeCosts' | 'activeBins' | 'craft' | 'changes'>> &
    Pick<FlipEngineOptions, 'openOrders' | 'extraNpcOffers' | 'priceHistory' | 'activeBins' | 'craft' | 'changes'>;
  private readonly upgradeCosts: UpgradeCosts;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  /** a change arrived during a run: run once more after it */
  private rerun = false;

  // Inputs held in memory.
  private loaded = false;
  private lastSnapshotTs = 0;
  private readonly market = new Map<string, HeldProduct>();
  /** encoded books; decoded on first use (most models never walk a book, decoding all 1,500 costs ~100 ms) */
  private readonly books = new Map<string, LazyBook>();
  private readonly counters = new Map<string, VolumeSample[]>();
  /** product → bucket start → running mean of the instant-buy price */
  private readonly buckets = new Map<string, Map<number, { sum: number; n: number }>>();
  private medians = new Map<string, number>();
  private mediansAt = -Infinity;
  private trimmedTo = -Infinity;
  private historyLoadedAt = -Infinity;
  /** sales rolled up per variant and hour: what the auction-driven flips read instead of every sale */
  readonly rollups: SalesRollups;
  /** the attribute variants of the last auction computation (their 7-day medians): attribute prices read them */
  attributeVariants: readonly AttributeTargetSales[] = [];
  /** attribute-flip listings derived from the view's rows (see listingOf) */
  private readonly listings = new WeakMap<AuctionRow, AuctionListing>();
  private storedOpenOrders: ReadonlyMap<string, OpenOrderUnits> = new Map();
  private names = new Map<string, string>();
  private npcSellPrices = new Map<string, number>();
  private readonly neuOffers = npcOffersFromShopRows(NPC_SHOP_ROWS);
  /** NEU's coin prices, to cross-check uploaded offers against */
  private readonly neuCoinPrices = coinPricesPerUnit(this.neuOffers);
  private feedSeen = new Map<string, number>();
  private auctionsComputedAt = -Infinity;
  private auctionsDirty = false;

  private uploadedNpcOffers: NpcShopOffer[] = [];
  /** the latest results; null until the first computation */
  bazaar: BazaarFlipResults | null = null;
  auctions: AuctionFlipResults | null = null;
  /** forge and Kat flips; null until the first computation (and without a crafting view) */
  crafted: CraftFlipResults | null = null;
  /** the crafting-view state the forge and Kat flips were computed from */
  private craftSeen: CraftState | undefined;
  private katVolumes: { at: number; counts: ReadonlyMap<string, number> } = { at: -Infinity, counts: new Map() };
  /** upstream time of the newest data any flip was computed from */
  lastUpdate: number | null = null;
  /** how long the last bazaar recomputation took (ms), for metrics and the bench */
  lastBazaarMs = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger?: Logger,
    options: FlipEngineOptions = { pollMs: 2000 },
  ) {
    this.opts = {
      demandWindowMs: 30 * MINUTE,
      bucketMs: HOUR,
      historyMs: 14 * DAY,
      medianWindowMs: 7 * DAY,
      auctionsMinIntervalMs: MINUTE,
      fusionRecipes: FUSION_RECIPES,
      copperYields: COPPER_YIELDS,
      yearMs: 124 * HOUR,
      mayorMinChange: 0.05,
      historyReloadMs: HOUR,
      openOrdersMaxAgeMs: 2 * HOUR,
      npcUploadQuorum: 2,
      katVolumesMs: 10 * MINUTE,
      ...options,
    };
    this.upgradeCosts = options.upgradeCosts ?? builtinUpgradeCosts();
    this.rollups = new SalesRollups(store);
  }

  /** Tunes the windows and thresholds (tests, benchmarks); takes effect at the next computation. */
  setOptions(options: Partial<FlipEngineOptions>): void {
    Object.assign(this.opts, options);
  }

  start(): void {
    if (this.opts.pollMs <= 0 || this.timer || this.unsubscribe) return;
    const changes = this.opts.changes;
    if (changes) {
      this.kick();
      void changes.head().then((head) => {
        if (this.stopped || this.unsubscribe) return;
        this.unsubscribe = changes.subscribe(head, (event) => {
          // Every change is of its inputs; a stream back after an outage may have missed some (the run reads the feed state).
          if (event.type !== 'unavailable') this.kick();
        });
      });
      return;
    }
    const tick = () => {
      if (this.stopped) return;
      this.refresh()
        .catch((err: unknown) => this.logger?.error({ err }, 'flip recomputation failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.opts.pollMs);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  /**
   * Runs now (after the run under way, once, however many changes came meanwhile). Auction-driven
   * flips held back by `auctionsMinIntervalMs` get a run of their own when the interval has passed.
   */
  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.refresh()
      .catch((err: unknown) => this.logger?.error({ err }, 'flip recomputation failed'))
      .finally(() => {
        if (this.stopped) return;
        if (this.rerun) {
          this.rerun = false;
          this.kick();
        } else if (this.auctionsDirty && !this.timer) {
          const wait = Math.max(0, this.auctionsComputedAt + this.opts.auctionsMinIntervalMs - this.clock.now());
          this.timer = setTimeout(() => {
            this.timer = undefined;
            this.kick();
          }, wait);
          this.timer.unref();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }

  /**
   * Looks at the feed state and recomputes what changed. Concurrent calls share one run.
   * `force` recomputes everything from the inputs held (used by `requestRefresh`).
   */
  refresh(force = false): Promise<void> {
    if (this.running) return this.running;
    this.running = this.run(force).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private changed(feeds: FeedState[], ...names: string[]): boolean {
    let any = false;
    for (const f of feeds) {
      if (!names.includes(f.name)) continue;
      if (this.feedSeen.get(f.name) !== f.lastUpdated) {
        this.feedSeen.set(f.name, f.lastUpdated);
        any = true;
      }
    }
    return any;
  }

  private async run(force: boolean): Promise<void> {
    const feeds = await this.store.feeds.all();
    const catalogChanged = this.changed(feeds, 'items');
    const bazaarChanged = this.changed(feeds, 'bazaar');
    const auctionsChanged = this.changed(feeds, 'auctions', 'auctions_ended', 'election');
    if (catalogChanged || !this.loaded) await this.loadCatalog();
    const now0 = this.clock.now();
    if (bazaarChanged || !this.loaded) {
      const latest = await this.store.flipInputs.latestSnapshotTs();
      if (latest !== null) {
        // First load, or too far behind to replay row by row (e.g. history was just backfilled): load the window.
        if (!this.loaded || latest - this.lastSnapshotTs > this.opts.demandWindowMs) {
          await this.initialLoad(latest);
          this.loaded = true;
          this.historyLoadedAt = now0;
        } else {
          await this.loadNewSnapshots();
        }
      }
    }
    if (this.loaded && now0 - this.historyLoadedAt >= this.opts.historyReloadMs) {
      // Snapshots stored out of order (history replay, a second ingester) reach the medians this way.
      this.historyLoadedAt = now0;
      await this.loadHistory(this.lastSnapshotTs);
    }
    if (bazaarChanged || catalogChanged || force || !this.bazaar) {
      if (this.market.size > 0) {
        if (!this.opts.openOrders) this.storedOpenOrders = await this.store.flipInputs.openOrderUnits(this.lastSnapshotTs - this.opts.openOrdersMaxAgeMs);
        // NPC shop contents players' mods uploaded (kept 2 days), besides the NEU shop table.
        if (!this.opts.extraNpcOffers) {
          const uploads = await this.store.dataUploads.recent(NPC_SHOP_UPLOAD_KIND, 500);
          this.uploadedNpcOffers = npcOffersFromUploads(uploads.map((u) => ({ body: u.body, uploader: u.requestId })), this.opts.npcUploadQuorum, this.neuCoinPrices);
        }
        this.computeBazaar();
      }
    }
    if (auctionsChanged || force) this.auctionsDirty = true;
    const now = this.clock.now();
    if (this.auctionsDirty && (force || now - this.auctionsComputedAt >= this.opts.auctionsMinIntervalMs)) {
      this.auctionsDirty = false;
      this.auctionsComputedAt = now;
      await this.computeAuctions();
    }
    // The forge and Kat flips depend on the crafting view: its failure must not hold back the other feeds.
    await this.computeCrafted().catch((err: unknown) => this.logger?.error({ err }, 'forge and Kat flip computation failed'));
    const newest = Math.max(0, ...feeds.filter((f) => f.name !== 'items').map((f) => f.lastUpdated));
    if (newest > 0) this.lastUpdate = newest;
  }

  private async loadCatalog(): Promise<void> {
    const names = new Map<string, string>();
    const npc = new Map<string, number>();
    for (const item of await this.store.flipInputs.catalog()) {
      names.set(item.tag, item.name);
      if (item.npcSellPrice && item.npcSellPrice > 0) npc.set(item.tag, item.npcSellPrice);
    }
    this.names = names;
    this.npcSellPrices = npc;
    for (const p of this.market.values()) p.name = names.get(p.productId) ?? displayName(p.productId);
  }

  private async initialLoad(latest: number): Promise<void> {
    this.books.clear();
    this.counters.clear();
    for (const [product, data] of await this.store.bazaar.latestBooks()) this.books.set(product, new LazyBook(data));
    await this.loadHistory(latest);
    const rows = await this.store.flipInputs.snapshotsAfter(latest - this.opts.demandWindowMs - 1);
    // Books of older rows are superseded by latestBooks(); only counters and prices matter here.
    this.apply(rows.map((r) => ({ ...r, book: null })), false);
  }

  /** (Re)loads the bucketed price history behind medians and mayor flips. */
  private async loadHistory(latest: number): Promise<void> {
    const since = latest - this.opts.historyMs;
    const buckets = this.opts.priceHistory ? await this.opts.priceHistory(since, this.opts.bucketMs) : await this.store.flipInputs.priceBuckets(since, this.opts.bucketMs);
    this.buckets.clear();
    for (const b of buckets) {
      let m = this.buckets.get(b.productId);
      if (!m) this.buckets.set(b.productId, (m = new Map()));
      m.set(b.bucket, { sum: b.price, n: 1 });
    }
    this.mediansAt = -Infinity;
  }

  private async loadNewSnapshots(): Promise<void> {
    const rows = await this.store.flipInputs.snapshotsAfter(this.lastSnapshotTs);
    this.apply(rows, true);
  }

  /** Folds snapshot rows (oldest first) into the in-memory market, counters and price buckets. */
  private apply(rows: ReadonlyArray<{ productId: string; ts: number; buyPrice: number; sellPrice: number; buyMovingWeek: number; sellMovingWeek: number; book: Uint8Array | null }>, addBuckets: boolean): void {
    const bucketMs = this.opts.bucketMs;
    for (const r of rows) {
      if (r.book) this.books.set(r.productId, new LazyBook(r.book));
      let p = this.market.get(r.productId);
      if (!p) {
        p = new HeldProduct(r.productId, this.names.get(r.productId) ?? displayName(r.productId));
        this.market.set(r.productId, p);
      }
      p.buyPrice = r.buyPrice;
      p.sellPrice = r.sellPrice;
      p.buyMovingWeek = r.buyMovingWeek;
      p.sellMovingWeek = r.sellMovingWeek;
      p.lazyBook = this.books.get(r.productId) ?? null;
      let c = this.counters.get(r.productId);
      if (!c) this.counters.set(r.productId, (c = []));
      c.push({ ts: r.ts, buyMovingWeek: r.buyMovingWeek, sellMovingWeek: r.sellMovingWeek });
      if (addBuckets && r.buyPrice > 0) {
        let m = this.buckets.get(r.productId);
        if (!m) this.buckets.set(r.productId, (m = new Map()));
        const b = Math.floor(r.ts / bucketMs) * bucketMs;
        const e = m.get(b);
        if (e) {
          e.sum += r.buyPrice;
          e.n++;
        } else m.set(b, { sum: r.buyPrice, n: 1 });
      }
      if (r.ts > this.lastSnapshotTs) this.lastSnapshotTs = r.ts;
    }
    // Trim windows.
    const counterFrom = this.lastSnapshotTs - this.opts.demandWindowMs;
    for (const c of this.counters.values()) {
      let drop = 0;
      while (drop < c.length - 1 && c[drop]!.ts < counterFrom) drop++;
      if (drop > 0) c.splice(0, drop);
    }
    // Buckets age out one bucket at a time: trim only when the oldest kept bucket moves.
    const bucketFrom = Math.floor((this.lastSnapshotTs - this.opts.historyMs) / bucketMs) * bucketMs;
    if (rows.length > 0 && bucketFrom !== this.trimmedTo) {
      this.trimmedTo = bucketFrom;
      for (const m of this.buckets.values()) for (const b of m.keys()) if (b < bucketFrom) m.delete(b);
    }
  }

  /** 7-day medians of the hourly mean instant-buy price, refreshed at most every 5 minutes. */
  private currentMedians(): Map<string, number> {
    if (this.lastSnapshotTs - this.mediansAt < 5 * MINUTE) return this.medians;
    const from = this.lastSnapshotTs - this.opts.medianWindowMs;
    const out = new Map<string, number>();
    for (const [product, m] of this.buckets) {
      const values: number[] = [];
      for (const [b, e] of m) if (b >= from) values.push(e.sum / e.n);
      const med = median(values);
      if (med !== null) out.set(product, Math.round(med * 10) / 10);
    }
    this.medians = out;
    this.mediansAt = this.lastSnapshotTs;
    return out;
  }

  /** Recomputes every bazaar-driven flip from the inputs held in memory. Synchronous and pure apart from `this`. */
  computeBazaar(): BazaarFlipResults {
    const started = performance.now();
    const now = this.clock.now();
    const medians = this.currentMedians();
    const rates = new Map<string, HourlyRates>();
    for (const [product, samples] of this.counters) {
      const r = realtimeRates(samples);
      if (r) rates.set(product, r);
    }
    const products = [...this.market.values()];
    const offers: NpcShopOffer[] = [...this.neuOffers, ...(this.opts.extraNpcOffers ? this.opts.extraNpcOffers() : this.uploadedNpcOffers)];
    const results: BazaarFlipResults = {
      computedAt: now,
      snapshotAt: this.lastSnapshotTs,
      spread: spreadFlips(products, medians, now),
      demand: demandFlips(products, rates, medians, now),
      books: bookFlips(products, combinable, now),
      npc: npcFlips(this.market, this.npcSellPrices, now),
      reverseNpc: reverseNpcFlips(this.market, offers, medians, now),
      fusion: fusionFlips(this.market, this.opts.fusionRecipes),
      multistep: multistepFusionFlips(this.market, this.opts.fusionRecipes),
      copper: copperFlips(this.market, this.opts.copperYields, now),
      residual: residualFlips(products, this.openOrders(), 1, now),
    };
    this.bazaar = results;
    this.lastBazaarMs = performance.now() - started;
    return results;
  }

  /** Open orders players' mods reported (store, refreshed before each bazaar computation), unless an override is set. */
  private openOrders(): ReadonlyMap<string, OpenOrderUnits> {
    return this.opts.openOrders?.() ?? this.storedOpenOrders;
  }

  /** Residual flips for another hold time, from the held market (linear in the number of products). */
  residual(targetHoldTimeHours: number): ResidualEntry[] {
    if (!this.bazaar) return [];
    if (targetHoldTimeHours === 1) return this.bazaar.residual;
    return residualFlips(this.market.values(), this.openOrders(), targetHoldTimeHours, this.bazaar.computedAt);
  }

  private async computeAuctions(): Promise<void> {
    const now = this.clock.now();
    const ref = Math.max(this.lastSnapshotTs, now);
    const elections = await this.store.flipInputs.elections();
    const terms = termsFromElections(elections.map((e) => ({ year: e.year, mayorName: e.mayorName, lastSeen: e.lastSeen })), ref, this.opts.yearMs);
    const latest = elections[elections.length - 1];
    const currentMayor = latest?.mayorName ?? null;
    const nextMayor = latest ? electionLeader(latest.payload) : null;

    // Sales come rolled up per variant and hour by the rollup job (plus the sales after its last
    // hour, raw): memory grows with the variants that sell, not with the sales of the window.
    const rolled = await this.rollups.state();
    const tail = await this.rollups.rawTail(rolled, ref);

    // Attribute flips: target variants that sold often enough in the 7-day window, listings of their tags.
    const targets: AttributeTarget[] = await this.rollups.attributeTargets(rolled, tail, ATTRIBUTE_MIN_SALES);
    this.attributeVariants = targets;
    const tags = [...new Set(targets.map((t) => t.tag))];
    const active = tags.length > 0 ? await this.activeBins(tags, now) : [];
    const listings = active.map((a) => this.listingOf(a));
    // Upgrades that are not bazaar products (pet items, some shards and star items) are priced at their lowest BIN.
    const offBazaar = new Set<string>();
    const needs = (id: string | null | undefined) => {
      if (id && !this.market.has(id)) offBazaar.add(id);
    };
    for (const { tag, mods } of targets) {
      needs(mods.petHeldItem);
      for (const name of Object.keys(mods.attributes)) needs(this.upgradeCosts.attributeShards.get(name)?.productId);
      if (mods.stars > 0) for (const items of this.upgradeCosts.stars.get(tag)?.itemsPerStar ?? []) for (const id of Object.keys(items)) needs(id);
    }
    const offBazaarBins = new Map<string, number>();
    for (const b of offBazaar.size > 0 ? await this.activeBins([...offBazaar], now) : []) {
      const unit = b.price / Math.max(1, b.count);
      if (unit > 0 && unit < (offBazaarBins.get(b.tag) ?? Infinity)) offBazaarBins.set(b.tag, unit);
    }
    const attribute = attributeFlipsForTargets(this.market, listings, targets, {
      now,
      windowDays: 7,
      derpy: currentMayor?.toLowerCase() === 'derpy',
      upgrades: this.upgradeCosts,
      lowestBin: (tag) => offBazaarBins.get(tag) ?? null,
    });

    // Mayor flips: bazaar products from the price buckets, auction items from their sales.
    const items: MayorItemInput[] = [];
    for (const [product, m] of this.buckets) {
      const p = this.market.get(product);
      if (!p) continue;
      const samples: PriceSample[] = [...m].map(([ts, e]) => ({ ts, price: e.sum / e.n }));
      items.push({ tag: product, name: p.name, samples, volume: bazaarDailyVolume(p) });
    }
    // Auction items: one comparable variant per tag (its most sold one), not a mix of pet levels and upgrades.
    for (const e of await this.rollups.mayorItems(rolled, tail, 3)) items.push({ tag: e.tag, name: e.name, samples: e.samples, volume: e.count / 14, minSamples: AUCTION_TERM_MIN_SALES });
    const mayor = mayorFlips(items, terms, nextMayor, this.opts.mayorMinChange);

    this.auctions = { computedAt: now, attribute, mayor };
    this.logger?.debug({ attribute: attribute.length, mayor: mayor.length, targets: targets.length, ms: Math.round(this.clock.now() - now) }, 'auction flips computed');
  }

  /**
   * Forge and Kat flips, when the crafting view was rebuilt since the last computation (a new
   * bazaar snapshot or a change of the lowest BINs): the forge entries of its craft list, and pet
   * upgrades priced with its prices (materials as the craft flips buy ingredients).
   */
  private async computeCrafted(): Promise<void> {
    const craft = this.opts.craft;
    if (!craft) return;
    const state = await craft.current();
    if (state === this.craftSeen) return;
    const now = this.clock.now();
    const game = craft.game;
    const forge = forgeFlips(state.profits, game);
    let kat: KatFlip[] = [];
    const petTags = [...new Set(game.katUpgrades.map((k) => k.petTag))];
    if (petTags.length > 0) {
      const listings = await this.activeBins(petTags, now);
      if (now - this.katVolumes.at >= this.opts.katVolumesMs) this.katVolumes = { at: now, counts: await this.store.auctionQueries.saleCounts(now - DAY) };
      const engine = new CraftEngine(game, state.prices, { useOrders: false });
      kat = katFlips(game.katUpgrades, listings, {
        materialCost: (tag, count) => {
          const plan = engine.plan(tag, count);
          return plan.enough && plan.currencies.length === 0 ? plan.cost : undefined;
        },
        volumes: this.katVolumes.counts,
        derpy: state.prices.derpy ?? false,
      });
    }
    this.crafted = { computedAt: now, forge, kat };
    this.craftSeen = state;
    this.logger?.debug({ forge: forge.length, kat: kat.length, ms: Math.round(this.clock.now() - now) }, 'forge and Kat flips computed');
  }

  /**
   * A listing as the attribute flips read it. The view's unchanged listings are the same objects
   * from one computation to the next, so their variants are derived once (60,000 listings
   * re-derived every generation cost ~300 ms of CPU and as much garbage).
   */
  private listingOf(row: AuctionRow): AuctionListing {
    let listing = this.listings.get(row);
    if (!listing) this.listings.set(row, (listing = { ...modifiersOf(row), uuid: row.uuid, tag: row.tag, itemName: row.itemName, price: row.price, startAt: row.at, count: row.count }));
    return listing;
  }

  /** Active BINs of `tags` not ended at `now`: from the in-memory view when the process has one, else from the store. */
  private async activeBins(tags: readonly string[], now: number): Promise<AuctionRow[]> {
    const view = this.opts.activeBins;
    if (!view) return this.store.flipInputs.activeBins(tags, now);
    await view.ready();
    return view.binRows(tags, now);
  }

  /**
   * Replayed history (older snapshots, sales and elections) was just stored (and rolled up again
   * by the jobs): reload the price history and recompute the auction-driven flips at the next run
   * instead of within the hour.
   */
  async historyReplayed(): Promise<void> {
    this.historyLoadedAt = -Infinity;
    this.auctionsDirty = true;
    this.auctionsComputedAt = -Infinity;
    return this.refresh();
  }

  /** Number of products held (for health and tests). */
  get products(): number {
    return this.market.size;
  }
}

/** Sales a target variant needs in the 7-day window. */
export const ATTRIBUTE_MIN_SALES = 3;

/** Sales a mayor term needs before an auction item's term median counts (see docs/flips.md). */
export const AUCTION_TERM_MIN_SALES = 5;
