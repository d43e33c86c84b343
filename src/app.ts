/**
 * Builds the Fastify app from the http/ plugins and the api/ route modules.
 * `buildApp` does not listen: the CLI (or a test through inject()) decides that.
 */
import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { lazyChildLogger, type Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { Store } from './store/index.ts';
import { cachingPlugin } from './http/caching.ts';
import { corsOptions, staticCorsHeaders } from './http/cors.ts';
import { contentTypesPlugin } from './http/content-types.ts';
import { clientErrorHandler, errorsPlugin, frameworkErrors, websocketErrorHandler } from './http/errors.ts';
import { metricsPlugin } from './http/metrics.ts';
import { openapiPlugin } from './http/openapi.ts';
import { authPlugin } from './http/auth.ts';
import { limitsPlugin } from './http/limits.ts';
import { shutdownPlugin } from './http/shutdown.ts';
import { NOSNIFF_HEADERS, securityHeadersPlugin } from './http/security-headers.ts';
import { StoredResponses } from './http/stored-responses.ts';
import { compressionPlugin } from './http/compression.ts';
import { LazySchemas } from './http/lazy-schemas.ts';
import { PreparedRegistry } from './http/prepared-answers.ts';
import { itemAliasesPlugin } from './http/item-aliases.ts';
import { itemRoutes } from './api/items.ts';
import { priceRoutes } from './api/prices.ts';
import { playerAuctionRoutes } from './api/player-auctions.ts';
import { mayorRoutes } from './api/mayors.ts';
import { bulkPriceRoutes } from './api/bulk-prices.ts';
import { operationsRoutes } from './api/operations.ts';
import { bazaarRoutes } from './api/bazaar.ts';
import { craftRoutes } from './api/craft.ts';
import type { Market } from './market/index.ts';
import type { Services } from './services/index.ts';
import { compose } from './compose.ts';
import { HealthService, type FeedPollStatus } from './services/health.ts';
import { auctionsRoutes } from './api/auctions.ts';
import { dataRoutes } from './api/data.ts';
import { lowballRoutes } from './api/lowball.ts';
import { playerRoutes } from './api/player.ts';
import { valuationRoutes } from './api/valuation.ts';
import { networthRoutes } from './api/networth.ts';
import { modSocketRoutes } from './mod/socket.ts';
import { flipRoutes } from './api/flips.ts';
import { notificationRoutes } from './api/notifications.ts';
import { webRoutes } from './web/pages.ts';
import { streamRoutes } from './stream/routes.ts';
import websocket from '@fastify/websocket';
import { LIMITS as MOD_LIMITS } from './mod/messages.ts';
import type { MarketEvents } from './market/events.ts';
import type { StreamHub } from './services/stream.ts';
import type { Duty, LeaderState } from './leadership.ts';
import type { ProcessSpine } from './spine/process.ts';
import { registerSpineMetrics } from './spine/metrics.ts';
import type { Followers } from './spine/follower.ts';

/** Everything the HTTP layer needs from the running process. */
export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  /** where market data comes from: the real upstream or the built-in simulator */
  dataSource: 'upstream' | 'simulator';
  startedAt: number;
  /** leader election of the duties this process runs (ingest, jobs), for health */
  leaders?: Partial<Record<Duty, { readonly state: LeaderState }>>;
  /** roles all/ingest: where this process ingests from and how each feed's last polls went, for health */
  ingestion?: { upstream: string; status(): Record<string, FeedPollStatus | undefined> };
  /** set while stored data is still arriving (the demo's history backfill): health says `loading` */
  loading?: string | undefined;
  /** something that went wrong at start and that health keeps saying (e.g. the demo history failed to load) */
  startupProblem?: string | undefined;
  /**
   * The market the data routes read (runtime.ts builds it for roles all/api). Without one, an app
   * that mounts the data routes builds its own from the config (tests, benches). The app starts it
   * when ready and closes it when closed.
   */
  market?: Market;
  /**
   * The live feeds' hub (services/stream.ts). runtime.ts builds it; without one, an app that mounts
   * the data routes builds its own from the config. The app starts it when ready and closes it.
   */
  streamHub?: StreamHub;
  /**
   * The market's events that feed the hub (market/events.ts), where this process writes the store.
   * runtime.ts passes one (roles all and ingest, started when elected) or null (role api: the
   * events arrive through Redis). Undefined: an app with data routes builds and starts its own (tests, benches).
   */
  marketEvents?: MarketEvents | null;
  /**
   * The spine of this process (spine/process.ts): what the market's views follow. runtime.ts builds
   * it by role; without one, an app that builds its own market builds its own spine from the config.
   */
  spine?: ProcessSpine;
  /** the market's followers of the spine (set by buildApp), for health */
  followers?: Followers;
  /**
   * The use cases the data routes call (services/index.ts), composed with the market by
   * runtime.ts (compose.ts); without them, an app that mounts the data routes composes its own.
   */
  services?: Services;
}

