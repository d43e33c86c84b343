/**
 * Hostile clients against the real app (issue 21): validation that stops early, requests that
 * trickle in, and errors raised before routing, all answered as small problem bodies.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

/**
 * Sends `head`, then `drip` every `everyMs` until the server answers or closes; what it answered.
 * When the server cuts a slow client, measured against its timeouts, is bench/slow-clients.ts's
 * business: a test on a shared machine does not assert times.
 */
function trickle(port: number, head: string, drip: string, everyMs: number): Promise<{ answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => socket.writable && socket.write(drip), everyMs);
    });
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`still connected after 10 s; answered: ${answer.slice(0, 200)}`));
    }, 10_000).unref();
  });
}

function problemOf(raw: string): { status: number; type: string; body: Record<string, unknown> } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), type: /content-type: ([^\r\n]*)/i.exec(head)?.[1] ?? '', body: JSON.parse(body) };
}

describe('hostile clients (issue 21)', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp({ env: { REQUEST_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000' } });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  after(() => t.close());

  it('a 1 MB array that fails validation is refused in milliseconds with a small problem (item 2)', async () => {
    const payload = '[' + '[],'.repeat(340_000) + '[]]';
    for (const url of ['/api/auctions/active/uuid', '/api/data/playerNames']) {
      const res = await t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().slug, 'invalid_parameters');
      // Before: 2.2 s and a 21 MB body listing every element. Validation stops at the first
      // error: the problem names one, not 340,000 (the time it took is a bench's business).
      assert.ok(res.body.length < 1000, `${url}: ${res.body.length} bytes`);
    }
  });

  it('a client that trickles its body gets a 408 problem once REQUEST_TIMEOUT_MS is over (item 3)', async () => {
    const { answer } = await trickle(port, 'POST /api/data/playerNames HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[', '"a",', 100);
    const problem = problemOf(answer);
    assert.equal(problem.status, 408);
    assert.equal(problem.type, 'application/problem+json');
    assert.equal(problem.body.slug, 'request_timeout');
  });

  it('a client that trickles its headers gets a 408 once HEADERS_TIMEOUT_MS is over', async () => {
    const { answer } = await trickle(port, 'GET /api/version HTTP/1.1\r\nHost: x\r\n', 'X-Slow: y\r\n', 100);
    assert.equal(problemOf(answer).status, 408);
  });

  it('errors Node raises itself are problem bodies: a broken request line, headers too large (item 11)', async () => {
    const broken = await trickle(port, 'GARBAGE\r\n\r\n', '', 1000);
    assert.deepEqual([problemOf(broken.answer).status, problemOf(broken.answer).type, problemOf(broken.answer).body.slug], [400, 'application/problem+json', 'bad_request']);
    const huge = await trickle(port, `GET /api/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, '', 1000);
    assert.deepEqual([problemOf(huge.answer).status, problemOf(huge.answer).type, problemOf(huge.answer).body.slug], [431, 'application/problem+json', 'headers_too_large']);
  });

  it('OPTIONS that is not a preflight is a problem body; a preflight still passes (item 11)', async () => {
    const bare = await t.app.inject({ method: 'OPTIONS', url: '/api/version' });
    assert.equal(bare.statusCode, 400);
    assert.equal(bare.headers['content-type'], 'application/problem+json');
    assert.equal(bare.json().slug, 'invalid_preflight');
    const preflight = await t.app.inject({ method: 'OPTIONS', url: '/api/version', headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
  });
});

describe('METRICS_TOKEN (issue 21 item 13)', () => {
  const token = 'scrape-0123456789abcdef';
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: token } });
  });
  after(() => t.close());

  it('/metrics answers only the scraper that sends the token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Basic ${token}`, `Bearer ${token}x`]) {
      const res = await t.app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} });
      assert.equal(res.statusCode, 401, String(authorization));
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.json().slug, 'metrics_token_required');
      assert.doesNotMatch(res.body, /skymarket_http/);
    }
    const ok = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /skymarket_http_requests_total/);
  });
});
