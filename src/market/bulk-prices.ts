/**
 * The bulk price files (issue "Bulk price files for mods"), built from the active listings once
 * per change of the view (a generation, or sales leaving it) and kept as data: each file's map.
 * The routes serialise and compress them once per build (http/prepared-answers.ts): the market
 * returns data, never bytes.
 *
 * - `neu/lowestbin`: `{NEU_ID: lowest BIN}` per item (a stack's price divided by its count), as
 *   NEU's `lowestbin.json`; Coflnet's `/api/prices/neu` is the same map.
 * - `elite/raw`, `elite/smooth`: `{ELITE_ID: price}` keyed with Elite's extensions
 *   (`TYPE;N+100` …): the absolute lowest, and the lowest inside the outlier fence
 *   (domain/bulk-prices.ts `smoothLowest`).
 * - `bazaar/hypixel`, `bazaar/neu`: every product's figures in the newest bazaar snapshot, keyed
 *   by product id or by NEU id, rebuilt when a new snapshot is stored.
 * - the averages over 1, 3 and 7 days, rebuilt when the price rollups (market/price-rollups.ts)
 *   close an hour: `neu/auction_averages_lbin/Nday` and `elite/average-lbin/Nday` (the mean of the
 *   hourly lowest BINs), `neu/auction_averages/Nday` (NEU's sales figures).
 * - `networth/lower`, `networth/upper`: the flat map networth libraries read
 *   (domain/networth-prices.ts), from the listings, the bazaar snapshot, the attribute sales and the
 *   last day's lowest BINs; rebuilt at the next request after any of them changed (as the tooltip
 *   file) and, once requested, after each change the listings' view applies; sent from memory while current.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { coins, eliteIdOf, smoothLowest, variantIds } from '../domain/bulk-prices.ts';
import { averageWindow, DAY_MS, HOUR_MS } from '../domain/prices.ts';
import { isPetTag, neuIdOf, PET_RARITIES } from '../domain/item-names.ts';
import { craftCostsPerUnit } from '../domain/craft/profit.ts';
import type { PriceSource } from '../domain/craft/prices.ts';
import type { GameData } from '../gamedata/types.ts';
import type { CraftMarket } from './craft.ts';
import type { ItemCatalog } from './item-catalog.ts';
import type { Store } from '../store/index.ts';
import type { BazaarQuick } from '../domain/stream-events.ts';
import type { ProductQuick } from '../store/repositories/market-prices.ts';
import type { ActiveAuctionsView } from './active-auctions.ts';
import { networthPrices, upperCaseKeys } from '../domain/networth-prices.ts';
import type { AttributeVariantSales } from '../domain/attribute-prices.ts';

export type BulkFileName = 'neu/lowestbin' | 'elite/raw' | 'elite/smooth';
export const BULK_FILE_NAMES: readonly BulkFileName[] = ['neu/lowestbin', 'elite/raw', 'elite/smooth'];

/** One file's data: the map a route serialises (once per build, http/prepared-answers.ts). */
export interface PreparedFile {
  /** the file's map, keys in order (equal prices give equal bytes and ETags) */
  value: Readonly<Record<string, unknown>>;
  /** when the listings it was built from were current (epoch ms) */
  builtAt: number;
  /** keys in the file */
  keys: number;
}

/** What one build read and wrote, for the files' metadata. */
export interface BulkBuild {
  builtAt: number;
  listings: number;
  buildMs: number;
  files: Record<BulkFileName, PreparedFile>;
  /** the lowest BIN per NEU id, and the tag each id came from (the tooltip file) */
  lowest: ReadonlyMap<string, { price: number; tag: string }>;
}

export type BazaarFileName = 'bazaar/hypixel' | 'bazaar/neu';

/** The bazaar files of one snapshot. */
export interface BazaarBuild {
  /** the snapshot's time (epoch ms) */
  snapshotAt: number;
  products: number;
  files: Record<BazaarFileName, PreparedFile>;
  quick: readonly ProductQuick[];
}

export type TooltipFileName = 'tooltip/neu' | 'tooltip/hypixel';

