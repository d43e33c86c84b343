/**
 * Local receivers for alert deliveries: a Discord-shaped webhook stub (POST /api/webhooks/<id>/<token>,
 * 204) and a generic receiver that verifies skymarket's signature and honours the idempotency key.
 * Both record what they got and can be told to fail.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/domain/alerts/targets.ts';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

export interface Receiver {
  url: string;
  origin: string;
  /** every request, accepted or not */
  requests: Received[];
  /** accepted alerts, once per idempotency key (the signed receiver), or every accepted request (Discord) */
  accepted: Received[];
  /** duplicates the idempotency key dropped */
  duplicates: number;
  /** requests whose signature did not verify */
  badSignatures: number;
  /** answer this status instead of success while set */
  failWith: number | undefined;
  /** the target's secret (set once the target is created) */
  secret: string | undefined;
  /** while it answers true, requests are processed but never answered (a receiver that stops mid-answer) */
  holdWhile?: () => boolean;
  close(): Promise<void>;
}

async function listen(handle: (r: Received, receiver: Receiver) => number): Promise<Receiver> {
  const receiver = { requests: [], accepted: [], duplicates: 0, badSignatures: 0, failWith: undefined, secret: undefined } as unknown as Receiver;
  const held: Array<{ destroy(): void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // recorded as it came
      }
      const r: Received = { path: req.url ?? '', headers: req.headers, body, json };
      receiver.requests.push(r);
      const status = receiver.failWith ?? handle(r, receiver);
      if (receiver.holdWhile?.()) {
        held.push(res);
        return;
      }
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.origin = `http://127.0.0.1:${port}`;
  receiver.url = receiver.origin;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Discord's webhook endpoint, as far as skymarket uses it: JSON with embeds, 204. */
export async function discordStub(): Promise<Receiver> {
  const r = await listen((req, self) => {
    if (!/^\/api\/webhooks\/\d+\/[\w-]+/.test(req.path) || !Array.isArray(req.json['embeds'])) return 400;
    self.accepted.push(req);
    return 204;
  });
  r.url = `${r.origin}/api/webhooks/123/token-abc`;
  return r;
}

/** A receiver that verifies `x-skymarket-signature` and drops repeated idempotency keys. */
export async function signedReceiver(): Promise<Receiver> {
  const seen = new Set<string>();
  const r = await listen((req, self) => {
    const ts = String(req.headers['x-skymarket-timestamp'] ?? '');
    const sig = String(req.headers['x-skymarket-signature'] ?? '');
    if (!self.secret || !verifySignature(self.secret, ts, req.body, sig)) {
      self.badSignatures++;
      return 401;
    }
    const key = String(req.headers['idempotency-key'] ?? '');
    if (seen.has(key)) {
      self.duplicates++;
      return 200;
    }
    seen.add(key);
    self.accepted.push(req);
    return 200;
  });
  r.url = `${r.origin}/hook`;
  return r;
}
