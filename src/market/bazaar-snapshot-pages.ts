/**
 * Each bazaar product's current answers (`/api/bazaar/{tag}/snapshot` without a timestamp, and
 * `/history/hour`, `/day`, `/week`), serialised once per stored snapshot (by services/bazaar.ts)
 * and kept until the next one, or until a history's oldest point leaves its window: the routes'
 * hot paths and the stored-response fast path (http/stored-responses.ts) send these bytes as they are.
 *
 * It follows the spine (spine/follower.ts): a new snapshot is noticed when its change arrives, in
 * this process or, in role `api`, from Redis. It reads the bazaar feed's state from the store once
 * at start and again only on a hole in the spine (nothing is served from memory meanwhile).
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { MarketChange } from '../domain/market-change.ts';
import type { ChangeSource } from '../spine/index.ts';
import { Follower, Followers } from '../spine/follower.ts';

/** Products whose page is kept; past it the pages start over (the bazaar lists ~1,500). */
const MAX_PAGES = 20_000;

export class BazaarSnapshotPages {
  private readonly pages = new Map<string, { version: number; validUntil: number; body: Buffer }>();
  /** bumped whenever a newer snapshot may exist: the key the pages are kept under */
  version = 0;
  /** the newest snapshot's lastUpdated as the view knows it; undefined until loaded and while resynchronising */
  private feedSeen: number | undefined;
  private readonly follower: Follower;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: { changes?: ChangeSource; followers?: Followers; logger?: Logger } = {},
  ) {
    this.follower = new Follower({
      name: 'bazaar-snapshot-pages',
      source: options.changes ?? store.changes,
      projection: { load: () => this.load(), apply: (change) => this.apply(change) },
      followers: options.followers ?? new Followers(),
      now: () => clock.now(),
      logger: options.logger,
    });
  }

  /** Reads the bazaar feed's state and starts following the spine. */
  start(): Promise<void> {
    return this.follower.start();
  }

  close(): void {
    this.follower.stop();
  }

  /**
   * The product's prepared answer while it is the current one, else undefined. Synchronous (the
   * hot paths call it on every request). Nothing is served before the feed state is loaded.
   */
  current(key: string): Buffer | undefined {
    const seen = this.feedSeen;
    // A snapshot stamped after now (upstream's clock ahead of ours) becomes the answer once now
    // passes it, without a new event: nothing is served from memory until then.
    if (seen === undefined) return undefined;
    const now = this.clock.now();
    if (seen > now) return undefined;
    const page = this.pages.get(key);
    return page !== undefined && page.version === this.version && now < page.validUntil ? page.body : undefined;
  }

  /**
   * Keeps an answer (key: the product and what was asked) built from the snapshots stored up to
   * `builtAt` after reading `version`, valid before `validUntil`: dropped when a newer snapshot has
   * been noticed since, and not kept when the newest snapshot (the feed's lastUpdated) is after
   * `builtAt` (it would enter the answer later without an event).
   */
  keep(key: string, version: number, builtAt: number, body: Buffer, validUntil = Number.POSITIVE_INFINITY): void {
    if (version !== this.version || this.feedSeen === undefined || this.feedSeen > builtAt) return;
    if (this.pages.size >= MAX_PAGES) this.pages.clear();
    this.pages.set(key, { version, validUntil, body });
  }

  private bump(): void {
    this.version++;
    this.pages.clear();
  }

  private async load(): Promise<void> {
    // Nothing from memory while the state is read: a resync means snapshots may have been missed.
    this.feedSeen = undefined;
    this.bump();
    const feed = await this.store.feeds.get('bazaar');
    this.feedSeen = feed?.lastUpdated ?? 0;
    this.bump();
  }

  private apply(change: MarketChange): void {
    if (change.kind !== 'bazaar') return;
    this.feedSeen = Math.max(this.feedSeen ?? 0, change.ts);
    this.bump();
  }
}
