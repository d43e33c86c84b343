/**
 * Response compression (src/http/compression.ts) on the normal path: gzip, brotli and identity by
 * Accept-Encoding, `Vary: Accept-Encoding`, one ETag per encoding with If-None-Match answered per
 * encoding, the size threshold, no second compression and no compression of streams; errors stay
 * 4xx problems. The fast path's equality with this path is in stored-responses.test.ts.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { cachingPlugin } from '../../../src/http/caching.ts';
import { chooseEncoding, COMPRESS_MIN_BYTES, compressionPlugin } from '../../../src/http/compression.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { insert, rows } from '../../helpers/bazaar.ts';

describe('chooseEncoding', () => {
  const cases: Array<[string | undefined, string | undefined]> = [
    [undefined, undefined],
    ['', undefined],
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['deflate', undefined],
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0.1', 'gzip'],
    ['GZIP;Q=1', 'gzip'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['gzip;q=0, *', 'br'],
    ['gzip;q=nonsense', undefined],
    [' br ; q=0.9 ,gzip;q=0.8', 'br'],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)} → ${expected ?? 'identity'}`, () => {
      assert.equal(chooseEncoding(header), expected);
      assert.equal(chooseEncoding(header), expected, 'remembered');
    });
  }
});

describe('compression on the app', () => {
  let t: TestApp;
  const P = 'COMPRESS_PRODUCT';
  const hour = `/api/bazaar/${P}/history/hour`;
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  before(async () => {
    t = await createTestApp();
    const now = t.clock.now();
    await insert(t.store, rows(P, now - 3_600_000 + 1000, now, 20_000, 5));
  });
  after(async () => {
    await t.close();
  });

  it('a large JSON answer: identity without Accept-Encoding, gzip and brotli when accepted, the same JSON each time', async () => {
    const plain = await get(hour);
    assert.equal(plain.statusCode, 200);
    assert.ok(plain.rawPayload.length >= COMPRESS_MIN_BYTES, `${plain.rawPayload.length} bytes`);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding, Accept');
    assert.equal((plain.json() as unknown[]).length, 180);

    const gz = await get(hour, { 'accept-encoding': 'gzip, deflate' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers.vary, 'Accept-Encoding, Accept');
    assert.equal(Number(gz.headers['content-length']), gz.rawPayload.length);
    assert.ok(gz.rawPayload.length < plain.rawPayload.length / 3);
    assert.deepEqual(gunzipSync(gz.rawPayload), plain.rawPayload);

    const br = await get(hour, { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(brotliDecompressSync(br.rawPayload), plain.rawPayload);

    const refused = await get(hour, { 'accept-encoding': 'gzip;q=0, br;q=0' });
    assert.equal(refused.headers['content-encoding'], undefined);
    assert.deepEqual(refused.rawPayload, plain.rawPayload);

    // Content negotiation and compression together.
    const text = await get(hour, { accept: 'text/plain', 'accept-encoding': 'gzip' });
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(text.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(text.rawPayload), plain.rawPayload);
  });

  it('one ETag per encoding; If-None-Match answers 304 only for the encoding it names, without Content-Encoding', async () => {
    const plain = await get(hour);
    const gz = await get(hour, { 'accept-encoding': 'gzip' });
    const br = await get(hour, { 'accept-encoding': 'br' });
    const etags = [plain, gz, br].map((r) => String(r.headers.etag));
    assert.equal(new Set(etags).size, 3, etags.join(' '));

    const notModified = await get(hour, { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.rawPayload.length, 0);
    assert.equal(notModified.headers['content-encoding'], undefined);
    assert.equal(notModified.headers.etag, gz.headers.etag);
    assert.equal(notModified.headers.vary, 'Accept-Encoding, Accept');

    // The gzip ETag does not validate the brotli or the plain representation.
    const other = await get(hour, { 'accept-encoding': 'br', 'if-none-match': String(gz.headers.etag) });
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['content-encoding'], 'br');
    assert.equal((await get(hour, { 'if-none-match': String(gz.headers.etag) })).statusCode, 200);
    assert.equal((await get(hour, { 'if-none-match': String(plain.headers.etag) })).statusCode, 304);
  });

  it('small answers go out as they are, without Vary: Accept-Encoding', async () => {
    const res = await get('/api/version', { 'accept-encoding': 'gzip, br' });
    assert.equal(res.statusCode, 200);
    assert.ok(res.rawPayload.length < COMPRESS_MIN_BYTES);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.ok(!String(res.headers.vary ?? '').includes('Accept-Encoding'));
  });

  it('invalid input still gets a 4xx problem, compressed or not', async () => {
    for (const url of [`/api/bazaar/BAD%20TAG/history/hour`, `/api/bazaar/${P}/snapshot?timestamp=yesterday`, `/api/bazaar/NO_SUCH_PRODUCT/history/hour`]) {
      const res = await get(url, { 'accept-encoding': 'gzip, br' });
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${url}: ${res.statusCode}`);
      const body = res.headers['content-encoding'] === 'br' ? brotliDecompressSync(res.rawPayload) : res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload;
      const problem = JSON.parse(body.toString()) as { status: number; slug: string };
      assert.equal(problem.status, res.statusCode);
      assert.ok(problem.slug);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    }
  });
});

describe('compression plugin, what it leaves alone', () => {
  const big = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ i, name: `item ${i}` })));
  let app: FastifyInstance;
  before(async () => {
    app = Fastify();
    await app.register(compressionPlugin);
    await app.register(cachingPlugin);
    // Already encoded by the route: not compressed again.
    app.get('/encoded', { config: { cache: 10 } }, (_req, reply) => reply.type('application/json').header('content-encoding', 'gzip').send(gzipSync(big)));
    // A stream (as the zip exports): untouched.
    app.get('/stream', (_req, reply) => reply.type('application/json').send(Readable.from([Buffer.from(big)])));
    // Not a compressible type.
    app.get('/zip', (_req, reply) => reply.type('application/zip').send(Buffer.alloc(4096, 1)));
    // A route that negotiated Accept-Encoding itself but sent identity (prepared gzip only): brotli is added, Vary is not repeated.
    app.get('/varies', (_req, reply) => reply.type('application/json').header('vary', 'Accept-Encoding').send(Buffer.from(big)));
    app.get('/json', { config: { cache: 10 } }, (_req, reply) => reply.type('application/json; charset=utf-8').send(big));
    app.get('/buffer', { config: { cache: 10 } }, (_req, reply) => reply.type('application/json; charset=utf-8').send(Buffer.from(big)));
    await app.ready();
  });
  after(() => app.close());

  it('no double compression', async () => {
    const res = await app.inject({ url: '/encoded', headers: { 'accept-encoding': 'br' } });
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(res.rawPayload).toString(), big);
  });

  it('a Vary: Accept-Encoding already set is not repeated', async () => {
    const res = await app.inject({ url: '/varies', headers: { 'accept-encoding': 'br' } });
    assert.equal(res.headers['content-encoding'], 'br');
    assert.equal(res.headers.vary, 'Accept-Encoding');
    assert.equal(brotliDecompressSync(res.rawPayload).toString(), big);
  });

  it('streams and non-text types go out as they are', async () => {
    const stream = await app.inject({ url: '/stream', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(stream.headers['content-encoding'], undefined);
    assert.equal(stream.payload, big);
    const zip = await app.inject({ url: '/zip', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zip.headers['content-encoding'], undefined);
    assert.equal(zip.rawPayload.length, 4096);
  });

  it('a Buffer body and the same text compress to the same bytes, under the same ETag', async () => {
    const a = await app.inject({ url: '/json', headers: { 'accept-encoding': 'gzip' } });
    const b = await app.inject({ url: '/buffer', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(a.headers['content-encoding'], 'gzip');
    assert.deepEqual(a.rawPayload, b.rawPayload);
    assert.equal(a.headers.etag, b.headers.etag);
  });
});
