/**
 * One typed configuration, read from environment variables and CLI flags (flags win),
 * validated once at start. An invalid value fails with a single line naming the variable.
 * Every variable is documented in docs/configuration.md (test/unit/docs/configuration.test.ts checks it).
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { DEMO_YEAR_MS, simulatorOptionsFromEnv, type SimulatorOptions } from './simulator/config.ts';
import { SKYBLOCK_YEAR_MS } from './domain/skyblock-calendar.ts';

export const ROLES = ['all', 'api', 'ingest', 'jobs'] as const;
export type Role = (typeof ROLES)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Which client addresses may set the client IP through proxy headers. */
export type TrustProxy = boolean | number | string[];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** undefined = embedded SQLite file in dataDir */
  databaseUrl: string | undefined;
  /** undefined = in-memory rate limits and caches */
  redisUrl: string | undefined;
  upstreamUrl: string;
  trustProxy: TrustProxy;
  logLevel: LogLevel;
  /** auto: readable lines on a terminal, JSON otherwise; json; pretty */
  logFormat: LogFormat;
  role: Role;
  /** largest accepted request body in bytes */
  bodyLimit: number;
  /** allowed CORS origins; ['*'] = any */
  corsOrigins: string[];
  /** seconds a graceful shutdown may take before the process exits anyway */
  shutdownGraceSeconds: number;
  /** demo mode: the built-in simulator is the upstream */
  demo: boolean;
  /** the built-in simulator's settings (SIM_*), present when `demo` is set */
  simulator?: SimulatorOptions;
  /** Hypixel API key, sent as API-Key (the public market endpoints need none) */
  upstreamApiKey: string | undefined;
  upstreamTimeoutMs: number;
  upstreamConcurrency: number;
  /** seconds between polls, per feed */
  ingestIntervals: {
    auctions: number;
    ended: number;
    bazaar: number;
    items: number;
    election: number;
  };
  /** client networks exempt from the per-IP rate limits (IPs or CIDRs) */
  rateLimitExempt: string[];
  /** 429s within an hour after which an IP is blacklisted (403) */
  rateLimitBanThreshold: number;
  /** how long a blacklisted IP stays blocked, seconds */
  rateLimitBanSeconds: number;
  /** prefix of every Redis key skymarket writes */
  redisPrefix: string;
  /** a NotEnoughUpdates repository checkout to read game data from (overrides the synced copy) */
  gameDataDir: string | undefined;
  /** where `skymarket gamedata sync` downloads the NEU repository archive from */
  gameDataUrl: string;
  /**
   * Where archive exports may be delivered: host names (https, the host or a subdomain)
   * or exact origins (`http://127.0.0.1:9000`). No other webhook target is ever contacted.
   */
  exportWebhookHosts: string[];
  /** ms between the flip engine's looks at the feed state (0 = never; tests refresh by hand) */
  flipsPollMs: number;
  /** ms a rendered web page is reused for the same URL and data generation (0 = render every request) */
  webPageCacheMs: number;
  /** ms between a standby's attempts at the ingest/jobs leader lock, and a leader's checks of it (PostgreSQL) */
  leaderRetryMs: number;
  /** worker threads that decode a cold auctions sweep beside the ingest thread (0: none) */
  ingestDecodeWorkers: number;
  /** distinct players who must upload the same NPC shop offer before NPC flips use it */
  npcUploadQuorum: number;
  /**
   * Old-generation limit (MB) of the worker thread the compiled `serve` runs the service in;
   * 0 = in the main thread with V8's own sizing; undefined = the default (heap.ts)
   */
  heapMb: number | undefined;
  /** bytes of proxied uploads (as stored, compressed) one client may store per day */
  proxyQuotaClientMb: number;
  /** bytes of proxied uploads all clients together may store per day */
  proxyQuotaTotalMb: number;
  /** the one vendor header that names the client when a trusted proxy sends it (else X-Forwarded-For only) */
  trustProxyHeader: TrustProxyHeader | undefined;
  /** ms a client has to send a whole request (headers and body); 0 = no limit */
  requestTimeoutMs: number;
  /** ms a client has to send a request's headers */
  headersTimeoutMs: number;
  /** open mod WebSocket sessions per process, per account and per client IP */
  modSessionsMax: number;
  modSessionsPerAccount: number;
  modSessionsPerIp: number;
  /** live feeds (docs/streaming.md): concurrent connections per client IP and per account (tiers raise both) */
  streamConnectionsPerIp: number;
  streamConnectionsPerAccount: number;
  /** bytes a feed connection may have unsent before it is closed as too slow */
  streamQueueBytes: number;
  /** how long events stay resumable with Last-Event-ID (seconds, at least 600) */
  streamRetentionSeconds: number;
  /** seconds between heartbeats on an idle feed connection */
  streamHeartbeatSeconds: number;
  /** the shared Redis stream's approximate MAXLEN, in batches (one per generation, sales batch or bazaar snapshot) */
  streamRedisMaxlen: number;
  /** when set, GET /metrics needs `Authorization: Bearer <token>` */
  metricsToken: string | undefined;
  /** seconds an export job may run without a sign of life before another worker takes it over */
  exportLeaseSeconds: number;
  /** the terms of the data this deployment serves, set by its operator (the software itself is MIT) */
  dataTerms: string;
  /** the site's public address, for links in alerts (docs/alerts.md); unset: alerts carry no link */
  alertLinkBase: string | undefined;
  /** test seam: alert webhooks may be http and reach private addresses (a local receiver); never in production */
  alertWebhookPrivateOk: boolean;
  /** an underpriced listing (docs/flips.md) is priced at least this share below its value after fees */
  underpricedMinShare: number;
  /** and its value rests on at least this many comparable sales */
  underpricedMinComparables: number;
}

