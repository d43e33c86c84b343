/**
 * Where the bazaar feed stands, as a projection of the spine: the newest snapshot's time this
 * process knows of, and a generation that moves with every `bazaar` change (and on a resync). The
 * bazaar routes' prepared answers (each product's current snapshot, its hour/day/week histories:
 * http/prepared-answers.ts) are kept per generation: a new snapshot makes them stale.
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
import { type Follower, type Followers, viewFollower } from '../spine/follower.ts';

export class BazaarFeed {
  /** moves whenever a newer snapshot may exist: the generation the prepared answers are kept under */
  version = 0;
  /** the newest snapshot's lastUpdated as the view knows it; undefined until loaded and while resynchronising */
  private feedSeen: number | undefined;
  private readonly follower: Follower;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: { changes?: ChangeSource; followers?: Followers; logger?: Logger } = {},
  ) {
    // The follower's name in metrics and health, kept from when this view held the pages.
    this.follower = viewFollower('bazaar-snapshot-pages', { load: () => this.load(), apply: (change) => this.apply(change) }, { changes: store.changes, now: () => clock.now() }, options);
  }

  /** Reads the bazaar feed's state and starts following the spine. */
  start(): Promise<void> {
    return this.follower.start();
  }

  close(): void {
    this.follower.stop();
  }

  /**
   * Whether an answer kept at the current generation may be served from memory now: not before
   * the feed state is loaded, and not while the newest snapshot is stamped after now (upstream's
   * clock ahead of ours: it becomes the answer once now passes it, without a new event).
   */
  servable(now = this.clock.now()): boolean {
    const seen = this.feedSeen;
    return seen !== undefined && seen <= now;
  }

  /**
   * Whether an answer built from the snapshots stored up to `builtAt` may be kept: not when the
   * newest snapshot is after `builtAt` (it would enter the answer later without an event).
   */
  mayKeep(builtAt: number): boolean {
    return this.feedSeen !== undefined && this.feedSeen <= builtAt;
  }

  private bump(): void {
    this.version++;
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
