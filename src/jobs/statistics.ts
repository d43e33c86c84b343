/**
 * Keeps PostgreSQL's planner statistics usable (see store/repositories/statistics.ts). At start
 * it analyzes the tables never analyzed (a store loaded before this job first ran) and says so
 * when autovacuum or track_counts is off; while autovacuum is off it also analyzes, on every run,
 * the tables changed by more than autovacuum's default threshold since their last analysis.
 * Nothing to do on SQLite.
 */
import type { Logger } from '../logger.ts';
import type { StatisticsRepository } from '../store/repositories/statistics.ts';

/** What the job reads and runs: the planner's settings and ANALYZE. */
export interface PlannerStatistics {
  readonly statistics: Pick<StatisticsRepository, 'settings' | 'refresh'>;
}

export class StatisticsJob {
  private warned = false;

  constructor(
    private readonly store: PlannerStatistics,
    private readonly logger: Logger,
  ) {}

  /** One pass; returns the tables analyzed. */
  async runOnce(): Promise<string[]> {
    const settings = await this.store.statistics.settings();
    if (!settings) return [];
    if (!this.warned && (!settings.autovacuum || !settings.trackCounts)) {
      this.warned = true;
      this.logger.warn(
        { autovacuum: settings.autovacuum, track_counts: settings.trackCounts },
        settings.trackCounts
          ? 'PostgreSQL autovacuum is off: skymarket analyzes changed tables itself every 10 minutes; turn autovacuum on to leave it to the server (and to reclaim deleted rows)'
          : 'PostgreSQL track_counts is off: table statistics cannot be kept current (only never-analyzed tables are analyzed); turn track_counts and autovacuum on',
      );
    }
    const analyzed = await this.store.statistics.refresh({ outdated: !settings.autovacuum });
    if (analyzed.length > 0) this.logger.info({ tables: analyzed }, 'planner statistics refreshed');
    return analyzed;
  }
}
