/**
 * Background jobs run by the jobs role (and by `serve` with role all): each job runs at
 * start (catching up after downtime) and then on its interval. A failed run is logged
 * and retried at the next tick; stop() waits for a run in progress.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/index.ts';
import { BazaarHistoryJobs } from './bazaar-history.ts';
import { runModRetention } from './mod-retention.ts';
import { ArchiveExportWorker } from './archive-export.ts';
import { StatisticsJob } from './statistics.ts';

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
}

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
  private readonly scheduled: Scheduled[];
  private readonly logger: Logger;
  private stopped = false;

  constructor(options: JobsOptions) {
    this.logger = options.logger.child({ component: 'jobs' });
    this.bazaarHistory = new BazaarHistoryJobs({ store: options.store, clock: options.clock, logger: this.logger });
    this.archiveExport = new ArchiveExportWorker({
      store: options.store,
      clock: options.clock,
      logger: this.logger,
      allowList: options.exportWebhookHosts ?? [],
      ...(options.exportLeaseMs !== undefined ? { leaseMs: options.exportLeaseMs } : {}),
    });
    this.statistics = new StatisticsJob(options.store, this.logger);
    this.scheduled = [
      { name: 'bazaar-history', intervalMs: options.bazaarHistoryIntervalMs ?? 60_000, run: () => this.bazaarHistory.runOnce() },
      { name: 'mod-retention', intervalMs: 10 * 60_000, run: () => runModRetention(options.store, options.clock.now()) },
      { name: 'archive-export', intervalMs: options.archiveExportIntervalMs ?? 2000, run: () => this.archiveExport.runOnce() },
      { name: 'statistics', intervalMs: 10 * 60_000, run: () => this.statistics.runOnce() },
    ];
  }

  /** Starts every job; after stop() (leadership lost), starts them again. */
  start(): void {
    this.stopped = false;
    for (const job of this.scheduled) this.tick(job);
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

  async stop(): Promise<void> {
    this.stopped = true;
    for (const job of this.scheduled) {
      clearTimeout(job.timer);
      await job.running;
    }
  }
}
