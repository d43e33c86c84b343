/**
 * HTTP caching for routes that opt in through `config.cache`: Cache-Control, a strong
 * ETag over the exact bytes and content type, and 304 Not Modified on a matching
 * If-None-Match. Errors and non-GET responses are never cached.
 *
 * Hashing the body on every request cost more than the rest of a cached route's work, so
 * ETags are remembered: per Buffer (a route that serves one pre-serialised Buffer until its
 * data changes gets its ETag hashed once per Buffer) and, for small string bodies, per
 * content type and body text (bounded).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { routeFacts } from './route-config.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** the strong ETag this plugin gives a body under a content type (remembered, see above) */
    responseEtag(type: string, payload: string | Buffer): string;
  }
}

/** String bodies up to this length have their ETags remembered. */
const MEMO_MAX_LENGTH = 4096;
const MEMO_MAX_ENTRIES = 1000;

export const cachingPlugin = fp(
  async function caching(app: FastifyInstance) {
    const byBuffer = new WeakMap<Buffer, { type: string; etag: string }>();
    const byText = new Map<string, Map<string, string>>();
    let textEntries = 0;

    function etagOf(type: string, payload: string | Buffer): string {
      if (typeof payload === 'string') {
        if (payload.length > MEMO_MAX_LENGTH) return hashEtag(type, payload);
        let ofType = byText.get(type);
        let etag = ofType?.get(payload);
        if (etag === undefined) {
          etag = hashEtag(type, payload);
          if (textEntries >= MEMO_MAX_ENTRIES) {
            byText.clear();
            textEntries = 0;
            ofType = undefined;
          }
          if (!ofType) byText.set(type, (ofType = new Map()));
          ofType.set(payload, etag);
          textEntries++;
        }
        return etag;
      }
      const memo = byBuffer.get(payload);
      if (memo !== undefined && memo.type === type) return memo.etag;
      const etag = hashEtag(type, payload);
      byBuffer.set(payload, { type, etag });
      return etag;
    }

    // The stored-response fast path (stored-responses.ts) gives its bytes the same ETag.
    app.decorate('responseEtag', etagOf);

    // Callback style: no promise per response.
    app.addHook('onSend', (request, reply, payload, done) => {
      const cache = routeFacts(request).config.cache;
      if (cache === undefined) return done(null, payload);
      if (cache === 'no-store') {
        reply.header('cache-control', 'no-store');
        return done(null, payload);
      }
      if (reply.statusCode !== 200 || (request.method !== 'GET' && request.method !== 'HEAD')) return done(null, payload);
      const vary = reply.getHeader('vary');
      reply.headers(cacheHeaders(cache, vary === undefined ? undefined : String(vary)));
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
      const etag = etagOf(String(reply.getHeader('content-type') ?? ''), payload);
      reply.header('etag', etag);
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) {
        reply.code(304);
        // The ETag is the encoded bytes' (compression.ts runs first); a 304 has no body to decode.
        reply.removeHeader('content-encoding');
        return done(null, '');
      }
      done(null, payload);
    });
  },
  { name: 'skymarket-caching' },
);

/**
 * The caching headers of a cacheable 200 kept `seconds`, the plugin's and the stored-response fast
 * path's alike (the ETag comes after them). `vary`: what the answer varies by already; kept, because
 * with a CORS origin list it varies by Origin, and a shared cache must not hand one origin's answer
 * (its Access-Control-Allow-Origin) to another.
 */
export function cacheHeaders(seconds: number, vary: string | undefined): { 'cache-control': string; vary: string } {
  return { 'cache-control': `public, max-age=${seconds}`, vary: vary === undefined || vary === '' ? 'Accept' : `${vary}, Accept` };
}

function hashEtag(type: string, payload: string | Buffer): string {
  return `"${createHash('sha1').update(type).update(payload).digest('base64url')}"`;
}

/** RFC 9110 weak comparison against a list of entity tags or `*`. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === bare);
}
