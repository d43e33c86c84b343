/**
 * The use cases the faces call, composed once per app over the store, the clock and the market
 * (app.ts). Each area is one module; none knows about HTTP.
 */
import type { Clock } from '../clock.ts';
import type { Market } from '../market/index.ts';
import type { Store } from '../store/index.ts';
import { BazaarService } from './bazaar.ts';
import { CraftService } from './craft.ts';
import { FlipsService } from './flips.ts';
import { LowballService } from './lowball.ts';
import { PlayersService } from './players.ts';
import { UploadsService } from './uploads.ts';
import { ItemsService } from './items.ts';
import { PlayerAuctionsService } from './player-auctions.ts';
import { AuctionService } from './auctions.ts';
import { PriceAnalysisService } from './price-analysis.ts';
import { AuctionArchive } from './auction-archive.ts';
import { AlertsService } from './alerts.ts';
import { PriceService } from './prices.ts';
import { compileAuctionFilters } from './auction-filters.ts';
import { StreamFeed, type StreamHub } from './stream.ts';
import { BulkPricesService } from './bulk-prices.ts';
import { MayorsService } from './mayors.ts';
import { DataSourceService, type DataSource } from './data-source.ts';
import { PriceChangeService } from './price-changes.ts';
import { ValuationService } from './valuation.ts';
import { UnderpricedService } from './underpriced.ts';
import { NetworthService } from './networth.ts';

export interface Services {
  readonly auctions: AuctionService;
  readonly analysis: PriceAnalysisService;
  /** prices and price history (summary, lowest BINs, current cost, history at every range, bulk averages) */
  readonly prices: PriceService;
  readonly archive: AuctionArchive;
  readonly bazaar: BazaarService;
  readonly craft: CraftService;
  readonly flips: FlipsService;
  readonly players: PlayersService;
  readonly lowball: LowballService;
  readonly uploads: UploadsService;
  readonly items: ItemsService;
  readonly playerAuctions: PlayerAuctionsService;
  /** the live feeds (stream/): the process's event hub, filters and aliases */
  readonly stream: StreamFeed;
  readonly mayors: MayorsService;
  readonly bulkPrices: BulkPricesService;
  /** whether the data served is simulated (the demo, or a simulator upstream) */
  readonly dataSource: DataSourceService;
  /** price movers: the home page's and `/api/prices/change` */
  readonly priceChanges: PriceChangeService;
  /** what an exact item or listing is worth: comparables, parts, value (docs/valuation.md) */
  readonly valuation: ValuationService;
  /** new BIN listings priced below their value, ranked (docs/flips.md); followed where the market's events are (compose.ts) */
  readonly underpriced: UnderpricedService;
  /** what a player or profile is worth, per member and container (docs/valuation.md) */
  readonly networth: NetworthService;
  /** alert targets, subscriptions, listeners and deliveries of an account (docs/alerts.md) */
  readonly alerts: AlertsService;
}

export interface ServiceOptions {
  store: Store;
  clock: Clock;
  market: Market;
  /** whether ingestion fetches players' profiles for the craft filter (it needs UPSTREAM_API_KEY) */
  fetchProfiles: boolean;
  /** how long an archive export job holds its lease */
  config: { exportLeaseSeconds: number; exportWebhookHosts: readonly string[]; alertWebhookPrivateOk: boolean; underpricedMinShare: number; underpricedMinComparables: number };
  /** the process's live-feed hub */
  streamHub: StreamHub;
  /** the SkyBlock year's length: 124 h, or the demo simulator's compressed year */
  skyblockYearMs: number;
  /** the configured data source (the demo's simulator, or an upstream) */
  dataSource: DataSource;
}

export function createServices({ store, clock, market, fetchProfiles, config, streamHub, skyblockYearMs, dataSource }: ServiceOptions): Services {
  const auctions = new AuctionService({ store, market, clock });
  const prices = new PriceService({ store, clock, market, knownTags: auctions.knownTags });
  const flips = new FlipsService(market.flips, market.game);
  const valuation = new ValuationService(market, clock);
  return {
    auctions,
    analysis: new PriceAnalysisService({ store, clock, knownTags: auctions.knownTags }),
    prices,
    archive: new AuctionArchive({ store, clock, market, knownTags: auctions.knownTags, config }),
    bazaar: new BazaarService(store, clock, market.bazaarFeed),
    craft: new CraftService({ store, clock, game: market.game, craft: market.craft, fetchProfiles }),
    flips,
    players: new PlayersService(store),
    lowball: new LowballService(store, clock),
    uploads: new UploadsService(store, clock),
    items: new ItemsService(market.catalog, store, (tag) => market.activeAuctions.activeOf(tag, () => true)),
    playerAuctions: new PlayerAuctionsService(store),
    stream: new StreamFeed(streamHub, (filters) => compileAuctionFilters(store, filters), (raw) => market.catalog.resolve(raw)),
    mayors: new MayorsService(store, clock, skyblockYearMs),
    bulkPrices: new BulkPricesService(market.bulkPrices),
    dataSource: new DataSourceService(store, clock, dataSource),
    priceChanges: new PriceChangeService({ store, clock, market, prices, flips }),
    valuation,
    networth: new NetworthService(valuation, store, clock),
    underpriced: new UnderpricedService(valuation, { minShare: config.underpricedMinShare, minComparables: config.underpricedMinComparables }, (uuid) => market.activeAuctions.get(uuid) !== undefined),
    // Underpriced alerts are evaluated against the underpriced service's values (runtime.ts).
    alerts: new AlertsService({ store, clock, discordHosts: config.exportWebhookHosts, allowPrivate: config.alertWebhookPrivateOk, resolveTag: (raw) => market.catalog.resolve(raw) }),
  };
}
