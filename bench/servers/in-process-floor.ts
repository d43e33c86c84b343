/**
 * A bare `node:http` listener inside a benchmark target's own process: for each path and the
 * request headers that choose the answer (Accept, Accept-Encoding, Authorization) it asks the app
 * once (raw bytes and header lines, as on the wire) and from then on writes those bytes itself,
 * with nothing but a map lookup in front. It is the floor of
 * any route in that process: the same isolate, heap, timers and Node internals as the app, so a
 * ratio against it measures the route's own code, and its distance to a bare server in a fresh
 * process measures what running inside a large app costs every handler (docs/performance.md).
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Replay {
  headers: Record<string, string>;
  body: Buffer;
}

/** Header lines Node writes itself on every response: a floor copying an answer leaves them to Node (bench/speed.ts too). */
export const NODE_WRITES: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The request headers that choose the answer: sent on to the app, and part of the replay's key. */
const CHOOSING = ['accept', 'accept-encoding', 'authorization'] as const;

function choosingHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const chosen: Record<string, string> = {};
  for (const name of CHOOSING) {
    const value = headers[name];
    if (typeof value === 'string') chosen[name] = value;
  }
  return chosen;
}

function fetchRaw(appUrl: string, path: string, forwarded: Record<string, string>): Promise<Replay & { status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, appUrl), { headers: forwarded }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (!NODE_WRITES.has(name) && typeof value === 'string') out[name] = value;
        out['content-length'] = String(body.length);
        resolve({ status: res.statusCode ?? 0, headers: out, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts the floor beside the app listening at `appUrl`; resolves with its own URL. */
export async function startInProcessFloor(appUrl: string): Promise<{ url: string; server: Server }> {
  const replays = new Map<string, Replay>();
  const server = createServer((req, res) => {
    const key = `${req.url ?? '/'}\u0000${CHOOSING.map((name) => req.headers[name] ?? '').join('\u0000')}`;
    const known = replays.get(key);
    if (known) {
      res.writeHead(200, known.headers);
      res.end(known.body);
      return;
    }
    fetchRaw(appUrl, req.url ?? '/', choosingHeaders(req.headers)).then(
      (answer) => {
        if (answer.status === 200) replays.set(key, { headers: answer.headers, body: answer.body });
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      },
      (error: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
