/**
 * The composition root: the one place that wires the store into the spine, the market, the live
 * feeds' hub, the market's events and the services. runtime.ts composes a process by role with it;
 * app.ts composes what a caller left out (tests and benches hand in a store and little else).
 * It only builds: the caller starts and closes what `owned` says it built.
 */
import type { Registry } from 'prom-client';
import type { Clock } from './clock.ts';
import { skyblockYearMs, type Config } from './config.ts';
import type { Logger } from './logger.ts';
import { MarketEvents } from './market/events.ts';
import { marketFromConfig, type Market } from './market/index.ts';
import { createServices, type Services } from './services/index.ts';
import { StreamHub } from './services/stream.ts';
import { processSpine, type ProcessSpine } from './spine/process.ts';
import { RedisEventLog } from './store/event-log.ts';
import type { Store } from './store/index.ts';

export interface CompositionInput {
  config: Config;
  store: Store;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  /** where market data comes from: the real upstream or the built-in simulator */
  dataSource: 'upstream' | 'simulator';
  /** this process serves the data routes: it gets a market and the services over it */
  serveApi: boolean;
  /** this process writes the store (ingests): the market's events are read here and published to the hub */
  ingests: boolean;
  /** this process's spine publishes its store's changes (spine/process.ts `writes`) */
  publishesChanges: boolean;
  /**
   * Parts built elsewhere (runtime.ts, a test): used as given. `marketEvents: null` means none in
   * this process (role api: the events arrive through Redis). A given market without a spine
   * follows whatever its builder chose; no spine is built for it.
   */
  given?: {
    spine?: ProcessSpine | undefined;
    market?: Market | undefined;
    streamHub?: StreamHub | undefined;
    marketEvents?: MarketEvents | null | undefined;
    services?: Services | undefined;
  };
}

/** What a process is made of, typed; the parts a role does not need are undefined. */
export interface Composition {
  store: Store;
  clock: Clock;
  spine: ProcessSpine | undefined;
  market: Market | undefined;
  streamHub: StreamHub | undefined;
  marketEvents: MarketEvents | undefined;
  services: Services | undefined;
  /** which parts this call built (and its caller therefore starts and closes) */
  owned: { spine: boolean; market: boolean; streamHub: boolean; marketEvents: boolean };
}

/** The hub of a configuration: in memory, or over the Redis stream when REDIS_URL is set. */
export function streamHubFromConfig(config: Config, clock: Clock, logger: Logger, registry: Registry): StreamHub {
  const url = config.redisUrl;
  return new StreamHub({
    clock,
    logger: logger.child({ component: 'stream' }),
    retentionMs: config.streamRetentionSeconds * 1000,
    registry,
    log: url ? (onError) => new RedisEventLog({ url, key: `${config.redisPrefix}stream:events`, maxLen: config.streamRedisMaxlen, onError }) : undefined,
  });
}

/** Publishes every batch of `events` to `hub` (failures are logged: a lost batch is a gap, never a crash). */
export function publishMarketEvents(events: MarketEvents, hub: StreamHub, _logger: Logger): void {
  events.emitter.on('batch', (batch) => {
    // A batch that cannot be published is lost: the hub counts it, marks the hole and logs the outage once.
    hub.publish(batch).catch(() => undefined);
  });
}

/** Builds the parts of a process that `input` did not give, by role. Starts nothing. */
export function compose(input: CompositionInput): Composition {
  const { config, store, clock, logger, registry, given = {} } = input;
  // A market of its own follows a spine of its own: in process, or Redis when configured.
  const ownSpine = !given.spine && !given.market;
  const spine = given.spine ?? (ownSpine ? processSpine(config, store, logger, input.publishesChanges) : undefined);
  const ownMarket = !given.market && input.serveApi;
  const market = given.market ?? (ownMarket ? marketFromConfig({ store, clock, logger, config, ...(spine ? { changes: spine.source } : {}) }) : undefined);
  const ownHub = !given.streamHub && (input.serveApi || input.ingests);
  const streamHub = given.streamHub ?? (ownHub ? streamHubFromConfig(config, clock, logger, registry) : undefined);
  const ownEvents = given.marketEvents === undefined && input.ingests && streamHub !== undefined;
  const marketEvents = ownEvents
    ? new MarketEvents(store, clock, { logger: logger.child({ component: 'market-events' }), ...(market ? { view: market.activeAuctions } : {}) })
    : (given.marketEvents ?? undefined);
  if (ownEvents && marketEvents && streamHub) publishMarketEvents(marketEvents, streamHub, logger);
  const services =
    given.services ??
    (market && streamHub && input.serveApi
      ? createServices({
          store,
          clock,
          market,
          // Profiles are fetched by the ingest leader's poller (ingest/profiles.ts), which needs the key.
          fetchProfiles: Boolean(config.upstreamApiKey),
          config,
          streamHub,
          skyblockYearMs: skyblockYearMs(config),
          dataSource: input.dataSource,
        })
      : undefined);
  // Underpriced listings are valued where the market's events and the valuation meet (role all).
  // Its kept listings go on the live feed as `auction.underpriced` (a lost batch is a gap, as for the market's events).
  if (ownEvents && marketEvents && services && !given.services) {
    services.underpriced.attach(marketEvents.emitter);
    if (streamHub) services.underpriced.onKept = (events) => void streamHub.publish(events).catch(() => undefined);
  }
  return { store, clock, spine, market, streamHub, marketEvents, services, owned: { spine: ownSpine, market: ownMarket, streamHub: ownHub, marketEvents: ownEvents } };
}
