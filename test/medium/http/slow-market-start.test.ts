/**
 * A market that takes longer than Fastify's default 10 s plugin timeout to load (60,000 listings from a busy
 * PostgreSQL did) still starts: the app waits for it instead of exiting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../../src/app.ts';
import { ManualClock } from '../../../src/clock.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { marketFromConfig } from '../../../src/market/index.ts';
import { createMetrics } from '../../../src/metrics.ts';
import { Store } from '../../../src/store/index.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

test('an app whose market loads for longer than 10 s starts', async (t) => {
  const dir = tempDir('slow-start');
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'silent' });
  const store = await Store.open({ dataDir: dir.path });
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
  const logger = createLogger('silent');
  const real = marketFromConfig({ store, clock, logger, config });
  // The market's load is held until the test lets it go; start-up's timers run on node:test's
  // mock clock, moved past Fastify's default 10 s while the load is held.
  let loading!: () => void;
  const loadStarted = new Promise<void>((resolve) => (loading = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const market = { ...real, start: async () => { loading(); await held; await real.start(); } };
  const app = await buildApp({ config, store, clock, metrics: createMetrics({ defaultMetrics: false }), logger, dataSource: 'upstream', startedAt: clock.now(), market });
  try {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let outcome: string | undefined;
    const ready = app.ready().then(
      () => (outcome = 'ready'),
      (err: Error) => (outcome = `failed: ${err.message}`),
    );
    await loadStarted;
    t.mock.timers.tick(10_500);
    // A start-up timeout would have rejected by now: let its promise chain run.
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(outcome, undefined, 'start-up still waits for the market 10.5 s in');
    t.mock.timers.reset();
    release();
    await ready;
    assert.equal(outcome, 'ready');
    assert.equal((await app.inject('/api/version')).statusCode, 200);
  } finally {
    t.mock.timers.reset();
    release();
    await app.close();
    await store.close();
    dir.remove();
  }
});
