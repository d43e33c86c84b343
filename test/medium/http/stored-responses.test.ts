/**
 * The stored-response fast path (src/http/stored-responses.ts) answers exactly as the normal
 * path: two apps on one store, one with the fast path and one without, get the same requests
 * over real sockets and must give the same status, headers (all but Date) and body, and the
 * same request counts in /metrics. The fast path's own counter shows which requests it took,
 * so a case that silently stops using it (or starts using it) fails too.
 */
import assert from 'node:assert/strict';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { StoredResponses, type StoredResponseContext } from '../../../src/http/stored-responses.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { encodeBook } from '../../../src/domain/bazaar-book.ts';
import type { BazaarSnapshotsTable } from '../../../src/store/schema.ts';
import { PreparedAnswer } from '../../../src/http/prepared-answers.ts';

interface Answer {
  status: number;
  /** raw header lines without Date: name and value, in the order sent */
  headers: string[];
  body: string;
}

interface Target {
  t: TestApp;
  base: string;
  agent: Agent;
}

async function listen(t: TestApp): Promise<Target> {
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { t, base, agent: new Agent({ keepAlive: true }) };
}

function send(target: Target, path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // `path` as given (a URL string would drop an empty `?`).
    const { hostname, port } = new URL(target.base);
    const req = httpRequest({ hostname, port, path, method, headers, agent: target.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const lines: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          if (res.rawHeaders[i]?.toLowerCase() !== 'date') lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        }
        // Compressed bodies compared byte for byte (as base64).
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: lines, body: res.headers['content-encoding'] ? bytes.toString('base64') : bytes.toString() });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function header(answer: Answer, name: string): string | undefined {
  const line = answer.headers.find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 2);
}

async function metricLines(target: Target, route: string): Promise<string[]> {
  const text = (await send(target, '/metrics')).body;
  // Counts only: durations differ between any two runs.
  return text.split('\n').filter((l) => l.includes(`route="${route}"`) && (l.startsWith('skymarket_http_requests_total') || l.includes('_duration_seconds_count')));
}

/**
 * Two apps on one store holding one EQ_ITEM listing, listening: `fast` with the fast path,
 * `normal` without; `close` stops both.
 */
async function appPair(env: Record<string, string>): Promise<{ first: TestApp; fast: Target; normal: Target; close(): Promise<void> }> {
  const first = await createTestApp({ env });
  const now = first.clock.now();
  await storeGeneration(first.store, now, [listing(now, { tag: 'EQ_ITEM', starting_bid: 100 })]);
  const second = await createTestApp({ store: first.store, env, storedResponses: false });
  const fast = await listen(first);
  const normal = await listen(second);
  return {
    first,
    fast,
    normal,
    async close() {
      fast.agent.destroy();
      normal.agent.destroy();
      await second.close();
      await first.close();
    },
  };
}

const BIN = '/api/auctions/tag/:itemTag/active/bin';

