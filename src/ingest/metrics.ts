import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The upstream feeds, and `profiles`: the player profiles requests queued. */
export type Feed = 'auctions' | 'auctions_ended' | 'bazaar' | 'items' | 'election' | 'profiles';

/** Ingestion counters: what was stored, what was skipped and why, how long cycles take. */
export class IngestMetrics {
  readonly records: Counter<'feed' | 'outcome'>;
  readonly cycles: Counter<'feed' | 'outcome'>;
  readonly cycleSeconds: Histogram<'feed'>;
  readonly lastSuccess: Gauge<'feed'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.records = new Counter({
      name: 'skymarket_ingest_records_total',
      help: 'Upstream records by feed and outcome (stored, unchanged, invalid, undecodable)',
      labelNames: ['feed', 'outcome'],
      registers,
    });
    this.cycles = new Counter({
      name: 'skymarket_ingest_cycles_total',
      help: 'Ingestion cycles by feed and outcome (applied, unchanged, failed)',
      labelNames: ['feed', 'outcome'],
      registers,
    });
    this.cycleSeconds = new Histogram({
      name: 'skymarket_ingest_cycle_duration_seconds',
      help: 'Wall time of ingestion cycles that applied new data',
      labelNames: ['feed'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
    this.lastSuccess = new Gauge({
      name: 'skymarket_ingest_last_success_timestamp_seconds',
      help: 'When each feed last applied new data (unix seconds)',
      labelNames: ['feed'],
      registers,
    });
  }
}
