/** Request counts and latency by route template, and the /metrics endpoint. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { hashesEqual, hashToken } from '../domain/credentials.ts';
import type { Metrics } from '../metrics.ts';
import { HttpProblem } from './problem.ts';
import { routeFacts } from './route-config.ts';

/**
 * Counts an answered request in /metrics: the plugin's hook and the stored-response fast path
 * alike. Labelled by the route template (/api/auction/:auctionUuid), never the raw URL, so label
 * values stay bounded; `unmatched` when no route matched.
 */
export function recordResponse(metrics: Pick<Metrics, 'recordRequest'>, method: string, route: string | undefined, status: number, elapsedMs: number): void {
  metrics.recordRequest(method, route ?? 'unmatched', status, elapsedMs / 1000);
}

export const metricsPlugin = fp(
  async function metricsPlugin(app: FastifyInstance, options: { metrics: Metrics }) {
    const { metrics } = options;
    // METRICS_TOKEN: the scraper sends it as a bearer token; compared as hashes, in constant time.
    const tokenHash = app.context.config.metricsToken === undefined ? undefined : hashToken(app.context.config.metricsToken);
    const authorized = (header: string | undefined): boolean => {
      if (tokenHash === undefined) return true;
      const presented = /^Bearer (\S+)$/.exec(header ?? '')?.[1];
      return presented !== undefined && hashesEqual(hashToken(presented), tokenHash);
    };
    // Callback style: no promise per response.
    app.addHook('onResponse', (request, reply, done) => {
      const facts = routeFacts(request);
      if (!facts.config.noMetrics) {
        recordResponse(metrics, request.method, facts.url, reply.statusCode, reply.elapsedTime);
      }
      done();
    });

    app.get('/metrics', { schema: { hide: true }, config: { noMetrics: true, cache: 'no-store', rateLimit: false } }, async (request, reply) => {
      if (!authorized(request.headers.authorization)) {
        throw new HttpProblem(401, 'metrics_token_required', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', {}, { 'WWW-Authenticate': 'Bearer' });
      }
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  },
  { name: 'skymarket-metrics' },
);