describe('stored-response fast path', () => {
  const targets: Target[] = [];
  let fast: Target;
  let normal: Target;
  let etag = '';

  before(async () => {
    const first = await createTestApp();
    const now = first.clock.now();
    await storeGeneration(first.store, now, [
      listing(now, { tag: 'EQ_ITEM', starting_bid: 300 }),
      listing(now, { tag: 'EQ_ITEM', starting_bid: 100, tier: 'EPIC' }),
      listing(now, { tag: 'EQ_ITEM', starting_bid: 200, bin: false }),
    ]);
    const second = await createTestApp({ store: first.store, storedResponses: false });
    fast = await listen(first);
    normal = await listen(second);
    targets.push(fast, normal);
    // The first request of a tag builds the stored body (normal path on both).
    const warm = await send(fast, '/api/auctions/tag/EQ_ITEM/active/bin');
    assert.equal(warm.status, 200);
    assert.equal((await send(normal, '/api/auctions/tag/EQ_ITEM/active/bin')).status, 200);
    etag = header(warm, 'etag') ?? '';
    assert.ok(etag);
  });
  after(async () => {
    for (const target of targets) {
      target.agent.destroy();
      await target.t.close();
    }
  });

  const cases: Array<{ name: string; path: string; method?: string; headers?: Record<string, string>; fastPath: boolean }> = [
    { name: 'plain GET', path: '/api/auctions/tag/EQ_ITEM/active/bin', fastPath: true },
    { name: 'lower-case tag', path: '/api/auctions/tag/eq_item/active/bin', fastPath: true },
    { name: 'Accept */*', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { accept: '*/*' }, fastPath: true },
    { name: 'Accept application/json', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { accept: 'application/json' }, fastPath: true },
    { name: 'an Origin', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { origin: 'https://example.org' }, fastPath: true },
    { name: 'Accept text/json', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { accept: 'text/json' }, fastPath: true },
    { name: 'Accept text/plain', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { accept: 'text/plain' }, fastPath: true },
    { name: 'Accept-Encoding gzip', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { 'accept-encoding': 'gzip' }, fastPath: true },
    { name: 'Accept-Encoding br', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { 'accept-encoding': 'gzip, deflate, br' }, fastPath: true },
    { name: 'Accept-Encoding br;q=0', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { 'accept-encoding': 'br;q=0, gzip;q=0.5' }, fastPath: true },
    { name: 'Accept-Encoding identity', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { 'accept-encoding': 'identity' }, fastPath: true },
    { name: 'Accept text/plain and gzip', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { accept: 'text/plain', 'accept-encoding': 'gzip' }, fastPath: true },
    { name: 'Accept text/html', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { accept: 'text/html' }, fastPath: false },
    { name: 'Accept application/json with q', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { accept: 'application/json;q=0.9, text/plain' }, fastPath: false },
    { name: 'matching If-None-Match (304)', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { 'if-none-match': 'ETAG' }, fastPath: false },
    { name: 'other If-None-Match', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { 'if-none-match': '"other"' }, fastPath: false },
    { name: 'page=0', path: '/api/auctions/tag/EQ_ITEM/active/bin?page=0', fastPath: false },
    { name: 'page=1', path: '/api/auctions/tag/EQ_ITEM/active/bin?page=1', fastPath: false },
    { name: 'filters', path: '/api/auctions/tag/EQ_ITEM/active/bin?Rarity=EPIC&Bin=true', fastPath: false },
    { name: 'malformed filter', path: '/api/auctions/tag/EQ_ITEM/active/bin?Rarity=NOPE', fastPath: false },
    { name: 'empty query', path: '/api/auctions/tag/EQ_ITEM/active/bin?', fastPath: false },
    { name: 'trailing slash', path: '/api/auctions/tag/EQ_ITEM/active/bin/', fastPath: false },
    { name: 'HEAD', path: '/api/auctions/tag/EQ_ITEM/active/bin', method: 'HEAD', fastPath: false },
    { name: 'OPTIONS preflight', path: '/api/auctions/tag/EQ_ITEM/active/bin', method: 'OPTIONS', headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' }, fastPath: false },
    { name: 'invalid Bearer token', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { authorization: 'Bearer not-a-token' }, fastPath: false },
    { name: 'malformed Authorization', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { authorization: 'Basic abc' }, fastPath: false },
    { name: 'IdentityToken', path: '/api/auctions/tag/EQ_ITEM/active/bin', headers: { identitytoken: 'x' }, fastPath: false },
    { name: 'unknown tag (404)', path: '/api/auctions/tag/NO_SUCH_ITEM/active/bin', fastPath: false },
    { name: 'invalid tag (400)', path: '/api/auctions/tag/BAD%20TAG/active/bin', fastPath: false },
    { name: 'encoded tag', path: '/api/auctions/tag/EQ%5FITEM/active/bin', fastPath: false },
    { name: 'tag never requested (no stored body yet)', path: '/api/auctions/tag/HYPERION/active/bin', fastPath: false },
  ];

  for (const c of cases) {
    it(`${c.name}: same answer from both paths, ${c.fastPath ? 'fast path taken' : 'left to Fastify'}`, async () => {
      const headers = Object.fromEntries(Object.entries(c.headers ?? {}).map(([k, v]) => [k, v === 'ETAG' ? etag : v]));
      const servedBefore = fast.t.app.storedResponses.served;
      const a = await send(fast, c.path, c.method, headers);
      const b = await send(normal, c.path, c.method, headers);
      assert.equal(fast.t.app.storedResponses.served - servedBefore, c.fastPath ? 1 : 0, 'fast path taken or not');
      assert.equal(normal.t.app.storedResponses.served, 0);
      assert.deepEqual(a, b);
    });
  }

  it('a 200 from the fast path carries CORS, caching and the ETag, and /metrics counts match', async () => {
    const a = await send(fast, '/api/auctions/tag/EQ_ITEM/active/bin');
    assert.equal(a.status, 200);
    assert.deepEqual(
      a.headers.map((l) => l.split(':')[0]?.toLowerCase()),
      // The page is over 1 KB: the compression hook's Vary comes before the caching headers.
      ['x-content-type-options', 'access-control-allow-origin', 'access-control-expose-headers', 'content-type', 'vary', 'cache-control', 'etag', 'content-length', 'connection', 'keep-alive'],
    );
    assert.equal(header(a, 'vary'), 'Accept-Encoding, Accept');
    assert.equal(header(a, 'etag'), etag);
    assert.deepEqual((JSON.parse(a.body) as Array<{ startingBid: number }>).map((x) => x.startingBid), [100, 300]);
    await send(normal, '/api/auctions/tag/EQ_ITEM/active/bin');
    const counted = await metricLines(fast, BIN);
    assert.ok(counted.some((l) => l.includes('status="200"')));
    assert.deepEqual(counted, await metricLines(normal, BIN));
  });
});

describe('stored-response fast path for rate-limited clients', () => {
  it('admitted requests take the fast path with the same limit headers; refused ones get the same 429s and 403s, counted once', async () => {
    const { first, fast, normal, close } = await appPair({ RATE_LIMIT_EXEMPT: '' });
    try {
      const statuses: number[] = [];
      // The first request builds the stored body (normal path); then 29 admitted, then refused.
      for (let i = 0; i < 34; i++) {
        const servedBefore = first.app.storedResponses.served;
        const a = await send(fast, '/api/auctions/tag/EQ_ITEM/active/bin');
        const b = await send(normal, '/api/auctions/tag/EQ_ITEM/active/bin');
        assert.deepEqual(a, b, `request ${i + 1}`);
        assert.equal(first.app.storedResponses.served - servedBefore, i > 0 && a.status === 200 ? 1 : 0, `request ${i + 1}: fast path only for admitted requests`);
        statuses.push(a.status);
      }
      // Counted once per request: exactly 30 admitted in the 10 s window on both.
      assert.deepEqual(statuses, [...Array<number>(30).fill(200), ...Array<number>(4).fill(429)]);
      assert.equal(first.app.storedResponses.served, 29);
      assert.ok(header(await send(fast, '/api/auctions/tag/EQ_ITEM/active/bin'), 'retry-after'));
      // Other routes and the minute window see the same counts on both apps.
      assert.deepEqual(await send(fast, '/api/version'), await send(normal, '/api/version'));
    } finally {
      await close();
    }
  });

  it('a banned client gets the same 403 from both, never the stored body', async () => {
    const env = { RATE_LIMIT_EXEMPT: '', RATE_LIMIT_BAN_THRESHOLD: '2' };
    const { first, fast, normal, close } = await appPair(env);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 36; i++) {
        const a = await send(fast, '/api/auctions/tag/EQ_ITEM/active/bin');
        const b = await send(normal, '/api/auctions/tag/EQ_ITEM/active/bin');
        assert.deepEqual(a, b, `request ${i + 1}`);
        statuses.push(a.status);
      }
      assert.equal(statuses[statuses.length - 1], 403, statuses.join(','));
      assert.ok(statuses.includes(429));
      // Every 200 but the first (which stored the body) came from the fast path; no 429 or 403 did.
      assert.equal(first.app.storedResponses.served, statuses.filter((x) => x === 200).length - 1);
    } finally {
      await close();
    }
  });
});

