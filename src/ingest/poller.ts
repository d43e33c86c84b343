/**
 * Runs one feed's poll on an interval, off the request path. A failed poll is logged
 * and counted, then retried with growing delay (capped), so a flaky upstream never
 * stops ingestion and never crashes the process.
 */
import type { Logger } from '../logger.ts';
import type { Feed, IngestMetrics } from './metrics.ts';

export interface PollerOptions {
  feed: Feed;
  intervalMs: number;
  poll: () => Promise<unknown>;
  logger: Logger;
  metrics: IngestMetrics;
}

const MAX_FAILURE_DELAY_MS = 60_000;

export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private failures = 0;

  constructor(private readonly options: PollerOptions) {}

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
    const { feed, intervalMs, logger, metrics } = this.options;
    try {
      await this.options.poll();
      this.failures = 0;
      this.schedule(intervalMs);
    } catch (err) {
      this.failures++;
      metrics.cycles.inc({ feed, outcome: 'failed' });
      const delay = Math.min(MAX_FAILURE_DELAY_MS, intervalMs * 2 ** Math.min(this.failures - 1, 6));
      logger.warn({ feed, err: err instanceof Error ? err.message : String(err), failures: this.failures, retryInMs: delay }, 'poll failed');
      this.schedule(delay);
    }
  }
}
