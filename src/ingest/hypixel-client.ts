/**
 * The only code that talks to the upstream API. Every request has a timeout, is
 * retried with exponential backoff and jitter on network errors, timeouts, 429 and
 * 5xx, and is measured (requests, errors, latency, bytes). A body that is not valid
 * JSON counts as a failed attempt too (upstream truncation happens).
 */
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../logger.ts';

export interface HypixelClientOptions {
  baseUrl: string;
  /** per-attempt timeout in ms */
  timeoutMs?: number;
  /** attempts after the first */
  retries?: number;
  /** concurrent connections to upstream */
  concurrency?: number;
  apiKey?: string | undefined;
  registry?: Registry;
  logger?: Logger;
  /** injectable for tests: how long to wait before retry `attempt` (1-based) */
  backoffMs?: (attempt: number) => number;
}

export interface UpstreamResponse<T> {
  status: number;
  body: T;
  bytes: number;
}

/** A request that failed after all retries, or with a status that is not retried. */
export class UpstreamError extends Error {
  constructor(
    readonly path: string,
    readonly status: number | undefined,
    readonly reason: 'network' | 'timeout' | 'status' | 'bad_json',
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

const RETRY_STATUS = new Set([408, 425, 429, 500, 502, 503, 504, 520, 521, 522, 524]);
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export function defaultBackoff(attempt: number): number {
  const base = Math.min(8_000, 250 * 2 ** (attempt - 1));
  return base / 2 + Math.random() * (base / 2);
}

export class HypixelClient {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoff: (attempt: number) => number;
  private readonly requests?: Counter<'endpoint' | 'outcome'>;
  private readonly latency?: Histogram<'endpoint'>;
  private readonly bytes?: Counter<'endpoint'>;

  constructor(private readonly options: HypixelClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.retries = options.retries ?? 3;
    this.backoff = options.backoffMs ?? defaultBackoff;
    this.agent = new Agent({
      connections: options.concurrency ?? 8,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      keepAliveTimeout: 30_000,
    });
    const registers = options.registry ? [options.registry] : [];
    if (options.registry) {
      this.requests = new Counter({
        name: 'skymarket_upstream_requests_total',
        help: 'Upstream HTTP attempts by endpoint and outcome (ok, http_<status>, timeout, network, bad_json)',
        labelNames: ['endpoint', 'outcome'],
        registers,
      });
      this.latency = new Histogram({
        name: 'skymarket_upstream_request_duration_seconds',
        help: 'Upstream request latency by endpoint',
        labelNames: ['endpoint'],
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
        registers,
      });
      this.bytes = new Counter({
        name: 'skymarket_upstream_bytes_total',
        help: 'Bytes received from upstream (after decompression)',
        labelNames: ['endpoint'],
        registers,
      });
    }
  }

  /**
   * GETs `path` and parses JSON. Statuses in `accept` (beyond 200) are returned to the
   * caller instead of retried, e.g. 404 for a missing auctions page.
   */
  getJson<T = unknown>(path: string, accept: number[] = []): Promise<UpstreamResponse<T>> {
    return this.getWith(path, accept, (raw) => JSON.parse(raw.toString('utf8')) as T);
  }

  /**
   * Like getJson, but the (decompressed) body is handed to `parse`; when `parse` throws,
   * the attempt counts as a bad body and is retried like truncated JSON.
   */
  async getWith<T>(path: string, accept: number[], parse: (raw: Buffer) => T): Promise<UpstreamResponse<T>> {
    const endpoint = endpointLabel(path);
    let lastError: UpstreamError | undefined;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(lastError?.status === 429 ? Math.max(1000, this.backoff(attempt)) : this.backoff(attempt));
      const started = performance.now();
      try {
        const result = await this.attempt(path, accept, parse);
        this.requests?.inc({ endpoint, outcome: result.status === 200 ? 'ok' : `http_${result.status}` });
        this.latency?.observe({ endpoint }, (performance.now() - started) / 1000);
        this.bytes?.inc({ endpoint }, result.bytes);
        return result;
      } catch (err) {
        lastError = err instanceof UpstreamError ? err : new UpstreamError(path, undefined, 'network', String(err));
        this.requests?.inc({ endpoint, outcome: lastError.reason === 'status' ? `http_${lastError.status}` : lastError.reason });
        const retriable = lastError.reason !== 'status' || RETRY_STATUS.has(lastError.status ?? 0);
        this.options.logger?.debug({ path, attempt, reason: lastError.reason, status: lastError.status }, 'upstream attempt failed');
        if (!retriable) throw lastError;
      }
    }
    throw lastError!;
  }

  private async attempt<T>(path: string, accept: number[], parse: (raw: Buffer) => T): Promise<UpstreamResponse<T>> {
    const url = `${this.options.baseUrl}${path}`;
    let response;
    try {
      response = await request(url, {
        dispatcher: this.agent,
        headers: {
          'accept-encoding': 'gzip',
          'user-agent': 'skymarket (+https://github.com/skymarket)',
          ...(this.options.apiKey ? { 'api-key': this.options.apiKey } : {}),
        },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = err instanceof Error && /timeout|abort/i.test(`${err.name} ${err.message}`);
      throw new UpstreamError(path, undefined, timedOut ? 'timeout' : 'network', `GET ${path}: ${String(err)}`);
    }
    const { statusCode } = response;
    let raw: Buffer;
    try {
      raw = Buffer.from(await response.body.arrayBuffer());
    } catch (err) {
      throw new UpstreamError(path, statusCode, 'timeout', `GET ${path}: body failed: ${String(err)}`);
    }
    if (statusCode !== 200 && !accept.includes(statusCode)) {
      throw new UpstreamError(path, statusCode, 'status', `GET ${path}: HTTP ${statusCode}`);
    }
    let body: Buffer;
    try {
      const encoding = String(response.headers['content-encoding'] ?? '');
      body = encoding.includes('gzip') ? gunzipSync(raw, { maxOutputLength: MAX_BODY_BYTES }) : raw;
    } catch (err) {
      throw new UpstreamError(path, statusCode, 'bad_json', `GET ${path}: undecodable body: ${String(err)}`);
    }
    try {
      return { status: statusCode, body: parse(body), bytes: body.length };
    } catch (err) {
      const why = err instanceof SyntaxError ? 'not valid JSON' : `not usable (${err instanceof Error ? err.message : String(err)})`;
      throw new UpstreamError(path, statusCode, 'bad_json', `GET ${path}: body is ${why} (${body.length} bytes)`);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** `/v2/skyblock/auctions?page=3` → `/v2/skyblock/auctions`: bounded metric labels. */
function endpointLabel(path: string): string {
  return path.split('?')[0] ?? path;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