/** One item of the tooltip file: what a tooltip shows, each figure only where known. */
export interface TooltipEntry {
  lowestBin?: number;
  avgLowestBin1d?: number;
  avgLowestBin3d?: number;
  avgLowestBin7d?: number;
  medianSale3d?: number;
  salesPerDay3d?: number;
  bazaarBuy?: number;
  bazaarSell?: number;
  npcSell?: number;
  craftCost?: number;
}

export interface TooltipBuild {
  builtAt: number;
  items: number;
  buildMs: number;
  files: Record<TooltipFileName, PreparedFile>;
}

/** The networth file with lower-case keys (SkyHelper-Networth 1.x and kin) or upper-case ones (2.x). */
export type NetworthFileName = 'networth/lower' | 'networth/upper';

export interface NetworthBuild {
  builtAt: number;
  /** active BIN listings read */
  listings: number;
  /** bazaar products read (0 before the first snapshot) */
  products: number;
  buildMs: number;
  files: Record<NetworthFileName, PreparedFile>;
}

export const AVERAGE_DAYS = [1, 3, 7] as const;
export type AverageDays = (typeof AVERAGE_DAYS)[number];
export type AverageKind = 'neu/auction_averages_lbin' | 'elite/average-lbin' | 'neu/auction_averages';
export type AverageFileName = `${AverageKind}/${AverageDays}day`;

/** NEU's sales figures of one id over a window (`auction_averages/*.json`). */
export interface NeuSalesAverage {
  /** coins paid: the sum of the sale prices */
  price: number;
  /** items sold (stack sizes summed) */
  count: number;
  /** sales per day */
  sales: number;
  /** the mean price per item of the sales inside the outlier fence */
  clean_price: number;
  /** those sales per day */
  clean_sales: number;
}

/** The averages files of one rolled-up hour. */
export interface AveragesBuild {
  /** the end of the windows: every hour before it is rolled up (epoch ms) */
  to: number;
  /** days of history each window actually covers (a young store covers less than its window) */
  covered: Record<AverageDays, number>;
  files: Record<AverageFileName, PreparedFile>;
  /** the mean hourly lowest BIN of each Elite id over the last day: the smooth price's reference */
  eliteDayLbin: ReadonlyMap<string, number>;
  /** the mean hourly lowest BIN of the last day per tag and price variant (the networth file's fallback) */
  dayLowestBins: ReadonlyArray<{ tag: string; variant: string; price: number }>;
  /** per NEU id (the tooltip file): its tag and variant, mean hourly lowest BIN per window, 3-day median sale and sales per day */
  byNeu: ReadonlyMap<string, NeuFigures>;
}

export interface NeuFigures {
  tag: string;
  variant: string;
  avgLowestBin: Partial<Record<AverageDays, number>>;
  medianSale3d?: number;
  salesPerDay3d?: number;
}

export interface BulkPricesOptions {
  store: Store;
  view: ActiveAuctionsView;
  /** NPC sell prices for the tooltip file */
  catalog?: Pick<ItemCatalog, 'entries' | 'size'>;
  /** craft costs for the tooltip file: the craft view's prices and the game data's recipes */
  craft?: Pick<CraftMarket, 'current'>;
  game?: GameData;
  /** the attribute variants of the sales (the flip engine's), for the networth file's attributes */
  attributeSales?: () => readonly AttributeVariantSales[];
  clock: Clock;
  logger: Logger;
  /** false: build only on request, not after each change of the view (benchmarks) */
  follow?: boolean;
  /** where the bazaar feed stands (market/bazaar-feed.ts, following the spine): the bazaar files are rebuilt when its generation moves; without it, one feed lookup per call */
  bazaarFeed?: { readonly version: number };
}

export function prepareFile(value: Readonly<Record<string, unknown>>, builtAt: number): PreparedFile {
  return { value, builtAt, keys: Object.keys(value).length };
}

export type AnyFileName = BulkFileName | BazaarFileName | TooltipFileName | AverageFileName | NetworthFileName;