/** Vendor headers a proxy in front may set to the client's address. */
export const TRUST_PROXY_HEADERS = ['cf-connecting-ip', 'true-client-ip', 'x-real-ip', 'fly-client-ip'] as const;
export type TrustProxyHeader = (typeof TRUST_PROXY_HEADERS)[number];

/** Thrown for any invalid setting; `message` is the one line shown to the operator. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid ${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** Values given on the command line, named after their environment variable. */
export type ConfigOverrides = Partial<Record<keyof typeof ENV_NAMES, string | boolean | undefined>>;

/** The environment variable behind every config field. */
export const ENV_NAMES = {
  port: 'PORT',
  host: 'HOST',
  dataDir: 'DATA_DIR',
  databaseUrl: 'DATABASE_URL',
  redisUrl: 'REDIS_URL',
  upstreamUrl: 'UPSTREAM_URL',
  trustProxy: 'TRUST_PROXY',
  logLevel: 'LOG_LEVEL',
  logFormat: 'LOG_FORMAT',
  role: 'ROLE',
  bodyLimit: 'BODY_LIMIT',
  corsOrigins: 'CORS_ORIGINS',
  shutdownGraceSeconds: 'SHUTDOWN_GRACE_SECONDS',
  demo: 'DEMO',
  upstreamApiKey: 'UPSTREAM_API_KEY',
  upstreamTimeoutMs: 'UPSTREAM_TIMEOUT_MS',
  upstreamConcurrency: 'UPSTREAM_CONCURRENCY',
  ingestIntervals: 'INGEST_*_SECONDS',
  rateLimitExempt: 'RATE_LIMIT_EXEMPT',
  rateLimitBanThreshold: 'RATE_LIMIT_BAN_THRESHOLD',
  rateLimitBanSeconds: 'RATE_LIMIT_BAN_SECONDS',
  redisPrefix: 'REDIS_PREFIX',
  gameDataDir: 'GAME_DATA_DIR',
  gameDataUrl: 'GAME_DATA_URL',
  exportWebhookHosts: 'EXPORT_WEBHOOK_HOSTS',
  flipsPollMs: 'FLIPS_POLL_MS',
  webPageCacheMs: 'WEB_PAGE_CACHE_MS',
  leaderRetryMs: 'LEADER_RETRY_MS',
  npcUploadQuorum: 'NPC_UPLOAD_QUORUM',
  ingestDecodeWorkers: 'INGEST_DECODE_WORKERS',
  heapMb: 'SKYMARKET_HEAP_MB',
  proxyQuotaClientMb: 'PROXY_QUOTA_CLIENT_MB',
  proxyQuotaTotalMb: 'PROXY_QUOTA_TOTAL_MB',
  trustProxyHeader: 'TRUST_PROXY_HEADER',
  requestTimeoutMs: 'REQUEST_TIMEOUT_MS',
  headersTimeoutMs: 'HEADERS_TIMEOUT_MS',
  modSessionsMax: 'MOD_SESSIONS_MAX',
  modSessionsPerAccount: 'MOD_SESSIONS_PER_ACCOUNT',
  modSessionsPerIp: 'MOD_SESSIONS_PER_IP',
  streamConnectionsPerIp: 'STREAM_CONNECTIONS_PER_IP',
  streamConnectionsPerAccount: 'STREAM_CONNECTIONS_PER_ACCOUNT',
  streamQueueBytes: 'STREAM_QUEUE_BYTES',
  streamRetentionSeconds: 'STREAM_RETENTION_SECONDS',
  streamHeartbeatSeconds: 'STREAM_HEARTBEAT_SECONDS',
  streamRedisMaxlen: 'STREAM_REDIS_MAXLEN',
  metricsToken: 'METRICS_TOKEN',
  exportLeaseSeconds: 'EXPORT_LEASE_SECONDS',
  dataTerms: 'DATA_TERMS',
  alertLinkBase: 'ALERT_LINK_BASE',
  alertWebhookPrivateOk: 'ALERT_WEBHOOK_PRIVATE_OK',
  underpricedMinShare: 'UNDERPRICED_MIN_SHARE',
  underpricedMinComparables: 'UNDERPRICED_MIN_COMPARABLES',
} as const satisfies Record<Exclude<keyof Config, 'simulator'>, string>;

