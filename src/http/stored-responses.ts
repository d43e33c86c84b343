/**
 * A fast path in front of Fastify for GET requests a route answers with a prepared body
 * (the unfiltered lowest-BIN page, a bazaar product's current snapshot, a flip feed's default
 * answer): the bytes and headers are written straight to the node:http response, skipping
 * Fastify's request and reply objects and the hooks. Each body's answer (bytes and headers) is
 * built once per kind of request (Accept × negotiated encoding).
 *
 * A route hands it the current answer of its kind in the registry of prepared answers
 * (http/prepared-answers.ts `PreparedAnswer`): the plain bytes and their gzip and brotli variants,
 * made once and kept with the answer, which the normal path's compression hook sends too, so both
 * send the same bytes; the ETag is the caching plugin's hash of the bytes sent.
 *
 * It only takes requests whose answer it knows to be exactly the normal path's: same
 * status, body and headers, counted the same in /metrics. Everything else goes to Fastify
 * unchanged: any query string, another method (HEAD, OPTIONS), content negotiation beyond
 * the plain cases (an Accept other than none, `*\/*`, `application/json`, or exactly `text/json`
 * or `text/plain` for a JSON body), If-None-Match, account
 * credentials, a request body, any client when a proxy is trusted (the client address then
 * comes from proxy headers), CORS origins other than `*`, request logging (debug/trace),
 * and everything once the app is closing. A rate-limited client is counted here exactly as
 * the limits hook counts it; only an admitted request is answered here (with the same limit
 * headers), a refused one goes to Fastify carrying its count (429/403, counted once).
 *
 * Any Accept-Encoding is answered here, negotiated by compression.ts chooseEncoding.
 *
 * The headers and counts come from the functions the plugins use themselves: CORS
 * (cors.ts staticCorsHeaders), compression (compression.ts chooseEncoding, compressionHeaders and
 * the remembered variants), caching (caching.ts cacheHeaders and the plugin's ETags), limits
 * (limits.ts, through countPeerRequest) and metrics (metrics.ts recordResponse).
 * test/medium/http/stored-responses.test.ts compares both paths over a matrix of requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Metrics } from '../metrics.ts';
import { cacheHeaders } from './caching.ts';
import { chooseEncoding, compressibleType, compressionHeaders, COMPRESS_MIN_BYTES, type Encoding } from './compression.ts';
import type { PreparedAnswer } from './prepared-answers.ts';
import { recordResponse } from './metrics.ts';

/** A route whose GET answers may be served from a prepared body. */
export interface StoredRoute {
  /** the route template, as metrics label it */
  url: string;
  /** the path before and after the one parameter: `/api/auctions/tag/` + tag + `/active/bin` */
  prefix: string;
  suffix: string;
  /** the route has no parameter: the path is exactly `prefix` (body() gets '') */
  exact?: boolean;
  /** false: the route is exempt from the per-IP limits (`config.rateLimit: false`), so nothing is counted */
  rateLimited?: boolean;
  /** `Cache-Control: public, max-age=N`, as the route's `config.cache` */
  cacheSeconds: number;
  contentType: string;
  /** the prepared answer for the raw parameter (http/prepared-answers.ts current()), only when the route's handler would send exactly it */
  body(param: string): PreparedAnswer | undefined;
}

/** What the fast path needs from the app's plugins, set once they are registered. */
export interface StoredResponseContext {
  /** the headers every answer starts with (security-headers.ts NOSNIFF_HEADERS) */
  securityHeaders: Readonly<Record<string, string>>;
  /** static CORS headers of every response (origin `*`: cors.ts staticCorsHeaders) */
  corsHeaders: Readonly<Record<string, string>>;
  /** true when a request from this peer is neither rate limited nor possibly behind a proxy */
  exemptPeer(remoteAddress: string | undefined): boolean;
  /**
   * Counts a request from a limited peer as the limits hook would: its limit headers when
   * admitted, else null (the count stays on the message and the normal path answers).
   * null when the peer is not the client (a proxy is trusted): then limited peers go to Fastify.
   */
  countPeerRequest: ((req: IncomingMessage) => Promise<Record<string, string> | null>) | null;
  /** the ETag the caching plugin gives these bytes under this content type */
  etagOf(contentType: string, body: Buffer): string;
  /** true once the app is closing (Connection: close, 503 for new requests) */
  closing(): boolean;
  /** where answered requests are counted (/metrics), as the metrics plugin counts them */
  metrics: Pick<Metrics, 'recordRequest'>;
}

