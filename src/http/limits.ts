/**
 * Rate limits. Per client: 30 requests per 10 s and 100 per 60 s, both enforced on every
 * request (the 31st request in 10 s is refused even when the minute has room). Counters
 * live in memory, or in Redis when REDIS_URL is set so several API processes share them
 * (rate-limiter-flexible counts atomically in Redis; in memory each window keeps one number per client).
 *
 * Windows are fixed and aligned to the injectable clock (window n covers
 * [n·d, (n+1)·d)); the window index is part of the counter key, so tests move time with a
 * ManualClock and every process agrees on when a window resets.
 *
 * Every limited response carries X-Rate-Limit-Limit / -Remaining / -Reset for the longest
 * window (also spelled X-RateLimit-*); a 429 adds Retry-After and a problem body. The
 * client is its IP (proxy headers only when TRUST_PROXY trusts the peer), or its account
 * for a Premium+ account with a valid token (which also lifts an IP ban but not the
 * limits). RATE_LIMIT_EXEMPT networks and routes with `config.rateLimit: false` (health,
 * metrics) are not limited. An IP that collects RATE_LIMIT_BAN_THRESHOLD 429s within an
 * hour (that one included) is blacklisted (403 problem `blocked` with Retry-After) for RATE_LIMIT_BAN_SECONDS. A refused request is
 * not charged to the windows, so they count admitted requests only.
 *
 * Also the reusable special limiters: a cost-based limiter (bazaar export), a byte quota
 * (proxied uploads) and a queue cap (archive export).
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Clock } from '../clock.ts';
import { redact, type TrustProxy, type TrustProxyHeader } from '../config.ts';
import { resolveAccount } from './auth.ts';
import { HttpProblem } from './problem.ts';
import { routeFacts } from './route-config.ts';
import { Outage } from '../metrics.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** the shared ioredis client when REDIS_URL is set, else null; closed with the app */
    redis: Redis | null;
    /** the counter store's outages (Redis): logged once when one starts and once when it ends, failures counted; null without Redis */
    redisOutage: Outage | null;
    /** true when requests from this peer address skip the limits whatever they carry (no proxy trusted, RATE_LIMIT_EXEMPT) */
    exemptPeer(remoteAddress: string | undefined): boolean;
    /**
     * Counts a request without credentials from its peer (no proxy trusted; null otherwise)
     * ahead of Fastify: its limit headers when admitted, else null (the normal path answers).
     */
    countPeerRequest: ((raw: IncomingMessage) => Promise<Record<string, string> | null>) | null;
  }
  interface FastifyRequest {
    /** the address the rate limits count against (after TRUST_PROXY), set by the limits plugin */
    clientIp: string;
  }
}

export interface WindowSpec {
  /** window id as the X-Rate-Limit-Limit header spells it: '10s', '1m', '5m' */
  id: string;
  points: number;
  durationSec: number;
}

/** The general per-client limits, shortest first. */
export const GENERAL_LIMITS: readonly WindowSpec[] = [
  { id: '10s', points: 30, durationSec: 10 },
  { id: '1m', points: 100, durationSec: 60 },
];

export interface WindowResult {
  spec: WindowSpec;
  /** points used in the current window, this request included */
  consumed: number;
  /** UTC ms at which the current window ends */
  resetAt: number;
  /** true when this request went over the window's points */
  exceeded: boolean;
}

/**
 * The counts of one clock-aligned window held in the process: one number per client for the
 * current window (and the one before, for answers still in flight when it turns); older windows
 * are dropped whole when a new one starts. rate-limiter-flexible's memory store kept a record
 * and a timer per key instead, ~0.45 KB per client and window: ~47 MB of the heap with the load
 * test's 50,000 client addresses, which V8's heap growth then multiplied (docs/deployment.md, Memory).
 */
export class MemoryWindowCounts {
  private readonly windows = new Map<number, Map<string, number>>();

