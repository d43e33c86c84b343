/**
 * The bulk price files mods poll (NEU's and Elite's formats, Coflnet's `/api/prices/neu`): ready
 * bytes from the market, current with the active listings.
 */
import type { BazaarFileName, BulkBuild, BulkFileName, BulkPrices, PreparedFile } from '../market/bulk-prices.ts';
import { FENCE_K, MIN_FENCE_LISTINGS, REFERENCE_SHARE } from '../domain/bulk-prices.ts';

export interface BulkFileInfo {
  name: BulkFileName;
  paths: string[];
  method: string;
  keys: number;
  bytes: number;
  gzipBytes: number;
}

export interface BulkFilesMetadata {
  builtAt: string;
  listings: number;
  buildMs: number;
  files: BulkFileInfo[];
  /** the bazaar file's snapshot, when one is stored */
  bazaar: { snapshotAt: string; products: number; paths: string[]; method: string; bytes: number; gzipBytes: number } | null;
}

const BAZAAR = {
  paths: ['/api/bazaar/prices', '/api/bazaar/prices?keys=neu'],
  method:
    'every product of the newest bazaar snapshot: buyPrice (instant buy: the lowest sell offer), sellPrice (instant sell: the highest buy order), volumes, moving-week volumes and order counts; keyed by product id or by NEU id',
};

const DESCRIPTIONS: Record<BulkFileName, { paths: string[]; method: string }> = {
  'neu/lowestbin': {
    paths: ['/neu/lowestbin.json', '/neu/lowestbin.json.gz', '/api/prices/neu'],
    method: 'lowest active BIN per NEU id, per item (a stack priced by its count); pets of every level under TYPE;RARITY',
  },
  'elite/raw': {
    paths: ['/resources/auctions/neu?mode=raw', '/resources/auctions/neu.gz?mode=raw'],
    method: 'lowest active BIN per Elite id (NEU id, with TYPE;N+100 / +200 pets, ID+PERFECT, NEW_YEAR_CAKE+YEAR apart)',
  },
  'elite/smooth': {
    paths: ['/resources/auctions/neu?mode=smooth', '/resources/auctions/neu.gz?mode=smooth'],
    method: `lowest active BIN per Elite id at or above Q1 − ${FENCE_K} × IQR of the id's BIN prices; with fewer than ${MIN_FENCE_LISTINGS} listings, at or above ${REFERENCE_SHARE} × the median hourly lowest BIN of the last day when known, else the lowest`,
  },
};

export class BulkPricesService {
  constructor(private readonly prices: BulkPrices) {}

  /** A file's ready bytes, current with the listings. */
  async file(name: BulkFileName): Promise<PreparedFile> {
    return (await this.prices.build()).files[name];
  }

  /** The newest snapshot's bazaar file, or undefined before the first snapshot. */
  async bazaarFile(name: BazaarFileName): Promise<PreparedFile | undefined> {
    return (await this.prices.bazaarBuild())?.files[name];
  }

  async metadata(): Promise<BulkFilesMetadata> {
    const build: BulkBuild = await this.prices.build();
    const bazaar = await this.prices.bazaarBuild();
    return {
      builtAt: new Date(build.builtAt).toISOString(),
      listings: build.listings,
      buildMs: Math.round(build.buildMs * 10) / 10,
      files: (Object.keys(DESCRIPTIONS) as BulkFileName[]).map((name) => ({
        name,
        ...DESCRIPTIONS[name],
        keys: build.files[name].keys,
        bytes: build.files[name].json.length,
        gzipBytes: build.files[name].gzip.length,
      })),
      bazaar: bazaar
        ? {
            snapshotAt: new Date(bazaar.snapshotAt).toISOString(),
            products: bazaar.products,
            ...BAZAAR,
            bytes: bazaar.files['bazaar/hypixel'].json.length,
            gzipBytes: bazaar.files['bazaar/hypixel'].gzip.length,
          }
        : null,
    };
  }
}
