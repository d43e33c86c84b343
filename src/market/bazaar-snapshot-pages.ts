/**
 * Each bazaar product's current answers (`/api/bazaar/{tag}/snapshot` without a timestamp, and
 * `/history/hour`, `/day`, `/week`), serialised once per stored snapshot (by services/bazaar.ts)
 * and kept until the next one, or until a history's oldest point leaves its window: the routes'
 * hot paths and the stored-response fast path (http/stored-responses.ts) send these bytes as they are.
 *
 * A new snapshot is noticed at once when it is stored in this process (the repository's change
 * event), and within `pollMs` when another process stores it (the bazaar feed's lastUpdated,
 * read in the background like the active-auctions view's feed check).
 */
import type { Clock } from '../clock.ts';
import type { Store } from '../store/index.ts';
import type { BazaarChange } from '../store/repositories/bazaar.ts';

/** Products whose page is kept; past it the pages start over (the bazaar lists ~1,500). */
const MAX_PAGES = 20_000;

export class BazaarSnapshotPages {
  private readonly pages = new Map<string, { version: number; validUntil: number; body: Buffer }>();
  /** bumped whenever a newer snapshot may exist: the key the pages are kept under */
  version = 0;
  private feedSeen: number | undefined;
  private lastCheck = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | undefined;
  private readonly pollMs: number;
  private readonly onSnapshot = (change: BazaarChange) => {
    this.feedSeen = change.ts;
    this.bump();
  };

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    options: { pollMs?: number } = {},
  ) {
    this.pollMs = options.pollMs ?? 5000;
    store.bazaar.changes.on('snapshot', this.onSnapshot);
  }

  close(): void {
    this.store.bazaar.changes.off('snapshot', this.onSnapshot);
  }

  /**
   * The product's prepared answer while it is the current one, else undefined. Synchronous (the
   * hot paths call it on every request); starts a due feed check in the background. Nothing is
   * served before the first feed check has completed, nor with pollMs 0 (no background check).
   */
  current(key: string): Buffer | undefined {
    if (this.pollMs <= 0) return undefined;
    this.check();
    const now = this.clock.now();
    // A snapshot stamped after now (upstream's clock ahead of ours) becomes the answer once now
    // passes it, without a new event: nothing is served from memory until then.
    if (this.feedSeen === undefined || this.feedSeen > now) return undefined;
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
    if (version !== this.version || this.pollMs <= 0 || this.feedSeen === undefined || this.feedSeen > builtAt) return;
    if (this.pages.size >= MAX_PAGES) this.pages.clear();
    this.pages.set(key, { version, validUntil, body });
  }

  private bump(): void {
    this.version++;
    this.pages.clear();
  }

  private check(): void {
    const now = this.clock.now();
    if (now - this.lastCheck < this.pollMs || this.checking) return;
    this.lastCheck = now;
    this.checking = this.store.feeds
      .get('bazaar')
      .then((feed) => {
        const updated = feed?.lastUpdated ?? 0;
        if (updated !== this.feedSeen) {
          this.feedSeen = updated;
          this.bump();
        }
      })
      .catch(() => undefined)
      .finally(() => (this.checking = undefined));
  }
}