  /** Adds `delta` to `key`'s count in window `index` and returns the new count. */
  add(key: string, index: number, delta: number): number {
    let counts = this.windows.get(index);
    if (!counts) {
      for (const old of this.windows.keys()) if (old < index - 1) this.windows.delete(old);
      this.windows.set(index, (counts = new Map()));
    }
    const count = (counts.get(key) ?? 0) + delta;
    counts.set(key, count);
    return count;
  }

  /** clients counted in the windows held (tests) */
  get size(): number {
    let n = 0;
    for (const counts of this.windows.values()) n += counts.size;
    return n;
  }
}

/** One fixed window aligned to `clock`, counted in Redis (rate-limiter-flexible) or in memory. */
export class ClockWindow {
  private readonly durationMs: number;

  constructor(
    readonly spec: WindowSpec,
    private readonly store: RateLimiterAbstract | MemoryWindowCounts,
    private readonly clock: Clock,
  ) {
    this.durationMs = spec.durationSec * 1000;
  }

  private index(): number {
    return Math.floor(this.clock.now() / this.durationMs);
  }

  /** Counts `cost` points for `key`; never throws for an exhausted window (see `exceeded`). */
  async consume(key: string, cost = 1): Promise<WindowResult> {
    const index = this.index();
    const resetAt = (index + 1) * this.durationMs;
    if (this.store instanceof MemoryWindowCounts) {
      // Like rate-limiter-flexible, a refused request is counted too (the caller refunds it).
      const consumed = this.store.add(key, index, cost);
      return { spec: this.spec, consumed, resetAt, exceeded: consumed > this.spec.points };
    }
    try {
      const res = await this.store.consume(`${key}:${index}`, cost);
      return { spec: this.spec, consumed: res.consumedPoints, resetAt, exceeded: false };
    } catch (err) {
      if (err instanceof RateLimiterRes) return { spec: this.spec, consumed: err.consumedPoints, resetAt, exceeded: true };
      throw err;
    }
  }

  /** Gives `cost` points back (a refused costly request should not use up the window). */
  async refund(key: string, cost: number): Promise<void> {
    const index = this.index();
    if (this.store instanceof MemoryWindowCounts) this.store.add(key, index, -cost);
    else await this.store.reward(`${key}:${index}`, cost);
  }
}

/** Builds a rate-limiter-flexible limiter on the app's store (Redis when configured, else memory). */
function makeLimiter(app: FastifyInstance, keyPrefix: string, points: number, durationSec: number): RateLimiterAbstract {
  const prefix = `${app.context.config.redisPrefix}${keyPrefix}`;
  if (app.redis) {
    // Not ready (Redis down): reject at once; the caller fails open rather than hanging requests.
    return new RateLimiterRedis({ storeClient: app.redis, keyPrefix: prefix, points, duration: durationSec, rejectIfRedisNotReady: true });
  }
  return new RateLimiterMemory({ keyPrefix: prefix, points, duration: durationSec });
}

function windowOn(app: FastifyInstance, keyPrefix: string, spec: WindowSpec): ClockWindow {
  // Redis keeps a key a little longer than its window; the clock-aligned key decides the window.
  const store = app.redis ? makeLimiter(app, `${keyPrefix}:${spec.id}`, spec.points, spec.durationSec + 1) : new MemoryWindowCounts();
  return new ClockWindow(spec, store, app.clock);
}

function retryAfterSeconds(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

function describeWindow(spec: WindowSpec): string {
  return `${spec.points} per ${spec.id}`;
}

// ---------------------------------------------------------------------------------------
// Client address

const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** An IPv4-mapped IPv6 address (::ffff:1.2.3.4) as plain IPv4; anything else unchanged. */
export function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

/** A BlockList of IPs / CIDRs (and the names loopback, linklocal, uniquelocal). */
export function networkList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  const add = (entry: string) => {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address);
    if (family === 0) throw new Error(`not an IP or CIDR: '${entry}'`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  };
  for (const entry of entries) {
    const named = NAMED_RANGES[entry];
    if (named) named.forEach(add);
    else add(entry);
  }
  return list;
}

