/** An ingestion context for tests: a silent logger, metrics of its own, no waiting between retries. */
import { Registry } from 'prom-client';
import type { Clock } from '../../src/clock.ts';
import type { IngestContext } from '../../src/ingest/context.ts';
import { HypixelClient } from '../../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../../src/ingest/metrics.ts';
import { createLogger } from '../../src/logger.ts';
import type { Store } from '../../src/store/index.ts';

export function testIngestContext(opts: { store: Store; clock: Clock; baseUrl: string; source?: IngestContext['source']; retries?: number; timeoutMs?: number }): IngestContext {
  return {
    client: new HypixelClient({ baseUrl: opts.baseUrl, retries: opts.retries ?? 2, timeoutMs: opts.timeoutMs ?? 5000, backoffMs: () => 5 }),
    store: opts.store,
    clock: opts.clock,
    logger: createLogger('silent'),
    metrics: new IngestMetrics(new Registry()),
    source: opts.source ?? 'upstream',
    sleep: async () => {},
  };
}
