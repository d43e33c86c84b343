/**
 * Security headers. Every answer says `X-Content-Type-Options: nosniff` (the problem bodies, the
 * stored-response fast path and the raw answers to broken requests included), so a browser never
 * runs a JSON answer or an upload echo as a script or page. The HTML pages (web/) also get a
 * Content-Security-Policy that allows scripts, styles and connections only from the site (their
 * one bundled script and style sheet: no inline script or style), frame protection and a
 * Referrer-Policy; the item icon SVG gets a policy that allows nothing at all.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** On every answer, first (the fast path writes it in the same place as the normal path). */
export const NOSNIFF_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'x-content-type-options': 'nosniff' });

/**
 * The pages' policy. The page data is a `<script type="application/json">` block, which is never
 * run, so `script-src 'self'` needs no hash; the favicon is `data:,`.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers of an HTML page of ours (after the content type). */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': PAGE_CSP,
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
});

/** An SVG we draw (item icons): nothing to load or run, and sandboxed when opened as a document. */
export const SVG_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/**
 * The API docs page (@fastify/swagger-ui): its scripts are files of the site, but its components
 * add inline styles (the package's own policy, which hashes the page's inline parts, blocked
 * them and added `upgrade-insecure-requests`, which breaks a plain-HTTP deployment).
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** nosniff on every answer; first among the hooks so it is also on answers a later onRequest hook ends (429, 403). */
export const securityHeadersPlugin = fp(
  async function securityHeaders(app: FastifyInstance) {
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(NOSNIFF_HEADERS);
      done();
    });
  },
  { name: 'skymarket-security-headers' },
);
