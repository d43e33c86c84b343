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
import { Poller } from './poller.ts';
import { ResourcesIngester } from './resources.ts';
import { ingestHistory, type HistoryBatch, type HistoryResult } from './history.ts';

export interface IngestIntervals {
  auctionsMs: number;
  endedMs: number;
  bazaarMs: number;
  itemsMs: number;
  electionMs: number;
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
}

export class Ingestion {
  readonly auctions: AuctionIngester;
  readonly ended: EndedIngester;
  readonly bazaar: BazaarIngester;
  readonly resources: ResourcesIngester;
  private readonly client: HypixelClient;
  private readonly pollers: Poller[];
  private readonly ctx: IngestContext;
  private stopping = false;

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
    this.auctions = new AuctionIngester(ctx);
    this.ended = new EndedIngester(ctx, (uuid) => this.auctions.forget(uuid));
    this.bazaar = new BazaarIngester(ctx);
    this.resources = new ResourcesIngester(ctx);
    const { intervals } = options;
    const poller = (feed: Feed, intervalMs: number, poll: () => Promise<unknown>) =>
      new Poller({ feed, intervalMs, poll, logger, metrics });
    this.pollers = [
      poller('items', intervals.itemsMs, () => this.resources.pollItems()),
      poller('election', intervals.electionMs, () => this.resources.pollElection()),
      poller('bazaar', intervals.bazaarMs, () => this.bazaar.pollOnce()),
      poller('auctions', intervals.auctionsMs, () => this.auctions.pollOnce()),
      poller('auctions_ended', intervals.endedMs, () => this.ended.pollOnce()),
    ];
  }

  start(): void {
    for (const p of this.pollers) p.start();
  }

  /** Replays past payloads (simulator backfill) into the store; stops early when ingestion stops. */
  ingestHistory(batches: Iterable<HistoryBatch>): Promise<HistoryResult> {
    const self = this;
    function* untilStopped() {
      for (const batch of batches) {
        if (self.stopping) return;
        yield batch;
      }
    }
    this.history = ingestHistory(untilStopped(), this.ctx);
    return this.history;
  }

  private history: Promise<HistoryResult> | undefined;

  async stop(): Promise<void> {
    this.stopping = true;
    await this.history?.catch(() => undefined);
    await Promise.all(this.pollers.map((p) => p.stop()));
    await this.client.close();
  }
}
