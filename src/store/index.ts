/**
 * The store: the source of truth. It owns the database handle and exposes one
 * repository per aggregate; nothing outside src/store speaks SQL.
 */
import type { Kysely } from 'kysely';
import { migrateToLatest, openDatabase, ping, type DatabaseHandle, type DatabaseOptions, type Dialect } from './db.ts';
import type { Database } from './schema.ts';
import { FeedRepository } from './repositories/feeds.ts';
import { ItemRepository } from './repositories/items.ts';
import { AuctionRepository } from './repositories/auctions.ts';
import { BazaarRepository } from './repositories/bazaar.ts';
import { ElectionRepository } from './repositories/elections.ts';

export type { Dialect } from './db.ts';

export class Store {
  readonly feeds: FeedRepository;
  readonly items: ItemRepository;
  readonly auctions: AuctionRepository;
  readonly bazaar: BazaarRepository;
  readonly elections: ElectionRepository;

  private constructor(private readonly handle: DatabaseHandle) {
    this.feeds = new FeedRepository(handle.db);
    this.items = new ItemRepository(handle.db, handle.dialect);
    this.auctions = new AuctionRepository(handle.db, handle.dialect, this.feeds);
    this.bazaar = new BazaarRepository(handle.db, handle.dialect, this.feeds);
    this.elections = new ElectionRepository(handle.db);
  }

  /** Opens the database and brings its schema up to date. */
  static async open(options: DatabaseOptions & { migrate?: boolean }): Promise<Store> {
    const handle = await openDatabase(options);
    try {
      if (options.migrate !== false) await migrateToLatest(handle);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return new Store(handle);
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

  ping(): Promise<void> {
    return ping(this.handle);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
