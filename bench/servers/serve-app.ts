/**
 * The shared start-up of the benchmark targets that run the real skymarket app: config,
 * store, app, listen on a free loopback port, print the URL (bench/harness.ts waits for
 * it), and close everything on SIGTERM.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppContext } from '../../src/app.ts';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { Store } from '../../src/store/index.ts';
import { keepTickObjectShape } from '../../src/tick-shape.ts';
import { startInProcessFloor } from './in-process-floor.ts';

/** Loopback clients are exempt from the per-IP limits: throughput benchmarks measure the route, not the limiter. */
export const THROUGHPUT_ENV = { RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1', ...process.env };

export interface BenchAppOptions {
  /** configuration variables (DATA_DIR, LOG_LEVEL, PORT and HOST are set here) */
  env: Record<string, string | undefined>;
  /** an existing data directory; default a fresh temporary one */
  dataDir?: string;
  dataSource?: AppContext['dataSource'];
  /** fills the store before the app starts */
  seed?: (store: Store) => Promise<void>;
  /** also starts a bare node:http listener in this process that replays the app's answers (in-process-floor.ts); its URL is printed first, as `in-process floor <url>` */
  inProcessFloor?: boolean;
  /** runs on SIGTERM before the app and store close */
  beforeClose?: (app: FastifyInstance) => Promise<void>;
}

export async function serveBenchApp(options: BenchAppOptions): Promise<FastifyInstance> {
  // As the serving process does (src/runtime.ts); buildApp leaves it to its caller.
  keepTickObjectShape();
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'skymarket-bench-'));
  const config = loadConfig({ ...options.env, DATA_DIR: dir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
  const store = await Store.open({ dataDir: dir });
  await options.seed?.(store);
  const app = await buildApp({
    config,
    store,
    clock: systemClock,
    metrics: createMetrics(),
    logger: createLogger(config.logLevel),
    dataSource: options.dataSource ?? 'upstream',
    startedAt: Date.now(),
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  if (options.inProcessFloor) process.stdout.write(`in-process floor ${(await startInProcessFloor(url)).url}\n`);
  process.stdout.write(`${url}\n`);
  process.on('SIGTERM', () => {
    void (async () => {
      await options.beforeClose?.(app);
      await app.close();
      await store.close();
      process.exit(0);
    })();
  });
  return app;
}