/** Poll interval variables, per feed, with their defaults in seconds. */
export const INGEST_INTERVALS = {
  auctions: ['INGEST_AUCTIONS_SECONDS', 10],
  ended: ['INGEST_ENDED_SECONDS', 30],
  bazaar: ['INGEST_BAZAAR_SECONDS', 20],
  items: ['INGEST_ITEMS_SECONDS', 3600],
  election: ['INGEST_ELECTION_SECONDS', 300],
} as const;

export const DEFAULTS = {
  port: 8080,
  host: '0.0.0.0',
  dataDir: './data',
  upstreamUrl: 'https://api.hypixel.net',
  logLevel: 'info',
  logFormat: 'auto',
  role: 'all',
  bodyLimit: 1_048_576,
  corsOrigins: '*',
  shutdownGraceSeconds: 10,
  gameDataUrl: 'https://github.com/NotEnoughUpdates/NotEnoughUpdates-REPO/archive/refs/heads/master.tar.gz',
  exportWebhookHosts: 'discord.com,discordapp.com',
  dataTerms:
    "Free to use, commercially too, with credit: name Hypixel's API as the source of the market data and the NotEnoughUpdates repository as the source of the item data, and link to this service.",
} as const;

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, overrides: ConfigOverrides = {}): Config {
  const raw = (key: keyof typeof ENV_NAMES): string | undefined => {
    const flag = overrides[key];
    if (flag !== undefined) return String(flag);
    const value = env[ENV_NAMES[key]];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };

  const config: Config = {
    port: parseInteger(ENV_NAMES.port, raw('port'), DEFAULTS.port, 0, 65535),
    host: raw('host') ?? DEFAULTS.host,
    dataDir: resolve(raw('dataDir') ?? DEFAULTS.dataDir),
    databaseUrl: parseDatabaseUrl(raw('databaseUrl')),
    redisUrl: parseUrl(ENV_NAMES.redisUrl, raw('redisUrl'), ['redis:', 'rediss:']),
    upstreamUrl: parseUrl(ENV_NAMES.upstreamUrl, raw('upstreamUrl'), ['http:', 'https:']) ?? DEFAULTS.upstreamUrl,
    trustProxy: parseTrustProxy(raw('trustProxy')),
    logLevel: parseEnum(ENV_NAMES.logLevel, raw('logLevel'), LOG_LEVELS, DEFAULTS.logLevel),
    logFormat: parseEnum(ENV_NAMES.logFormat, raw('logFormat'), LOG_FORMATS, DEFAULTS.logFormat),
    role: parseEnum(ENV_NAMES.role, raw('role'), ROLES, DEFAULTS.role),
    bodyLimit: parseInteger(ENV_NAMES.bodyLimit, raw('bodyLimit'), DEFAULTS.bodyLimit, 1024, 1024 ** 3),
    corsOrigins: (raw('corsOrigins') ?? DEFAULTS.corsOrigins).split(',').map((s) => s.trim()).filter(Boolean),
    shutdownGraceSeconds: parseInteger(
      ENV_NAMES.shutdownGraceSeconds,
      raw('shutdownGraceSeconds'),
      DEFAULTS.shutdownGraceSeconds,
      1,
      600,
    ),
    demo: parseBoolean(ENV_NAMES.demo, raw('demo'), false),
    upstreamApiKey: raw('upstreamApiKey'),
    upstreamTimeoutMs: parseInteger(ENV_NAMES.upstreamTimeoutMs, raw('upstreamTimeoutMs'), 15_000, 100, 600_000),
    upstreamConcurrency: parseInteger(ENV_NAMES.upstreamConcurrency, raw('upstreamConcurrency'), 8, 1, 64),
    ingestIntervals: Object.fromEntries(
      Object.entries(INGEST_INTERVALS).map(([feed, [name, fallback]]) => {
        const value = env[name]?.trim();
        return [feed, parseInteger(name, value === '' ? undefined : value, fallback, 1, 86_400)];
      }),
    ) as Config['ingestIntervals'],
    rateLimitExempt: parseCidrList(ENV_NAMES.rateLimitExempt, raw('rateLimitExempt')),
    rateLimitBanThreshold: parseInteger(ENV_NAMES.rateLimitBanThreshold, raw('rateLimitBanThreshold'), 500, 1, 1_000_000),
    rateLimitBanSeconds: parseInteger(ENV_NAMES.rateLimitBanSeconds, raw('rateLimitBanSeconds'), 86_400, 1, 31_536_000),
    redisPrefix: parseRedisPrefix(raw('redisPrefix')),
    gameDataDir: raw('gameDataDir') === undefined ? undefined : resolve(raw('gameDataDir')!),
    gameDataUrl: parseUrl(ENV_NAMES.gameDataUrl, raw('gameDataUrl'), ['http:', 'https:']) ?? DEFAULTS.gameDataUrl,
    exportWebhookHosts: parseWebhookHosts(raw('exportWebhookHosts') ?? DEFAULTS.exportWebhookHosts),
    flipsPollMs: parseInteger(ENV_NAMES.flipsPollMs, raw('flipsPollMs'), 2000, 0, 600_000),
    webPageCacheMs: parseInteger(ENV_NAMES.webPageCacheMs, raw('webPageCacheMs'), 5000, 0, 600_000),
    leaderRetryMs: parseInteger(ENV_NAMES.leaderRetryMs, raw('leaderRetryMs'), 2000, 100, 60_000),
    ingestDecodeWorkers: parseInteger(ENV_NAMES.ingestDecodeWorkers, raw('ingestDecodeWorkers'), 0, 0, 8),
    npcUploadQuorum: parseInteger(ENV_NAMES.npcUploadQuorum, raw('npcUploadQuorum'), 2, 1, 1000),
    heapMb: parseHeapMb(raw('heapMb')),
    proxyQuotaClientMb: parseInteger(ENV_NAMES.proxyQuotaClientMb, raw('proxyQuotaClientMb'), 64, 1, 1_048_576),
    proxyQuotaTotalMb: parseInteger(ENV_NAMES.proxyQuotaTotalMb, raw('proxyQuotaTotalMb'), 1024, 1, 1_048_576),
    trustProxyHeader: raw('trustProxyHeader') === undefined ? undefined : parseEnum(ENV_NAMES.trustProxyHeader, raw('trustProxyHeader'), TRUST_PROXY_HEADERS, 'cf-connecting-ip'),
    ...parseTimeouts(raw('requestTimeoutMs'), raw('headersTimeoutMs')),
    modSessionsMax: parseInteger(ENV_NAMES.modSessionsMax, raw('modSessionsMax'), 2000, 1, 1_000_000),
    modSessionsPerAccount: parseInteger(ENV_NAMES.modSessionsPerAccount, raw('modSessionsPerAccount'), 5, 1, 1_000_000),
    modSessionsPerIp: parseInteger(ENV_NAMES.modSessionsPerIp, raw('modSessionsPerIp'), 20, 1, 1_000_000),
    streamConnectionsPerIp: parseInteger(ENV_NAMES.streamConnectionsPerIp, raw('streamConnectionsPerIp'), 10, 1, 1_000_000),
    streamConnectionsPerAccount: parseInteger(ENV_NAMES.streamConnectionsPerAccount, raw('streamConnectionsPerAccount'), 10, 1, 1_000_000),
    streamQueueBytes: parseInteger(ENV_NAMES.streamQueueBytes, raw('streamQueueBytes'), 16_777_216, 65_536, 1_073_741_824),
    streamRetentionSeconds: parseInteger(ENV_NAMES.streamRetentionSeconds, raw('streamRetentionSeconds'), 900, 600, 86_400),
    streamHeartbeatSeconds: parseInteger(ENV_NAMES.streamHeartbeatSeconds, raw('streamHeartbeatSeconds'), 15, 1, 300),
    streamRedisMaxlen: parseInteger(ENV_NAMES.streamRedisMaxlen, raw('streamRedisMaxlen'), 200, 10, 1_000_000),
    metricsToken: parseMetricsToken(raw('metricsToken')),
    exportLeaseSeconds: parseInteger(ENV_NAMES.exportLeaseSeconds, raw('exportLeaseSeconds'), 300, 10, 86_400),
    dataTerms: parseDataTerms(raw('dataTerms')),
    alertLinkBase: parseUrl(ENV_NAMES.alertLinkBase, raw('alertLinkBase'), ['http:', 'https:']),
    alertWebhookPrivateOk: parseBoolean(ENV_NAMES.alertWebhookPrivateOk, raw('alertWebhookPrivateOk'), false),
    underpricedMinShare: parseShare(ENV_NAMES.underpricedMinShare, raw('underpricedMinShare'), 0.1),
    underpricedMinComparables: parseInteger(ENV_NAMES.underpricedMinComparables, raw('underpricedMinComparables'), 3, 1, 1000),
    ...(parseBoolean(ENV_NAMES.demo, raw('demo'), false) ? { simulator: parseSimulator(env) } : {}),
  };  // An API process does not write the store: it follows the writer's changes through Redis (spine/).
  if (config.role === 'api' && !config.redisUrl) throw new ConfigError(ENV_NAMES.redisUrl, 'role api follows the ingest process\'s market changes through Redis: set REDIS_URL (docs/deployment.md)');
  return config;
}