export function inNetworks(list: BlockList, ip: string): boolean {
  const address = normalizeIp(ip);
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Where the request comes from. Fastify already applies TRUST_PROXY to X-Forwarded-For
 * (request.ip). A vendor header (CF-Connecting-IP …) is believed only when TRUST_PROXY_HEADER
 * names it and the direct peer is a trusted proxy: any other proxy passes it on from the
 * client, who could then rotate it past the limits or name a victim's address to get it banned.
 */
export function clientIpResolver(trustProxy: TrustProxy, vendorHeader?: TrustProxyHeader): (request: FastifyRequest) => string {
  if (trustProxy === false || trustProxy === 0) return (request) => normalizeIp(request.socket.remoteAddress ?? request.ip);
  if (vendorHeader === undefined) return (request) => normalizeIp(request.ip);
  const trusted = Array.isArray(trustProxy) ? networkList(trustProxy) : undefined;
  return (request) => {
    const peer = normalizeIp(request.socket.remoteAddress ?? '');
    const peerTrusted = trusted ? inNetworks(trusted, peer) : true;
    const named = request.headers[vendorHeader];
    if (peerTrusted && typeof named === 'string' && isIP(named.trim()) !== 0) return normalizeIp(named.trim());
    return normalizeIp(request.ip);
  };
}

// ---------------------------------------------------------------------------------------
// The plugin

/** The limit headers of an answer, for the longest window's result (both spellings). */
export function limitHeaders(result: WindowResult): Record<string, string> {
  const remaining = String(Math.max(0, result.spec.points - result.consumed));
  const reset = new Date(result.resetAt).toISOString();
  // Lower case, as Fastify sends the names it is given (the fast path writes these as they are).
  return {
    'x-rate-limit-limit': result.spec.id,
    'x-rate-limit-remaining': remaining,
    'x-rate-limit-reset': reset,
    'x-ratelimit-limit': result.spec.id,
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
  };
}

/**
 * What a request's window counts mean, for the limits hook and the stored-response fast path
 * alike: the limit headers of its answer (the longest window's; none when nothing was counted)
 * and the windows it went over (empty: admitted).
 */
export function limitOutcome(results: readonly WindowResult[], longest: WindowSpec): { headers: Record<string, string> | undefined; exceeded: WindowResult[] } {
  const longestResult = results.find((r) => r.spec === longest) ?? results[results.length - 1];
  return { headers: longestResult ? limitHeaders(longestResult) : undefined, exceeded: results.filter((r) => r.exceeded) };
}

/**
 * A request's count against the windows and the ban list, made either by the limits hook or,
 * ahead of Fastify, by the stored-response fast path (which then leaves the request on the
 * raw message, so that the hook decides its answer without counting it twice).
 */
/** `banMs`: what is left of the IP's ban, ms (null: not banned) */
type Count = { banMs: number | null; results: WindowResult[] } | { unavailable: unknown };
const COUNTED = Symbol('skymarket.limitCount');
type Counted = { [COUNTED]?: Count };

/**
 * The ban's 403: a problem body (slug `blocked`) that keeps the fields the established service's
 * ban answer has (`error`, `message`, `resolution`), with Retry-After for the rest of the ban.
 */
export function blockedProblem(ip: string, retryAfterSec: number): HttpProblem {
  const message = `Your IP (${ip}) has been blocked for exceeding rate limits repeatedly.`;
  const resolution =
    'Wait for the block to expire, or send a valid Premium+ account token (Authorization: Bearer <token>) to unblock this IP. ' +
    'Keep to about 1 request per second and respect Retry-After on 429.';
  return new HttpProblem(
    403,
    'blocked',
    `${message} Retry after ${retryAfterSec} s.`,
    { error: 'blocked', message, resolution, docs: '/api/docs', retryAfter: retryAfterSec },
    { 'Retry-After': String(retryAfterSec) },
  );
}

export const limitsPlugin = fp(
  async function limits(app: FastifyInstance) {
    const { config } = app.context;
    let redis: Redis | null = null;
    let outage: Outage | null = null;
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableAutoPipelining: true });
      // One line when Redis goes away and one when it is back; every failure between is counted, not logged.
      const redisOutage = (outage = new Outage(app.context.metrics.registry, { dependency: 'redis', user: 'rate limits' }, app.log));
      redis.on('error', (err) => redisOutage.failed(err));
      redis.on('ready', () => redisOutage.ok());
      try {
        await redis.connect();
      } catch (err) {
        redis.disconnect();
        throw new Error(`Redis unreachable at ${redact(config.redisUrl)}: ${err instanceof Error ? err.message : String(err)}`);
      }
      app.addHook('onClose', async () => {
        await redis?.quit().catch(() => redis?.disconnect());
      });
    }
    app.decorate('redis', redis);
    app.decorate('redisOutage', outage);
    app.decorateRequest('clientIp', '');

    const windows = GENERAL_LIMITS.map((spec) => windowOn(app, 'rl', spec));
    const longest = windows.reduce((a, b) => (b.spec.durationSec > a.spec.durationSec ? b : a));
    // 429s per IP within an hour; over the threshold the IP is blacklisted.
    const violations = makeLimiter(app, 'rl:violations', config.rateLimitBanThreshold, 3600);
    const bans = makeLimiter(app, 'rl:ban', 1, config.rateLimitBanSeconds);
    const exempt = networkList(config.rateLimitExempt);
    const clientIp = clientIpResolver(config.trustProxy, config.trustProxyHeader);

    /** ms left of the IP's ban, or null when it is not banned */
    async function banLeft(ip: string): Promise<number | null> {
      const res = await bans.get(ip);
      return res !== null && res.consumedPoints > 1 ? Math.max(0, res.msBeforeNext) : null;
    }

    // Exemption by client address, remembered per address: BlockList.check builds a SocketAddress per call.
    const exemptIps = new Map<string, boolean>();
    const isExempt = (ip: string): boolean => {
      let hit = exemptIps.get(ip);
      if (hit === undefined) {
        hit = inNetworks(exempt, ip);
        if (exemptIps.size >= 10_000) exemptIps.clear();
        exemptIps.set(ip, hit);
      }
      return hit;
    };

    async function count(key: string, ip: string): Promise<Count> {
      try {
        const [banMs, results] = await Promise.all([banLeft(ip), Promise.all(windows.map((w) => w.consume(key)))]);
        outage?.ok();
        return { banMs, results };
      } catch (err) {
        return { unavailable: err };
      }
    }

    async function limit(request: FastifyRequest, reply: FastifyReply, ip: string): Promise<void> {
      // A Premium+ account with a valid token counts as itself, not as its IP, and is never banned.
      const hasToken = request.headers.authorization !== undefined || request.headers.identitytoken !== undefined || request.headers.googletoken !== undefined;
      const account = hasToken ? await resolveAccount(app, request) : null;
      const premiumPlus = account?.tier === 'premium_plus';
      const key = premiumPlus && account ? `account:${account.id}` : `ip:${ip}`;

      // Counted already by the fast path: only for requests without credentials, so under `ip:`.
      const counted = (request.raw as Counted)[COUNTED] ?? (await count(key, ip));
      if ('unavailable' in counted) {
        // The counter store is unreachable: serve rather than fail every request (counted, logged once per outage).
        unavailable(app, counted.unavailable);
        return;
      }
      const { banMs, results } = counted;
      if (banMs !== null) {
        if (!premiumPlus) throw blockedProblem(ip, Math.max(1, Math.ceil(banMs / 1000)));
        // A Premium+ token lifts the ban on its IP (not the limits).
        await Promise.all([bans.delete(ip), violations.delete(ip)]).catch(() => {});
        request.log.info({ account: account?.id }, 'IP unblocked by a Premium+ account');
      }
      const { headers, exceeded } = limitOutcome(results, longest.spec);
      if (headers) reply.headers(headers);
      if (exceeded.length === 0) return;
      // A refused request is not charged to any window: the windows count admitted requests, so a
      // client that bursts past the 10 s limit still gets its 100 per minute (refused ones count as violations).
      await Promise.all(windows.map((w) => w.refund(key, 1))).catch(() => {});

      if (!premiumPlus) {
        // Banned at the RATE_LIMIT_BAN_THRESHOLD-th 429 of the hour (the limiter itself refuses only the one after).
        const violation = await violations.consume(ip, 1).catch((err: unknown) => (err instanceof RateLimiterRes ? err : null));
        if (violation && violation.consumedPoints >= config.rateLimitBanThreshold) await bans.block(ip, config.rateLimitBanSeconds).catch(() => {});
      }
      const now = app.clock.now();
      const first = exceeded[0] as WindowResult;
      const retryAfter = Math.max(...exceeded.map((r) => retryAfterSeconds(r.resetAt, now)));
      throw new HttpProblem(
        429,
        'rate_limited',
        `API calls quota exceeded! maximum admitted ${describeWindow(first.spec)}. Retry after ${retryAfter} s.`,
        { limit: first.spec.id, retryAfter },
        { 'Retry-After': String(retryAfter) },
      );
    }

    // For the stored-response fast path (stored-responses.ts): the peer is the client only
    // when no proxy is trusted; then the same exemption as below.
    const proxyTrusted = config.trustProxy !== false && config.trustProxy !== 0;
    app.decorate('exemptPeer', (remoteAddress: string | undefined): boolean => {
      if (proxyTrusted || remoteAddress === undefined || config.rateLimitExempt.length === 0) return false;
      return isExempt(normalizeIp(remoteAddress));
    });
    // Also for the fast path: a limited client without credentials, counted as the hook below
    // counts it; the limit headers when it is admitted, else null and the count stays on the
    // message for the normal path's answer (429, 403, or served uncounted when the store is down).
    app.decorate('countPeerRequest', proxyTrusted
      ? null
      : async (raw: IncomingMessage): Promise<Record<string, string> | null> => {
          const ip = normalizeIp(raw.socket.remoteAddress ?? '');
          const counted = await count(`ip:${ip}`, ip);
          (raw as Counted)[COUNTED] = counted;
          if ('unavailable' in counted || counted.banMs !== null) return null;
          const { headers, exceeded } = limitOutcome(counted.results, longest.spec);
          return exceeded.length === 0 && headers ? headers : null;
        });

    // Callback style: exempt routes and clients pass without a promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      const ip = clientIp(request);
      request.clientIp = ip;
      if (routeFacts(request).config.rateLimit === false || (config.rateLimitExempt.length > 0 && isExempt(ip))) {
        done();
        return;
      }
      limit(request, reply, ip).then(() => done(), done);
    });
  },
  { name: 'skymarket-limits', dependencies: ['skymarket-errors'] },
);