/** Prices per key, ascending. */
function addPrice(map: Map<string, number[]>, key: string, price: number): void {
  const list = map.get(key);
  if (list) list.push(price);
  else map.set(key, [price]);
}

export class BulkPrices {
  private current: { version: number; build: BulkBuild } | undefined;
  private bazaar: { feed: string; build: BazaarBuild | undefined } | undefined;
  private bazaarBuilding: Promise<BazaarBuild | undefined> | undefined;
  private averages: { key: string; build: AveragesBuild | undefined } | undefined;
  private averagesBuilding: Promise<AveragesBuild | undefined> | undefined;
  private averagesBuildingFor = '';
  /** histories replayed: the rollups were redone up to the same hour, with more in them */
  private replays = 0;
  private tooltip: { key: string; build: TooltipBuild } | undefined;
  private tooltipBuilding: Promise<TooltipBuild> | undefined;
  private craftCosts: { builtAt: number; costs: Map<string, number> } | undefined;
  private networth: { key: string; syncKey: string | undefined; build: NetworthBuild } | undefined;
  private networthBuilding: Promise<NetworthBuild> | undefined;
  /** the attribute sales the networth file last read, and how many different ones it has seen */
  private attributeInputs: { of: readonly AttributeVariantSales[] | undefined; seen: number } = { of: undefined, seen: 0 };
  private building: Promise<BulkBuild> | undefined;
  /** the newest file of each name, whichever build made it: the generation of its prepared answer */
  private readonly latestFiles = new Map<AnyFileName, PreparedFile>();
  private readonly builtListeners: Array<(build: BulkBuild) => void> = [];
  private unsubscribe: (() => void) | undefined;
  /** a background build is queued for the next turn of the event loop */
  private queued: NodeJS.Immediate | undefined;

  constructor(private readonly options: BulkPricesOptions) {}

