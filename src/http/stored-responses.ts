/**
 * A fast path in front of Fastify for GET requests a route answers with a stored Buffer
 * (the unfiltered lowest-BIN page): the bytes and headers are written straight to the
 * node:http response, skipping Fastify's request and reply objects and the hooks.
 *
 * It only takes requests whose answer it knows to be exactly the normal path's: same
 * status, body and headers, counted the same in /metrics. Everything else goes to Fastify
 * unchanged: any query string, another method (HEAD, OPTIONS), content negotiation
 * (an Accept other than none, `*\/*` or `application/json`), If-None-Match, account
 * credentials, a request body, any client when a proxy is trusted (the client address then
 * comes from proxy headers), CORS origins other than `*`, request logging (debug/trace),
 * and everything once the app is closing. A rate-limited client is counted here exactly as
 * the limits hook counts it; only an admitted request is answered here (with the same limit
 * headers), a refused one goes to Fastify carrying its count (429/403, counted once).
 *
 * The headers and counts come from the functions the plugins use themselves: CORS
 * (cors.ts staticCorsHeaders), caching (caching.ts cacheHeaders and the plugin's ETags), limits
 * (limits.ts, through countPeerRequest) and metrics (metrics.ts recordResponse).
 * test/http/stored-responses.test.ts compares both paths over a matrix of requests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import type { Metrics } from '../metrics.ts';
import { cacheHeaders } from './caching.ts';
import { recordResponse } from './metrics.ts';

/** A route whose GET answers may be served from a stored Buffer. */
export interface StoredRoute {
  /** the route template, as metrics label it */
  url: string;
  /** the path before and after the one parameter: `/api/auctions/tag/` + tag + `/active/bin` */
  prefix: string;
  suffix: string;
  /** `Cache-Control: public, max-age=N`, as the route's `config.cache` */
  cacheSeconds: number;
  contentType: string;
  /** the stored body for the raw parameter, only when the route's handler would send exactly it */
  body(param: string): Buffer | undefined;
}

/** What the fast path needs from the app's plugins, set once they are registered. */
export interface StoredResponseContext {
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

/** Only plain tag-like parameters: no percent-encoding, no characters the router treats specially. */
const PARAM = /^[A-Za-z0-9_-]{1,64}$/;

export class StoredResponses {
  private readonly routes: StoredRoute[] = [];
  private context: StoredResponseContext | undefined;
  /** requests answered by the fast path (tests check that it was taken) */
  served = 0;

  /** Adds a route. Without a context (see `enable`) the fast path stays off. */
  add(route: StoredRoute): void {
    this.routes.push(route);
  }

  enable(context: StoredResponseContext): void {
    this.context = context;
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
    const { headers } = req;
    if (
      headers.authorization !== undefined ||
      headers.identitytoken !== undefined ||
      headers.googletoken !== undefined ||
      headers['if-none-match'] !== undefined ||
      headers['content-length'] !== undefined ||
      headers['transfer-encoding'] !== undefined
    ) {
      return false;
    }
    const accept = headers.accept;
    if (accept !== undefined && accept !== '*/*' && accept !== 'application/json') return false;
    for (const route of this.routes) {
      if (!url.startsWith(route.prefix) || !url.endsWith(route.suffix)) continue;
      const param = url.slice(route.prefix.length, url.length - route.suffix.length);
      if (!PARAM.test(param)) return false;
      if (context.closing()) return false;
      const started = performance.now();
      if (context.exemptPeer(req.socket.remoteAddress)) {
        const body = route.body(param);
        if (body === undefined) return false;
        this.answer(res, route, body, this.headersOf(route, body, context), context, started);
        return true;
      }
      const count = context.countPeerRequest;
      // Counting is the one side effect: only once it is sure the route has a stored answer.
      if (count === null || fallback === undefined || route.body(param) === undefined) return false;
      count(req).then(
        (limits) => {
          const body = limits === null || context.closing() ? undefined : route.body(param);
          if (limits === null || body === undefined) return fallback(req, res);
          // The normal path's order: CORS (onRequest), the limits (onRequest), then the rest.
          this.answer(res, route, body, { ...context.corsHeaders, ...limits, ...this.headersOf(route, body, context) }, context, started);
        },
        () => fallback(req, res),
      );
      return true;
    }
    return false;
  }

  private answer(res: ServerResponse, route: StoredRoute, body: Buffer, headers: Readonly<Record<string, string>>, context: StoredResponseContext, started: number): void {
    res.writeHead(200, headers);
    res.end(body);
    this.served++;
    recordResponse(context.metrics, 'GET', route.url, 200, performance.now() - started);
  }

  /** Response headers per stored Buffer, built once: a body is served many times until its data changes. */
  private readonly headers = new WeakMap<Buffer, { route: StoredRoute; context: StoredResponseContext; values: Readonly<Record<string, string>> }>();

  private headersOf(route: StoredRoute, body: Buffer, context: StoredResponseContext): Readonly<Record<string, string>> {
    const known = this.headers.get(body);
    if (known !== undefined && known.route === route && known.context === context) return known.values;
    // In the order the normal path sets them (CORS in onRequest, the type in the handler,
    // caching in onSend, the length last); Node adds Date and Connection the same way to both.
    // writeHead reads the object without changing it, so one object serves every response.
    const values = Object.freeze({
      ...context.corsHeaders,
      'content-type': route.contentType,
      ...cacheHeaders(route.cacheSeconds, undefined),
      etag: context.etagOf(route.contentType, body),
      'content-length': String(body.length),
    });
    this.headers.set(body, { route, context, values });
    return values;
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
      return server;
    };
  }
}
