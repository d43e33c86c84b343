/**
 * The only code that talks to the upstream API. Every request has a timeout, is
 * retried with exponential backoff and jitter on network errors, timeouts, 429 and
 * 5xx, and is measured (requests, errors, latency, bytes). A body that is not valid
 * JSON counts as a failed attempt too (upstream truncation happens).
 */
import { gunzipSync } from 'node:zlib';
import { describeNetworkError } from '../network-errors.ts';
import { Agent, type Dispatcher } from 'undici';
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

/** The header the skymarket simulator sends on every answer (`true`): its data is not the real API's. */
export const SIMULATOR_HEADER = 'x-skymarket-simulated';

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

/**
 * A response body buffer a caller reuses from request to request (one per concurrent
 * request), so receiving many large pages allocates nothing once it has grown to fit them.
 */
export class BodyBuffer {
  private bytes: Buffer;
  /** bytes of the current body */
  length = 0;

  constructor(capacity = 0) {
    this.bytes = Buffer.allocUnsafeSlow(capacity);
  }

  /** Starts a new body; `expected` (the Content-Length, or 0) sizes the buffer up front. */
  reset(expected: number): void {
    this.length = 0;
    if (expected > this.bytes.length) this.bytes = Buffer.allocUnsafeSlow(expected);
  }

