/**
 * Background jobs run by the jobs role (and by `serve` with role all), in the jobs leader only:
 * each job runs at start (catching up after downtime) and then on its interval. A failed run is
 * logged and retried at the next tick; stop() waits for a run in progress. Besides ingestion,
 * these are the only writers of the store: bazaar, price and sales rollups, the hourly lowest
 * BINs, retention, exports, statistics. The market's views only read what they write.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { BazaarHistoryJobs } from './bazaar-history.ts';
import { runModRetention } from './mod-retention.ts';
import { ArchiveExportWorker } from './archive-export.ts';
import { StatisticsJob } from './statistics.ts';
import { PRICE_ROLLUP_INTERVAL_MS, PriceRollupJob, type ActiveBinSource } from './price-rollups.ts';
import { SalesRollupJob } from './sales-rollups.ts';
import { AlertDeliveryWorker } from './alert-delivery.ts';
import type { Registry } from 'prom-client';
import type { DraftEvent } from '../domain/stream-events.ts';

export interface JobsOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** bazaar rollups and retention, ms between runs (default 60 s) */
  bazaarHistoryIntervalMs?: number;
  /** archive export webhook allow-list (EXPORT_WEBHOOK_HOSTS); default: none, every export fails */
  exportWebhookHosts?: readonly string[];
  /** ms between looks for pending export jobs (default 2 s) */
  archiveExportIntervalMs?: number;
  /** EXPORT_LEASE_SECONDS in ms (default 5 minutes) */
  exportLeaseMs?: number;
  /**
   * The active BIN listings whose lowest prices are recorded each hour: the market's view where
   * this process holds one (role all), else the store (jobs/price-rollups.ts storeBins); none: not recorded.
   */
  activeBins?: ActiveBinSource;
  /** price and sales rollups and the lowest-BIN record, ms between runs (default 60 s) */
  rollupIntervalMs?: number;
  /** ALERT_WEBHOOK_PRIVATE_OK: the alert webhooks' test seam (docs/alerts.md) */
  alertWebhookPrivateOk?: boolean;
  /** the live feed's publish (LIVE_FEED alert targets): the hub of this process, over Redis when shared */
  publishAlerts?: (events: DraftEvent[]) => Promise<void>;
  registry?: Registry;
}

/** Delivered and failed alert deliveries are kept this long (the owner's view of what was sent). */
export const ALERT_DELIVERY_RETENTION_MS = 7 * 24 * 3_600_000;

interface Scheduled {
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
}

export class Jobs {
  readonly bazaarHistory: BazaarHistoryJobs;
  readonly archiveExport: ArchiveExportWorker;
  readonly statistics: StatisticsJob;
  readonly priceRollups: PriceRollupJob;
  readonly salesRollups: SalesRollupJob;
  /** sends the alert outbox (docs/alerts.md): in the jobs leader only */
  readonly alertDelivery: AlertDeliveryWorker;
  private readonly scheduled: Scheduled[];
  private readonly logger: Logger;
  private readonly store: Store;
  private stopped = false;
  private started = false;

  constructor(options: JobsOptions) {
    this.logger = options.logger.child({ component: 'jobs' });
    this.store = options.store;
    this.bazaarHistory = new BazaarHistoryJobs({ store: options.store, clock: options.clock, logger: this.logger });
    this.archiveExport = new ArchiveExportWorker({
      store: options.store,
      clock: options.clock,
      logger: this.logger,
      allowList: options.exportWebhookHosts ?? [],
      ...(options.exportLeaseMs !== undefined ? { leaseMs: options.exportLeaseMs } : {}),
    });
    this.statistics = new StatisticsJob(options.store, this.logger);
    this.priceRollups = new PriceRollupJob(options.store, options.clock, options.activeBins, this.logger.child({ job: 'price-rollups' }));
    this.salesRollups = new SalesRollupJob(options.store, options.clock, this.logger.child({ job: 'sales-rollups' }));
    this.alertDelivery = new AlertDeliveryWorker({
      store: options.store,
      clock: options.clock,
      logger: this.logger.child({ job: 'alert-delivery' }),
      discordHosts: options.exportWebhookHosts ?? [],
      allowPrivate: options.alertWebhookPrivateOk ?? false,
      ...(options.registry ? { registry: options.registry } : {}),
      publish: options.publishAlerts,
    });
    const rollupMs = options.rollupIntervalMs ?? PRICE_ROLLUP_INTERVAL_MS;
    this.scheduled = [
      { name: 'price-rollups', intervalMs: rollupMs, run: () => this.priceRollups.tick() },
      { name: 'sales-rollups', intervalMs: rollupMs, run: () => this.salesRollups.catchUp() },
      { name: 'bazaar-history', intervalMs: options.bazaarHistoryIntervalMs ?? 60_000, run: () => this.bazaarHistory.runOnce() },
      { name: 'mod-retention', intervalMs: 10 * 60_000, run: () => runModRetention(options.store, options.clock.now()) },
      { name: 'archive-export', intervalMs: options.archiveExportIntervalMs ?? 2000, run: () => this.archiveExport.runOnce() },
      { name: 'statistics', intervalMs: 10 * 60_000, run: () => this.statistics.runOnce() },
      { name: 'alert-retention', intervalMs: 60 * 60_000, run: () => options.store.alerts.prune(options.clock.now() - ALERT_DELIVERY_RETENTION_MS) },
      { name: 'alert-held-expiry', intervalMs: 60_000, run: () => this.alertDelivery.expireHeld() },
    ];
  }

  /** Starts every job; after stop() (leadership lost), starts them again. */
  start(): void {
    this.stopped = false;
    this.started = true;
    this.priceRollups.resume();
    for (const job of this.scheduled) this.tick(job);
    this.alertDelivery.start();
  }

  private tick(job: Scheduled): void {
    if (this.stopped) return;
    job.running = job
      .run()
      .then(
        () => undefined,
        (err: unknown) => this.logger.error({ err, job: job.name }, 'job failed; retrying at the next interval'),
      )
      .finally(() => {
        job.running = undefined;
        if (this.stopped) return;
        job.timer = setTimeout(() => this.tick(job), job.intervalMs);
        job.timer.unref();
      });
  }

  /** Whether this process runs the jobs now (it leads them). */
  get running(): boolean {
    return this.started && !this.stopped;
  }

  /**
   * Replayed history was stored for hours already rolled up: rewinds the price and sales rollups
   * over `fromMs` on and, where this process runs the jobs, rolls them up again now.
   */
  async historyReplayed(fromMs: number): Promise<void> {
    await this.store.priceRollups.rewind(fromMs);
    await this.salesRollups.rewind();
    if (!this.running) return;
    await this.priceRollups.catchUp();
    await this.salesRollups.catchUp();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const rolling = this.priceRollups.stop();
    await this.alertDelivery.stop();
    for (const job of this.scheduled) {
      clearTimeout(job.timer);
      await job.running;
    }
    await rolling;
  }
}
