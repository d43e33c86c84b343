/**
 * Composes one skymarket process from its config: store, metrics, HTTP app and (as
 * they land) ingestion and jobs, according to the role. `close()` shuts everything
 * down in reverse order: stop accepting requests, finish in-flight ones, stop
 * background work, close the database.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppContext } from './app.ts';
import { compose, streamHubFromConfig } from './compose.ts';
import type { DraftEvent } from './domain/stream-events.ts';
import { systemClock, type Clock } from './clock.ts';
import { describeConfig, redact, skyblockYearMs, type Config } from './config.ts';
import type { Logger } from './logger.ts';
import { Ingestion } from './ingest/index.ts';
import { Jobs } from './jobs/index.ts';
import { ALERT_KINDS } from './domain/alerts/spec.ts';
import { AlertEvaluator } from './jobs/alert-evaluator.ts';
import { storeBins, viewBins } from './jobs/price-rollups.ts';
import { hourOf, SALES_WINDOW_MS } from './domain/sales-rollup.ts';
import { Leadership } from './leadership.ts';
import { simulatorOptionsFromEnv, startSimulator, type SimulatorHandle } from './simulator/index.ts';
import { createMetrics } from './metrics.ts';
import { Store } from './store/index.ts';
import { VERSION } from './version.ts';
import { keepTickObjectShape } from './tick-shape.ts';

/** In DATA_DIR while the demo's history loads; found at start, the history was cut off and loads again. */
export const DEMO_HISTORY_MARKER = 'demo-history.loading';

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
  /**
   * Writes the start banner (URLs, where the data comes from) as a block of text, for a
   * person at a terminal. Without it the same facts are one log record ('skymarket is ready').
   */
  banner?: (text: string) => void;
}

interface Announcement {
  config: Config;
  /** the address the server listens on */
  url: string;
  version: string;
  database: string;
  serveApi: boolean;
  /** the in-process simulator's URL (demo) */
  simulator: string | undefined;
  backfillMs: number;
  /** the demo history is (or is about to be) loading */
  loading: boolean;
}

/**
 * The URL a person opens: the listen URL, except that a wildcard listen address (0.0.0.0, ::),
 * which Fastify reports as one of the machine's addresses, is shown as localhost.
 */
export function browsableUrl(listenUrl: string, host: string): string {
  const url = new URL(listenUrl);
  if (host === '0.0.0.0' || host === '::' || host === '[::]') url.hostname = 'localhost';
  return url.toString().replace(/\/$/, '');
}

/** The start banner: where to look (pages, docs, price files, health, metrics) and where the data comes from. */
function announce(a: Announcement, logger: Logger, banner: RuntimeOptions['banner']): void {
  const base = browsableUrl(a.url, a.config.host);
  const ingests = a.config.role === 'all' || a.config.role === 'ingest';
  const data = a.simulator
    ? `SIMULATED: the built-in market simulator at ${a.simulator} (not real Hypixel data)`
    : ingests
      ? `the Hypixel API at ${redact(a.config.upstreamUrl)}`
      : 'the database, written by the ingest process (this process does not ingest)';
  const urls = {
    ...(a.serveApi ? { pages: `${base}/`, docs: `${base}/api/docs`, mods: `${base}/neu/lowestbin.json` } : {}),
    health: `${base}/api/health`,
    metrics: `${base}/metrics`,
  };
  const healthNote = a.loading
    ? ` (says "loading" until the ${describeSpan(a.backfillMs)} of demo history is stored)`
    : ingests && !a.simulator
      ? ' (503 with the reasons, such as an unreachable upstream, until the first data is stored)'
      : '';
  if (!banner) {
    logger.info({ urls, data, database: a.database, role: a.config.role }, `skymarket is ready: ${a.serveApi ? `pages at ${urls.pages}, API docs at ${urls.docs}, ` : ''}health at ${urls.health}; data from ${data}`);
    return;
  }
  const rows: Array<[string, string]> = [
    ...(a.serveApi
      ? ([
          ['pages', `${urls.pages} (items, bazaar, flips, the data page)`],
          ['API docs', `${urls.docs}`],
          ['for mods', `${urls.mods} and the other price files (docs/mods.md)`],
        ] as Array<[string, string]>)
      : []),
    ['health', `${urls.health}${healthNote}`],
    ['metrics', urls.metrics],
    ['data', data],
    ['database', a.database],
  ];
  const lines = [
    '',
    `  skymarket ${a.version} (role ${a.config.role}) listening on ${base}`,
    ...rows.map(([label, value]) => `    ${label.padEnd(9)} ${value}`),
    '',
  ];
  banner(`${lines.join('\n')}\n`);
}

