/**
 * A scriptable stand-in for the Hypixel API in ingestion tests: each path answers
 * from a queue of responses (the last one repeats), so a test can script 404s,
 * stale pages, 5xx bursts and truncated bodies exactly.
 */
import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';

export interface FakeResponse {
  status?: number;
  /** JSON-serialised unless a string */
  body?: unknown;
  /** send only this many bytes of the body (a truncated response) */
  truncateAt?: number;
  delayMs?: number;
  gzip?: boolean;
  /** extra response headers */
  headers?: Record<string, string>;
}

export class FakeUpstream {
  private readonly routes = new Map<string, FakeResponse[]>();
  readonly hits = new Map<string, number>();
  private server: Server | undefined;
  url = '';

  /** Answers `path` (with query) with these responses in turn; the last repeats. */
  on(path: string, ...responses: FakeResponse[]): this {
    this.routes.set(path, responses);
    return this;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const path = req.url ?? '/';
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const queue = this.routes.get(path);
      const response = queue && (queue.length > 1 ? queue.shift()! : queue[0]!);
      const send = () => {
        if (!response) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"success":false,"cause":"Not found"}');
          return;
        }
        let body = Buffer.from(typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? {}));
        if (response.truncateAt !== undefined) body = body.subarray(0, response.truncateAt);
        const headers: Record<string, string> = { 'content-type': 'application/json', ...response.headers };
        if (response.gzip) {
          body = gzipSync(body);
          headers['content-encoding'] = 'gzip';
        }
        res.writeHead(response.status ?? 200, headers).end(body);
      };
      if (response?.delayMs) setTimeout(send, response.delayMs);
      else send();
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