describe('stored-response fast path, where it stays off', () => {
  it('behind a trusted proxy (the client comes from proxy headers) every request takes the normal path', async () => {
    const env = { RATE_LIMIT_EXEMPT: '', TRUST_PROXY: 'true' };
    const { first, fast, normal, close } = await appPair(env);
    try {
      for (let i = 0; i < 4; i++) {
        const headers = { 'x-forwarded-for': `203.0.113.${i % 2}` };
        assert.deepEqual(await send(fast, '/api/auctions/tag/EQ_ITEM/active/bin', 'GET', headers), await send(normal, '/api/auctions/tag/EQ_ITEM/active/bin', 'GET', headers));
      }
      assert.equal(first.app.storedResponses.served, 0);
    } finally {
      await close();
    }
  });

  it('a CORS origin list (the Origin is reflected) keeps every request on the normal path', async () => {
    const env = { CORS_ORIGINS: 'https://a.example' };
    const { first, fast, normal, close } = await appPair(env);
    try {
      for (const origin of [undefined, 'https://a.example', 'https://b.example']) {
        const headers: Record<string, string> = origin ? { origin } : {};
        for (let i = 0; i < 2; i++) {
          assert.deepEqual(await send(fast, '/api/auctions/tag/EQ_ITEM/active/bin', 'GET', headers), await send(normal, '/api/auctions/tag/EQ_ITEM/active/bin', 'GET', headers));
        }
      }
      assert.equal(first.app.storedResponses.served, 0);
    } finally {
      await close();
    }
  });
});

