/** Per-route options every route declares in `config`, read by the http/ plugins. */
import type {} from '@fastify/swagger';
import type { Tier } from '../domain/tiers.ts';

/**
 * Who may call a route. 'none' (default): anyone. 'token': a valid account token
 * (401 otherwise). 'apiKey': a valid player API key (401 otherwise). 'partner': a valid
 * partner `token` query parameter (401 missing / 403 invalid). 'optionalToken' and
 * 'optionalPartner': identify the caller when the credential is valid, never refuse.
 */
export type AuthMode = 'none' | 'token' | 'optionalToken' | 'apiKey' | 'partner' | 'optionalPartner';
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Response caching: seconds for `Cache-Control: public, max-age=N` plus an ETag
     * (304 on If-None-Match), or 'no-store'. Routes without it send no cache headers.
     */
    cache?: number | 'no-store';
    /** Skip per-request metrics (the metrics endpoint itself). */
    noMetrics?: boolean;
    /** access rule, enforced by the auth plugin and shown in the OpenAPI document */
    auth?: AuthMode;
    /** minimum account tier (implies auth 'token'); 403 below it */
    tier?: Tier;
    /** false: exempt from the per-IP rate limits (health, metrics) */
    rateLimit?: false;
  }
}

export {};
