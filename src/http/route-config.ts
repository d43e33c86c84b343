/** Per-route options every route declares in `config`, read by the http/ plugins. */
import type {} from '@fastify/swagger';
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Response caching: seconds for `Cache-Control: public, max-age=N` plus an ETag
     * (304 on If-None-Match), or 'no-store'. Routes without it send no cache headers.
     */
    cache?: number | 'no-store';
    /** Skip per-request metrics (the metrics endpoint itself). */
    noMetrics?: boolean;
  }
}

export {};
