/**
 * Composes one skymarket process from its config: store, metrics, HTTP app and (as
 * they land) ingestion and jobs, according to the role. `close()` shuts everything
 * down in reverse order: stop accepting requests, finish in-flight ones, stop
 * background work, close the database.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppContext } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import { describeConfig, type Config } from './config.ts';
import type { Logger } from './logger.ts';
import { Ingestion } from './ingest/index.ts';
import { Jobs } from './jobs/index.ts';
import { Leadership } from './leadership.ts';
import { simulatorOptionsFromEnv, startSimulator, type SimulatorHandle } from './simulator/index.ts';
import { createMetrics } from './metrics.ts';
import { Store } from './store/index.ts';

export interface Runtime {
  app: FastifyInstance;
  store: Store;
  /** the address the HTTP server listens on */
  url: string;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  clock?: Clock;
  logger: Logger;
}

/** SkyBlock year length in the demo unless SIM_YEAR_HOURS is set: 2 h, so the one-day backfill holds ~12 mayor terms. */
export const DEMO_YEAR_MS = 2 * 3_600_000;

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  logger.info({ config: describeConfig(config) }, 'starting skymarket');

  const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  logger.info({ database: store.location }, 'database ready (migrations applied)');

  const dataSource = config.demo ? 'simulator' : 'upstream';
  let upstreamUrl = config.upstreamUrl;
  let simulator: SimulatorHandle | undefined;
  let backfillMs = 0;
  if (config.demo) {
    // The simulator is the upstream, in this process; its data is simulated and reported as such.
    const options = simulatorOptionsFromEnv(process.env); // SIM_* variables, see the README
    // The demo compresses the SkyBlock year so its day of history spans several mayor terms (mayor flips).
    options.yearMs ??= DEMO_YEAR_MS;
    simulator = await startSimulator(options, { clock, logger: logger.child({ component: 'simulator' }) });
    upstreamUrl = simulator.url;
    backfillMs = options.backfillMs;
    logger.warn(
      { simulator: simulator.url, auctions: options.auctions, backfillHours: options.backfillMs / 3_600_000 },
      'demo mode: market data comes from the built-in simulator (simulated, not real Hypixel data)',
    );
  }

  const metrics = createMetrics();
  const context: AppContext = {
    config,
    store,
    clock,
    metrics,
    logger,
    dataSource,
    startedAt: clock.now(),
    leaders: {},
  };
  const serveApi = config.role === 'all' || config.role === 'api';
  const app = await buildApp(context, { apiRoutes: serveApi });

  let url: string;
  try {
    // A deeper accept queue than Node's 511: a burst of a few thousand new connections
    // (clients reconnecting after a deploy) waits in it instead of being dropped.
    url = await app.listen({ port: config.port, host: config.host, backlog: 4096 });
  } catch (err) {
    await app.close();
    await store.close();
    throw err;
  }
  logger.info({ url, role: config.role, api: serveApi }, `skymarket listening on ${url}`);

  let ingestion: Ingestion | undefined;
  let ingestLeader: Leadership | undefined;
  let jobsLeader: Leadership | undefined;
  if (config.role === 'all' || config.role === 'ingest') {
    const seconds = config.ingestIntervals;
    ingestion = new Ingestion({
      upstreamUrl,
      upstreamApiKey: config.upstreamApiKey,
      timeoutMs: config.upstreamTimeoutMs,
      concurrency: config.upstreamConcurrency,
      intervals: {
        auctionsMs: seconds.auctions * 1000,
        endedMs: seconds.ended * 1000,
        bazaarMs: seconds.bazaar * 1000,
        itemsMs: seconds.items * 1000,
        electionMs: seconds.election * 1000,
      },
      store,
      clock,
      logger,
      registry: metrics.registry,
      source: dataSource,
      decodeWorkers: config.ingestDecodeWorkers,
    });
    const running = ingestion;
    let historyChecked = false;
    // Only the process holding the ingest lock ingests (PostgreSQL); the others stand by.
    ingestLeader = new Leadership({
      duty: 'ingest',
      store,
      retryMs: config.leaderRetryMs,
      logger,
      registry: metrics.registry,
      onElected: async () => {
        running.start();
        logger.info({ upstream: upstreamUrl }, 'ingestion started');
        if (simulator && !historyChecked && !(await store.feeds.get('bazaar'))) {
          // A fresh demo store gets the simulator's history, so history endpoints have data at once.
          historyChecked = true;
          const history = simulator.backfill();
          void running
            .ingestHistory(history)
            .then(async (r) => {
              logger.info({ ...r }, 'demo history loaded');
              // The history is older than what the rollup jobs may have done meanwhile: redo it.
              await store.bazaarHistory.rewind(clock.now() - backfillMs - 3_600_000);
              // Older snapshots and past elections arrived after the flip engine's first load.
              if (app.hasDecorator('flips')) await app.flips.historyReplayed();
            })
            .catch((err: unknown) => logger.error({ err }, 'demo history failed to load'));
        }
        historyChecked = true;
      },
      onDeposed: async () => {
        await running.pause();
        logger.info('ingestion paused');
      },
    });
    context.leaders!.ingest = ingestLeader;
    ingestLeader.start();
  }

  let jobs: Jobs | undefined;
  if (config.role === 'all' || config.role === 'jobs') {
    const running = (jobs = new Jobs({ store, clock, logger, exportWebhookHosts: config.exportWebhookHosts }));
    // Like ingestion: one jobs process at a time, under a lock of its own.
    jobsLeader = new Leadership({
      duty: 'jobs',
      store,
      retryMs: config.leaderRetryMs,
      logger,
      registry: metrics.registry,
      onElected: () => {
        running.start();
        logger.info('jobs started (bazaar rollups and retention)');
      },
      onDeposed: async () => {
        await running.stop();
        logger.info('jobs paused');
      },
    });
    context.leaders!.jobs = jobsLeader;
    jobsLeader.start();
  }

  let closing: Promise<void> | undefined;
  return {
    app,
    store,
    url,
    close() {
      closing ??= (async () => {
        await app.close();
        // Leaders stop their work, then release their locks so a standby can take over.
        await ingestLeader?.stop();
        await jobsLeader?.stop();
        await ingestion?.stop();
        await jobs?.stop();
        await simulator?.close();
        await store.close();
        logger.info('skymarket stopped');
      })();
      return closing;
    },
  };
}
