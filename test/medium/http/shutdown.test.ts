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

it('finishes in-flight requests on close and then refuses new ones', async () => {
  const { t, inFlight, release } = await appWithSlowRoute();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const slow = fetch(`${url}/test/slow`);
  await inFlight;
  const closing = t.close();
  // The request is still running: close waits for it.
  await new Promise((r) => setTimeout(r, 50));
  release();
  const res = await slow;
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('connection'), 'close', 'the kept-alive socket ends with the response');
  assert.deepEqual(await res.json(), { done: true });
  const closeStarted = Date.now();
  await closing;
  assert.ok(Date.now() - closeStarted < 5_000, 'close does not wait for the keep-alive timeout');
  await assert.rejects(fetch(`${url}/api/version`), /fetch failed/);
});

it('close does not wait for a connection that never sent a request; a request in flight beside it finishes', async () => {
  const { t, inFlight, release } = await appWithSlowRoute();
  const url = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }));
  // A spare pooled socket (browsers preconnect; undici may open one it then does not use): Node's
  // close() would wait for it until headersTimeout (60 s).
  const silent = connect({ host: url.hostname, port: Number(url.port) });
  const silentClosed = new Promise<void>((r) => silent.once('close', () => r()));
  silent.on('error', () => undefined);
  await new Promise<void>((r) => silent.once('connect', () => r()));
  const slow = fetch(`${url.origin}/test/slow`);
  await inFlight;
  const closeStarted = Date.now();
  const closing = t.close();
  await silentClosed;
  assert.ok(Date.now() - closeStarted < 2_000, 'the silent connection is dropped at once');
  release();
  const res = await slow;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { done: true });
  await closing;
  assert.ok(Date.now() - closeStarted < 5_000, `close took ${Date.now() - closeStarted} ms`);
});
