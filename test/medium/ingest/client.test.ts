/** The upstream client against a misbehaving server: retries, timeouts, truncation, gzip. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { HypixelClient, UpstreamError } from '../../../src/ingest/hypixel-client.ts';
import { FakeUpstream } from '../../helpers/fake-upstream.ts';

describe('upstream client', () => {
  const upstream = new FakeUpstream();
  let client: HypixelClient;
  const registry = new Registry();
  before(async () => {
    await upstream.start();
    // A timeout well above a healthy answer's time on a busy machine (300 ms cut healthy answers at load ~12).
    client = new HypixelClient({ baseUrl: upstream.url, retries: 3, timeoutMs: 1000, backoffMs: () => 5, registry });
  });
  after(async () => {
    await client.close();
    await upstream.stop();
  });

  it('retries 5xx and truncated JSON, then succeeds', async () => {
    upstream.on('/a', { status: 503 }, { body: '{"success":true,"x":[1,2', status: 200 }, { status: 502 }, { body: { success: true, x: [1, 2] } });
    const res = await client.getJson<{ x: number[] }>('/a');
    assert.deepEqual(res.body, { success: true, x: [1, 2] });
    assert.equal(upstream.hits.get('/a'), 4);
    const metrics = await registry.metrics();
    assert.match(metrics, /skymarket_upstream_requests_total\{endpoint="\/a",outcome="http_503"\} 1/);
    assert.match(metrics, /skymarket_upstream_requests_total\{endpoint="\/a",outcome="bad_json"\} 1/);
    assert.match(metrics, /skymarket_upstream_requests_total\{endpoint="\/a",outcome="ok"\} 1/);
  });

  it('gives up after its retries with a typed error', async () => {
    upstream.on('/down', { status: 500 });
    await assert.rejects(client.getJson('/down'), (err: unknown) => err instanceof UpstreamError && err.status === 500 && err.reason === 'status' && err.message === `GET ${upstream.url}/down: HTTP 500`);
    assert.equal(upstream.hits.get('/down'), 4);
  });

  it('does not retry a 4xx it was not told to accept, and returns accepted ones', async () => {
    upstream.on('/missing', { status: 404, body: { success: false } });
    await assert.rejects(client.getJson('/missing'), (err: unknown) => err instanceof UpstreamError && err.status === 404);
    assert.equal(upstream.hits.get('/missing'), 1);
    const accepted = await client.getJson('/missing', [404]);
    assert.equal(accepted.status, 404);
  });

  it('times out a hanging response and retries', async () => {
    upstream.on('/slow', { delayMs: 6000, body: {} }, { body: { ok: true } });
    const res = await client.getJson('/slow');
    // The answer is the second one: the slow attempt was cut at the timeout, not waited out.
    assert.deepEqual(res.body, { ok: true });
    assert.equal(upstream.hits.get('/slow'), 2);
  });

  it('notices an upstream that says it is the skymarket simulator, answer by answer', async () => {
    upstream.on('/real', { body: { success: true } });
    upstream.on('/sim', { body: { success: true }, headers: { 'X-Skymarket-Simulated': 'true' } });
    await client.getJson('/real');
    assert.equal(client.simulated, false);
    await client.getJson('/sim');
    assert.equal(client.simulated, true);
    await client.getJson('/real');
    assert.equal(client.simulated, false);
  });

  it('decompresses gzip bodies and rejects a body that is not JSON at all', async () => {
    upstream.on('/gz', { body: { big: 'x'.repeat(10_000) }, gzip: true });
    assert.equal(((await client.getJson<{ big: string }>('/gz')).body.big).length, 10_000);
    upstream.on('/html', { body: '<html>Cloudflare</html>' });
    await assert.rejects(client.getJson('/html'), (err: unknown) => err instanceof UpstreamError && err.reason === 'bad_json');
  });

  it('reports a refused connection as a network error', async () => {
    const dead = new HypixelClient({ baseUrl: 'http://127.0.0.1:1', retries: 1, backoffMs: () => 1, timeoutMs: 500 });
    await assert.rejects(dead.getJson('/x'), (err: unknown) => err instanceof UpstreamError && err.reason === 'network');
    // In words, with the URL: what health and the log say about a failing feed.
    await assert.rejects(dead.getJson('/x'), { message: 'GET http://127.0.0.1:1/x: 127.0.0.1:1 refused the connection (ECONNREFUSED): nothing listens there' });
    await dead.close();
  });
});

describe('upstream client receiving into a reused buffer', () => {
  it('receives bodies with and without Content-Length into one BodyBuffer, growing it as needed', async () => {
    const { createServer } = await import('node:http');
    const { BodyBuffer } = await import('../../../src/ingest/hypixel-client.ts');
    // /small has a Content-Length; /chunked streams 40 parts without one (chunked transfer encoding).
    const parts = Array.from({ length: 40 }, (_, i) => `"${String(i).padStart(2, '0')}${'y'.repeat(2000)}"`);
    const server = createServer((req, res) => {
      if (req.url === '/small') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"n":1}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      let i = 0;
      const next = () => {
        if (i === parts.length) {
          res.end(']');
          return;
        }
        res.write((i > 0 ? ',' : '') + parts[i++]!);
        setImmediate(next);
      };
      next();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('no address');
    const client = new HypixelClient({ baseUrl: `http://127.0.0.1:${address.port}`, retries: 0, timeoutMs: 5000 });
    try {
      const into = new BodyBuffer(4);
      const parse = (raw: Buffer) => JSON.parse(raw.toString('utf8')) as unknown;
      assert.deepEqual((await client.getWith('/small', [], parse, into)).body, { n: 1 });
      const big = await client.getWith('/chunked', [], parse, into);
      assert.deepEqual(big.body, parts.map((p) => JSON.parse(p) as string));
      assert.equal(big.bytes, into.length);
      // The same buffer again: a shorter body replaces the longer one entirely.
      assert.deepEqual((await client.getWith('/small', [], parse, into)).body, { n: 1 });
      assert.equal(into.length, 7);
      // Without a buffer of the caller's, each body gets its own.
      const own = await client.getWith('/chunked', [], (raw) => raw, undefined);
      assert.equal(own.body.length, big.bytes);
      assert.notEqual(own.body.buffer, into.view().buffer);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