/** The bytes and type the fast path sends for one request. */
interface Representation {
  body: Buffer;
  contentType: string;
  lastModified: string | undefined;
  headers: Readonly<Record<string, string>> | undefined;
  /** large and compressible: the answer varies by Accept-Encoding */
  eligible: boolean;
  encoding: Encoding | undefined;
}

/** What the fast path writes for one kind of request (see `kindOf`): the bytes and the headers, or null when it leaves that kind to Fastify. */
interface Answer {
  body: Buffer;
  headers: Readonly<Record<string, string>>;
}

/** The Accept values the fast path answers, by index (see `kindOf`); any other leaves the request to Fastify. */
const ACCEPTS: ReadonlyArray<string | undefined> = [undefined, '*/*', 'application/json', 'text/json', 'text/plain'];
const ENCODINGS: ReadonlyArray<Encoding | undefined> = [undefined, 'gzip', 'br'];

/**
 * A request's kind: its Accept (one of ACCEPTS) and the encoding negotiated from its
 * Accept-Encoding (one of ENCODINGS), as one index into a body's answers; -1 for an Accept the
 * fast path does not answer.
 */
function kindOf(accept: string | undefined, acceptEncoding: string | undefined): number {
  const a = ACCEPTS.indexOf(accept);
  if (a < 0) return -1;
  const encoding = chooseEncoding(acceptEncoding);
  return a * ENCODINGS.length + (encoding === undefined ? 0 : encoding === 'gzip' ? 1 : 2);
}

/** Only plain tag-like parameters: no percent-encoding, no characters the router treats specially. */
const PARAM = /^[A-Za-z0-9_-]{1,64}$/;

export class StoredResponses {
  /** routes without a parameter, by path */
  private readonly exact = new Map<string, StoredRoute>();
  /** routes with one parameter, in the order added */
  private readonly routes: StoredRoute[] = [];
  private context: StoredResponseContext | undefined;
  /** per connection: exempt from the limits (a socket's peer does not change) */
  private exemptSockets = new WeakMap<Socket, boolean>();
  /** requests answered by the fast path (tests check that it was taken) */
  served = 0;

  /** Adds a route. Without a context (see `enable`) the fast path stays off. */
  add(route: StoredRoute): void {
    if (route.exact) {
      if (!this.exact.has(route.prefix)) this.exact.set(route.prefix, route);
    } else {
      this.routes.push(route);
    }
  }

  enable(context: StoredResponseContext): void {
    this.context = context;
    this.exemptSockets = new WeakMap();
  }

  disable(): void {
    this.context = undefined;
  }

