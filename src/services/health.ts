/**
 * Readiness as facts: whether the database answers, which feeds have stored data and how fresh
 * it is, how each feed's polls have been going where this process ingests, and why the service
 * is not (yet) ready. Ready means auctions and bazaar data are stored and no demo history is
 * still arriving.
 */
import type { Clock } from '../clock.ts';
import type { Dialect } from '../store/db.ts';
import type { FeedName, FeedRepository, FeedState } from '../store/repositories/feeds.ts';
import { servedSource, type DataSource } from './data-source.ts';

/** Feeds that must have stored data before the service reports ready. */
const REQUIRED_FEEDS: FeedName[] = ['auctions', 'bazaar'];

/** How a feed's polls have been going (ingest/poller.ts PollStatus). */
export interface FeedPollStatus {
  failures: number;
  lastSuccessAt?: number;
  lastError?: string;
  lastErrorAt?: number;
  retryAt?: number;
}

/** What the running process knows about itself (the app's context). */
export interface ProcessState {
  config: { role: string };
  /** the configured source: the demo's own simulator, or an upstream */
  dataSource: DataSource;
  ingestion?: { upstream: string; status(): Record<string, FeedPollStatus | undefined> } | undefined;
  loading?: string | undefined;
  startupProblem?: string | undefined;
  /** the live feeds' hub: its warnings while the feeds are degraded (Redis unreachable, events lost lately) */
  streamHub?: { warnings(): string[] } | undefined;
  /** the market's views following the spine (spine/follower.ts), where this process has a market */
  followers?: { behind(): Array<{ name: string; behind: string | undefined; behindSince: number | undefined }> } | undefined;
}

export interface HealthReport {
  status: 'ok' | 'loading' | 'unavailable';
  reasons: string[];
  warnings: string[];
  feeds: FeedState[];
  /** simulator where the demo runs one or a stored feed came from the simulator */
  dataSource: DataSource;
  /** where this process ingests from and each feed's polls; undefined where it does not ingest */
  upstream: { url: string; polls: Record<string, FeedPollStatus> } | undefined;
  database: Dialect;
  now: number;
}

/** What health reads from the store: whether it answers, its dialect, the stored feeds. */
export interface HealthStore {
  readonly dialect: Dialect;
  ping(): Promise<void>;
  readonly feeds: Pick<FeedRepository, 'all'>;
}

export class HealthService {
  constructor(
    private readonly store: HealthStore,
    private readonly clock: Clock,
    private readonly process: ProcessState,
  ) {}

  async check(): Promise<HealthReport> {
    const { process } = this;
    const now = this.clock.now();
    const reasons: string[] = [];
    const warnings: string[] = [];
    let feeds: FeedState[] = [];
    const polls = process.ingestion?.status() ?? {};
    const failing = (name: string): string | undefined => {
      const p = polls[name];
      if (!p || p.failures === 0 || !p.lastError) return undefined;
      return `the ${name} feed's last ${p.failures === 1 ? 'poll' : `${p.failures} polls`} failed: ${p.lastError}`;
    };
    let databaseUp = true;
    try {
      await this.store.ping();
      feeds = await this.store.feeds.all();
    } catch (err) {
      databaseUp = false;
      reasons.push(`database unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (databaseUp) {
      for (const name of REQUIRED_FEEDS) {
        if (feeds.some((f) => f.name === name)) continue;
        const missing = `no ${name === 'auctions' ? 'auctions generation' : 'bazaar snapshot'} stored yet`;
        const why = failing(name) ?? (process.config.role === 'api' ? 'this process does not ingest (role api): see the ingest process\'s health' : undefined);
        reasons.push(why ? `${missing}: ${why}` : missing);
      }
    }
    for (const name of Object.keys(polls)) {
      const why = failing(name);
      // A required feed without data already has its failure among the reasons.
      if (why && !reasons.some((r) => r.endsWith(why))) warnings.push(why);
    }
    if (process.startupProblem) warnings.push(process.startupProblem);
    if (process.streamHub) warnings.push(...process.streamHub.warnings());
    // A view that knows it is behind the store still answers from what it holds: say so.
    for (const f of process.followers?.behind() ?? []) {
      const since = f.behindSince === undefined ? '' : ` for ${Math.max(0, Math.round((now - f.behindSince) / 1000))} s`;
      warnings.push(`the ${f.name} view is behind the stored market${since}: ${f.behind}`);
    }
    const status = reasons.length > 0 ? 'unavailable' : process.loading ? 'loading' : 'ok';
    if (status === 'loading') reasons.push(process.loading!);
    const polled = Object.fromEntries(Object.entries(polls).flatMap(([name, p]) => (p ? [[name, p]] : [])));
    const upstream = process.ingestion && Object.keys(polls).length > 0 ? { url: process.ingestion.upstream, polls: polled } : undefined;
    return { status, reasons, warnings, feeds, dataSource: servedSource(process.dataSource, feeds), upstream, database: this.store.dialect, now };
  }
}
