/**
 * The market: the hot in-memory views the faces read, composed once per process by
 * createMarket() (runtime.ts, by role) and handed to the app. One copy of the active listings
 * feeds the auction routes, the crafting view and the flip engine; one start() and one close().
 * The market only reads the store: rollups and the lowest-BIN record are written by jobs/.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { GameData } from '../gamedata/types.ts';
import { loadGameData } from '../gamedata/index.ts';
import { loadUpgradeCosts, type UpgradeCosts } from '../gamedata/upgrades.ts';
import { ActiveAuctionsView } from './active-auctions.ts';
import { AuctionNbt } from './auction-nbt.ts';
import { BazaarFeed } from './bazaar-feed.ts';
import { CraftMarket } from './craft.ts';
import { FlipEngine } from './flips.ts';
import { BulkPrices } from './bulk-prices.ts';
import { ItemCatalog } from './item-catalog.ts';
import { OpenHours } from './open-hours.ts';
import { ValuationMarket } from './valuation.ts';
import type { ChangeSource } from '../spine/index.ts';
import { Followers } from '../spine/follower.ts';

export interface MarketOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** items, recipes and NPC prices, loaded once by the caller */
  game: GameData;
  /** star and attribute-level costs of the flips (from the same game data) */
  upgradeCosts: UpgradeCosts;
  config: { flipsPollMs: number; npcUploadQuorum: number };
  /** the spine the views follow (default: the store's, in this process; role api: Redis) */
  changes?: ChangeSource;
}

export interface Market {
  readonly game: GameData;
  readonly activeAuctions: ActiveAuctionsView;
  /** decoded nbtData of the auctions shown, kept per uuid */
  readonly auctionNbt: AuctionNbt;
  /** where the bazaar feed stands: the generation the bazaar routes' prepared answers are kept under */
  readonly bazaarFeed: BazaarFeed;
  readonly craft: CraftMarket;
  readonly flips: FlipEngine;
  /** every item, its aliases and the search over them */
  readonly catalog: ItemCatalog;
  /** the bulk price files (lowest BINs by NEU and Elite id), rebuilt as the listings change */
  readonly bulkPrices: BulkPrices;
  /** the sales after the last rolled-up hour, as hourly cells per tag and variant, checked against the store at each read */
  readonly openHours: OpenHours;
  /** the views following the spine: whether one is behind the store (health), their resyncs (metrics) */
  readonly followers: Followers;
  /** each tag's recent sales and active BINs as the valuation compares them (following the spine) */
  readonly valuation: ValuationMarket;
  /** star and attribute-level costs (the parts estimate prices stars and attributes with them) */
  readonly upgradeCosts: UpgradeCosts;
  /** Loads the active listings and starts the background refreshes. */
  start(): Promise<void>;
  /** Stops every refresh and listener; waits for a running flip computation. */
  close(): Promise<void>;
}

export function createMarket(options: MarketOptions): Market {
  const { store, clock, logger, game, upgradeCosts, config } = options;
  const changes = options.changes ?? store.changes;
  const followers = new Followers();
  const spineLogger = logger.child({ component: 'spine' });
  const activeAuctions = new ActiveAuctionsView(store, clock, { changes, followers, logger: spineLogger });
  const auctionNbt = new AuctionNbt(store);
  const bazaarFeed = new BazaarFeed(store, clock, { changes, followers, logger: spineLogger });
  const craft = new CraftMarket({ store, game, clock, logger, activeBins: activeAuctions, changes });
  const flips = new FlipEngine(store, clock, logger.child({ component: 'flips' }), {
    pollMs: config.flipsPollMs,
    changes,
    upgradeCosts,
    npcUploadQuorum: config.npcUploadQuorum,
    activeBins: activeAuctions,
    craft,
  });
  const catalog = new ItemCatalog({
    store,
    game,
    clock,
    logger: logger.child({ component: 'item-catalog' }),
    activeCounts: () => activeAuctions.supplyByTag(),
    listingsChanged: (listener) => activeAuctions.onChange(listener),
    changes,
  });
  const bulkPrices = new BulkPrices({
    store,
    view: activeAuctions,
    bazaarFeed,
    catalog,
    craft,
    game,
    attributeSales: () => flips.attributeVariants,
    clock,
    logger: logger.child({ component: 'bulk-prices' }),
  });
  const openHours = new OpenHours(store);
  const valuation = new ValuationMarket(store, clock, activeAuctions, { changes, followers, logger: spineLogger });
  let started = false;
  return {
    game,
    activeAuctions,
    auctionNbt,
    bazaarFeed,
    craft,
    flips,
    catalog,
    bulkPrices,
    openHours,
    followers,
    valuation,
    upgradeCosts,
    async start() {
      if (started) return;
      started = true;
      await activeAuctions.ready();
      await bazaarFeed.start();
      await valuation.start();
      await catalog.start();
      bulkPrices.start();
      craft.start();
      flips.start();
    },
    async close() {
      await flips.stop();
      craft.stop();
      catalog.close();
      bulkPrices.close();
      activeAuctions.close();
      valuation.close();
      bazaarFeed.close();
    },
  };
}

/**
 * The market of a configuration: game data read once from the configured locations (the
 * synced NEU repository, else the built-in tables), then createMarket().
 */
export function marketFromConfig(options: Omit<MarketOptions, 'game' | 'upgradeCosts' | 'config'> & { config: MarketOptions['config'] & { gameDataDir?: string | undefined; dataDir: string }; game?: GameData }): Market {
  const { config } = options;
  const locations = { gameDataDir: config.gameDataDir, dataDir: config.dataDir };
  const game = options.game ?? loadGameData(locations);
  options.logger.info({ source: game.source, items: game.items.size, recipes: game.recipes.size }, 'game data loaded');
  const upgradeCosts = loadUpgradeCosts(locations);
  const { parts } = upgradeCosts;
  const partTables = { source: upgradeCosts.source, reforgeStones: parts.reforgeStones.size, gemstoneSlotItems: parts.gemstoneSlots.size, skipped: parts.skipped };
  // Malformed entries of the part tables are skipped, never fatal: said once, louder when there are any.
  if (parts.skipped.reforgeStones + parts.skipped.gemstoneSlots > 0) options.logger.warn(partTables, 'part cost tables: malformed entries skipped');
  else options.logger.info(partTables, 'part cost tables loaded');
  return createMarket({ ...options, game, upgradeCosts, config });
}
