/**
 * The bulk price files (issue "Bulk price files for mods"), built from the active listings once
 * per change of the view (a generation, or sales leaving it) and kept as ready bytes: the JSON
 * and its gzip. A request for a file costs a lookup.
 *
 * - `neu/lowestbin`: `{NEU_ID: lowest BIN}` per item (a stack's price divided by its count), as
 *   NEU's `lowestbin.json`; Coflnet's `/api/prices/neu` is the same map.
 * - `elite/raw`, `elite/smooth`: `{ELITE_ID: price}` keyed with Elite's extensions
 *   (`TYPE;N+100` …): the absolute lowest, and the lowest inside the outlier fence
 *   (domain/bulk-prices.ts `smoothLowest`).
 * - `bazaar/hypixel`, `bazaar/neu`: every product's figures in the newest bazaar snapshot, keyed
 *   by product id or by NEU id, rebuilt when a new snapshot is stored.
 */
import { gzipSync } from 'node:zlib';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { coins, eliteIdOf, smoothLowest } from '../domain/bulk-prices.ts';
import { neuIdOf } from '../domain/item-names.ts';
import type { Store } from '../store/index.ts';
import type { BazaarQuick } from '../store/repositories/market-prices.ts';
import type { ActiveAuctionsView } from './active-auctions.ts';

export type BulkFileName = 'neu/lowestbin' | 'elite/raw' | 'elite/smooth';
export const BULK_FILE_NAMES: readonly BulkFileName[] = ['neu/lowestbin', 'elite/raw', 'elite/smooth'];

/** One file as served: the JSON and its gzip (http/caching.ts gives each its ETag, once per Buffer). */
export interface PreparedFile {
  json: Buffer;
  gzip: Buffer;
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
}

export type BazaarFileName = 'bazaar/hypixel' | 'bazaar/neu';

/** The bazaar files of one snapshot. */
export interface BazaarBuild {
  /** the snapshot's time (epoch ms) */
  snapshotAt: number;
  products: number;
  files: Record<BazaarFileName, PreparedFile>;
}

export interface BulkPricesOptions {
  store: Store;
  view: ActiveAuctionsView;
  clock: Clock;
  logger: Logger;
  /** how often the background timer looks whether the listings changed (ms); 0: only on request */
  checkMs?: number;
}

export function prepareFile(value: unknown, builtAt: number): PreparedFile {
  const json = Buffer.from(JSON.stringify(value));
  return { json, gzip: gzipSync(json, { level: 6 }), builtAt, keys: typeof value === 'object' && value !== null ? Object.keys(value).length : 0 };
}

/** Prices per key, ascending. */
function addPrice(map: Map<string, number[]>, key: string, price: number): void {
  const list = map.get(key);
  if (list) list.push(price);
  else map.set(key, [price]);
}

export class BulkPrices {
  private current: { version: number; build: BulkBuild } | undefined;
  private bazaar: { feed: number; build: BazaarBuild | undefined } | undefined;
  private bazaarBuilding: Promise<BazaarBuild | undefined> | undefined;
  private building: Promise<BulkBuild> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: BulkPricesOptions) {}

  /** Builds once the view is loaded, then rebuilds in the background whenever it changed. */
  start(): void {
    const every = this.options.checkMs ?? 1000;
    if (every <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.building) void this.build().catch((err: unknown) => this.options.logger.warn({ err }, 'bulk price files: build failed'));
    }, every);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
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
        return build;
      })
      .finally(() => (this.building = undefined));
    return this.building;
  }

  /**
   * The bazaar files of the newest stored snapshot (undefined before the first), rebuilt when the
   * bazaar feed has moved since the last build: one feed lookup per call.
   */
  async bazaarBuild(): Promise<BazaarBuild | undefined> {
    const feed = (await this.options.store.feeds.get('bazaar'))?.lastUpdated ?? 0;
    if (this.bazaar?.feed === feed) return this.bazaar.build;
    this.bazaarBuilding ??= this.options.store.marketPrices
      .latestBazaarQuick()
      .then((latest) => {
        const build = latest && bazaarFiles(latest.ts, latest.products);
        this.bazaar = { feed, build };
        return build;
      })
      .finally(() => (this.bazaarBuilding = undefined));
    return this.bazaarBuilding;
  }

  /** The last build without waiting, if any (the hot path). */
  latest(): BulkBuild | undefined {
    return this.current?.build;
  }

  private compute(): BulkBuild {
    const started = performance.now();
    const now = this.options.clock.now();
    const neu = new Map<string, number[]>();
    const elite = new Map<string, number[]>();
    let listings = 0;
    for (const l of this.options.view.binListings(now)) {
      const price = l.startingBid / Math.max(1, l.count);
      addPrice(neu, neuIdOf(l), price);
      addPrice(elite, eliteIdOf(l), price);
      listings++;
    }
    const lowest: Record<string, number> = {};
    for (const [key, prices] of neu) lowest[key] = coins(prices.reduce((a, b) => (b < a ? b : a)));
    const raw: Record<string, number> = {};
    const smooth: Record<string, number> = {};
    for (const [key, prices] of elite) {
      prices.sort((a, b) => a - b);
      raw[key] = coins(prices[0]!);
      smooth[key] = coins(smoothLowest(prices)!);
    }
    const files: Record<BulkFileName, PreparedFile> = {
      'neu/lowestbin': prepareFile(sortedObject(lowest), now),
      'elite/raw': prepareFile(sortedObject(raw), now),
      'elite/smooth': prepareFile(sortedObject(smooth), now),
    };
    const buildMs = performance.now() - started;
    this.options.logger.debug({ listings, keys: neu.size, buildMs: Math.round(buildMs) }, 'bulk price files built');
    return { builtAt: now, listings, buildMs, files };
  }
}

function bazaarFiles(ts: number, products: readonly BazaarQuick[]): BazaarBuild {
  const byId: Record<string, Omit<BazaarQuick, 'productId'>> = {};
  const byNeu: Record<string, Omit<BazaarQuick, 'productId'>> = {};
  for (const { productId, ...figures } of [...products].sort((a, b) => (a.productId < b.productId ? -1 : 1))) {
    byId[productId] = figures;
    byNeu[neuIdOf({ tag: productId, tier: null, flatNbt: {} })] = figures;
  }
  return { snapshotAt: ts, products: products.length, files: { 'bazaar/hypixel': prepareFile(byId, ts), 'bazaar/neu': prepareFile(byNeu, ts) } };
}

/** Keys in order, so equal prices give equal bytes (and ETags) whatever the listing order. */
function sortedObject(o: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(o).sort()) out[key] = o[key]!;
  return out;
}
