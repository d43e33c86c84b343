/**
 * The load side of bench/stream.ts, in its own process: opens SSE connections to the target and,
 * per generation, reports how long after the generation was handed to the hub each connection
 * received its last event (the `generation` event closes the batch). One connection may stall
 * (it stops reading after the headers) to show it is cut off without holding up the others.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { constants, createGunzip } from 'node:zlib';

interface Client {
  req: ClientRequest;
  res?: IncomingMessage;
  carry: Buffer;
}

const clients: Client[] = [];
let stalled: { socket: Socket; closed: boolean } | undefined;
/** per generation publish time → receipt latencies */
const received = new Map<number, number[]>();
const MARKER_BYTES = Buffer.from('"topic":"generation"');
const TIME = /"time":(\d+)/;

function open(url: string, gzip: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const client: Client = { req: undefined as unknown as ClientRequest, carry: Buffer.alloc(0) };
    client.req = request(url, { headers: { accept: 'text/event-stream', ...(gzip ? { 'accept-encoding': 'gzip' } : {}) }, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`status ${res.statusCode}`));
        return;
      }
      client.res = res;
      // A compressed feed is read as a browser would: inflated as it arrives.
      const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip({ finishFlush: constants.Z_SYNC_FLUSH /* the stream never ends */ })) : res;
      // Bytes, not strings: the client process should cost as little as it can beside the server.
      body.on('data', (chunk: Buffer) => {
        const data = client.carry.length > 0 ? Buffer.concat([client.carry, chunk]) : chunk;
        let at = data.indexOf(MARKER_BYTES);
        let counted = 0;
        while (at >= 0) {
          const m = TIME.exec(data.toString('latin1', at, Math.min(data.length, at + 200)));
          if (!m) {
            // The time is in the next chunk: carry the marker over.
            counted = at;
            break;
          }
          counted = at + MARKER_BYTES.length;
          const published = Number(m[1]);
          let list = received.get(published);
          if (!list) received.set(published, (list = []));
          list.push(Date.now() - published);
          at = data.indexOf(MARKER_BYTES, counted);
        }
        client.carry = Buffer.from(data.subarray(Math.max(counted, data.length - 250)));
      });
      resolve();
    });
    client.req.on('error', reject);
    client.req.end();
    clients.push(client);
  });
}

process.on('message', (message: { cmd: string; url?: string; n?: number; published?: number; gzip?: boolean }) => {
  void (async () => {
    if (message.cmd === 'open') {
      const url = `${message.url!}/api/stream`;
      for (let i = 0; i < message.n!; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, message.n! - i) }, () => open(url, message.gzip === true)));
      }
      process.send!({ open: clients.length });
    } else if (message.cmd === 'stall') {
      const url = new URL(message.url!);
      const socket = connect({ host: url.hostname, port: Number(url.port) });
      stalled = { socket, closed: false };
      const s = stalled;
      socket.on('error', () => undefined);
      socket.on('close', () => (s.closed = true));
      socket.write(`GET /api/stream HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
      socket.once('data', () => socket.pause());
      process.send!({ stalled: true });
    } else if (message.cmd === 'unstall') {
      // Reading again: a connection the server cut ends once what was sent is read.
      stalled?.socket.resume();
      const deadline = Date.now() + 20_000;
      while (stalled && !stalled.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      process.send!({ stalledClosed: stalled?.closed ?? false });
    } else if (message.cmd === 'wait') {
      const deadline = Date.now() + 60_000;
      while ((received.get(message.published!)?.length ?? 0) < clients.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const list = (received.get(message.published!) ?? []).sort((a, b) => a - b);
      process.send!({ latencies: list });
    } else if (message.cmd === 'close') {
      for (const c of clients.splice(0)) c.req.destroy();
      stalled?.socket.destroy();
      process.send!({ closed: true });
    }
  })();
});
process.send!({ ready: true });
