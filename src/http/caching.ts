/**
 * HTTP caching for routes that opt in through `config.cache`: Cache-Control, a strong
 * ETag over the exact bytes and content type, and 304 Not Modified on a matching
 * If-None-Match. Errors and non-GET responses are never cached.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import './route-config.ts';

export const cachingPlugin = fp(
  async function caching(app: FastifyInstance) {
    app.addHook('onSend', async (request, reply, payload) => {
      const cache = request.routeOptions.config.cache;
      if (cache === undefined) return payload;
      if (cache === 'no-store') {
        reply.header('cache-control', 'no-store');
        return payload;
      }
      if (reply.statusCode !== 200 || (request.method !== 'GET' && request.method !== 'HEAD')) return payload;
      reply.header('cache-control', `public, max-age=${cache}`);
      reply.header('vary', 'Accept');
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
      const etag = `"${createHash('sha1')
        .update(String(reply.getHeader('content-type') ?? ''))
        .update(payload)
        .digest('base64url')}"`;
      reply.header('etag', etag);
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
        reply.code(304);
        return '';
      }
      return payload;
    });
  },
  { name: 'skymarket-caching' },
);

/** RFC 9110 weak comparison against a list of entity tags or `*`. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare);
}
