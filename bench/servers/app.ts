/** Benchmark target: the real skymarket app on a throwaway SQLite store. Prints its URL. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { Store } from '../../src/store/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
const store = await Store.open({ dataDir: dir });
const app = await buildApp({
  config,
  store,
  clock: systemClock,
  metrics: createMetrics(),
  logger: createLogger(config.logLevel),
  dataSource: 'upstream',
  startedAt: Date.now(),
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${url}\n`);
process.on('SIGTERM', () => void app.close().then(() => store.close()).then(() => process.exit(0)));
