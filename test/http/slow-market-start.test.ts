/**
 * A market that takes longer than Fastify's default 10 s plugin timeout to load (60,000 listings from a busy
 * PostgreSQL did) still starts: the app waits for it instead of exiting.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { marketFromConfig } from '../../src/market/index.ts';
import { createMetrics } from '../../src/metrics.ts';
import { Store } from '../../src/store/index.ts';
import { tempDir } from '../helpers/temp-dir.ts';

test('an app whose market loads for longer than 10 s starts', { timeout: 60_000 }, async () => {
  const dir = tempDir('slow-start');
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'silent' });
  const store = await Store.open({ dataDir: dir.path });
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
  const logger = createLogger('silent');
  const real = marketFromConfig({ store, clock, logger, config });
  const market = { ...real, start: async () => { await new Promise((r) => setTimeout(r, 10_500)); await real.start(); } };
  const app = await buildApp({ config, store, clock, metrics: createMetrics({ defaultMetrics: false }), logger, dataSource: 'upstream', startedAt: clock.now(), market });
  try {
    const started = Date.now();
    await app.ready();
    assert.ok(Date.now() - started >= 10_000);
    assert.equal((await app.inject('/api/version')).statusCode, 200);
  } finally {
    await app.close();
    await store.close();
    dir.remove();
  }
});