/** The SkyBlock year's length the data follows: the real 124 h, or the demo simulator's compressed year. */
export function skyblockYearMs(config: Pick<Config, 'demo' | 'simulator'>): number {
  return config.demo ? (config.simulator?.yearMs ?? DEMO_YEAR_MS) : SKYBLOCK_YEAR_MS;
}

/** The demo's simulator (SIM_* variables, docs/configuration.md), read only when the demo runs. */
function parseSimulator(env: Env): SimulatorOptions {
  try {
    return simulatorOptionsFromEnv(env);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ConfigError(/^SIM_[A-Z_]+/.exec(message)?.[0] ?? 'SIM_*', message);
  }
}

/**
 * REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS: Node requires the headers' time to fit in the
 * request's (unless the request has none).
 */
function parseTimeouts(request: string | undefined, headers: string | undefined): Pick<Config, 'requestTimeoutMs' | 'headersTimeoutMs'> {
  const requestTimeoutMs = parseInteger(ENV_NAMES.requestTimeoutMs, request, 90_000, 0, 3_600_000);
  const headersTimeoutMs = parseInteger(ENV_NAMES.headersTimeoutMs, headers, Math.min(60_000, requestTimeoutMs || 60_000), 1000, 3_600_000);
  if (requestTimeoutMs > 0 && headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(ENV_NAMES.headersTimeoutMs, `must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs}), got ${headersTimeoutMs}`);
  }
  return { requestTimeoutMs, headersTimeoutMs };
}

