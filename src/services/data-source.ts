/**
 * Whether the data served is simulated: where this process runs the demo's own simulator, or where
 * the stored feeds came from an upstream that said it is the skymarket simulator (a `skymarket
 * simulate` process feeding a scale-out; ingestion records it with every feed update). Health,
 * the pages' banner and footer and the data page all ask here, so they say the same.
 */
import type { Clock } from '../clock.ts';
import type { FeedState, FeedRepository } from '../store/repositories/feeds.ts';

export type DataSource = 'upstream' | 'simulator';

/** The source of what is served: simulated when configured so or when any stored feed came from the simulator. */
export function servedSource(configured: DataSource, feeds: ReadonlyArray<Pick<FeedState, 'source'>>): DataSource {
  return configured === 'simulator' || feeds.some((f) => f.source === 'simulator') ? 'simulator' : 'upstream';
}

/** What DataSourceService reads: the stored feeds (which source each came from). */
export interface FeedStates {
  readonly feeds: Pick<FeedRepository, 'all'>;
}

/** servedSource over the stored feeds, read at most every `maxAgeMs` (pages ask on every render). */
export class DataSourceService {
  private known: { at: number; source: DataSource } | undefined;

  constructor(
    private readonly store: FeedStates,
    private readonly clock: Clock,
    private readonly configured: DataSource,
    private readonly maxAgeMs = 10_000,
  ) {}

  async current(): Promise<DataSource> {
    if (this.configured === 'simulator') return 'simulator';
    const now = this.clock.now();
    if (this.known && now - this.known.at < this.maxAgeMs) return this.known.source;
    try {
      this.known = { at: now, source: servedSource(this.configured, await this.store.feeds.all()) };
    } catch {
      // The database is away: keep what was known (health reports the outage).
      return this.known?.source ?? this.configured;
    }
    return this.known.source;
  }
}
