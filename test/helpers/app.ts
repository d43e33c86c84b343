/** Builds the real app on a real store for HTTP tests (inject() or a real socket). */
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppContext, type BuildOptions } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createMetrics } from '../../src/metrics.ts';
import { Store } from '../../src/store/index.ts';
import { marketFromConfig } from '../../src/market/index.ts';
import type { GameData } from '../../src/gamedata/types.ts';
import { tempDir } from './temp-dir.ts';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  clock: ManualClock;
  context: AppContext;
  close(): Promise<void>;
}

export interface TestAppOptions extends BuildOptions {
  env?: Record<string, string>;
  store?: Store;
  /** register extra test-only routes before the app is sealed */
  extend?: (app: FastifyInstance) => void | Promise<void>;
  dataSource?: AppContext['dataSource'];
  /** the market's game data (default: the config's locations, i.e. the built-in tables) */
  game?: GameData;
  /** where the app's log lines go (default stdout) */
  logDestination?: Parameters<typeof createLogger>[1];
  /** context fields to set (e.g. `marketEvents: null` for an API-only process) */
  context?: Partial<AppContext>;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = tempDir('app');
  // inject() comes from 127.0.0.1: exempt from the per-IP rate limits unless a test sets RATE_LIMIT_EXEMPT itself.
  const config: Config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'silent', RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1', ...options.env });
  const store = options.store ?? (await Store.open({ dataDir: dir.path }));
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  const logger = createLogger(config.logLevel, options.logDestination);
  const context: AppContext = {
    config,
    store,
    clock,
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    dataSource: options.dataSource ?? 'upstream',
    startedAt: clock.now(),
    ...(options.game && options.apiRoutes !== false ? { market: marketFromConfig({ store, clock, logger, config, game: options.game }) } : {}),
    ...options.context,
  };
  const app = await buildApp(context, options);
  await options.extend?.(app);
  await app.ready();
  return {
    app,
    store,
    clock,
    context,
    async close() {
      await app.close();
      if (!options.store) await store.close();
      dir.remove();
    },
  };
}