describe('StoredResponses.serve', () => {
  const body = new PreparedAnswer(Buffer.from('[1,2]'));
  function setup(over: Partial<StoredResponseContext> = {}, bodyOf: (x: string) => PreparedAnswer | undefined = (x) => (x === 'A' ? body : undefined)) {
    const stored = new StoredResponses();
    stored.add({ url: '/t/:x/end', prefix: '/t/', suffix: '/end', cacheSeconds: 5, contentType: 'application/json; charset=utf-8', body: bodyOf });
    const recorded: unknown[][] = [];
    stored.enable({
      securityHeaders: { 'x-content-type-options': 'nosniff' },
      corsHeaders: { 'access-control-allow-origin': '*' },
      exemptPeer: (address) => address === '127.0.0.1',
      countPeerRequest: null,
      etagOf: () => '"e"',
      closing: () => false,
      metrics: { recordRequest: (...args) => void recorded.push(args) },
      ...over,
    });
    return { stored, recorded };
  }
  function fakeRequest(url: string, remoteAddress = '127.0.0.1', method = 'GET') {
    const written: { status?: number; headers?: Record<string, string>; body?: Buffer } = {};
    const req = { method, url, headers: {} as IncomingHttpHeaders, socket: { remoteAddress } as Socket };
    const res = {
      writeHead(status: number, headers: Record<string, string>) {
        written.status = status;
        written.headers = headers;
      },
      end(b: Buffer) {
        written.body = b;
      },
    };
    return { req: req as never, res: res as never, written };
  }

  it('writes the stored body with its headers and records the request', () => {
    const { stored, recorded } = setup();
    const { req, res, written } = fakeRequest('/t/A/end');
    assert.equal(stored.serve(req, res), true);
    assert.equal(written.status, 200);
    assert.deepEqual(written.headers, {
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=5',
      vary: 'Accept',
      etag: '"e"',
      'content-length': '5',
    });
    assert.equal(written.body, body.plain);
    assert.equal(recorded.length, 1);
    assert.deepEqual(recorded[0]?.slice(0, 3), ['GET', '/t/:x/end', 200]);
  });

  it('for a limited peer: counts first, then writes CORS, limit and stored headers, or hands the request to Fastify', async () => {
    let stored = 'A';
    const verdicts: Array<Record<string, string> | null | Error> = [{ 'x-rate-limit-limit': '1m' }, null, new Error('store down'), { 'x-rate-limit-limit': '1m' }];
    const counted: unknown[] = [];
    const { stored: fast, recorded } = setup({
      countPeerRequest: async (req) => {
        counted.push(req);
        const verdict = verdicts.shift();
        if (verdict instanceof Error) throw verdict;
        if (verdict === undefined) throw new Error('counted more often than requested');
        // The view may change while the count is pending (the last case).
        if (verdicts.length === 0) stored = 'gone';
        return verdict;
      },
    }, (x) => (x === stored ? body : undefined));
    const fellBack: unknown[] = [];
    const fallback = (req: unknown) => void fellBack.push(req);
    const settle = () => new Promise((r) => setImmediate(r));

    const admitted = fakeRequest('/t/A/end', '10.0.0.1');
    assert.equal(fast.serve(admitted.req, admitted.res, fallback), true);
    await settle();
    assert.deepEqual(Object.keys(admitted.written.headers ?? {}), ['x-content-type-options', 'access-control-allow-origin', 'x-rate-limit-limit', 'content-type', 'cache-control', 'vary', 'etag', 'content-length']);
    assert.equal(admitted.written.body, body.plain);
    for (const verdict of ['refused', 'store down', 'body gone meanwhile']) {
      const r = fakeRequest('/t/A/end', '10.0.0.1');
      assert.equal(fast.serve(r.req, r.res, fallback), true, verdict);
      await settle();
      assert.equal(r.written.status, undefined, verdict);
      assert.equal(fellBack[fellBack.length - 1], r.req, verdict);
    }
    assert.equal(fellBack.length, 3);
    assert.equal(counted.length, 4);
    assert.equal(recorded.length, 1);
    // Nothing is counted for a tag without a stored body, or without a fallback to hand refusals to.
    assert.equal(fast.serve(fakeRequest('/t/B/end', '10.0.0.1').req, fakeRequest('/t/B/end').res, fallback), false);
    assert.equal(fast.serve(fakeRequest('/t/gone/end', '10.0.0.1').req, fakeRequest('/t/gone/end').res), false);
    assert.equal(counted.length, 4);
  });

  it('declines once the app is closing, for limited peers, without a stored body, and when disabled', () => {
    assert.equal(setup({ closing: () => true }).stored.serve(fakeRequest('/t/A/end').req, fakeRequest('/t/A/end').res), false);
    const { stored, recorded } = setup();
    assert.equal(stored.serve(fakeRequest('/t/A/end', '10.0.0.1').req, fakeRequest('/t/A/end').res), false);
    assert.equal(stored.serve(fakeRequest('/t/B/end').req, fakeRequest('/t/B/end').res), false);
    assert.equal(stored.serve(fakeRequest('/t/A/end', '127.0.0.1', 'POST').req, fakeRequest('/t/A/end').res), false);
    assert.equal(recorded.length, 0);
    stored.disable();
    assert.equal(stored.serve(fakeRequest('/t/A/end').req, fakeRequest('/t/A/end').res), false);
  });
});