/** DATA_TERMS: one line of plain text (pages escape it), shown on every page and in the API description. */
function parseDataTerms(value: string | undefined): string {
  if (value === undefined || value.trim() === '') return DEFAULTS.dataTerms;
  const terms = value.trim();
  if (terms.length > 1000 || /[\x00-\x1f\x7f]/.test(terms)) throw new ConfigError(ENV_NAMES.dataTerms, 'expected one line of at most 1000 characters');
  return terms;
}

/** METRICS_TOKEN: at least 16 characters, printable, no spaces (it goes in a header). */
function parseMetricsToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x21-\x7e]{16,256}$/.test(value)) throw new ConfigError(ENV_NAMES.metricsToken, 'expected 16-256 printable characters without spaces');
  return value;
}

/** EXPORT_WEBHOOK_HOSTS: comma-separated host names or http(s) origins. */
function parseWebhookHosts(value: string): string[] {
  const out: string[] = [];
  for (const entry of value.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (entry.includes('://')) {
      let url: URL;
      try {
        url = new URL(entry);
      } catch {
        throw new ConfigError(ENV_NAMES.exportWebhookHosts, `'${entry}' is not a URL`);
      }
      if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.username) {
        throw new ConfigError(ENV_NAMES.exportWebhookHosts, `'${entry}' must be a bare http(s) origin`);
      }
      out.push(url.origin);
    } else if (/^[a-z0-9.-]+$/i.test(entry) && !entry.startsWith('.') && !entry.endsWith('.')) {
      out.push(entry.toLowerCase());
    } else {
      throw new ConfigError(ENV_NAMES.exportWebhookHosts, `'${entry}' is not a host name`);
    }
  }
  return out;
}