/** "1 day", "30 minutes", "7 days": a backfill span in words. */
function describeSpan(ms: number): string {
  const units: Array<[number, string]> = [[86_400_000, 'day'], [3_600_000, 'hour'], [60_000, 'minute']];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  }
  return `${Math.round(ms / 60_000)} minutes`;
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  // The serving process only (not buildApp, which tests call), and before the market loads:
  // that load is what lets V8 drop the tick objects' hidden classes (src/tick-shape.ts).
  keepTickObjectShape();
  logger.info({ config: describeConfig(config) }, 'starting skymarket');

  const store = await Store.open({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, clock });
  logger.info({ database: store.location }, 'database ready (migrations applied)');

  const dataSource = config.demo ? 'simulator' : 'upstream';
  let upstreamUrl = config.upstreamUrl;
  let simulator: SimulatorHandle | undefined;
  let backfillMs = 0;
  if (config.demo) {
    // The simulator is the upstream, in this process; its data is simulated and reported as such.
    const options = { ...(config.simulator ?? simulatorOptionsFromEnv({})) }; // SIM_* variables, read by config.ts
    // The demo compresses the SkyBlock year so its day of history spans several mayor terms (mayor flips).
    options.yearMs = skyblockYearMs(config);
    simulator = await startSimulator(options, { clock, logger: logger.child({ component: 'simulator' }) });
    upstreamUrl = simulator.url;
    backfillMs = options.backfillMs;
    logger.warn(
      { simulator: simulator.url, auctions: options.auctions, backfillHours: options.backfillMs / 3_600_000 },
      'demo mode: market data comes from the built-in simulator (simulated, not real Hypixel data)',
    );
  }

  // A fresh demo store gets the simulator's history, so history endpoints have data at once.
  // Whether the store is fresh is read here, before any poller could store a snapshot; health
  // says `loading` from now until the history is in.
  const ingests = config.role === 'all' || config.role === 'ingest';
  // A demo stopped while its history loaded (kill -9, or a stop) left the marker: load it again;
  // the replay takes what was stored already without harm (issue 45: it was never resumed).
  const historyMarker = join(config.dataDir, DEMO_HISTORY_MARKER);
  const historyCutOff = simulator !== undefined && existsSync(historyMarker);
  const demoBackfill = simulator !== undefined && ingests && backfillMs > 0 && (historyCutOff || !(await store.feeds.get('bazaar')));
  if (demoBackfill && historyCutOff) logger.warn('the demo history was cut off when the service last stopped: loading it again');

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
    ...(demoBackfill ? { loading: `the demo's ${describeSpan(backfillMs)} of simulated history is being stored` } : {}),
  };
  const serveApi = config.role === 'all' || config.role === 'api';
  // The parts of this role, from the composition root (compose.ts): the spine (this process's store
  // publishes its committed changes, relayed to Redis when configured; the views follow it here, or
  // follow Redis in role api, which does not write); the market (views and engines, game data read
  // once) and the services where the data routes are served; the live feeds' hub (over Redis when
  // several processes share it), fed by the market's events where this process ingests (started once elected).
  const parts = compose({ config, store, clock, logger, registry: metrics.registry, dataSource, serveApi, ingests, publishesChanges: ingests });
  const spine = parts.spine!;
  const { market, streamHub, marketEvents } = parts;
  context.spine = spine;
  if (market) context.market = market;
  if (streamHub) context.streamHub = streamHub;
  context.marketEvents = marketEvents ?? null;
  if (parts.services) context.services = parts.services;
  if (streamHub && serveApi) await streamHub.start();
  const app = await buildApp(context, { apiRoutes: serveApi });

  let url: string;
  try {
    // A deeper accept queue than Node's 511: a burst of a few thousand new connections
    // (clients reconnecting after a deploy) waits in it instead of being dropped.
    url = await app.listen({ port: config.port, host: config.host, backlog: 4096 });
  } catch (err) {
    await app.close();
    await streamHub?.close();
    await store.close();
    throw err;
  }
  logger.info({ url, role: config.role, api: serveApi }, `skymarket listening on ${url}`);
  // The route schemas left uncompiled at boot, now, between requests, rather than on each route's first request.
  void app.schemas.compileInBackground((err) => logger.error({ err }, 'a route schema does not compile'));
  // An api replica's underpriced list follows the spine here (compose.ts): its events start once the market has.
  const followerEvents = parts.followerEvents;
  followerEvents?.start().catch((err: unknown) => logger.error({ err }, 'underpriced: the market events of this replica did not start'));

  // The jobs (the one writer of rollups besides ingestion) record the lowest BINs from the market's
  // view where this process holds one (role all), else from the store (role jobs).
  // LIVE_FEED alert targets are published on the live feed: this process's hub, or (role jobs, which
  // has none) a hub that only appends to the shared Redis stream every api process reads.
  const alertHub = config.role === 'jobs' && !streamHub && config.redisUrl ? streamHubFromConfig(config, clock, logger, metrics.registry) : streamHub;
  const jobs =
    config.role === 'all' || config.role === 'jobs'
      ? new Jobs({
          store,
          clock,
          logger,
          exportWebhookHosts: config.exportWebhookHosts,
          exportLeaseMs: config.exportLeaseSeconds * 1000,
          activeBins: market ? viewBins(market.activeAuctions) : storeBins(store),
          alertWebhookPrivateOk: config.alertWebhookPrivateOk,
          registry: metrics.registry,
          ...(alertHub ? { publishAlerts: (events: DraftEvent[]) => alertHub.publish(events) } : {}),
        })
      : undefined;
  // Alerts are evaluated where the market is written (docs/alerts.md): on the live feed's events of
  // each committed change, in order; the jobs leader delivers them (nudged at once in role all).
  // Underpriced alerts need the valuation: where this process has none (role ingest), each api replica
  // evaluates them on the events it follows; the replicas find the same alerts, stored once (the
  // deliveries are unique by alert and target).
  const alertOptions = { store, clock, logger: logger.child({ component: 'alerts' }), linkBase: config.alertLinkBase ?? '', registry: metrics.registry, onEnqueued: () => jobs?.alertDelivery.nudge() };
  const alertEvaluator = marketEvents
    ? new AlertEvaluator({ ...alertOptions, ...(parts.services ? { values: parts.services.underpriced } : { kinds: new Set(ALERT_KINDS.filter((k) => k !== 'underpriced')) }) })
    : followerEvents && parts.services
      ? new AlertEvaluator({ ...alertOptions, values: parts.services.underpriced, kinds: new Set(['underpriced'] as const) })
      : undefined;
  const evaluatedEvents = marketEvents ?? followerEvents;
  if (evaluatedEvents) alertEvaluator?.attach(evaluatedEvents.emitter);
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
    context.ingestion = { upstream: redact(upstreamUrl), status: () => running.status() };
    let historyStarted = false;
    // Only the process holding the ingest lock ingests (PostgreSQL); the others stand by.
    ingestLeader = new Leadership({
      duty: 'ingest',
      store,
      retryMs: config.leaderRetryMs,
      logger,
      registry: metrics.registry,
      onElected: async () => {
        // Before the first generation: the events need the listings it changes.
        await marketEvents?.start();
        running.start();
        logger.info({ upstream: upstreamUrl }, 'ingestion started');
        if (demoBackfill && !historyStarted && simulator) {
          historyStarted = true;
          const started = clock.now();
          mkdirSync(config.dataDir, { recursive: true });
          writeFileSync(historyMarker, `${new Date(started).toISOString()}\n`);
          const history = simulator.backfill();
          void running
            .ingestHistory(history)
            .then(async (r) => {
              // The history is older than what the rollup jobs may have done meanwhile: redo it.
              const from = clock.now() - backfillMs - 3_600_000;
              await store.bazaarHistory.rewind(from);
              // Price and sales rollups again over the history (rolled now where this process leads the jobs).
              if (jobs) await jobs.historyReplayed(from);
              else {
                await store.priceRollups.rewind(from);
                await store.saleRollups.rewind(hourOf(clock.now() - SALES_WINDOW_MS['14d']));
              }
              // Older snapshots and past elections arrived after the flip engine's first load.
              await market?.flips.historyReplayed();
              // The averages files gain the history's hours (its lowest BINs and sales) at the same rolled-up hour.
              market?.bulkPrices.historyReplayed();
              // Stopped part-way, the marker stays and the next start loads the history again.
              if (!r.complete) return;
              rmSync(historyMarker, { force: true });
              logger.info({ ...r, ms: clock.now() - started }, 'demo history loaded');
            })
            .catch((err: unknown) => {
              context.startupProblem = `the demo history failed to load: ${err instanceof Error ? err.message : String(err)}`;
              logger.error({ err }, 'demo history failed to load');
            })
            .finally(() => {
              context.loading = undefined;
            });
        }
      },
      onDeposed: async () => {
        await running.pause();
        marketEvents?.stop();
        logger.info('ingestion paused');
      },
    });
    context.leaders!.ingest = ingestLeader;
    ingestLeader.start();
  }

  announce({ config, url, version: VERSION, database: store.location, serveApi, simulator: simulator?.url, backfillMs, loading: context.loading !== undefined }, logger, options.banner);

  if (jobs) {
    const running = jobs;
    // Like ingestion: one jobs process at a time, under a lock of its own.
    jobsLeader = new Leadership({
      duty: 'jobs',
      store,
      retryMs: config.leaderRetryMs,
      logger,
      registry: metrics.registry,
      onElected: () => {
        running.start();
        logger.info('jobs started (price, sales and bazaar rollups, lowest BINs, retention)');
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
        marketEvents?.stop();
        followerEvents?.stop();
        await parts.services?.underpriced.stop();
        await alertEvaluator?.stop();
        await streamHub?.close();
        if (alertHub !== streamHub) await alertHub?.close();
        await spine.close();
        await jobs?.stop();
        await jobs?.alertDelivery.close();
        await simulator?.close();
        await store.close();
        logger.info('skymarket stopped');
      })();
      return closing;
    },
  };
}