  /**
   * Follows the view: builds once it is loaded, then again after each change it applies (a
   * generation, sales leaving it), on the next turn of the event loop (a burst of changes gives one
   * build). No timer: the files move when the listings do.
   */
  start(): void {
    if (this.options.follow === false || this.unsubscribe) return;
    this.unsubscribe = this.options.view.onChange(() => this.queue());
    this.queue();
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.queued) clearImmediate(this.queued);
    this.queued = undefined;
  }

  /** Called with each new build of the lowest-BIN files (the routes prepare their answers ahead of the first request). */
  onBuilt(listener: (build: BulkBuild) => void): void {
    this.builtListeners.push(listener);
  }

  /** The newest file of this name, whichever build made it (synchronous); undefined before its first build. */
  latestFile(name: AnyFileName): PreparedFile | undefined {
    return this.latestFiles.get(name);
  }

  private record(files: Readonly<Partial<Record<AnyFileName, PreparedFile>>>): void {
    for (const [name, file] of Object.entries(files) as Array<[AnyFileName, PreparedFile]>) this.latestFiles.set(name, file);
  }

  private queue(): void {
    if (this.queued) return;
    this.queued = setImmediate(() => {
      this.queued = undefined;
      const failed = (err: unknown) => this.options.logger.warn({ err }, 'bulk price files: build failed');
      // The averages first: the smooth prices read the last day's lowest BINs from them (one state lookup per change).
      void this.averagesBuild()
        .catch(failed)
        .then(() => this.build())
        // The networth file once someone asked for it, so requests find it current.
        .then(() => (this.networth ? this.networthBuild() : undefined))
        .catch(failed);
    });
  }

  /** The current files: built now when the listings changed since the last build. */
  async build(): Promise<BulkBuild> {
    await this.options.view.ready();
    const version = this.options.view.version;
    if (this.current?.version === version) return this.current.build;
    this.building ??= Promise.resolve()
      .then(() => {
        const build = this.compute();
        this.current = { version, build };
        this.record(build.files);
        for (const listener of this.builtListeners) listener(build);
        return build;
      })
      .finally(() => (this.building = undefined));
    return this.building;
  }

  /**
   * The bazaar files of the newest stored snapshot (undefined before the first), rebuilt when the
   * bazaar feed has moved since the last build: the feed view's generation (no read), else one
   * feed lookup per call.
   */
  async bazaarBuild(): Promise<BazaarBuild | undefined> {
    const view = this.options.bazaarFeed;
    const feed = view ? `v${view.version}` : `t${(await this.options.store.feeds.get('bazaar'))?.lastUpdated ?? 0}`;
    if (this.bazaar?.feed === feed) return this.bazaar.build;
    this.bazaarBuilding ??= this.options.store.marketPrices
      .latestBazaarQuick()
      .then((latest) => {
        const build = latest && bazaarFiles(latest.ts, latest.products);
        this.bazaar = { feed, build };
        if (build) this.record(build.files);
        return build;
      })
      .finally(() => (this.bazaarBuilding = undefined));
    return this.bazaarBuilding;
  }

  /**
   * Replayed history was stored and rolled up again (jobs/index.ts historyReplayed): the averages
   * are rebuilt at the next request even though the rollups reach the same hour as before.
   */
  historyReplayed(): void {
    this.replays++;
  }

  /**
   * The averages files of the last rolled-up hour (undefined before any hour is), rebuilt when the
   * rollups have closed another: one state lookup per call.
   */
  async averagesBuild(): Promise<AveragesBuild | undefined> {
    const { rolledTo } = await this.options.store.priceRollups.state();
    const key = `${rolledTo}|${this.replays}`;
    if (this.averages?.key === key) return this.averages.build;
    // A build in flight for an older state (an earlier change's, while the rollup job rolled another
    // hour) is not this state's: wait for it, then build again.
    if (this.averagesBuilding && this.averagesBuildingFor !== key) {
      await this.averagesBuilding.catch(() => undefined);
      return this.averagesBuild();
    }
    this.averagesBuildingFor = key;
    this.averagesBuilding ??= this.computeAverages(rolledTo)
      .then((build) => {
        this.averages = { key, build };
        if (build) this.record(build.files);
        return build;
      })
      .finally(() => (this.averagesBuilding = undefined));
    return this.averagesBuilding;
  }

  private async computeAverages(to: number): Promise<AveragesBuild | undefined> {
    if (to <= 0) return undefined;
    const first = (await this.options.store.priceRollups.firstHour()) ?? to;
    const files = {} as Record<AverageFileName, PreparedFile>;
    const covered = {} as Record<AverageDays, number>;
    const eliteDayLbin = new Map<string, number>();
    const dayLowestBins: Array<{ tag: string; variant: string; price: number }> = [];
    const byNeu = new Map<string, NeuFigures>();
    const figuresOf = (id: string, tag: string, variant: string) => {
      let f = byNeu.get(id);
      if (!f) byNeu.set(id, (f = { tag, variant, avgLowestBin: {} }));
      return f;
    };
    for (const days of AVERAGE_DAYS) {
      const { from } = averageWindow(to, days * DAY_MS);
      // Sales per day over the part of the window the store holds (at least an hour).
      const span = Math.max(HOUR_MS, to - Math.max(from, first)) / DAY_MS;
      covered[days] = Math.round(span * 1000) / 1000;
      const neuLbin: Record<string, number> = {};
      const eliteLbin: Record<string, number> = {};
      const sales: Record<string, NeuSalesAverage> = {};
      for (const v of await this.options.store.priceRollups.averages(from, to)) {
        const ids = variantIds(v.tag, v.variant);
        if (v.lowestBinAverage !== null) {
          if (ids.neu) neuLbin[ids.neu] = coins(v.lowestBinAverage);
          if (ids.elite) eliteLbin[ids.elite] = coins(v.lowestBinAverage);
          if (ids.elite && days === 1) eliteDayLbin.set(ids.elite, v.lowestBinAverage);
          if (days === 1) dayLowestBins.push({ tag: v.tag, variant: v.variant, price: v.lowestBinAverage });
          if (ids.neu) figuresOf(ids.neu, v.tag, v.variant).avgLowestBin[days] = coins(v.lowestBinAverage);
        }
        if (ids.neu && v.count > 0 && days === 3) {
          const f = figuresOf(ids.neu, v.tag, v.variant);
          if (v.median !== null) f.medianSale3d = coins(v.median);
          f.salesPerDay3d = round2(v.count / span);
        }
        if (ids.neu && v.count > 0) {
          sales[ids.neu] = {
            price: coins(v.coins),
            count: v.items,
            sales: round2(v.count / span),
            clean_price: round2(v.clean.mean ?? 0),
            clean_sales: round2(v.clean.count / span),
          };
        }
      }
      files[`neu/auction_averages_lbin/${days}day`] = prepareFile(sortedObject(neuLbin), to);
      files[`elite/average-lbin/${days}day`] = prepareFile(sortedObject(eliteLbin), to);
      files[`neu/auction_averages/${days}day`] = prepareFile(sortedObject(sales), to);
    }
    return { to, covered, files, eliteDayLbin, dayLowestBins, byNeu };
  }

  /**
   * The tooltip files: every figure a tooltip shows per item in one map, from the other files, the
   * craft view and the catalog; rebuilt when any of them changed.
   */
  async tooltipBuild(): Promise<TooltipBuild> {
    const [lbin, averages, bazaar, craft] = await Promise.all([
      this.build(),
      this.averagesBuild(),
      this.bazaarBuild(),
      this.options.craft && this.options.game ? this.options.craft.current() : undefined,
    ]);
    const key = `${lbin.builtAt}|${averages?.to}|${this.replays}|${bazaar?.snapshotAt}|${craft?.builtAt}|${this.options.catalog?.size}`;
    if (this.tooltip?.key === key) return this.tooltip.build;
    this.tooltipBuilding ??= Promise.resolve()
      .then(() => {
        const build = this.computeTooltip(lbin, averages, bazaar, craft?.builtAt, craft?.prices);
        this.tooltip = { key, build };
        this.record(build.files);
        return build;
      })
      .finally(() => (this.tooltipBuilding = undefined));
    return this.tooltipBuilding;
  }

  private computeTooltip(lbin: BulkBuild, averages: AveragesBuild | undefined, bazaar: BazaarBuild | undefined, craftBuiltAt: number | undefined, craftPrices: PriceSource | undefined): TooltipBuild {
    const started = performance.now();
    const entries = new Map<string, { tag: string; entry: TooltipEntry }>();
    const entryOf = (id: string, tag: string) => {
      let e = entries.get(id);
      if (!e) entries.set(id, (e = { tag, entry: {} }));
      return e.entry;
    };
    for (const [id, { price, tag }] of lbin.lowest) entryOf(id, tag).lowestBin = coins(price);
    for (const [id, f] of averages?.byNeu ?? []) {
      const e = entryOf(id, f.tag);
      if (f.avgLowestBin[1] !== undefined) e.avgLowestBin1d = f.avgLowestBin[1];
      if (f.avgLowestBin[3] !== undefined) e.avgLowestBin3d = f.avgLowestBin[3];
      if (f.avgLowestBin[7] !== undefined) e.avgLowestBin7d = f.avgLowestBin[7];
      if (f.medianSale3d !== undefined) e.medianSale3d = f.medianSale3d;
      if (f.salesPerDay3d !== undefined) e.salesPerDay3d = f.salesPerDay3d;
    }
    for (const q of bazaar?.quick ?? []) {
      const e = entryOf(neuIdOf({ tag: q.productId, tier: null, flatNbt: {} }), q.productId);
      e.bazaarBuy = round2(q.buyPrice);
      e.bazaarSell = round2(q.sellPrice);
    }
    for (const item of this.options.catalog?.entries() ?? []) {
      if (!(item.npcSellPrice !== null && item.npcSellPrice > 0) || hasPriceVariants(item.tag)) continue;
      entryOf(neuIdOf({ tag: item.tag, tier: null, flatNbt: {} }), item.tag).npcSell = item.npcSellPrice;
    }
    if (craftPrices && craftBuiltAt !== undefined && this.options.game) {
      if (this.craftCosts?.builtAt !== craftBuiltAt) this.craftCosts = { builtAt: craftBuiltAt, costs: craftCostsPerUnit(this.options.game, craftPrices) };
      for (const [tag, cost] of this.craftCosts.costs) entryOf(neuIdOf({ tag, tier: null, flatNbt: {} }), tag).craftCost = round2(cost);
    }
    const byNeu: Record<string, TooltipEntry> = {};
    const byTag: Record<string, TooltipEntry> = {};
    for (const [id, { tag, entry }] of entries) {
      byNeu[id] = entry;
      byTag[hypixelKeyOf(tag, id)] = entry;
    }
    const now = this.options.clock.now();
    return {
      builtAt: now,
      items: entries.size,
      buildMs: performance.now() - started,
      files: { 'tooltip/neu': prepareFile(sortedObject(byNeu), now), 'tooltip/hypixel': prepareFile(sortedObject(byTag), now) },
    };
  }

  /**
   * The networth file: rebuilt when the listings, the bazaar snapshot, the attribute sales or the
   * rolled-up hours changed since the last build (the tooltip file's trigger: checked at each
   * request, and after each change of the listings once the file has been asked for).
   */
  async networthBuild(): Promise<NetworthBuild> {
    await this.options.view.ready();
    // What the build is current with, read before the inputs: a change after this only makes the build fresher than its key.
    const syncKey = this.networthSyncKey();
    const [bazaar, averages] = await Promise.all([this.bazaarBuild(), this.averagesBuild()]);
    const attributes = this.attributeInputs.of;
    const key = `${syncKey}|${bazaar?.snapshotAt}|${averages?.to}`;
    if (this.networth?.key === key) return this.networth.build;
    this.networthBuilding ??= Promise.resolve()
      .then(() => {
        const build = this.computeNetworth(bazaar, attributes, averages?.dayLowestBins);
        this.networth = { key, syncKey: this.options.bazaarFeed ? syncKey : undefined, build };
        this.record(build.files);
        return build;
      })
      .finally(() => (this.networthBuilding = undefined));
    return this.networthBuilding;
  }

  /**
   * The networth build while it is current with the listings, the bazaar view and the attribute
   * sales, else undefined: synchronous, for the fast path (only with a `bazaarFeed` whose generation to compare).
   */
  currentNetworth(): NetworthBuild | undefined {
    const built = this.networth;
    if (built?.syncKey === undefined || !this.options.view.isReady()) return undefined;
    return built.syncKey === this.networthSyncKey() ? built.build : undefined;
  }

  /**
   * The synchronous part of the networth file's inputs: the listings' version, the bazaar view's,
   * the attribute sales seen, and the averages as last built (rebuilt at the next change of the
   * listings after an hour's rollup).
   */
  private networthSyncKey(): string {
    const attributes = this.options.attributeSales?.();
    if (attributes !== this.attributeInputs.of) this.attributeInputs = { of: attributes, seen: this.attributeInputs.seen + 1 };
    return `${this.options.view.version}|${this.options.bazaarFeed?.version ?? ''}|${this.attributeInputs.seen}|${this.averages?.key ?? ''}`;
  }

  private computeNetworth(
    bazaar: BazaarBuild | undefined,
    attributeSales: readonly AttributeVariantSales[] | undefined,
    recentLowestBins: AveragesBuild['dayLowestBins'] | undefined,
  ): NetworthBuild {
    const started = performance.now();
    const now = this.options.clock.now();
    let listings = 0;
    const view = this.options.view;
    const counted = (function* () {
      for (const l of view.binListings(now)) {
        listings++;
        yield l;
      }
    })();
    const lower = networthPrices({
      listings: counted,
      bazaar: bazaar?.quick ?? [],
      ...(attributeSales ? { attributeSales } : {}),
      ...(recentLowestBins ? { recentLowestBins } : {}),
    });
    const files: Record<NetworthFileName, PreparedFile> = {
      'networth/lower': prepareFile(lower, now),
      'networth/upper': prepareFile(upperCaseKeys(lower), now),
    };
    return { builtAt: now, listings, products: bazaar?.products ?? 0, buildMs: performance.now() - started, files };
  }

  /** The last build without waiting, if any. */
  latest(): BulkBuild | undefined {
    return this.current?.build;
  }

  /** The build while it is current with the listings, else undefined: synchronous, for the hot path. */
  currentBuild(): BulkBuild | undefined {
    const view = this.options.view;
    return view.isReady() && this.current?.version === view.version ? this.current.build : undefined;
  }

  private compute(): BulkBuild {
    const started = performance.now();
    const now = this.options.clock.now();
    const neu = new Map<string, { price: number; tag: string }>();
    const elite = new Map<string, number[]>();
    let listings = 0;
    for (const l of this.options.view.binListings(now)) {
      const price = l.startingBid / Math.max(1, l.count);
      const key = neuIdOf(l);
      const seen = neu.get(key);
      if (!seen || price < seen.price) neu.set(key, { price, tag: l.tag });
      addPrice(elite, eliteIdOf(l), price);
      listings++;
    }
    const lowest: Record<string, number> = {};
    for (const [key, { price }] of neu) lowest[key] = coins(price);
    const raw: Record<string, number> = {};
    const smooth: Record<string, number> = {};
    // With few listings, the smooth price believes nothing far under the last day's lowest BINs.
    const reference = this.averages?.build?.eliteDayLbin;
    for (const [key, prices] of elite) {
      prices.sort((a, b) => a - b);
      raw[key] = coins(prices[0]!);
      smooth[key] = coins(smoothLowest(prices, reference?.get(key))!);
    }
    const files: Record<BulkFileName, PreparedFile> = {
      'neu/lowestbin': prepareFile(sortedObject(lowest), now),
      'elite/raw': prepareFile(sortedObject(raw), now),
      'elite/smooth': prepareFile(sortedObject(smooth), now),
    };
    const buildMs = performance.now() - started;
    this.options.logger.debug({ listings, keys: neu.size, buildMs: Math.round(buildMs) }, 'bulk price files built');
    return { builtAt: now, listings, buildMs, files, lowest: neu };
  }
}

