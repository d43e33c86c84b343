/**
 * Each bazaar product's current snapshot answer (`/api/bazaar/{tag}/snapshot` without a
 * timestamp), serialised once per stored snapshot and kept until the next one: the route's hot
 * path and the stored-response fast path (http/stored-responses.ts) send these bytes as they are.
 *
 * A new snapshot is noticed at once when it is stored in this process (the repository's change
 * event), and within `pollMs` when another process stores it (the bazaar feed's lastUpdated,
 * read in the background like the active-auctions view's feed check).
 */
import type { Clock } from '../clock.ts';
import type { Store } from '../store/index.ts';

/** Products whose page is kept; past it the pages start over (the bazaar lists ~1,500). */
const MAX_PAGES = 20_000;

export class BazaarSnapshotPages {
  private readonly pages = new Map<string, { version: number; ts: number; body: Buffer }>();
  /** bumped whenever a newer snapshot may exist: the key the pages are kept under */
  version = 0;
  private feedSeen: number | undefined;
  private lastCheck = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | undefined;
  private readonly pollMs: number;
  private readonly onSnapshot = (lastUpdated: number) => {
    this.feedSeen = lastUpdated;
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
  current(productId: string): Buffer | undefined {
    if (this.pollMs <= 0) return undefined;
    this.check();
    // A snapshot stamped after now (upstream's clock ahead of ours) becomes the answer once now
    // passes it, without a new event: nothing is served from memory until then.
    if (this.feedSeen === undefined || this.feedSeen > this.clock.now()) return undefined;
    const page = this.pages.get(productId);
    return page !== undefined && page.version === this.version ? page.body : undefined;
  }

  /**
   * Keeps a product's answer, built from the snapshot stored at `ts` after reading `version`:
   * dropped when a newer snapshot has been noticed since (the feed's lastUpdated is the newest
   * snapshot's time, so every kept answer is at or before it).
   */
  keep(productId: string, version: number, ts: number, body: Buffer): void {
    if (version !== this.version || this.pollMs <= 0 || this.feedSeen === undefined || ts > this.feedSeen) return;
    if (this.pages.size >= MAX_PAGES) this.pages.clear();
    this.pages.set(productId, { version, ts, body });
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