/** RATE_LIMIT_EXEMPT: comma-separated IPv4/IPv6 addresses or CIDRs. */
function parseCidrList(name: string, value: string | undefined): string[] {
  if (value === undefined) return [];
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > max))) {
      throw new ConfigError(name, `expected a comma-separated list of IPs or CIDRs, got '${entry}'`);
    }
  }
  return entries;
}

function parseRedisPrefix(value: string | undefined): string {
  if (value === undefined) return 'skymarket:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(value)) {
    throw new ConfigError(ENV_NAMES.redisPrefix, `expected 1-64 letters, digits or ':_.-', got '${value}'`);
  }
  return value;
}

/** A share from 0.01 to 0.9 (a fraction, e.g. 0.1 for 10 %). */
function parseShare(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(n >= 0.01 && n <= 0.9)) throw new ConfigError(name, `expected a share from 0.01 to 0.9, got '${value}'`);
  return n;
}

function parseInteger(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value)) throw new ConfigError(name, `expected an integer, got '${value}'`);
  const n = Number(value);
  if (n < min || n > max) throw new ConfigError(name, `expected an integer from ${min} to ${max}, got ${value}`);
  return n;
}

/** SKYMARKET_HEAP_MB: 0 (V8's own sizing) or at least 128 MB, below which the service cannot start. */
function parseHeapMb(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const mb = parseInteger(ENV_NAMES.heapMb, value, 0, 0, 1_048_576);
  if (mb > 0 && mb < 128) throw new ConfigError(ENV_NAMES.heapMb, `expected 0 or at least 128 MB, got ${mb}`);
  return mb;
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  const v = value.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `expected true or false, got '${value}'`);
}

function parseEnum<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  const v = value.toLowerCase() as T;
  if (!allowed.includes(v)) throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got '${value}'`);
  return v;
}

function parseUrl(name: string, value: string | undefined, protocols: string[]): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `not a valid URL: '${redact(value)}'`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got '${redact(value)}'`);
  }
  return value.replace(/\/+$/, '');
}

function parseDatabaseUrl(value: string | undefined): string | undefined {
  return parseUrl(ENV_NAMES.databaseUrl, value, ['postgres:', 'postgresql:']);
}

/**
 * TRUST_PROXY: unset/false = use the socket address; true = trust every proxy;
 * a number = trust that many hops; otherwise a comma-separated list of addresses/CIDRs.
 */
function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  if (v === 'false' || v === '0') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!/^[0-9a-fA-F.:]+(\/\d{1,3})?$/.test(entry) && !['loopback', 'linklocal', 'uniquelocal'].includes(entry)) {
      throw new ConfigError(
        ENV_NAMES.trustProxy,
        `expected true, false, a hop count or a comma-separated list of IPs/CIDRs, got '${entry}'`,
      );
    }
  }
  return entries;
}

/** Hides a password in a connection URL before it is printed. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not parseable: hide anything between '//' and '@'.
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** A one-line summary for the start-up log, with secrets removed. */
export function describeConfig(config: Config): Record<string, unknown> {
  return {
    ...config,
    databaseUrl: config.databaseUrl ? redact(config.databaseUrl) : `sqlite:${config.dataDir}/skymarket.db`,
    redisUrl: config.redisUrl ? redact(config.redisUrl) : 'memory',
    upstreamApiKey: config.upstreamApiKey ? '[set]' : undefined,
    metricsToken: config.metricsToken ? '[set]' : undefined,
  };
}
