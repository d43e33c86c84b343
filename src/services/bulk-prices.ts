/**
 * The bulk price files mods poll (NEU's and Elite's formats, Coflnet's `/api/prices/neu`): each
 * file's data from the market, current with the active listings (the routes serialise it once per
 * build: http/prepared-answers.ts).
 */
import type { AnyFileName, AverageFileName, BazaarFileName, BulkBuild, BulkFileName, BulkPrices, NetworthFileName, PreparedFile, TooltipFileName } from '../market/bulk-prices.ts';

export { AVERAGE_DAYS } from '../market/bulk-prices.ts';
export type { AnyFileName, AverageFileName, BulkFileName, NetworthFileName, PreparedFile };
import { CLEAN_K, FENCE_K, MIN_FENCE_LISTINGS, REFERENCE_SHARE } from '../domain/bulk-prices.ts';

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
  /** the averages files' windows, once the price rollups have closed an hour */
  averages: { to: string; coveredDays: Record<string, number>; files: Array<{ name: string; path: string; method: string; keys: number; bytes: number }> } | null;
  /** the bazaar file's snapshot, when one is stored */
  bazaar: { snapshotAt: string; products: number; paths: string[]; method: string; bytes: number; gzipBytes: number } | null;
  /** the networth libraries' file */
  networth: { builtAt: string; listings: number; products: number; paths: string[]; method: string; keys: number; bytes: number; gzipBytes: number };
}

const NETWORTH = {
  paths: ['/api/prices/networth', '/api/prices/networth?case=upper'],
  method:
    "SkyHelper-Networth's keys (lower case; upper case for 2.x): bazaar products at the instant-sell price (the highest buy order, else the lowest sell offer), everything else at the lowest active BIN per item inside the smooth file's outlier fence, pets per rarity at levels 1-99 / 100 / 200, skins, shiny items, runes, cakes and hats under their own keys; attribute shards per level-1 shard from the 7-day sales, else the active shards; keys nothing is listed under now from the last day's mean hourly lowest BIN (docs/mods.md)",
};

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
    method: `lowest active BIN per Elite id at or above Q1 − ${FENCE_K} × IQR of the id's BIN prices; with fewer than ${MIN_FENCE_LISTINGS} listings, at or above ${REFERENCE_SHARE} × the mean hourly lowest BIN of the last day when known, else the lowest`,
  },
};

const AVERAGES: Record<string, { path: (days: number) => string; method: string }> = {
  'neu/auction_averages_lbin': {
    path: (d) => `/neu/auction_averages_lbin/${d}day.json`,
    method: 'the mean of the hourly lowest BINs over the window, per NEU id (pets: levels 1–99)',
  },
  'elite/average-lbin': {
    path: (d) => `/resources/auctions/neu/average-lbin/${d}day`,
    method: 'the mean of the hourly lowest BINs over the window, per Elite id (pets at level 100 and 200 apart)',
  },
  'neu/auction_averages': {
    path: (d) => `/neu/auction_averages/${d}day.json`,
    method: `NEU's sales figures per NEU id: price = coins paid in all, count = items sold, sales = sales per day; clean_price = mean price per item and clean_sales = sales per day of the sales within Q1 − ${CLEAN_K} × IQR … Q3 + ${CLEAN_K} × IQR (from the hourly digests); per day over the part of the window the store holds`,
  },
};

export class BulkPricesService {
  constructor(private readonly prices: BulkPrices) {}

  /** A lowest-BIN file while it is current with the listings, else undefined (synchronous: the fast path). */
  currentFile(name: BulkFileName): PreparedFile | undefined {
    return this.prices.currentBuild()?.files[name];
  }

  /** The newest file of this name, whichever build made it (synchronous): the generation its prepared answer is kept under. */
  latestFile(name: AnyFileName): PreparedFile | undefined {
    return this.prices.latestFile(name);
  }

  /** Calls `listener` after each build of the lowest-BIN files (the routes prepare their answers then). */
  onBuilt(listener: (files: Readonly<Record<BulkFileName, PreparedFile>>) => void): void {
    this.prices.onBuilt((build) => listener(build.files));
  }

  /** A lowest-BIN file, current with the listings. */
  async file(name: BulkFileName): Promise<PreparedFile> {
    return (await this.prices.build()).files[name];
  }

  /** The newest snapshot's bazaar file, or undefined before the first snapshot. */
  async bazaarFile(name: BazaarFileName): Promise<PreparedFile | undefined> {
    return (await this.prices.bazaarBuild())?.files[name];
  }

  /** The tooltip file: every figure per item in one map. */
  async tooltipFile(name: TooltipFileName): Promise<PreparedFile> {
    return (await this.prices.tooltipBuild()).files[name];
  }

  /** The networth file while it is current, else undefined (synchronous: the fast path). */
  currentNetworthFile(name: NetworthFileName): PreparedFile | undefined {
    return this.prices.currentNetworth()?.files[name];
  }

  /** The price file networth libraries read, with lower-case or upper-case keys. */
  async networthFile(name: NetworthFileName): Promise<PreparedFile> {
    return (await this.prices.networthBuild()).files[name];
  }

  /** An averages file, or undefined while no hour is rolled up. */
  async averagesFile(name: AverageFileName): Promise<PreparedFile | undefined> {
    // An empty file (rolled-up hours without a lowest BIN or sale yet) is no averages: 404 until data exists.
    const file = (await this.prices.averagesBuild())?.files[name];
    return file && file.keys > 0 ? file : undefined;
  }

  /** `sizeOf`: a file's serialised size and its gzip's (the routes' prepared answers). */
  async metadata(sizeOf: (name: AnyFileName, file: PreparedFile) => { bytes: number; gzipBytes: number }): Promise<BulkFilesMetadata> {
    const build: BulkBuild = await this.prices.build();
    const bazaar = await this.prices.bazaarBuild();
    const averages = await this.prices.averagesBuild();
    const networth = await this.prices.networthBuild();
    const networthFile = networth.files['networth/lower'];
    return {
      builtAt: new Date(build.builtAt).toISOString(),
      listings: build.listings,
      buildMs: Math.round(build.buildMs * 10) / 10,
      files: (Object.keys(DESCRIPTIONS) as BulkFileName[]).map((name) => ({
        name,
        ...DESCRIPTIONS[name],
        keys: build.files[name].keys,
        ...sizeOf(name, build.files[name]),
      })),
      averages: averages
        ? {
            to: new Date(averages.to).toISOString(),
            coveredDays: Object.fromEntries(Object.entries(averages.covered).map(([d, c]) => [`${d}day`, c])),
            files: (Object.entries(averages.files) as Array<[AverageFileName, PreparedFile]>).map(([name, file]) => {
              const [kind, days] = [name.slice(0, name.lastIndexOf('/')), Number.parseInt(name.slice(name.lastIndexOf('/') + 1), 10)];
              return { name, path: AVERAGES[kind]!.path(days), method: AVERAGES[kind]!.method, keys: file.keys, bytes: sizeOf(name, file).bytes };
            }),
          }
        : null,
      bazaar: bazaar
        ? {
            snapshotAt: new Date(bazaar.snapshotAt).toISOString(),
            products: bazaar.products,
            ...BAZAAR,
            ...sizeOf('bazaar/hypixel', bazaar.files['bazaar/hypixel']),
          }
        : null,
      networth: {
        builtAt: new Date(networth.builtAt).toISOString(),
        listings: networth.listings,
        products: networth.products,
        ...NETWORTH,
        keys: networthFile.keys,
        ...sizeOf('networth/lower', networthFile),
      },
    };
  }
}
