/** Request counts and latency by route template, and the /metrics endpoint. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../metrics.ts';
import './route-config.ts';

export const metricsPlugin = fp(
  async function metricsPlugin(app: FastifyInstance, options: { metrics: Metrics }) {
    const { metrics } = options;
    app.addHook('onResponse', async (request, reply) => {
      if (request.routeOptions.config.noMetrics) return;
      // The template (/api/auction/:auctionUuid), never the raw URL: bounded label values.
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
      metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });

    app.get('/metrics', { schema: { hide: true }, config: { noMetrics: true, cache: 'no-store', rateLimit: false } }, async (_request, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  },
  { name: 'skymarket-metrics' },
);
