/**
 * The bulk price files mods poll (NEU's and Elite's formats, Coflnet's `/api/prices/neu`): ready
 * bytes from the market, current with the active listings.
 */
import type { BulkBuild, BulkFileName, BulkPrices, PreparedFile } from '../market/bulk-prices.ts';
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
}

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

  async metadata(): Promise<BulkFilesMetadata> {
    const build: BulkBuild = await this.prices.build();
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
    };
  }
}
