/**
 * The store: the source of truth. It owns the database handle and exposes one
 * repository per aggregate; nothing outside src/store speaks SQL.
 */
import type { Kysely, MigrationResultSet, Migrator } from 'kysely';
import { migrateToLatest, migratorFor, openDatabase, ping, type DatabaseHandle, type DatabaseOptions, type Dialect } from './db.ts';
import type { Database } from './schema.ts';
import { systemClock, type Clock } from '../clock.ts';
import { FeedRepository } from './repositories/feeds.ts';
import { ItemRepository } from './repositories/items.ts';
import { AuctionRepository } from './repositories/auctions.ts';
import { BazaarRepository } from './repositories/bazaar.ts';
import { ElectionRepository } from './repositories/elections.ts';
import { AuctionQueryRepository } from './repositories/auction-queries.ts';
import { ExportJobRepository } from './repositories/export-jobs.ts';
import { AccountRepository } from './repositories/accounts.ts';
import { ApiKeyRepository } from './repositories/api-keys.ts';
import { PartnerRepository } from './repositories/partners.ts';
import { BazaarHistoryRepository } from './repositories/bazaar-history.ts';
import { MarketPriceRepository } from './repositories/market-prices.ts';
import { PlayerRepository } from './repositories/players.ts';
import { PlayerNameRepository } from './repositories/player-names.ts';
import { LowballRepository } from './repositories/lowball.ts';
import { ModLinkRepository } from './repositories/mod-links.ts';
import { DataUploadRepository } from './repositories/data-uploads.ts';
import { ProfileRequestRepository } from './repositories/profile-requests.ts';
import { FlipInputRepository } from './repositories/flip-inputs.ts';
import { BazaarBooks } from './repositories/bazaar-books.ts';
import { PriceRollupRepository } from './repositories/price-rollups.ts';
import { SaleRollupRepository } from './repositories/sale-rollups.ts';
import { PlayerAuctionRepository } from './repositories/player-auctions.ts';
import { StatisticsRepository } from './repositories/statistics.ts';
import { AlertRepository } from './repositories/alerts.ts';

export type { Dialect } from './db.ts';
import { SessionLock } from './session-lock.ts';
import { InProcessSpine } from '../spine/in-process.ts';
import { FIRST_MIGRATION } from './migrations/index.ts';

/** Whether a migration run created the database's tables (its first migration ran just now). */
export function createdDatabase(result: MigrationResultSet): boolean {
  return result.results?.some((r) => r.migrationName === FIRST_MIGRATION && r.status === 'Success') ?? false;
}

export class Store {
  /**
   * The spine in this process: the repositories publish every committed auctions generation, batch
   * of sales and bazaar snapshot to it (spine/; a relay forwards them to Redis for other processes).
   */
  readonly changes = new InProcessSpine();
  readonly feeds: FeedRepository;
  readonly items: ItemRepository;
  readonly auctions: AuctionRepository;
  readonly bazaar: BazaarRepository;
  readonly elections: ElectionRepository;
  readonly auctionQueries: AuctionQueryRepository;
  readonly exportJobs: ExportJobRepository;
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly partners: PartnerRepository;
  readonly bazaarHistory: BazaarHistoryRepository;
  readonly marketPrices: MarketPriceRepository;
  readonly players: PlayerRepository;
  readonly playerNames: PlayerNameRepository;
  readonly lowball: LowballRepository;
  readonly modLinks: ModLinkRepository;
  readonly dataUploads: DataUploadRepository;
  readonly profileRequests: ProfileRequestRepository;
  readonly flipInputs: FlipInputRepository;
  readonly saleRollups: SaleRollupRepository;
  /** price rollups per tag, variant, hour and day (price history, summaries, bulk averages) */
  readonly priceRollups: PriceRollupRepository;
  readonly playerAuctions: PlayerAuctionRepository;
  /** planner statistics (PostgreSQL): analyze after bulk loads, find stale tables */
  readonly statistics: StatisticsRepository;
  /** alert targets, subscriptions, routes and the delivery outbox (issue 47) */
  readonly alerts: AlertRepository;

  private constructor(
    private readonly handle: DatabaseHandle,
    /** the clock repositories stamp with when a caller gives no time (runtime.ts injects its own) */
    readonly clock: Clock,
  ) {
    this.feeds = new FeedRepository(handle.db);
    this.statistics = new StatisticsRepository(handle.db, handle.dialect);
    this.items = new ItemRepository(handle.db, handle.dialect);
    this.auctions = new AuctionRepository(handle.db, handle.dialect, this.feeds, this.changes, this.statistics);
    this.bazaar = new BazaarRepository(handle.db, handle.dialect, this.feeds, new BazaarBooks(handle.db), this.changes);
    this.elections = new ElectionRepository(handle.db);
    this.auctionQueries = new AuctionQueryRepository(handle.db, handle.dialect);
    this.exportJobs = new ExportJobRepository(handle.db);
    this.accounts = new AccountRepository(handle.db, clock, handle.sqlite);
    this.apiKeys = new ApiKeyRepository(handle.db, clock);
    this.partners = new PartnerRepository(handle.db, clock);
    this.bazaarHistory = new BazaarHistoryRepository(handle.db, handle.dialect, handle, this.bazaar);
    this.marketPrices = new MarketPriceRepository(handle.db, handle.dialect, this.bazaar);
    this.players = new PlayerRepository(handle.db, handle.dialect);
    this.playerNames = new PlayerNameRepository(handle.db);
    this.lowball = new LowballRepository(handle.db, handle.dialect);
    this.modLinks = new ModLinkRepository(handle.db);
    this.dataUploads = new DataUploadRepository(handle.db);
    this.profileRequests = new ProfileRequestRepository(handle.db);
    this.flipInputs = new FlipInputRepository(handle.db, handle.dialect, this.bazaar);
    this.saleRollups = new SaleRollupRepository(handle.db, handle.dialect);
    this.priceRollups = new PriceRollupRepository(handle.db, handle.dialect);
    this.playerAuctions = new PlayerAuctionRepository(handle.db);
    this.alerts = new AlertRepository(handle.db);
  }

  /** Opens the database and brings its schema up to date. */
  static async open(options: DatabaseOptions & { migrate?: boolean; clock?: Clock }): Promise<Store> {
    const handle = await openDatabase(options);
    try {
      if (options.migrate !== false) await migrateToLatest(handle);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return new Store(handle, options.clock ?? systemClock);
  }

  get dialect(): Dialect {
    return this.handle.dialect;
  }

  /** The raw Kysely handle: for store-level helpers and their tests, not for route code. */
  get kysely(): Kysely<Database> {
    return this.handle.db;
  }

  get location(): string {
    return this.handle.location;
  }

  /** Runs `fn` in one transaction: all of its writes land, or none do. */
  transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.handle.db.transaction().execute(fn);
  }

  migrate() {
    return migrateToLatest(this.handle);
  }

  /** A migrator of this database (scoped to its schema on PostgreSQL), for tests that migrate step by step. */
  migrator(): Migrator {
    return migratorFor(this.handle);
  }

  ping(): Promise<void> {
    return ping(this.handle);
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /**
   * A session-level advisory lock named `name` on a connection of its own (PostgreSQL);
   * undefined on SQLite, where one process owns the database file anyway.
   */
  async openSessionLock(name: string): Promise<SessionLock | undefined> {
    if (!this.handle.connect) return undefined;
    return SessionLock.open(this.handle.connect, this.handle.schema ?? 'public', name);
  }
}
