/**
 * Runs one feed's poll on an interval, off the request path. A failed poll is logged
 * and counted, then retried with growing delay (capped), so a flaky upstream never
 * stops ingestion and never crashes the process.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Feed, IngestMetrics } from './metrics.ts';

export interface PollerOptions {
  feed: Feed;
  intervalMs: number;
  poll: () => Promise<unknown>;
  logger: Logger;
  metrics: IngestMetrics;
  clock: Clock;
}

/** How a feed's polls have been going, for health: the last success and the last failure in words. */
export interface PollStatus {
  /** failed polls in a row (0 after a success) */
  failures: number;
  /** when the last poll succeeded (ms), if one has */
  lastSuccessAt?: number;
  /** the last failure's message (e.g. the upstream host could not be resolved), kept after a recovery */
  lastError?: string;
  lastErrorAt?: number;
  /** while failing: when the next try is due (ms) */
  retryAt?: number;
}

const MAX_FAILURE_DELAY_MS = 60_000;

export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;
  private readonly state: PollStatus = { failures: 0 };

  constructor(private readonly options: PollerOptions) {}

  get feed(): Feed {
    return this.options.feed;
  }

  /** A copy of how this feed's polls have been going. */
  status(): PollStatus {
    return { ...this.state };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops scheduling and waits for a poll in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => (this.running = undefined));
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const { feed, intervalMs, logger, metrics, clock } = this.options;
    try {
      await this.options.poll();
      if (this.failures > 0) logger.info({ feed, failures: this.failures }, `${feed} feed recovered after ${this.failures} failed poll(s)`);
      this.failures = 0;
      this.state.failures = 0;
      this.state.lastSuccessAt = clock.now();
      delete this.state.retryAt;
      this.schedule(intervalMs);
    } catch (err) {
      this.failures++;
      metrics.cycles.inc({ feed, outcome: 'failed' });
      const delay = Math.min(MAX_FAILURE_DELAY_MS, intervalMs * 2 ** Math.min(this.failures - 1, 6));
      const message = err instanceof Error ? err.message : String(err);
      const now = clock.now();
      Object.assign(this.state, { failures: this.failures, lastError: message, lastErrorAt: now, retryAt: now + delay });
      logger.warn({ feed, failures: this.failures, retryInMs: delay }, `${feed} poll failed: ${message}`);
      this.schedule(delay);
    }
  }
}