// Moved to the composition root; re-exported for the callers that import them from here.
export { publishMarketEvents, streamHubFromConfig } from './compose.ts';

export type { FeedPollStatus } from './services/health.ts';

declare module 'fastify' {
  interface FastifyInstance {
    context: AppContext;
    store: Store;
    clock: Clock;
    /** the views and engines the data routes read (market/index.ts); only where the data routes are mounted */
    market: Market;
    /** the use cases the data routes call (services/index.ts); only where the data routes are mounted */
    services: Services;
    /** readiness facts for the health route (services/health.ts) */
    health: HealthService;
    /** routes add their stored-Buffer answers here (http/stored-responses.ts) */
    storedResponses: StoredResponses;
    /** the one registry of prepared answers (http/prepared-answers.ts): routes define their kinds, the fast path and the handlers read them */
    prepared: PreparedRegistry;
    /** route schemas, compiled on first use (http/lazy-schemas.ts); the serving process compiles the rest after listening */
    schemas: LazySchemas;
  }
}

export interface BuildOptions {
  /** mount the /api data routes (role api/all); ingest and jobs roles serve only health and metrics */
  apiRoutes?: boolean;
  /** false: no stored-response fast path in front of Fastify (tests compare both paths) */
  storedResponses?: boolean;
}

/** How long the market may take to load before start-up fails (Fastify's plugin and onReady timeout). */
export const MARKET_START_TIMEOUT_MS = 180_000;

