/**
 * HTTP face of the simulator: Hypixel API v2 paths and JSON over node:http (no framework:
 * the handful of routes serve pre-serialised strings and must stay fast for benchmarks).
 * Every response carries `X-Skymarket-Simulated: true`; the simulator never pretends to
 * be the real API. The market advances lazily from the injected clock on each request.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Clock } from '../clock.ts';
import { Faults, corruptItemBytes } from './faults.ts';
import type { AuctionGeneration, Market } from './market.ts';
import { auctionsPageBody } from './wire.ts';
import type { HypixelAuction } from './wire.ts';

type LogFn = (obj: unknown, msg?: string) => void;
/** The subset of a pino logger the simulator uses. */
export interface SimLogger {
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export interface SimulatorServerOptions {
  /** default 127.0.0.1 */
  host?: string;
  /** 0 = any free port (default) */
  port?: number;
  market: Market;
  clock: Clock;
  faults?: Faults;
  logger?: SimLogger;
  /** auctions per page (upstream: 1000) */
  pageSize?: number;
}

export interface SimulatorServer {
  /** base URL without trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Upstream paths served. */
export const SIM_PATHS = {
  auctions: '/v2/skyblock/auctions',
  auctionsEnded: '/v2/skyblock/auctions_ended',
  bazaar: '/v2/skyblock/bazaar',
  items: '/v2/resources/skyblock/items',
  election: '/v2/resources/skyblock/election',
  profiles: '/v2/skyblock/profiles',
} as const;

interface Reply {
  status: number;
  /** Buffers for cached bodies: encoding a 1 MB non-ASCII string per request is the main cost otherwise */
  body: string | Buffer;
  lastModified?: number;
  maxAgeS?: number;
}

interface PageCache {
  gen: AuctionGeneration;
  pages: Map<number, Buffer>;
}

const err = (status: number, cause: string): Reply => ({ status, body: JSON.stringify({ success: false, cause }) });

/** Starts the fake API. Resolves once listening. */
export async function startSimulatorServer(opts: SimulatorServerOptions): Promise<SimulatorServer> {
  const { market, clock, logger } = opts;
  const faults = opts.faults ?? new Faults(market.options.seed);
  const pageSize = opts.pageSize ?? 1000;
  const genMs = market.options.generationSeconds * 1000;
  const bzMs = market.options.bazaarSeconds * 1000;

  let current: PageCache | null = null;
  let previous: PageCache | null = null;
  let ended: { index: number; body: Buffer } | null = null;
  let bazaar: { lastUpdated: number; body: Buffer } | null = null;
  let items: Buffer | null = null;

  /** Rotates the page caches when the market published a new generation. */
  function pagesFor(gen: AuctionGeneration): PageCache {
    if (current?.gen !== gen) {
      previous = current;
      current = { gen, pages: new Map() };
    }
    return current;
  }

  function pageBody(cache: PageCache, page: number): string | Buffer {
    const corrupting = faults.options.corruptNbt > 0;
    if (!corrupting) {
      let body = cache.pages.get(page);
      if (body === undefined) {
        body = Buffer.from(auctionsPageBody(cache.gen.auctions, page, pageSize, cache.gen.lastUpdated));
        cache.pages.set(page, body);
      }
      return body;
    }
    // Corrupt bodies are built per request (fault mode only) and never cached.
    return auctionsPageBody(cache.gen.auctions, page, pageSize, cache.gen.lastUpdated, (a: HypixelAuction) =>
      faults.isCorrupt(a.uuid) ? { ...a, item_bytes: corruptItemBytes(a.item_bytes, a.uuid, gzipSync) } : a,
    );
  }

  function maxAge(lastUpdated: number, periodMs: number, now: number): number {
    return Math.max(0, Math.ceil((lastUpdated + periodMs - now) / 1000));
  }

  function route(path: string, params: URLSearchParams, now: number, mixed: boolean, swap404: boolean): Reply {
    switch (path) {
      case SIM_PATHS.auctions: {
        const raw = params.get('page');
        const page = raw === null || raw === '' ? 0 : /^\d{1,7}$/.test(raw) ? Number(raw) : Number.NaN;
        if (!Number.isInteger(page)) return err(422, 'Invalid page');
        const gen = market.generation();
        let cache = pagesFor(gen);
        const totalPages = Math.max(1, Math.ceil(gen.auctions.length / pageSize));
        if (swap404) return err(404, 'Page not found');
        if (mixed && previous) {
          // One page from the previous generation, as a CDN edge with a stale copy would serve it.
          const prevPages = Math.max(1, Math.ceil(previous.gen.auctions.length / pageSize));
          if (page < prevPages) cache = previous;
        }
        if (page >= totalPages && cache === current) return err(404, 'Page not found');
        return { status: 200, body: pageBody(cache, page), lastModified: cache.gen.lastUpdated, maxAgeS: maxAge(gen.lastUpdated, genMs, now) };
      }
      case SIM_PATHS.auctionsEnded: {
        const gen = market.generation();
        if (faults.options.corruptNbt > 0) {
          const res = market.auctionsEnded();
          res.auctions = res.auctions.map((s) => (faults.isCorrupt(s.auction_id) ? { ...s, item_bytes: corruptItemBytes(s.item_bytes, s.auction_id, gzipSync) } : s));
          return { status: 200, body: JSON.stringify(res), lastModified: gen.lastUpdated, maxAgeS: maxAge(gen.lastUpdated, genMs, now) };
        }
        if (ended?.index !== gen.index) ended = { index: gen.index, body: Buffer.from(JSON.stringify(market.auctionsEnded())) };
        return { status: 200, body: ended.body, lastModified: gen.lastUpdated, maxAgeS: maxAge(gen.lastUpdated, genMs, now) };
      }
      case SIM_PATHS.bazaar: {
        const bz = market.bazaar();
        if (bazaar?.lastUpdated !== bz.lastUpdated) bazaar = { lastUpdated: bz.lastUpdated, body: Buffer.from(JSON.stringify(bz)) };
        return { status: 200, body: bazaar.body, lastModified: bz.lastUpdated, maxAgeS: maxAge(bz.lastUpdated, bzMs, now) };
      }
      case SIM_PATHS.items: {
        items ??= Buffer.from(JSON.stringify(market.items()));
        return { status: 200, body: items, lastModified: market.startMs, maxAgeS: 3600 };
      }
      case SIM_PATHS.election: {
        const e = market.election();
        return { status: 200, body: JSON.stringify(e), lastModified: e.lastUpdated, maxAgeS: 60 };
      }
      case SIM_PATHS.profiles: {
        const uuid = params.get('uuid') ?? '';
        if (!/^[0-9a-fA-F]{32}$|^[0-9a-fA-F-]{36}$/.test(uuid)) return err(422, 'Malformed UUID');
        return { status: 200, body: JSON.stringify(market.profiles(uuid)), maxAgeS: 60 };
      }
      case '/':
        return {
          status: 200,
          body: JSON.stringify({ success: true, simulated: true, note: 'skymarket simulator: fake Hypixel API v2 data, not real market data', endpoints: Object.values(SIM_PATHS) }),
        };
      default:
        return err(404, 'Not found');
    }
  }

  function send(req: IncomingMessage, res: ServerResponse, reply: Reply, truncateAt: number | null): void {
    let body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
    // Cut at a byte offset: the client sees invalid JSON (possibly mid-character), like a dropped connection.
    if (truncateAt !== null && reply.status === 200) body = body.subarray(0, Math.floor(body.length * truncateAt));
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': body.length,
      'X-Skymarket-Simulated': 'true',
    };
    if (reply.lastModified !== undefined) headers['Last-Modified'] = new Date(reply.lastModified).toUTCString();
    headers['Cache-Control'] = reply.maxAgeS !== undefined && reply.status === 200 ? `public, max-age=${reply.maxAgeS}` : 'no-cache';
    res.writeHead(reply.status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(req, res, err(405, 'Method not allowed'), null);
    const now = clock.now();
    let msSinceSwap = -1;
    if (market.populated) {
      if (market.advanceTo(now)) logger?.debug({ generation: market.generation().index }, 'simulator: new auction generation');
      msSinceSwap = now - market.generation().lastUpdated;
    }
    const decision = faults.decide({ isAuctionsPage: url.pathname === SIM_PATHS.auctions, msSinceSwap });
    if (decision.delayMs > 0) await new Promise((r) => setTimeout(r, decision.delayMs));
    if (faults.options.notReady || !market.populated) return send(req, res, err(503, 'Data not yet populated, please try again later'), null);
    if (decision.errorStatus !== null) return send(req, res, err(decision.errorStatus, 'Simulated upstream error'), null);
    send(req, res, route(url.pathname, url.searchParams, now, decision.mixed, decision.swap404), decision.truncateAt);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      logger?.error({ err: e }, 'simulator: request failed');
      if (!res.headersSent) send(req, res, err(500, 'Internal simulator error'), null);
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  logger?.info({ url }, 'simulator: listening (simulated Hypixel API data)');

  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
