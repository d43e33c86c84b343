/** Per-route options every route declares in `config`, read by the http/ plugins. */
import type {} from '@fastify/swagger';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
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

/** What the http/ plugins read about a request's route, looked up once per request. */
export interface RouteFacts {
  config: FastifyContextConfig;
  /** the route template, undefined for unmatched requests */
  url: string | undefined;
}

const ROUTE_FACTS = Symbol('skymarket.routeFacts');
type WithFacts = FastifyRequest & { [ROUTE_FACTS]?: RouteFacts };

/**
 * The request's route config and template. Fastify builds a fresh `routeOptions` object on
 * every access; several hooks per request read it, so it is read once and kept.
 */
export function routeFacts(request: FastifyRequest): RouteFacts {
  const r = request as WithFacts;
  let facts = r[ROUTE_FACTS];
  if (facts === undefined) {
    const options = request.routeOptions;
    facts = { config: options.config ?? {}, url: options.url };
    r[ROUTE_FACTS] = facts;
  }
  return facts;
}
