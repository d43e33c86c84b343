/**
 * The process's Prometheus registry. One registry per runtime (not prom-client's
 * global) so tests can build several apps in one process.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  /** Counts one answered request in `httpRequests` (cheaper per call than its inc()). */
  countRequest(method: string, route: string, status: number): void;
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
  return {
    registry,
    httpRequests,
    countRequest(method, route, status) {
      let byMethod = pending.get(route);
      if (!byMethod) pending.set(route, (byMethod = new Map()));
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      const entry = byStatus.get(status);
      if (entry) entry.n++;
      else byStatus.set(status, { labels: { method, route, status: String(status) }, n: 1 });
    },
    httpDuration: new Histogram({
      name: 'skymarket_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}