// ---------------------------------------------------------------------------------------
// Special limiters for later areas

export interface CostLimiter {
  /** Charges `cost` units to `key`; throws a 429 problem (Retry-After) when they do not fit in the window. */
  consume(key: string, cost: number): Promise<void>;
}

/** A 429 problem with Retry-After (also in the body). */
function tooMany(slug: string, detail: string, extensions: Record<string, unknown>, retryAfter: number): HttpProblem {
  return new HttpProblem(429, slug, detail, { ...extensions, retryAfter }, { 'Retry-After': String(retryAfter) });
}

/** A request not counted because the counter store failed: counted in the outage (logged once per outage). */
function unavailable(app: FastifyInstance, err: unknown): void {
  if (app.redisOutage) app.redisOutage.failed(err);
  else app.log.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, 'rate limiter unavailable; request not counted');
}

/**
 * Charges `cost` to `key` in a window built on first use (the Redis client exists once the
 * limits plugin has run): when it went over (the charge is refunded), what was used before and
 * the seconds until the window ends; else null. When the counter store is unreachable the charge
 * is skipped (counted in the Redis outage): a special limit fails open like the general ones rather than answering 500.
 */
function windowCharger(app: FastifyInstance, keyPrefix: string, spec: WindowSpec) {
  let window: ClockWindow | undefined;
  const charge = async (key: string, cost: number): Promise<{ used: number; retryAfter: number } | null> => {
    window ??= windowOn(app, keyPrefix, spec);
    let result: WindowResult;
    try {
      result = await window.consume(key, cost);
      app.redisOutage?.ok();
    } catch (err) {
      unavailable(app, err);
      return null;
    }
    if (!result.exceeded) return null;
    await window.refund(key, cost).catch(() => {});
    return { used: result.consumed - cost, retryAfter: retryAfterSeconds(result.resetAt, app.clock.now()) };
  };
  const refund = async (key: string, cost: number): Promise<void> => {
    window ??= windowOn(app, keyPrefix, spec);
    await window.refund(key, cost).catch(() => {});
  };
  return { charge, refund };
}