export async function buildApp(context: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const { config } = context;
  const verbose = config.logLevel === 'debug' || config.logLevel === 'trace';
  const storedResponses = new StoredResponses();
  const schemas = new LazySchemas();
  const app = Fastify({
    serverFactory: storedResponses.serverFactory({ headersTimeoutMs: config.headersTimeoutMs }),
    loggerInstance: context.logger as FastifyBaseLogger,
    // A log line per request costs ~30% throughput; only when debugging.
    logController: new LogController({ disableRequestLogging: !verbose }),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: config.bodyLimit,
    // The market starts in onReady (active listings, item catalog): 60,000 listings from a busy PostgreSQL took
    // longer than Fastify's default 10 s, and the service exited instead of starting. A real hang still ends.
    pluginTimeout: MARKET_START_TIMEOUT_MS,
    // Fastify accepts a hop count at run time; its types only list the other forms.
    trustProxy: config.trustProxy as boolean | string[],
    frameworkErrors,
    clientErrorHandler,
    // A client that trickles its request is cut off (408) after this; the headers after HEADERS_TIMEOUT_MS.
    requestTimeout: config.requestTimeoutMs,
    return503OnClosing: true,
    // Ajv stops at the first error: with allErrors a 1 MB array of [] took 2.2 s and a 21 MB answer (issue 21).
    ajv: { customOptions: { allErrors: false } },
    schemaController: { compilersFactory: schemas.compilersFactory },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });

  app.decorate('context', context);
  app.decorate('store', context.store);
  app.decorate('clock', context.clock);
  app.decorate('storedResponses', storedResponses);
  app.decorate('schemas', schemas);
  const prepared = new PreparedRegistry(context.clock);
  app.decorate('prepared', prepared);
  app.addHook('onClose', async () => prepared.clear());

  // First: its hook sets nosniff ahead of every other header, as the fast path writes it.
  await app.register(securityHeadersPlugin);
  await app.register(errorsPlugin);
  await app.register(shutdownPlugin);
  await app.register(contentTypesPlugin);
  // Before caching: the ETag is computed over the bytes sent (one per encoding).
  await app.register(compressionPlugin);
  await app.register(cachingPlugin);
  await app.register(cors, corsOptions(config.corsOrigins));
  await app.register(metricsPlugin, { metrics: context.metrics });
  await app.register(openapiPlugin);
  await app.register(limitsPlugin);
  await app.register(authPlugin);

  app.decorate('health', new HealthService(context.store, context.clock, context));
  await app.register(operationsRoutes);
  if (options.apiRoutes !== false) {
    // What the caller did not build (tests, benches) is composed here, by the same root as runtime.ts.
    const parts = compose({
      config,
      store: context.store,
      clock: context.clock,
      logger: context.logger,
      registry: context.metrics.registry,
      dataSource: context.dataSource,
      serveApi: true,
      ingests: true,
      publishesChanges: config.role !== 'api',
      given: { spine: context.spine, market: context.market, streamHub: context.streamHub, marketEvents: context.marketEvents, services: context.services },
    });
    const { spine } = parts;
    const market = parts.market!;
    const streamHub = parts.streamHub!;
    app.decorate('market', market);
    context.followers = market.followers;
    registerSpineMetrics(context.metrics.registry, market.followers, () => market.activeAuctions.listingsLoaded, () => spine?.redis?.failedPublishes ?? 0);
    app.addHook('onReady', () => market.start());
    app.addHook('onClose', async () => {
      await market.close();
      if (parts.owned.spine) await spine?.close();
    });
    if (parts.owned.streamHub) {
      // Health reads the hub from the context (its warnings while the feeds are degraded).
      context.streamHub = streamHub;
      app.addHook('onReady', () => streamHub.start());
      app.addHook('onClose', () => streamHub.close());
    }
    const events = parts.owned.marketEvents ? parts.marketEvents : undefined;
    if (events) {
      app.addHook('onReady', () => events.start());
      app.addHook('onClose', async () => events.stop());
    }
    // An app without the market's events (an api replica) derives them from its spine for the underpriced list (compose.ts).
    const followerEvents = parts.followerEvents;
    if (followerEvents) {
      app.addHook('onReady', () => followerEvents.start());
      app.addHook('onClose', async () => {
        followerEvents.stop();
        await parts.services?.underpriced.stop();
      });
    }
    app.decorate('services', parts.services!);
    await app.register(itemAliasesPlugin, { resolve: (raw) => market.catalog.resolve(raw) });
    // Data routes (auctions, bazaar, craft, flips, player, lowball) register here as their areas land.
    await app.register(bazaarRoutes);
    await app.register(auctionsRoutes);
    await app.register(craftRoutes);
    await app.register(lowballRoutes);
    await app.register(dataRoutes);
    await app.register(playerRoutes);
    await app.register(valuationRoutes);
    await app.register(networthRoutes);
    // One WebSocket server for the mod channel and the feeds (a second registration would answer every upgrade twice).
    await app.register(websocket, { options: { maxPayload: MOD_LIMITS.frameBytes, perMessageDeflate: false }, errorHandler: websocketErrorHandler });
    await app.register(modSocketRoutes);
    await app.register(streamRoutes);
    await app.register(flipRoutes);
    await app.register(itemRoutes);
    await app.register(priceRoutes);
    await app.register(playerAuctionRoutes);
    await app.register(mayorRoutes);
    await app.register(bulkPriceRoutes);
    await app.register(notificationRoutes);
    // The pages (web/): server-rendered HTML over the same services.
    await app.register(webRoutes);
  }

  // The fast path writes what these plugins would; it stays off where it could not match them
  // (CORS origin lists reflect the request's Origin; request logging logs every request).
  const corsHeaders = staticCorsHeaders(config.corsOrigins);
  if (options.storedResponses !== false && corsHeaders !== null && !verbose) {
    storedResponses.enable({
      securityHeaders: NOSNIFF_HEADERS,
      corsHeaders,
      exemptPeer: app.exemptPeer,
      countPeerRequest: app.countPeerRequest,
      etagOf: app.responseEtag,
      closing: app.isClosing,
      metrics: context.metrics,
    });
  }

  return app;
}
