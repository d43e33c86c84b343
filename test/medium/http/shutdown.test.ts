/** Graceful shutdown: in-flight requests finish, new connections are refused. */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { it } from 'node:test';
import { createTestApp } from '../../helpers/app.ts';

/** An app with `/test/slow`, which answers once released. */
async function appWithSlowRoute() {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const inFlight = new Promise<void>((r) => (started = r));
  const t = await createTestApp({
    extend(app) {
      app.get('/test/slow', async () => {
        started();
        await held;
        return { done: true };
      });
    },
  });
  return { t, inFlight, release };
}

/** Lets the event loop run `turns` times (I/O, timers and closes included). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/**
 * Keep-alive and header waits far longer than the test's own timeout: a close that waited for
 * them fails the test by its timeout instead of by a wall-clock assertion.
 */
const LONG_WAIT_MS = 600_000;
const TEST = { timeout: 60_000 };

it('finishes in-flight requests on close and then refuses new ones', TEST, async () => {
  const { t, inFlight, release } = await appWithSlowRoute();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  t.app.server.keepAliveTimeout = LONG_WAIT_MS;
  const slow = fetch(`${url}/test/slow`);
  await inFlight;
  let closed = false;
  const closing = t.close().then(() => (closed = true));
  // The request is still running: close waits for it.
  await turns(20);
  assert.equal(closed, false, 'close waits for the request in flight');
  release();
  const res = await slow;
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('connection'), 'close', 'the kept-alive socket ends with the response');
  assert.deepEqual(await res.json(), { done: true });
  // The kept-alive socket ended with the response: close does not wait out the keep-alive timeout.
  await closing;
  await assert.rejects(fetch(`${url}/api/version`), /fetch failed/);
});

it('close does not wait for a connection that never sent a request; a request in flight beside it finishes', TEST, async () => {
  const { t, inFlight, release } = await appWithSlowRoute();
  const url = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
  t.app.server.headersTimeout = LONG_WAIT_MS;
  t.app.server.requestTimeout = LONG_WAIT_MS;
  // A spare pooled socket (browsers preconnect; undici may open one it then does not use): Node's
  // close() would wait for it until headersTimeout (60 s).
  const silent = connect({ host: url.hostname, port: Number(url.port) });
  const silentClosed = new Promise<void>((r) => silent.once('close', () => r()));
  silent.on('error', () => undefined);
  await new Promise<void>((r) => silent.once('connect', () => r()));
  const slow = fetch(`${url.origin}/test/slow`);
  await inFlight;
  let closed = false;
  const closing = t.close().then(() => (closed = true));
  // The silent connection is dropped at once, while the request beside it still runs.
  await silentClosed;
  assert.equal(closed, false, 'close still waits for the request in flight');
  release();
  const res = await slow;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { done: true });
  await closing;
});

it('a WebSocket client that ignores the close handshake gets 1001 and does not hold the close past the grace (issue 45 item 11)', async () => {
  const t = await createTestApp();
  const url = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
  // A raw client: it upgrades, then never answers anything (ws would wait 30 s for its close frame).
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  socket.on('error', () => undefined);
  const received: Buffer[] = [];
  socket.on('data', (d: Buffer) => received.push(d));
  const ended = new Promise<void>((r) => socket.once('close', () => r()));
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(`GET /modsocket HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  const deadline = Date.now() + 5000;
  while (!Buffer.concat(received).toString('latin1').includes('\r\n\r\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.match(Buffer.concat(received).toString('latin1'), /^HTTP\/1\.1 101 /);
  // Counted, not timed: the server drops the silent client itself (terminate() after WS_CLOSE_WAIT_MS),
  // where ws alone would wait 30 s for the close frame and hold the close past the 10 s grace.
  const clients = [...t.app.websocketServer.clients];
  assert.equal(clients.length, 1);
  let terminated = 0;
  const terminate = clients[0]!.terminate.bind(clients[0]!);
  clients[0]!.terminate = () => {
    terminated++;
    terminate();
  };
  await t.close();
  await ended;
  assert.equal(terminated, 1, 'the server dropped the client that ignored the close handshake');
  // A close frame (opcode 8) with code 1001 (0x03e9), after the upgrade's answer.
  const all = Buffer.concat(received);
  const frame = all.indexOf(Buffer.from([0x88]), all.indexOf('\r\n\r\n') + 4);
  assert.ok(frame > 0, 'a close frame was sent');
  assert.equal(all.readUInt16BE(frame + 2), 1001);
});
