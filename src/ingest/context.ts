import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import type { HypixelClient } from './hypixel-client.ts';
import type { Feed, IngestMetrics } from './metrics.ts';

/** What every feed ingester needs. */
export interface IngestContext {
  client: HypixelClient;
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: IngestMetrics;
  /** the configured source (the demo's own simulator, or an upstream); recorded through feedSource */
  source: 'upstream' | 'simulator';
  /** waits between page retries; injectable so tests run fast */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The source recorded with a feed update, so every process can say whether the data it serves is
 * simulated: the configured one, or `simulator` when the upstream said it is the skymarket simulator.
 */
export function feedSource(ctx: IngestContext): 'upstream' | 'simulator' {
  // A context fed its answers (history replay, tests) has no client to ask.
  return ctx.source === 'simulator' || ctx.client?.simulated === true ? 'simulator' : 'upstream';
}

/** Counts a skipped record and logs the first few of each cycle (upstream junk must not flood logs). */
export class SkipLog {
  private logged = 0;
  readonly counts: Record<string, number> = {};

  constructor(
    private readonly context: IngestContext,
    private readonly feed: Feed,
    private readonly maxLogged = 5,
  ) {}

  skip(outcome: 'invalid' | 'undecodable', detail: Record<string, unknown>): void {
    this.counts[outcome] = (this.counts[outcome] ?? 0) + 1;
    this.context.metrics.records.inc({ feed: this.feed, outcome });
    if (this.logged++ < this.maxLogged) this.context.logger.warn({ feed: this.feed, outcome, ...detail }, 'skipped an upstream record');
  }

  get total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }
}

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
