/** An ingestion context for tests: a silent logger, metrics of its own, no waiting between retries. */
import { Registry } from 'prom-client';
import type { Clock } from '../../src/clock.ts';
import type { IngestContext } from '../../src/ingest/context.ts';
import { HypixelClient } from '../../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../../src/ingest/metrics.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import type { Store } from '../../src/store/index.ts';

export interface TestIngestOptions {
  store: Store;
  clock: Clock;
  /**
   * The upstream (fake or simulator) the context's client fetches from. Without it the context
   * has no client: for ingesters that are handed their responses (ingestHistory, a bazaar
   * ingester fed page by page), which never fetch.
   */
  baseUrl?: string;
  source?: IngestContext['source'];
  retries?: number;
  timeoutMs?: number;
  /** the registry the ingest metrics count in, for a test that reads them (default: one of its own) */
  registry?: Registry;
  logger?: Logger;
}

export function testIngestContext(opts: TestIngestOptions): IngestContext {
  return {
    client:
      opts.baseUrl === undefined
        ? (undefined as never)
        : new HypixelClient({ baseUrl: opts.baseUrl, retries: opts.retries ?? 2, timeoutMs: opts.timeoutMs ?? 5000, backoffMs: () => 5 }),
    store: opts.store,
    clock: opts.clock,
    logger: opts.logger ?? createLogger('silent'),
    metrics: new IngestMetrics(opts.registry ?? new Registry()),
    source: opts.source ?? 'upstream',
    sleep: async () => {},
  };
}