/**
 * A per-key budget of `points` units per `durationSec` window (bazaar export: 5 per 300 s,
 * a full order book costs 3). A refused request is not charged. Same store as the
 * general limits (memory or Redis); the window follows the app clock.
 */
export function createCostLimiter(
  app: FastifyInstance,
  options: { keyPrefix: string; points: number; durationSec: number },
): CostLimiter {
  const spec: WindowSpec = { id: windowId(options.durationSec), points: options.points, durationSec: options.durationSec };
  const { charge } = windowCharger(app, `cost:${options.keyPrefix}`, spec);
  return {
    async consume(key: string, cost: number): Promise<void> {
      if (!Number.isInteger(cost) || cost < 1) throw new RangeError(`cost must be a positive integer, got ${cost}`);
      if (cost > spec.points) {
        throw new HttpProblem(429, 'rate_limited', `This request costs ${cost} units; the limit is ${spec.points} per ${spec.id}.`, { limit: spec.id }, {});
      }
      const refused = await charge(key, cost);
      if (!refused) return;
      const { used, retryAfter } = refused;
      throw tooMany('rate_limited', `Limit of ${spec.points} units per ${spec.id} reached (${used} used, this request costs ${cost}). Retry after ${retryAfter} s.`, { limit: spec.id, cost, used }, retryAfter);
    },
  };
}

