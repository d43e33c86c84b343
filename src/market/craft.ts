/**
 * The crafting view: game data plus the current market (newest bazaar snapshot with books,
 * cheapest BINs per tag) and the craft profit list computed from them. It is rebuilt when a
 * new bazaar snapshot, auctions generation or election is stored, noticed on the spine (in this
 * process or, in role `api`, from Redis), never on a timer; a read checks the feeds table once
 * and rebuilds only when a feed moved.
 */
import type { OrderBook } from '../domain/bazaar-book.ts';
import { buildPriceSource, type PriceSource } from '../domain/craft/prices.ts';
import { craftProfits, type ProfitableCraft } from '../domain/craft/profit.ts';
import type { GameData } from '../gamedata/types.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { BinRow } from '../store/repositories/market-prices.ts';
import type { ChangeSource } from '../spine/index.ts';

export interface CraftState {
  prices: PriceSource;
  profits: ProfitableCraft[];
  /** feed versions the state was built from */
  bazaarUpdated: number;
  auctionsUpdated: number;
  /** version of the BIN source the state was built from (the active-auctions view's, else the auctions feed's) */
  binsVersion: number;
  builtAt: number;
  buildMs: number;
  /** part of buildMs spent reading and decoding market data */
  readMs: number;
}

export interface CraftMarketOptions {
  store: Store;
  game: GameData;
  clock: Clock;
  logger?: Logger;
  /** the spine: a bazaar snapshot, an auctions generation or an election change rebuilds the list ahead of the next read */
  changes?: ChangeSource;
  /** cheapest BIN listings kept per tag */
  binsPerTag?: number;
  /**
   * Where the cheapest BINs come from; default: the store's auctions table. The in-memory
   * active-auctions view can be plugged in here.
   */
  lowestBins?: (now: number, perTag: number) => Promise<BinRow[]>;
  /**
   * The in-memory active-auctions view (same process): cheapest BINs are read from it instead of
   * the store, and a change it holds (a new cheaper BIN) rebuilds the list without re-reading the
   * bazaar or the auctions table. Takes precedence over `lowestBins`.
   */
  activeBins?: { ready(): Promise<void>; readonly version: number; lowestBinRows(now: number, perTag: number): BinRow[] };
}

export class CraftMarket {
  private state: CraftState | undefined;
  private building: Promise<CraftState> | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  /** a change arrived during the build under way: one more after it */
  private again = false;
  /** the BIN sample of the last auctions generation: a bazaar snapshot alone does not re-read it */
  private bins: { version: number; rows: BinRow[] } | undefined;
  /** the newest snapshot's rows, kept while the bazaar feed stays put (a BIN change alone does not re-read them) */
  private products: { version: number; rows: Awaited<ReturnType<Store['marketPrices']['latestBazaar']>> } | undefined;
  private election: { version: number; derpy: boolean } | undefined;
  /** decoded books by product, reused while a product's stored book bytes stay the same */
  private readonly books = new Map<string, { bytes: Uint8Array; book: OrderBook }>();

  constructor(private readonly options: CraftMarketOptions) {}

  get game(): GameData {
    return this.options.game;
  }

  /** The last state built, if any (synchronous): the generation of the answers prepared from it. */
  latest(): CraftState | undefined {
    return this.state;
  }

  /** Follows the spine so the list is recomputed right after each snapshot, generation or election. */
  start(): void {
    const changes = this.options.changes;
    this.stopped = false;
    if (!changes || this.unsubscribe) return;
    this.refresh();
    void changes.head().then((head) => {
      if (this.stopped || this.unsubscribe) return;
      this.unsubscribe = changes.subscribe(head, (event) => {
        if (event.type === 'unavailable') return;
        // auctions_ended batches only end listings: the next generation or read catches those.
        if (event.type === 'restored' || event.change.kind === 'bazaar' || event.change.kind === 'auctions' || event.change.kind === 'resource') this.refresh();
      });
    });
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Rebuilds when a feed moved (once more after a build under way: its feeds were read before this change). */
  private refresh(): void {
    if (this.stopped) return;
    if (this.building) {
      this.again = true;
      return;
    }
    this.current()
      .catch((err: unknown) => this.options.logger?.warn({ err }, 'craft view refresh failed'))
      .finally(() => {
        if (this.again) {
          this.again = false;
          this.refresh();
        }
      });
  }

  /**
   * The state for the newest stored market data: one cheap look at the feeds table, and a
   * rebuild only when a feed moved since the last build (concurrent callers share it).
   */
  async current(): Promise<CraftState> {
    const feeds = await this.options.store.feeds.all();
    const bazaar = feeds.find((f) => f.name === 'bazaar')?.lastUpdated ?? 0;
    const auctions = feeds.find((f) => f.name === 'auctions')?.lastUpdated ?? 0;
    const election = feeds.find((f) => f.name === 'election')?.lastUpdated ?? 0;
    const view = this.options.activeBins;
    if (view) await view.ready();
    const binsVersion = view ? view.version : auctions;
    const state = this.state;
    if (state && state.bazaarUpdated === bazaar && state.binsVersion === binsVersion && this.election?.version === election) return state;
    if (this.building) return this.building;
    this.building = this.build(bazaar, auctions, binsVersion, election).finally(() => {
      this.building = undefined;
    });
    return this.building;
  }

  private async build(bazaarUpdated: number, auctionsUpdated: number, binsVersion: number, electionUpdated: number): Promise<CraftState> {
    const started = performance.now();
    const now = this.options.clock.now();
    const perTag = this.options.binsPerTag ?? 16;
    const readBins = async () => {
      const view = this.options.activeBins;
      // From memory: cheap enough to redo for every change of the view.
      if (view) return view.lowestBinRows(now, perTag);
      if (this.bins && this.bins.version === binsVersion) return this.bins.rows;
      const rows = await (this.options.lowestBins ?? ((n, k) => this.options.store.marketPrices.lowestBins(n, k)))(now, perTag);
      this.bins = { version: binsVersion, rows };
      return rows;
    };
    const readProducts = async () => {
      if (this.products && this.products.version === bazaarUpdated) return this.products.rows;
      const rows = await this.options.store.marketPrices.latestBazaar();
      this.products = { version: bazaarUpdated, rows };
      return rows;
    };
    const readDerpy = async () => {
      if (this.election && this.election.version === electionUpdated) return this.election.derpy;
      const latest = await this.options.store.elections.latest();
      // Derpy raises auction fees while mayor.
      const derpy = latest?.mayorKey.toLowerCase() === 'derpy';
      this.election = { version: electionUpdated, derpy };
      return derpy;
    };
    const [products, bins, derpy] = await Promise.all([readProducts(), readBins(), readDerpy()]);
    const prices = buildPriceSource(products, bins, bazaarUpdated || now, this.books);
    prices.derpy = derpy;
    const readMs = performance.now() - started;
    const profits = craftProfits(this.options.game, prices);
    const state: CraftState = {
      prices,
      profits,
      bazaarUpdated,
      auctionsUpdated,
      binsVersion,
      builtAt: now,
      buildMs: performance.now() - started,
      readMs,
    };
    this.state = state;
    this.options.logger?.debug({ profits: profits.length, ms: Math.round(state.buildMs) }, 'craft view rebuilt');
    return state;
  }
}
