/** Request counts and latency by route template, and the /metrics endpoint. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from '../metrics.ts';
import { routeFacts } from './route-config.ts';

export const metricsPlugin = fp(
  async function metricsPlugin(app: FastifyInstance, options: { metrics: Metrics }) {
    const { metrics } = options;
    // Callback style: no promise per response.
    app.addHook('onResponse', (request, reply, done) => {
      const facts = routeFacts(request);
      if (!facts.config.noMetrics) {
        // The template (/api/auction/:auctionUuid), never the raw URL: bounded label values.
        const route = facts.url ?? 'unmatched';
        metrics.recordRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      }
      done();
    });

    app.get('/metrics', { schema: { hide: true }, config: { noMetrics: true, cache: 'no-store', rateLimit: false } }, async (_request, reply) => {
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  },
  { name: 'skymarket-metrics' },
);
