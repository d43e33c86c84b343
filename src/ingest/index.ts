/**
 * Ingestion: one poller per upstream feed, all writing to the store. Data moves one
 * way (upstream → ingest → store); nothing here serves requests.
 */
import type { Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { AuctionIngester } from './auctions.ts';
import { BazaarIngester } from './bazaar.ts';
import type { IngestContext } from './context.ts';
import { EndedIngester } from './ended.ts';
import { HypixelClient } from './hypixel-client.ts';
import { IngestMetrics, type Feed } from './metrics.ts';
import { Poller, type PollStatus } from './poller.ts';

export type { PollStatus } from './poller.ts';
import { ResourcesIngester } from './resources.ts';
import { PROFILE_POLL_MS, ProfileIngester } from './profiles.ts';
import { ingestHistory, type HistoryBatch, type HistoryResult } from './history.ts';

export interface IngestIntervals {
  auctionsMs: number;
  endedMs: number;
  bazaarMs: number;
  itemsMs: number;
  electionMs: number;
  /** how often queued player profiles are fetched (default PROFILE_POLL_MS) */
  profilesMs?: number;
}

export interface IngestOptions {
  upstreamUrl: string;
  upstreamApiKey?: string | undefined;
  timeoutMs: number;
  concurrency: number;
  intervals: IngestIntervals;
  store: Store;
  clock: Clock;
  logger: Logger;
  registry: Registry;
  source: 'upstream' | 'simulator';
  /** worker threads decoding a cold auctions sweep (AuctionIngesterOptions); default 0 */
  decodeWorkers?: number;
}

export class Ingestion {
  auctions!: AuctionIngester;
  ended!: EndedIngester;
  bazaar!: BazaarIngester;
  resources!: ResourcesIngester;
  /** only with an API key: the profile endpoint needs one */
  profiles: ProfileIngester | undefined;
  private readonly fetchProfiles: boolean;
  private readonly client: HypixelClient;
  private pollers: Poller[] = [];
  private readonly ctx: IngestContext;
  private readonly intervals: IngestIntervals;
  private readonly logger: Logger;
  private readonly metrics: IngestMetrics;
  private readonly decodeWorkers: number;
  private stopping = false;
  private started = false;

  constructor(options: IngestOptions) {
    const logger = options.logger.child({ component: 'ingest' });
    this.client = new HypixelClient({
      baseUrl: options.upstreamUrl,
      apiKey: options.upstreamApiKey,
      timeoutMs: options.timeoutMs,
      concurrency: options.concurrency,
      registry: options.registry,
      logger,
    });
    const metrics = new IngestMetrics(options.registry);
    const ctx: IngestContext = { client: this.client, store: options.store, clock: options.clock, logger, metrics, source: options.source };
    this.ctx = ctx;
    this.intervals = options.intervals;
    this.logger = logger;
    this.metrics = metrics;
    this.decodeWorkers = options.decodeWorkers ?? 0;
    this.fetchProfiles = options.upstreamApiKey !== undefined && options.upstreamApiKey !== '';
    this.build();
  }

  /** Fresh ingesters and pollers: their in-memory state (active set, order books) is reloaded from the store. */
  private build(): void {
    const { ctx, intervals, logger, metrics } = this;
    this.auctions = new AuctionIngester(ctx, { decodeWorkers: this.decodeWorkers });
    this.ended = new EndedIngester(ctx, (uuid) => this.auctions.forget(uuid));
    this.bazaar = new BazaarIngester(ctx);
    this.resources = new ResourcesIngester(ctx);
    const poller = (feed: Feed, intervalMs: number, poll: () => Promise<unknown>) =>
      new Poller({ feed, intervalMs, poll, logger, metrics, clock: ctx.clock });
    this.pollers = [
      poller('items', intervals.itemsMs, () => this.resources.pollItems()),
      poller('election', intervals.electionMs, () => this.resources.pollElection()),
      poller('bazaar', intervals.bazaarMs, () => this.bazaar.pollOnce()),
      poller('auctions', intervals.auctionsMs, () => this.auctions.pollOnce()),
      poller('auctions_ended', intervals.endedMs, () => this.ended.pollOnce()),
    ];
    // Player profiles requests queued in the store (services/player-progress.ts).
    this.profiles = this.fetchProfiles ? new ProfileIngester(ctx) : undefined;
    const profiles = this.profiles;
    if (profiles) this.pollers.push(poller('profiles', intervals.profilesMs ?? PROFILE_POLL_MS, () => profiles.pollOnce()));
  }

  /** How each feed's polls have been going (the last upstream error in words), for health. */
  status(): Partial<Record<Feed, PollStatus>> {
    return Object.fromEntries(this.pollers.map((p) => [p.feed, p.status()]));
  }

  start(): void {
    // After a pause another process may have written the store: start from what it holds.
    if (this.started) this.build();
    this.started = true;
    this.stopping = false;
    for (const p of this.pollers) p.start();
  }

  /**
   * Stops polling (waiting for a poll in progress) but keeps the HTTP client, so start()
   * can begin again: used when this process stops being the ingest leader.
   */
  async pause(): Promise<void> {
    this.stopping = true;
    await this.history?.catch(() => undefined);
    await Promise.all(this.pollers.map((p) => p.stop()));
  }

  /** Replays past payloads (simulator backfill) into the store; stops early when ingestion stops (then `complete` is false). */
  ingestHistory(batches: Iterable<HistoryBatch>): Promise<HistoryResult & { complete: boolean }> {
    const self = this;
    let cut = false;
    function* untilStopped() {
      for (const batch of batches) {
        if (self.stopping) {
          cut = true;
          return;
        }
        yield batch;
      }
    }
    const history = ingestHistory(untilStopped(), this.ctx).then((r) => ({ ...r, complete: !cut }));
    this.history = history;
    return history;
  }

  private history: Promise<HistoryResult> | undefined;

  async stop(): Promise<void> {
    await this.pause();
    await this.client.close();
  }
}
