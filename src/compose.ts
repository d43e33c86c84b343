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
import type { DraftEvent } from './domain/stream-events.ts';
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
  /**
   * A process that serves the data routes without the market's events (role api): the market's
   * events derived here from the spine this process follows, for its underpriced list only (never
   * published: the writer's events fill the live feeds). Its owner starts it once the market has
   * started (`start()` waits for the active listings) and stops it on close.
   */
  followerEvents: MarketEvents | undefined;
  services: Services | undefined;
  /** which parts this call built (and its caller therefore starts and closes) */
  owned: { spine: boolean; market: boolean; streamHub: boolean; marketEvents: boolean };
}

/** Each listing is told as underpriced once across the processes sharing the live feeds. */
const underpricedClaim = (event: DraftEvent): string => `underpriced:${'uuid' in event ? event.uuid : event.topic}`;

/** The hub of a configuration: in memory, or over the Redis stream when REDIS_URL is set. */
export function streamHubFromConfig(config: Config, clock: Clock, logger: Logger, registry: Registry): StreamHub {
  const url = config.redisUrl;
  return new StreamHub({
    clock,
    logger: logger.child({ component: 'stream' }),
    retentionMs: config.streamRetentionSeconds * 1000,
    registry,
    claimPrefix: `${config.redisPrefix}stream:claims:`,
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
  // Underpriced listings are valued where the market's events and the valuation meet: in role all,
  // on the events this process publishes; in role api (no events here, issue 43), on events this
  // replica derives from the spine it follows, so every replica holds the same list. Every replica
  // derives the same kept listings: each goes on the live feed as `auction.underpriced` once, by
  // whichever process claims it first (services/stream.ts `publishOnce`; a lost batch is a gap).
  const followSpine = !marketEvents && !given.services && ownMarket && market && services !== undefined && spine !== undefined;
  const followerEvents = followSpine
    ? new MarketEvents(store, clock, { logger: logger.child({ component: 'underpriced-events' }), view: market.activeAuctions, changes: spine.source })
    : undefined;
  const underpricedEvents = ownEvents ? marketEvents : followerEvents;
  if (underpricedEvents && services && !given.services) {
    services.underpriced.attach(underpricedEvents.emitter);
    if (streamHub) services.underpriced.onKept = (events) => void streamHub.publishOnce(events, underpricedClaim).catch(() => undefined);
  }
  return { store, clock, spine, market, streamHub, marketEvents, followerEvents, services, owned: { spine: ownSpine, market: ownMarket, streamHub: ownHub, marketEvents: ownEvents } };
}
