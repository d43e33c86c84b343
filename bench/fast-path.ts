/**
 * The stored-response fast path's own cost per request (src/http/stored-responses.ts), without
 * sockets, the kernel or a load generator: real IncomingMessage / ServerResponse objects on a
 * socket that discards what it is given, the app's fast path answering a bazaar snapshot (a
 * deep book, ~3 KB) against
 *
 * - a bare handler writing the fast path's exact header object and bytes: Node's cost of those
 *   header lines (it validates each on every writeHead), so the difference is the fast path's own work;
 * - the bare bench server's handler (bench/servers/bare-bytes.ts: content type and length only).
 *
 * CPU per request (process.cpuUsage), alternated rounds, the median and the best round.
 * `npm run bench -- fast-path` (or `--quick`).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { encodeBook } from '../src/domain/bazaar-book.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { median, type BenchOptions, type BenchRow } from './lib.ts';

/** A socket that takes every write at once (strings as they are, like a net.Socket's writev). */
class Sink extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  constructor() {
    super({ decodeStrings: false });
  }
  override _read(): void {}
  override _write(_chunk: unknown, _encoding: string, callback: () => void): void {
    callback();
  }
  override _writev(_chunks: unknown[], callback: () => void): void {
    callback();
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const t = await createTestApp();
  try {
    const now = t.clock.now();
    const levels = (from: number, step: number) => Array.from({ length: 30 }, (_, i) => ({ amount: 64 * (i + 1), pricePerUnit: from + i * step, orders: i + 1 }));
    await t.store.bazaar.insertSnapshot(
      [
        {
          product_id: 'BZ_ITEM', ts: now - 30_000, buy_price: 100, sell_price: 98.5, buy_volume: 12_345, sell_volume: 6_789, buy_moving_week: 1_000_000, sell_moving_week: 900_000,
          buy_orders: 30, sell_orders: 30, book: encodeBook({ buyOrders: levels(98.5, -0.1), sellOffers: levels(100, 0.1) }),
        },
      ],
      { name: 'bazaar', lastUpdated: now - 30_000, storedAt: now, records: 1, source: 'simulator' },
    );
    const path = '/api/bazaar/BZ_ITEM/snapshot';
    // The first requests prepare the answer.
    for (let i = 0; i < 2; i++) await t.app.inject({ url: path });

    const sockets = Array.from({ length: 64 }, () => new Sink() as unknown as Socket);
    let next = 0;
    const request = (): [IncomingMessage, ServerResponse] => {
      const socket = sockets[next++ % sockets.length]!;
      const req = new IncomingMessage(socket);
      req.method = 'GET';
      req.url = path;
      req.httpVersionMajor = 1;
      req.httpVersionMinor = 1;
      // What autocannon sends.
      req.rawHeaders = ['host', '127.0.0.1:40000'];
      const res = new ServerResponse(req);
      res.shouldKeepAlive = true;
      res.assignSocket(socket);
      res.on('finish', () => res.detachSocket(socket));
      return [req, res];
    };

    const stored = t.app.storedResponses;
    const fast: Handler = (req, res) => {
      if (!stored.serve(req, res)) throw new Error('the fast path did not take the request');
    };
    // The fast path's own header object and body, as it writes them.
    let sent: { headers: Record<string, string>; body: Buffer } | undefined;
    {
      const [req, res] = request();
      const writeHead = res.writeHead.bind(res);
      const end = res.end.bind(res);
      let headers: Record<string, string> = {};
      Object.assign(res, {
        writeHead: (status: number, h: Record<string, string>) => ((headers = h), writeHead(status, h)),
        end: (body: Buffer) => ((sent = { headers, body }), end(body)),
      });
      fast(req, res);
      await new Promise((resolve) => setImmediate(resolve));
      next = 0;
    }
    if (!sent) throw new Error('nothing sent');
    const { headers, body } = sent;
    const sameHeaders: Handler = (_req, res) => {
      res.writeHead(200, headers);
      res.end(body);
    };
    const bareHeaders = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
    const bare: Handler = (_req, res) => {
      res.writeHead(200, bareHeaders);
      res.end(body);
    };

    const n = options.quick ? 20_000 : 100_000;
    const rounds = options.quick ? 3 : 9;
    const measure = async (handler: Handler): Promise<number> => {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) {
        const [req, res] = request();
        handler(req, res);
        // Let the sockets' callbacks run (and free them) every so often.
        if (i % sockets.length === sockets.length - 1) await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setImmediate(resolve));
      const used = process.cpuUsage(c0);
      return (used.user + used.system) / n;
    };
    const handlers = { fast, sameHeaders, bare };
    const times: Record<keyof typeof handlers, number[]> = { fast: [], sameHeaders: [], bare: [] };
    const names = Object.keys(handlers) as Array<keyof typeof handlers>;
    for (let round = 0; round < rounds; round++) {
      // Each handler first in turn: what one round leaves (garbage, caches) falls on each alike.
      for (let k = 0; k < names.length; k++) {
        const name = names[(round + k) % names.length]!;
        times[name].push(await measure(handlers[name]));
      }
    }
    const best = (xs: number[]) => Math.min(...xs);
    const row = (name: string, key: keyof typeof handlers, notes: string): BenchRow => ({
      name,
      figure: median(times[key]),
      unit: 'µs CPU per request',
      ratio: median(times.bare) / median(times[key]),
      baseline: 'bare handler (2 headers)',
      notes: `best round ${best(times[key]).toFixed(2)} µs; ${notes}`,
    });
    return [
      row(`stored-response fast path, bazaar snapshot (${body.length} B)`, 'fast', `${Object.keys(headers).length} header lines`),
      row('bare handler writing the fast path\'s header object and bytes', 'sameHeaders', 'Node\'s cost of the header lines alone'),
      row('bare handler (content type and length)', 'bare', `${rounds} alternated rounds of ${n.toLocaleString('en-US')} requests`),
    ];
  } finally {
    await t.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