export interface ByteQuota {
  /** Charges `bytes` to `key`; throws a 429 `quota_exceeded` problem (Retry-After) when they do not fit. */
  charge(key: string, bytes: number): Promise<void>;
  /** Gives bytes back (the upload was refused, or stored smaller than charged). */
  refund(key: string, bytes: number): Promise<void>;
}

/**
 * A storage quota: at most `bytes` per key per `durationSec` window (proxied uploads: per client
 * and for all clients together, per day). Counted like the other limits (memory or Redis, on the
 * app clock), so it holds across API processes; fails open when Redis is down.
 */
export function createByteQuota(app: FastifyInstance, options: { keyPrefix: string; bytes: number; durationSec: number; what: string }): ByteQuota {
  const spec: WindowSpec = { id: windowId(options.durationSec), points: options.bytes, durationSec: options.durationSec };
  const { charge, refund } = windowCharger(app, `quota:${options.keyPrefix}`, spec);
  return {
    async charge(key: string, bytes: number): Promise<void> {
      const refused = await charge(key, bytes);
      if (!refused) return;
      const { used, retryAfter } = refused;
      throw tooMany('quota_exceeded', `${options.what}: ${used} of ${options.bytes} bytes per ${spec.id} used; this one needs ${bytes}. Retry after ${retryAfter} s.`, { quota: options.bytes, used, needed: bytes }, retryAfter);
    },
    async refund(key: string, bytes: number): Promise<void> {
      if (bytes > 0) await refund(key, bytes);
    },
  };
}

function windowId(durationSec: number): string {
  if (durationSec % 86_400 === 0) return `${durationSec / 86_400}d`;
  if (durationSec % 3600 === 0) return `${durationSec / 3600}h`;
  if (durationSec % 60 === 0) return `${durationSec / 60}m`;
  return `${durationSec}s`;
}

/** Throws a 429 problem when `queued` jobs already fill the `cap` (archive export: 4 per account). */
export function assertQueueCapacity(queued: number, cap: number, what = 'export jobs'): void {
  if (queued < cap) return;
  throw new HttpProblem(
    429,
    'queue_full',
    `At most ${cap} queued ${what} per account; ${queued} are waiting. Retry when one has finished.`,
    { queued, cap },
    { 'Retry-After': '60' },
  );
}