  /**
   * Answers the request from a stored Buffer when it can; false: leave it to Fastify. For a
   * rate-limited client the answer waits for its count, and `fallback` (Fastify) gets the
   * request when it is refused or the stored body went away meanwhile.
   */
  serve(req: IncomingMessage, res: ServerResponse, fallback?: (req: IncomingMessage, res: ServerResponse) => void): boolean {
    const context = this.context;
    if (context === undefined || req.method !== 'GET') return false;
    const url = req.url;
    if (url === undefined || url.includes('?')) return false;
    let route = this.exact.get(url);
    let param = '';
    if (route === undefined) {
      for (const candidate of this.routes) {
        if (!url.startsWith(candidate.prefix) || !url.endsWith(candidate.suffix)) continue;
        param = url.slice(candidate.prefix.length, url.length - candidate.suffix.length);
        if (!PARAM.test(param)) return false;
        route = candidate;
        break;
      }
      if (route === undefined) return false;
    }
    const { headers } = req;
    if (
      headers.authorization !== undefined ||
      headers.identitytoken !== undefined ||
      headers.googletoken !== undefined ||
      headers['if-none-match'] !== undefined ||
      // Conditional requests are answered by the route (304 when the file has not changed).
      headers['if-modified-since'] !== undefined ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined
    ) {
      return false;
    }
    const kind = kindOf(headers.accept, headers['accept-encoding']);
    if (kind < 0) return false;
    if (context.closing()) return false;
    const started = performance.now();
    if (route.rateLimited === false || this.exempt(req.socket, context)) {
      const found = route.body(param);
      const chosen = found === undefined ? null : this.answerOf(route, found, kind, context);
      if (chosen === null) return false;
      this.answer(res, route, chosen.body, chosen.headers, context, started);
      return true;
    }
    const count = context.countPeerRequest;
    // Counting is the one side effect: only once it is sure the route has a stored answer.
    const first = count === null || fallback === undefined ? undefined : route.body(param);
    if (count === null || fallback === undefined || first === undefined || this.answerOf(route, first, kind, context) === null) return false;
    const limitedRoute = route;
    count(req).then(
      (limits) => {
        const found = limits === null || context.closing() ? undefined : limitedRoute.body(param);
        const chosen = found === undefined ? null : this.answerOf(limitedRoute, found, kind, context);
        if (limits === null || chosen === null) return fallback(req, res);
        // The normal path's order: security and CORS (onRequest), the limits (onRequest), then the rest.
        this.answer(res, limitedRoute, chosen.body, { ...context.securityHeaders, ...context.corsHeaders, ...limits, ...chosen.headers }, context, started);
      },
      () => fallback(req, res),
    );
    return true;
  }

  private exempt(socket: Socket, context: StoredResponseContext): boolean {
    let exempt = this.exemptSockets.get(socket);
    if (exempt === undefined) {
      exempt = context.exemptPeer(socket.remoteAddress);
      this.exemptSockets.set(socket, exempt);
    }
    return exempt;
  }

  private answer(res: ServerResponse, route: StoredRoute, body: Buffer, headers: Readonly<Record<string, string>>, context: StoredResponseContext, started: number): void {
    res.writeHead(200, headers);
    res.end(body);
    this.served++;
    recordResponse(context.metrics, 'GET', route.url, 200, performance.now() - started);
  }

  /**
   * The answers of each stored body, per kind of request, built on first use: a body is served
   * many times until its data changes (a new body, a new entry).
   */
  private readonly answers = new WeakMap<PreparedAnswer, { route: StoredRoute; context: StoredResponseContext; byKind: Array<Answer | null | undefined> }>();

  private answerOf(route: StoredRoute, found: PreparedAnswer, kind: number, context: StoredResponseContext): Answer | null {
    let known = this.answers.get(found);
    if (known === undefined || known.route !== route || known.context !== context) {
      known = { route, context, byKind: [] };
      this.answers.set(found, known);
    }
    let chosen = known.byKind[kind];
    if (chosen === undefined) {
      const representation = this.representation(route, found, ACCEPTS[Math.floor(kind / ENCODINGS.length)], ENCODINGS[kind % ENCODINGS.length]);
      chosen = representation === undefined ? null : { body: representation.body, headers: this.headersOf(route, representation, context) };
      known.byKind[kind] = chosen;
    }
    return chosen;
  }

