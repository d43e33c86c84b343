/** A feed's poller keeps the last failure in words (for health) and forgets the streak after a success. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { ManualClock } from '../../../src/clock.ts';
import { createLogger } from '../../../src/logger.ts';
import { IngestMetrics } from '../../../src/ingest/metrics.ts';
import { Poller, type PollStatus } from '../../../src/ingest/poller.ts';

describe('poller status', () => {
  it('records failures in a row, the last error and when to retry; a success resets the streak but keeps the last error', async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
    const seen: PollStatus[] = [];
    let calls = 0;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const poller: Poller = new Poller({
      feed: 'bazaar',
      intervalMs: 5,
      logger: createLogger('silent'),
      metrics: new IngestMetrics(new Registry()),
      clock,
      poll: async () => {
        seen.push(poller.status());
        clock.advance(1000);
        calls++;
        if (calls <= 2) throw new Error(`GET /v2/skyblock/bazaar: the host api.hypixel.net could not be resolved (ENOTFOUND) #${calls}`);
        if (calls === 4) done();
      },
    });
    assert.deepEqual(poller.status(), { failures: 0 });
    // The poller's timers are unref'd (they never hold a process open): hold this one open meanwhile.
    const keepAlive = setInterval(() => {}, 1000);
    poller.start();
    await finished;
    await poller.stop();
    clearInterval(keepAlive);
    const t0 = Date.UTC(2026, 10, 25, 12);
    assert.deepEqual(seen[0], { failures: 0 });
    assert.deepEqual(seen[1], { failures: 1, lastError: 'GET /v2/skyblock/bazaar: the host api.hypixel.net could not be resolved (ENOTFOUND) #1', lastErrorAt: t0 + 1000, retryAt: t0 + 1000 + 5 });
    assert.deepEqual(seen[2], { failures: 2, lastError: 'GET /v2/skyblock/bazaar: the host api.hypixel.net could not be resolved (ENOTFOUND) #2', lastErrorAt: t0 + 2000, retryAt: t0 + 2000 + 10 });
    assert.deepEqual(seen[3], { failures: 0, lastSuccessAt: t0 + 3000, lastError: 'GET /v2/skyblock/bazaar: the host api.hypixel.net could not be resolved (ENOTFOUND) #2', lastErrorAt: t0 + 2000 });
  });
});
