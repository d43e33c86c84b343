/**
 * The process's Prometheus registry. One registry per runtime (not prom-client's
 * global) so tests can build several apps in one process.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  /** Counts one answered request in `httpRequests` (cheaper per call than its inc()). */
  countRequest(method: string, route: string, status: number): void;
  /**
   * Counts one answered request and records its duration in `httpDuration`: the same
   * figures as countRequest plus httpDuration.observe, without prom-client's per-call
   * label validation and hashing.
   */
  recordRequest(method: string, route: string, status: number, seconds: number): void;
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Durations of one route and method not yet added to the histogram: counts per bucket (last: above all bounds). */
interface PendingDurations {
  labels: { method: string; route: string };
  buckets: number[];
  sum: number;
  n: number;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'skymarket' });
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  // Request counts wait in a plain map and are added to the counter when it is read (a scrape):
  // prom-client's inc() validates and hashes its labels on every call, per request.
  type Pending = { labels: { method: string; route: string; status: string }; n: number };
  // route → method → status: no key string built per request.
  const pending = new Map<string, Map<string, Map<number, Pending>>>();
  const httpRequests = new Counter({
    name: 'skymarket_http_requests_total',
    help: 'HTTP requests answered, by route template and status code',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      for (const byMethod of pending.values()) {
        for (const byStatus of byMethod.values()) {
          for (const entry of byStatus.values()) {
            if (entry.n > 0) this.inc(entry.labels, entry.n);
            entry.n = 0;
          }
        }
      }
    },
  });
  const countRequest = (method: string, route: string, status: number): void => {
    let byMethod = pending.get(route);
    if (!byMethod) pending.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    const entry = byStatus.get(status);
    if (entry) entry.n++;
    else byStatus.set(status, { labels: { method, route, status: String(status) }, n: 1 });
  };

  // Durations wait the same way (route → method) and are added to the histogram when it is read,
  // in the order their labels first came (the order observe() would have created them in).
  const pendingDurations = new Map<string, Map<string, PendingDurations>>();
  const durationsInOrder: PendingDurations[] = [];
  const httpDuration: Histogram<'method' | 'route'> = new Histogram({
    name: 'skymarket_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by route template',
    labelNames: ['method', 'route'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
    collect() {
      for (const entry of durationsInOrder) {
        if (entry.n === 0) continue;
        addDurations(this, entry);
        entry.buckets.fill(0);
        entry.sum = 0;
        entry.n = 0;
      }
    },
  });

  return {
    registry,
    httpRequests,
    countRequest,
    recordRequest(method, route, status, seconds) {
      countRequest(method, route, status);
      let byMethod = pendingDurations.get(route);
      if (!byMethod) pendingDurations.set(route, (byMethod = new Map()));
      let entry = byMethod.get(method);
      if (!entry) {
        entry = { labels: { method, route }, buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, n: 0 };
        byMethod.set(method, entry);
        durationsInOrder.push(entry);
      }
      let i = 0;
      while (i < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[i] as number)) i++;
      entry.buckets[i] = (entry.buckets[i] as number) + 1;
      entry.sum += seconds;
      entry.n++;
    },
    httpDuration,
  };
}

/** prom-client's per-label-set histogram state (histogram.js: createBaseValues); it has no public bulk add. */
interface HistogramValues {
  labels: Record<string, string>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/**
 * Adds pending durations to the histogram's values for their labels, as that many observe()
 * calls would: each bound counts the observations up to it, `count` and `sum` all of them.
 */
function addDurations(histogram: Histogram<'method' | 'route'>, pending: PendingDurations): void {
  const { hashMap } = histogram as unknown as { hashMap: Record<string, HistogramValues> };
  const find = () => Object.values(hashMap).find((v) => v.labels.method === pending.labels.method && v.labels.route === pending.labels.route);
  let found = find();
  if (!found) {
    histogram.zero(pending.labels);
    found = find();
    if (!found) throw new Error('prom-client histogram internals changed: no values after zero()');
  }
  const values = found;
  DURATION_BUCKETS.forEach((bound, i) => {
    values.bucketValues[bound] = (values.bucketValues[bound] ?? 0) + (pending.buckets[i] as number);
  });
  values.sum += pending.sum;
  values.count += pending.n;
}

/**
 * One dependency's outage as one user of it sees it (Redis for the rate limits, for the live feeds):
 * logged once when it starts and once when it ends, every failure in between counted in
 * `skymarket_dependency_failures_total` and the state in `skymarket_dependency_up`, never a log line
 * per request or per reconnection attempt.
 */
export class Outage {
  private downSince: number | undefined;
  private failures = 0;
  private lastError = '';
  private readonly counter: Counter<'dependency' | 'user'>;
  private readonly up: Gauge<'dependency' | 'user'>;

  constructor(
    registry: Registry,
    private readonly labels: { dependency: string; user: string },
    private readonly logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void },
    private readonly now: () => number = Date.now,
  ) {
    this.counter = singleMetric(registry, 'skymarket_dependency_failures_total', () => new Counter({ name: 'skymarket_dependency_failures_total', help: 'Failed calls to a dependency (Redis), by dependency and by what used it; an outage is logged once when it starts and once when it ends', labelNames: ['dependency', 'user'], registers: [registry] }));
    this.up = singleMetric(registry, 'skymarket_dependency_up', () => new Gauge({ name: 'skymarket_dependency_up', help: 'Whether a dependency (Redis) answered its last call (1) or is failing (0), by what uses it', labelNames: ['dependency', 'user'], registers: [registry] }));
    this.up.set(labels, 1);
  }

  /** Since when the dependency has been failing, or undefined while it answers. */
  get since(): number | undefined {
    return this.downSince;
  }

  get error(): string {
    return this.lastError;
  }

  /** A call failed: counted; the first failure of an outage is logged. */
  failed(err: unknown): void {
    this.counter.inc(this.labels);
    this.lastError = err instanceof Error ? err.message : String(err);
    if (this.downSince !== undefined) {
      this.failures++;
      return;
    }
    this.downSince = this.now();
    this.failures = 1;
    this.up.set(this.labels, 0);
    this.logger.warn(
      { dependency: this.labels.dependency, user: this.labels.user, err: { message: this.lastError } },
      `${this.labels.dependency} unreachable (${this.labels.user}); further failures are counted in skymarket_dependency_failures_total until it answers again`,
    );
  }

  /** A call succeeded: the end of an outage is logged with its length and failures. */
  ok(): void {
    if (this.downSince === undefined) return;
    const ms = this.now() - this.downSince;
    this.downSince = undefined;
    this.up.set(this.labels, 1);
    this.logger.info({ dependency: this.labels.dependency, user: this.labels.user, downMs: ms, failures: this.failures }, `${this.labels.dependency} reachable again (${this.labels.user}) after ${Math.round(ms / 1000)} s and ${this.failures} failed calls`);
  }
}

function singleMetric<T>(registry: Registry, name: string, create: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create();
}