describe('stored-response fast path: the bazaar snapshot', () => {
  const SNAPSHOT = '/api/bazaar/:itemTag/snapshot';
  const path = '/api/bazaar/BZ_ITEM/snapshot';
  const hour = '/api/bazaar/BZ_ITEM/history/hour';
  let fast: Target;
  let normal: Target;
  let now = 0;
  // A deep book: the answer is well over the compression threshold.
  const levels = (from: number, step: number) => Array.from({ length: 30 }, (_, i) => ({ amount: 64 * (i + 1), pricePerUnit: from + i * step, orders: i + 1 }));
  const snapshotRow = (ts: number, buy: number): BazaarSnapshotsTable => ({
    product_id: 'BZ_ITEM', ts, buy_price: buy, sell_price: buy - 1.5, buy_volume: 12_345, sell_volume: 6_789, buy_moving_week: 1_000_000, sell_moving_week: 900_000, buy_orders: 30, sell_orders: 30,
    book: encodeBook({ buyOrders: levels(buy - 1.5, -0.1), sellOffers: levels(buy, 0.1) }),
  });
  const insertRow = (row: BazaarSnapshotsTable) =>
    fast.t.store.bazaar.insertSnapshot([row], { name: 'bazaar', lastUpdated: row.ts, storedAt: row.ts, records: 1, source: 'simulator' });

  before(async () => {
    const first = await createTestApp();
    now = first.clock.now();
    const second = await createTestApp({ store: first.store, storedResponses: false });
    fast = await listen(first);
    normal = await listen(second);
    // Ten snapshots over the last hour, the newest 30 s ago.
    for (let k = 0; k < 10; k++) await insertRow(snapshotRow(now - 55 * 60_000 + k * 5 * 60_000, 90 + k));
    await insertRow(snapshotRow(now - 30_000, 100.5));
    // The first requests build the prepared answer (normal path on both).
    for (let i = 0; i < 2; i++) {
      for (const p of [path, hour, '/api/bazaar/BZ_ITEM/history/day', '/api/bazaar/BZ_ITEM/history/week']) {
        assert.equal((await send(fast, p)).status, 200);
        assert.equal((await send(normal, p)).status, 200);
      }
    }
  });
  after(async () => {
    for (const target of [fast, normal]) {
      target.agent.destroy();
      await target.t.close();
    }
  });

  const cases: Array<{ name: string; path?: string; headers?: Record<string, string>; fastPath: boolean }> = [
    { name: 'plain GET', fastPath: true },
    { name: 'lower-case tag', path: '/api/bazaar/bz_item/snapshot', fastPath: true },
    { name: 'Accept application/json', headers: { accept: 'application/json' }, fastPath: true },
    { name: 'Accept text/plain', headers: { accept: 'text/plain' }, fastPath: true },
    { name: 'Accept text/json', headers: { accept: 'text/json' }, fastPath: true },
    { name: 'gzip', headers: { 'accept-encoding': 'gzip' }, fastPath: true },
    { name: 'br', headers: { 'accept-encoding': 'gzip, deflate, br, zstd' }, fastPath: true },
    { name: 'text/plain and br', headers: { accept: 'text/plain', 'accept-encoding': 'br' }, fastPath: true },
    { name: 'Accept text/html', headers: { accept: 'text/html' }, fastPath: false },
    { name: 'a timestamp', path: `${path}?timestamp=2026-11-22T11:59:45Z`, fastPath: false },
    { name: 'a malformed timestamp (400)', path: `${path}?timestamp=yesterday`, fastPath: false },
    { name: 'gzip and a malformed timestamp (400)', path: `${path}?timestamp=yesterday`, headers: { 'accept-encoding': 'gzip' }, fastPath: false },
    { name: 'invalid tag (400)', path: '/api/bazaar/BAD%20TAG/snapshot', fastPath: false },
    { name: 'invalid tag, plain characters (400)', path: '/api/bazaar/-/snapshot', fastPath: false },
    { name: 'unknown product (404)', path: '/api/bazaar/NO_SUCH_PRODUCT/snapshot', fastPath: false },
    { name: 'If-None-Match', headers: { 'if-none-match': '"other"' }, fastPath: false },
    { name: 'hour history', path: hour, fastPath: true },
    { name: 'hour history, lower case', path: '/api/bazaar/bz_item/history/hour', fastPath: true },
    { name: 'hour history, gzip', path: hour, headers: { 'accept-encoding': 'gzip' }, fastPath: true },
    { name: 'hour history, br and text/plain', path: hour, headers: { accept: 'text/plain', 'accept-encoding': 'br' }, fastPath: true },
    { name: 'hour history, a query', path: `${hour}?x=1`, fastPath: false },
    { name: 'hour history, invalid tag (400)', path: '/api/bazaar/BAD%20TAG/history/hour', fastPath: false },
    { name: 'hour history, unknown product (404)', path: '/api/bazaar/NO_SUCH_PRODUCT/history/hour', fastPath: false },
    { name: 'day history', path: '/api/bazaar/BZ_ITEM/history/day', fastPath: true },
    { name: 'week history, gzip', path: '/api/bazaar/BZ_ITEM/history/week', headers: { 'accept-encoding': 'gzip' }, fastPath: true },
    { name: 'custom-range history (not prepared)', path: `/api/bazaar/BZ_ITEM/history?start=2026-11-22T11:00:00Z`, fastPath: false },
  ];
  for (const c of cases) {
    it(`${c.name}: same answer from both paths, ${c.fastPath ? 'fast path taken' : 'left to Fastify'}`, async () => {
      const servedBefore = fast.t.app.storedResponses.served;
      const a = await send(fast, c.path ?? path, 'GET', c.headers);
      const b = await send(normal, c.path ?? path, 'GET', c.headers);
      assert.equal(fast.t.app.storedResponses.served - servedBefore, c.fastPath ? 1 : 0, 'fast path taken or not');
      assert.deepEqual(a, b);
    });
  }

  it('the prepared bytes are what the route serialises for the same snapshot asked by time, and /metrics counts match', async () => {
    const prepared = await send(fast, path);
    const byTime = await send(normal, `${path}?timestamp=${new Date(now).toISOString()}`);
    assert.equal(prepared.body, byTime.body);
    assert.equal((JSON.parse(prepared.body) as { buyPrice: number }).buyPrice, 100.5);
    assert.equal(header(prepared, 'vary'), 'Accept-Encoding, Accept');
    assert.equal(header(prepared, 'cache-control'), 'public, max-age=10');
    assert.deepEqual(await metricLines(fast, SNAPSHOT), await metricLines(normal, SNAPSHOT));
  });

  it('the prepared hour is what the route serialises for the same range asked explicitly', async () => {
    const prepared = await send(fast, hour);
    const explicit = await send(normal, `/api/bazaar/BZ_ITEM/history?start=${new Date(now - 3_600_000).toISOString()}&end=${new Date(now).toISOString()}`);
    assert.equal(explicit.status, 200);
    assert.equal(prepared.body, explicit.body);
    assert.equal((JSON.parse(prepared.body) as unknown[]).length, 11);
    assert.deepEqual(await send(normal, hour), prepared);
    assert.deepEqual(await metricLines(fast, '/api/bazaar/:itemTag/history/hour'), await metricLines(normal, '/api/bazaar/:itemTag/history/hour'));
  });

  it('the prepared day is what the route serialises for the same range asked explicitly', async () => {
    const day = '/api/bazaar/BZ_ITEM/history/day';
    const prepared = await send(fast, day);
    const explicit = await send(normal, `/api/bazaar/BZ_ITEM/history?start=${new Date(now - 86_400_000).toISOString()}&end=${new Date(now).toISOString()}`);
    assert.equal(explicit.status, 200);
    assert.equal(prepared.body, explicit.body);
    assert.equal((JSON.parse(prepared.body) as unknown[]).length, 11);
    assert.deepEqual(await send(normal, day), prepared);
  });

  it('the prepared hour expires when its oldest point leaves the window', async () => {
    for (const target of [fast, normal]) target.t.clock.advance(5 * 60_000 + 1);
    try {
      const servedBefore = fast.t.app.storedResponses.served;
      const a = await send(fast, hour);
      assert.equal(fast.t.app.storedResponses.served, servedBefore, 'rebuilt, not sent from memory');
      assert.deepEqual(a, await send(normal, hour));
      assert.equal((JSON.parse(a.body) as unknown[]).length, 10);
    } finally {
      for (const target of [fast, normal]) target.t.clock.advance(-(5 * 60_000 + 1));
    }
  });

  it('a newer snapshot replaces the prepared answer at once', async () => {
    await insertRow(snapshotRow(now - 10_000, 104.5));
    const a = await send(fast, path);
    assert.equal((JSON.parse(a.body) as { buyPrice: number }).buyPrice, 104.5);
    assert.deepEqual(a, await send(normal, path));
    const h = await send(fast, hour);
    assert.equal((JSON.parse(h.body) as Array<{ buy: number }>).at(-1)?.buy, 104.5);
    assert.deepEqual(h, await send(normal, hour));
    // Prepared again from the next request on.
    const servedBefore = fast.t.app.storedResponses.served;
    assert.deepEqual(await send(fast, path), await send(normal, path));
    assert.equal(fast.t.app.storedResponses.served - servedBefore, 1);
  });

  it('a snapshot stamped after now is not served before its time', async () => {
    await insertRow(snapshotRow(now + 60_000, 110));
    const servedBefore = fast.t.app.storedResponses.served;
    const a = await send(fast, path);
    await send(fast, path);
    assert.equal(fast.t.app.storedResponses.served, servedBefore, 'not from memory while the newest snapshot is ahead of the clock');
    assert.equal((JSON.parse(a.body) as { buyPrice: number }).buyPrice, 104.5);
    assert.deepEqual(a, await send(normal, path));
  });
});