function bazaarFiles(ts: number, products: readonly ProductQuick[]): BazaarBuild {
  const byId: Record<string, BazaarQuick> = {};
  const byNeu: Record<string, BazaarQuick> = {};
  for (const { productId, ...figures } of [...products].sort((a, b) => (a.productId < b.productId ? -1 : 1))) {
    byId[productId] = figures;
    byNeu[neuIdOf({ tag: productId, tier: null, flatNbt: {} })] = figures;
  }
  return { snapshotAt: ts, products: products.length, files: { 'bazaar/hypixel': prepareFile(byId, ts), 'bazaar/neu': prepareFile(byNeu, ts) }, quick: products };
}

/** Pets, runes and potions are priced per variant (rarity, level): their tag alone names no price. */
function hasPriceVariants(tag: string): boolean {
  return isPetTag(tag) || tag.startsWith('RUNE_') || tag.startsWith('UNIQUE_RUNE_') || tag.startsWith('POTION_');
}

/**
 * The tooltip file's key with `?keys=hypixel`: the tag, where the tag names the item; a pet, rune
 * or potion as `TAG;VARIANT` (`PET_BEE;LEGENDARY`, `RUNE_MUSIC;3`, the variants of the
 * price-history routes); anything else the tag cannot tell apart (hat colours, shards) by NEU id.
 */
export function hypixelKeyOf(tag: string, neuId: string): string {
  if (neuIdOf({ tag, tier: null, flatNbt: {} }) === neuId) return tag;
  const suffix = neuId.slice(neuId.indexOf(';') + 1);
  if (isPetTag(tag)) return `${tag};${PET_RARITIES[Number(suffix)] ?? suffix}`;
  if (hasPriceVariants(tag) && neuId.includes(';')) return `${tag};${suffix}`;
  return neuId;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Keys in order, so equal prices give equal bytes (and ETags) whatever the listing order. */
function sortedObject<T>(o: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(o).sort()) out[key] = o[key]!;
  return out;
}
