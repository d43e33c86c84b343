/**
 * The floor for bench/stream.ts: a bare `node:http` server that keeps every `GET /api/stream`
 * response open and, on `publish`, writes the same generation (bench/servers/stream-generation.ts)
 * as one prebuilt SSE buffer to every connection. No subscriptions, filters, ring, queue limits or
 * resumption: what delivery costs on this machine before any feed logic.
 *
 * With argv[2] = `gzip` it is the floor of a compressed feed: each connection gets a gzip header,
 * then every batch as one raw-deflate segment compressed once for all connections and ended with
 * a full flush (no back-references across batches, so a segment decodes after any earlier ones).
 */
import { createServer, type ServerResponse } from 'node:http';
import { constants, deflateRawSync } from 'node:zlib';
import { generation } from './stream-generation.ts';

const gzip = process.argv[2] === 'gzip';
/** a gzip member's header (RFC 1952): magic, deflate, no flags, no time, no extra flags, unknown OS */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
const open = new Set<ServerResponse>();

const server = createServer((req, res) => {
  if (!req.url?.startsWith('/api/stream')) {
    res.writeHead(404).end();
    return;
  }
  const headers: Record<string, string> = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
  if (gzip) headers['content-encoding'] = 'gzip';
  res.writeHead(200, headers);
  res.write(gzip ? GZIP_HEADER : 'retry: 3000\n\n');
  open.add(res);
  res.on('close', () => open.delete(res));
});

process.on('message', (message: { cmd: string }) => {
  if (message.cmd === 'publish') {
    const events = generation();
    const at = Date.now();
    (events[events.length - 1] as { time: number }).time = at;
    let text = '';
    events.forEach((e, i) => (text += `id: ${at}-1-${i}\ndata: ${JSON.stringify({ id: `${at}-1-${i}`, ...e })}\n\n`));
    const plain = Buffer.from(text);
    const bytes = gzip ? deflateRawSync(plain, { finishFlush: constants.Z_FULL_FLUSH }) : plain;
    for (const res of open) res.write(bytes);
    process.send!({ published: at, events: events.length, bytes: plain.length, wire: bytes.length, publishMs: Date.now() - at });
  } else if (message.cmd === 'stats') {
    process.send!({ rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed });
  }
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address) process.stdout.write(`http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => {
  for (const res of open) res.destroy();
  server.close(() => process.exit(0));
});