  /**
   * What the normal path would send for this Accept and negotiated encoding: the content type
   * (the content-types plugin's choice for the plain cases), and the plain bytes or the
   * variant when the body is large enough to compress (compression.ts). undefined: not a case
   * the fast path knows.
   */
  private representation(route: StoredRoute, found: PreparedAnswer, accept: string | undefined, encoding: Encoding | undefined): Representation | undefined {
    const plain = found.plain;
    const lastModified = found.lastModified;
    const extra = found.headers;
    let contentType = found.contentType ?? route.contentType;
    if (accept === 'text/json' || accept === 'text/plain') {
      if (!contentType.startsWith('application/json')) return undefined;
      contentType = `${accept}; charset=utf-8`;
    }
    if (plain.length < COMPRESS_MIN_BYTES || !compressibleType(contentType)) return { body: plain, contentType, lastModified, headers: extra, eligible: false, encoding: undefined };
    if (encoding === undefined) return { body: plain, contentType, lastModified, headers: extra, eligible: true, encoding };
    return { body: found.variant(encoding), contentType, lastModified, headers: extra, eligible: true, encoding };
  }

  private headersOf(route: StoredRoute, chosen: Representation, context: StoredResponseContext): Readonly<Record<string, string>> {
    const { body, contentType } = chosen;
    // In the order the normal path sets them (security and CORS in onRequest, the type in the handler, the
    // encoding and Vary in the compression hook, caching in onSend, the length last); Node adds
    // Date and Connection the same way to both.
    // writeHead reads the object without changing it, so one object serves every response.
    return Object.freeze({
      ...context.securityHeaders,
      ...context.corsHeaders,
      'content-type': contentType,
      ...(chosen.lastModified !== undefined ? { 'last-modified': chosen.lastModified } : {}),
      ...chosen.headers,
      ...(chosen.eligible ? compressionHeaders(chosen.encoding) : {}),
      ...cacheHeaders(route.cacheSeconds, chosen.eligible ? 'Accept-Encoding' : undefined),
      etag: context.etagOf(contentType, body),
      'content-length': String(body.length),
    });
  }

  /**
   * Fastify's `serverFactory`: the HTTP/1 server Fastify would build, with this fast path in front.
   * `headersTimeoutMs` bounds how long a client may take to send its headers (Fastify has no option
   * for it); Fastify's `requestTimeout` the whole request.
   */
  serverFactory(timeouts: { headersTimeoutMs?: number } = {}): NonNullable<FastifyServerOptions['serverFactory']> {
    return (handler, options) => {
      const opts = options as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxRequestsPerSocket?: number };
      const headersTimeout = timeouts.headersTimeoutMs ?? 60_000;
      // Node looks for expired requests every connectionsCheckingInterval (30 s by default): a
      // quarter of the shortest timeout keeps the cut-off near the configured time.
      const shortest = Math.min(headersTimeout, opts.requestTimeout || Infinity);
      const connectionsCheckingInterval = Math.max(250, Math.min(30_000, Math.floor(shortest / 4)));
      const server: Server = createServer({ headersTimeout, connectionsCheckingInterval }, (req, res) => {
        if (!this.serve(req, res, handler)) handler(req, res);
      });
      // The settings fastify/lib/server.js gives its own HTTP/1 server.
      if (opts.keepAliveTimeout !== undefined) server.keepAliveTimeout = opts.keepAliveTimeout;
      if (opts.requestTimeout !== undefined) server.requestTimeout = opts.requestTimeout;
      server.setTimeout(opts.connectionTimeout ?? 0);
      if ((opts.maxRequestsPerSocket ?? 0) > 0) server.maxRequestsPerSocket = opts.maxRequestsPerSocket as number;
      dropSilentConnectionsOnClose(server);
      return server;
    };
  }
}

/**
 * Node's `close()` ends idle keep-alive connections at once but waits for a connection that has sent
 * nothing yet (a client's spare pooled socket, or one that never speaks) until `headersTimeout`:
 * a closing server kept running for a minute. Closing drops those too; requests in flight finish.
 */
function dropSilentConnectionsOnClose(server: Server): void {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const close = server.close.bind(server);
  server.close = (callback?: (err?: Error) => void) => {
    close(callback);
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
    return server;
  };
}
