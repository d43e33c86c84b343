/**
 * The per-request shortcuts keep behaviour: remembered ETags still follow the bytes, the
 * cached lowest-BIN body follows the view and the clock, request counts reach /metrics,
 * and the lazily built request logger still writes with the request id.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../../src/app.ts';
import { ManualClock } from '../../../src/clock.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { createMetrics } from '../../../src/metrics.ts';
import { Store } from '../../../src/store/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

describe('hot-path shortcuts', () => {
  let t: TestApp;
  let body = 'one';
  let buffer = Buffer.from('{"v":1}');
  before(async () => {
    t = await createTestApp({
      extend(app) {
        app.get('/test/text', { config: { cache: 60 } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(body));
        app.get('/test/buffer', { config: { cache: 60 } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(buffer));
      },
    });
  });
  after(() => t.close());
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('remembered ETags follow string bodies and 304 still answers a match', async () => {
    const a = await get('/test/text');
    const again = await get('/test/text');
    assert.equal(again.headers.etag, a.headers.etag);
    assert.equal((await get('/test/text', { 'if-none-match': String(a.headers.etag) })).statusCode, 304);
    body = 'two';
    const b = await get('/test/text');
    assert.notEqual(b.headers.etag, a.headers.etag);
    assert.equal(b.body, 'two');
    assert.equal((await get('/test/text', { 'if-none-match': String(a.headers.etag) })).statusCode, 200);
    // Same bytes under another negotiated content type: another ETag.
    const json = await get('/test/text', { accept: 'text/json' });
    assert.equal(json.headers.etag, b.headers.etag, 'text/plain route: negotiation leaves it alone');
  });

  it('remembered ETags follow Buffer bodies', async () => {
    const a = await get('/test/buffer');
    assert.equal((await get('/test/buffer', { 'if-none-match': String(a.headers.etag) })).statusCode, 304);
    buffer = Buffer.from('{"v":2}');
    const b = await get('/test/buffer');
    assert.notEqual(b.headers.etag, a.headers.etag);
    assert.equal(b.body, '{"v":2}');
    // A negotiated text/json response of the same Buffer has its own ETag.
    const asText = await get('/test/buffer', { accept: 'text/json' });
    assert.equal(asText.headers['content-type'], 'text/json; charset=utf-8');
    assert.notEqual(asText.headers.etag, b.headers.etag);
  });

  it('the cached lowest-BIN body drops a listing once it ends and takes in new ones', async () => {
    const now = t.clock.now();
    const soon = listing(now, { tag: 'HOTPATH_ITEM', starting_bid: 100, end_at: now + 60_000 });
    const later = listing(now, { tag: 'HOTPATH_ITEM', starting_bid: 200, end_at: now + 86_400_000 });
    await storeGeneration(t.store, now, [soon, later]);
    const url = '/api/auctions/tag/HOTPATH_ITEM/active/bin';
    const first = await get(url);
    assert.deepEqual((first.json() as Array<{ uuid: string }>).map((a) => a.uuid), [soon.uuid, later.uuid]);
    assert.equal((await get(url, { 'if-none-match': String(first.headers.etag) })).statusCode, 304);

    t.clock.advance(60_000);
    const ended = await get(url);
    assert.deepEqual((ended.json() as Array<{ uuid: string }>).map((a) => a.uuid), [later.uuid]);
    assert.notEqual(ended.headers.etag, first.headers.etag);

    const cheaper = listing(t.clock.now(), { tag: 'HOTPATH_ITEM', starting_bid: 50, end_at: t.clock.now() + 86_400_000 });
    await storeGeneration(t.store, t.clock.now(), [cheaper]);
    const changed = await get(url);
    assert.deepEqual((changed.json() as Array<{ uuid: string }>).map((a) => a.uuid), [cheaper.uuid, later.uuid]);
  });

  it('counts every answered request by route and status in /metrics', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await get('/api/version')).statusCode, 200);
    for (let i = 0; i < 2; i++) assert.equal((await get('/api/no-such-route')).statusCode, 404);
    const text = (await get('/metrics')).body;
    assert.match(text, /skymarket_http_requests_total\{method="GET",route="\/api\/version",status="200",service="skymarket"\} 3\n/);
    assert.match(text, /skymarket_http_requests_total\{method="GET",route="unmatched",status="404",service="skymarket"\} 2\n/);
    // Counts added at one scrape are not added again at the next.
    assert.match((await get('/metrics')).body, /route="\/api\/version",status="200",service="skymarket"\} 3\n/);
    assert.match(text, /skymarket_http_request_duration_seconds_count\{service="skymarket",method="GET",route="\/api\/version"\} 3\n/);
  });
});

describe('lazily built request loggers', () => {
  it('write with the request id when a handler logs, at the configured level', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const dir = tempDir('hotpath');
    const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'warn', RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1' });
    const store = await Store.open({ dataDir: dir.path });
    const clock = new ManualClock();
    const app = await buildApp(
      { config, store, clock, metrics: createMetrics({ defaultMetrics: false }), logger: createLogger('warn', sink), dataSource: 'upstream', startedAt: clock.now() },
      { apiRoutes: false },
    );
    app.get('/test/log', async (request) => {
      request.log.info('not written at warn');
      request.log.warn({ detail: 1 }, 'written');
      return { ok: true };
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/test/log' });
      assert.equal(res.statusCode, 200);
      const written = lines.filter((l) => l.msg === 'written');
      assert.equal(written.length, 1);
      assert.equal(typeof written[0]!.reqId, 'string');
      assert.equal(written[0]!.detail, 1);
      assert.equal(lines.filter((l) => l.msg === 'not written at warn').length, 0);
    } finally {
      await app.close();
      await store.close();
      dir.remove();
    }
  });
});
