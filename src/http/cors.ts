/**
 * CORS: which origins may read the answers, and which headers their scripts may see. The
 * @fastify/cors plugin sends these on the normal path; the stored-response fast path writes the
 * same static headers when every origin is allowed (an origin list is reflected per request,
 * and then the fast path stays off).
 */
import type { FastifyCorsOptions } from '@fastify/cors';

/** Response headers a browser script may read (joined once, not per response). */
export const EXPOSED_HEADERS = [
  'Retry-After',
  'ETag',
  'X-Rate-Limit-Limit',
  'X-Rate-Limit-Remaining',
  'X-Rate-Limit-Reset',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Craft-Filter',
  'X-Forge-Filter',
].join(', ');

/** The @fastify/cors options for CORS_ORIGINS (`*` among them: any origin). */
export function corsOptions(origins: readonly string[]): FastifyCorsOptions {
  return {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'],
    exposedHeaders: EXPOSED_HEADERS,
  };
}

/**
 * The CORS headers of every simple response when any origin is allowed, as the plugin sends them
 * with these options; null for an origin list (the plugin then answers per request's Origin).
 */
export function staticCorsHeaders(origins: readonly string[]): Readonly<Record<string, string>> | null {
  if (!origins.includes('*')) return null;
  return { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS };
}