  append(chunk: Uint8Array): void {
    const needed = this.length + chunk.length;
    if (needed > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(needed, this.bytes.length * 2, 16 * 1024));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.length);
    this.length = needed;
  }

  /** The current body (shares the buffer's memory: valid until the next reset). */
  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

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
  private readonly origin: string;
  /** host[:port] of the upstream, named in error messages */
  private readonly host: string;
  /** a path prefix of baseUrl, e.g. "/api" */
  private readonly basePath: string;
  private readonly headers: Record<string, string>;
  private simulatedUpstream = false;

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
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.host = base.host;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.headers = {
      'accept-encoding': 'gzip',
      'user-agent': 'skymarket (+https://github.com/skymarket)',
      ...(options.apiKey ? { 'api-key': options.apiKey } : {}),
    };
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
   * the attempt counts as a bad body and is retried like truncated JSON. With `into`, the
   * body is received into that buffer: `parse` must not keep the Buffer it is given beyond
   * the caller's use of it, as the next request into `into` overwrites it.
   */
  async getWith<T>(path: string, accept: number[], parse: (raw: Buffer) => T, into?: BodyBuffer): Promise<UpstreamResponse<T>> {
    const endpoint = endpointLabel(path);
    let lastError: UpstreamError | undefined;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await sleep(lastError?.status === 429 ? Math.max(1000, this.backoff(attempt)) : this.backoff(attempt));
      const started = performance.now();
      try {
        const result = await this.attempt(path, accept, parse, into);
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

  private async attempt<T>(path: string, accept: number[], parse: (raw: Buffer) => T, into?: BodyBuffer): Promise<UpstreamResponse<T>> {
    const response = await this.receive(path, into);
    const { statusCode } = response;
    if (statusCode !== 200 && !accept.includes(statusCode)) {
      throw new UpstreamError(path, statusCode, 'status', `GET ${this.shown(path)}: HTTP ${statusCode}`);
    }
    let body: Buffer;
    try {
      body = response.gzip ? gunzipSync(response.body, { maxOutputLength: MAX_BODY_BYTES }) : response.body;
    } catch (err) {
      throw new UpstreamError(path, statusCode, 'bad_json', `GET ${this.shown(path)}: undecodable body: ${String(err)}`);
    }
    try {
      return { status: statusCode, body: parse(body), bytes: body.length };
    } catch (err) {
      const why = err instanceof SyntaxError ? 'not valid JSON' : `not usable (${err instanceof Error ? err.message : String(err)})`;
      throw new UpstreamError(path, statusCode, 'bad_json', `GET ${this.shown(path)}: body is ${why} (${body.length} bytes)`);
    }
  }

  /**
   * One GET through undici's dispatch interface: each chunk is copied once, straight into
   * `into` (or into one buffer sized by Content-Length). Collecting a Readable's chunks and
   * concatenating them cost twice the CPU for an auctions page and allocated a fresh ~1.5 MB
   * buffer per page (~92 MB per generation), which also drove the GC.
   */
  private receive(path: string, into: BodyBuffer | undefined): Promise<{ statusCode: number; gzip: boolean; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const target = into ?? new BodyBuffer(0);
      let statusCode = 0;
      let gzip = false;
      let overflow = false;
      let settled = false;
      let controller: Dispatcher.DispatchController | undefined;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        // Not started yet (waiting for a connection): it is aborted as soon as it starts.
        if (controller) controller.abort(new Error('request timeout'));
        else fail(new UpstreamError(path, undefined, 'timeout', `GET ${this.shown(path)}: no response within ${this.timeoutMs} ms (UPSTREAM_TIMEOUT_MS)`));
      }, this.timeoutMs);
      const fail = (err: UpstreamError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (c) => {
          controller = c;
          if (timedOut) c.abort(new Error('request timeout'));
        },
        onResponseStart: (_c, status, headers) => {
          statusCode = status;
          this.noteSimulator(String(headers[SIMULATOR_HEADER] ?? '') === 'true');
          gzip = String(headers['content-encoding'] ?? '').includes('gzip');
          const length = Number(headers['content-length']);
          target.reset(Number.isSafeInteger(length) && length > 0 && length <= MAX_BODY_BYTES ? length : 0);
        },
        onResponseData: (c, chunk) => {
          if (settled) return;
          if (target.length + chunk.length > MAX_BODY_BYTES) {
            overflow = true;
            c.abort(new Error('body too large'));
            return;
          }
          target.append(chunk);
        },
        onResponseEnd: () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ statusCode, gzip, body: target.view() });
        },
        onResponseError: (_c, err) => {
          if (overflow) fail(new UpstreamError(path, statusCode, 'bad_json', `GET ${this.shown(path)}: body over ${MAX_BODY_BYTES} bytes`));
          else if (timedOut) fail(new UpstreamError(path, statusCode || undefined, 'timeout', `GET ${this.shown(path)}: no complete response within ${this.timeoutMs} ms (UPSTREAM_TIMEOUT_MS)`));
          else if (/timeout/i.test(`${err.name} ${err.message}`)) fail(new UpstreamError(path, statusCode || undefined, 'timeout', `GET ${this.shown(path)}: ${describeNetworkError(err, this.host)}`));
          else fail(new UpstreamError(path, statusCode || undefined, 'network', `GET ${this.shown(path)}: ${describeNetworkError(err, this.host)}`));
        },
      };
      try {
        this.agent.dispatch({ origin: this.origin, path: `${this.basePath}${path}`, method: 'GET', headers: this.headers }, handler);
      } catch (err) {
        fail(new UpstreamError(path, undefined, 'network', `GET ${this.shown(path)}: ${describeNetworkError(err, this.host)}`));
      }
    });
  }

  /** Whether the latest answer came from the skymarket simulator (it says so in SIMULATOR_HEADER). */
  get simulated(): boolean {
    return this.simulatedUpstream;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private noteSimulator(simulated: boolean): void {
    if (simulated && !this.simulatedUpstream) {
      this.options.logger?.warn({ upstream: this.shown('') }, 'the upstream identifies itself as the skymarket simulator: its data is stored and shown as simulated');
    }
    this.simulatedUpstream = simulated;
  }

  /** The request's URL as error messages show it (no credentials: the API key is a header). */
  private shown(path: string): string {
    return `${this.origin}${this.basePath}${path}`;
  }
}

/** `/v2/skyblock/auctions?page=3` → `/v2/skyblock/auctions`: bounded metric labels. */
function endpointLabel(path: string): string {
  return path.split('?')[0] ?? path;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