describe('stored-response fast path: the flip feeds', () => {
  const SPREAD = '/api/flip/bazaar/spread';
  const PUBLIC = [SPREAD, '/api/flip/bazaar/residual', '/api/flip/bazaar/books', '/api/flip/npc', '/api/flip/fusion', '/api/flip/copper', '/api/flip/update/when'];
  const GATED = ['/api/flip/bazaar/spread/deemand', '/api/flip/mayor', '/api/flip/npc/reverse', '/api/flip/fusion/multistep', '/api/flip/attribute'];
  let fast: Target;
  let normal: Target;
  let token = '';
  const env = { FLIPS_POLL_MS: '0' };
  // Products with a wide spread and volume: spread flips for each.
  const PRODUCTS = Array.from({ length: 12 }, (_, i) => `FLIP_ITEM_${i}`);
  const row = (product: string, ts: number, buy: number): BazaarSnapshotsTable => ({
    product_id: product, ts, buy_price: buy, sell_price: buy * 0.8, buy_volume: 50_000, sell_volume: 40_000, buy_moving_week: 5_000_000, sell_moving_week: 4_000_000, buy_orders: 20, sell_orders: 20, book: null,
  });
  async function snapshot(ts: number, base: number): Promise<void> {
    await fast.t.store.bazaar.insertSnapshot(PRODUCTS.map((p, i) => row(p, ts, base + i * 10)), { name: 'bazaar', lastUpdated: ts, storedAt: ts, records: PRODUCTS.length, source: 'simulator' });
  }
  /** Both apps' engines compute from the same store at the same (manual) time: the same flips. */
  async function recompute(): Promise<void> {
    for (const target of [fast, normal]) await target.t.app.market.flips.refresh();
    assert.equal(fast.t.app.market.flips.bazaar?.computedAt, normal.t.app.market.flips.bazaar?.computedAt);
  }

  before(async () => {
    const first = await createTestApp({ env });
    const second = await createTestApp({ store: first.store, env, storedResponses: false });
    fast = await listen(first);
    normal = await listen(second);
    token = (await first.store.accounts.create({ tier: 'premium', now: first.clock.now() })).token;
    await snapshot(first.clock.now() - 40_000, 1_000);
    await recompute();
    // The first request after a computation prepares the answer (normal path on both).
    for (const p of PUBLIC) {
      assert.equal((await send(fast, p)).status, 200, p);
      assert.equal((await send(normal, p)).status, 200, p);
    }
  });
  after(async () => {
    for (const target of [fast, normal]) {
      target.agent.destroy();
      await target.t.close();
    }
  });

  it('the spread feed is large enough to be compressed', async () => {
    const a = await send(fast, SPREAD);
    assert.deepEqual(a, await send(normal, SPREAD));
    assert.ok((JSON.parse(a.body) as unknown[]).length >= PRODUCTS.length / 2, a.body);
    assert.ok(Number(header(a, 'content-length')) > 1024);
    assert.ok(header(a, 'x-computed-at'));
    assert.ok(header(a, 'last-modified'));
  });

  const cases: Array<{ name: string; path: string; headers?: Record<string, string>; fastPath: boolean }> = [
    ...PUBLIC.map((path) => ({ name: path, path, fastPath: true })),
    { name: 'spread, gzip', path: SPREAD, headers: { 'accept-encoding': 'gzip' }, fastPath: true },
    { name: 'spread, br and text/plain', path: SPREAD, headers: { accept: 'text/plain', 'accept-encoding': 'gzip, deflate, br' }, fastPath: true },
    { name: 'spread, an Origin', path: SPREAD, headers: { origin: 'https://example.org' }, fastPath: true },
    { name: 'spread, Accept text/html', path: SPREAD, headers: { accept: 'text/html' }, fastPath: false },
    { name: 'spread, If-None-Match', path: SPREAD, headers: { 'if-none-match': '"other"' }, fastPath: false },
    { name: 'spread, a query', path: `${SPREAD}?x=1`, fastPath: false },
    { name: 'residual, the default hold time asked explicitly', path: '/api/flip/bazaar/residual?targetHoldTimeHours=1', fastPath: false },
    { name: 'residual, another hold time', path: '/api/flip/bazaar/residual?targetHoldTimeHours=4', fastPath: false },
    { name: 'residual, a bad hold time (400)', path: '/api/flip/bazaar/residual?targetHoldTimeHours=0', fastPath: false },
    ...GATED.map((path) => ({ name: `${path} without a token (401)`, path, fastPath: false })),
    ...GATED.map((path) => ({ name: `${path} with a token`, path, headers: { authorization: `Bearer ${token}` }, fastPath: false })),
  ];
  for (const c of cases) {
    it(`${c.name}: same answer from both paths, ${c.fastPath ? 'fast path taken' : 'left to Fastify'}`, async () => {
      const servedBefore = fast.t.app.storedResponses.served;
      const a = await send(fast, c.path, 'GET', c.headers);
      const b = await send(normal, c.path, 'GET', c.headers);
      assert.equal(fast.t.app.storedResponses.served - servedBefore, c.fastPath ? 1 : 0, 'fast path taken or not');
      assert.deepEqual(a, b);
    });
  }

  it('the default residual is the answer to the default hold time asked explicitly, and /metrics counts match', async () => {
    const prepared = await send(fast, '/api/flip/bazaar/residual');
    assert.deepEqual(prepared, await send(normal, '/api/flip/bazaar/residual?targetHoldTimeHours=1'));
    for (const route of [SPREAD, '/api/flip/update/when']) assert.deepEqual(await metricLines(fast, route), await metricLines(normal, route));
  });

  it('a recomputation replaces the prepared answer', async () => {
    const before = await send(fast, SPREAD);
    for (const target of [fast, normal]) target.t.clock.advance(20_000);
    await snapshot(fast.t.clock.now() - 5_000, 2_000);
    await recompute();
    const servedBefore = fast.t.app.storedResponses.served;
    const a = await send(fast, SPREAD);
    assert.equal(fast.t.app.storedResponses.served, servedBefore, 'prepared anew on the normal path, not sent from memory');
    assert.notEqual(a.body, before.body);
    assert.notEqual(header(a, 'x-computed-at'), header(before, 'x-computed-at'));
    assert.notEqual(header(a, 'etag'), header(before, 'etag'));
    assert.deepEqual(a, await send(normal, SPREAD));
    // Sent from memory again from the next request on, the new answer.
    const again = await send(fast, SPREAD);
    assert.equal(fast.t.app.storedResponses.served - servedBefore, 1);
    assert.deepEqual(again, a);
    assert.deepEqual(again, await send(normal, SPREAD));
    // The update time follows the feeds' state at once.
    const when = await send(fast, '/api/flip/update/when');
    assert.equal(JSON.parse(when.body), new Date(fast.t.clock.now() - 5_000).toISOString());
    assert.deepEqual(when, await send(normal, '/api/flip/update/when'));
  });
});
