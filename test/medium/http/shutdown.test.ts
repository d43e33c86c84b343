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
