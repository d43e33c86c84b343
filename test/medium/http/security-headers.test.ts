/**
 * Security headers on the real app over a real socket (issue 45 item 3): nosniff on every answer
 * (pages, JSON, problem bodies, the fast path, Node's own error answers), a Content-Security-Policy
 * that fits the pages (no inline script or style in them), frame protection and a Referrer-Policy,
 * and a policy of its own for the icon SVG. test/web/browser.test.ts loads the pages under the policy.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startWebSite, type WebSite } from '../../helpers/web-site.ts';

/** Sends `raw` on a fresh socket and returns everything the server wrote before closing. */
function rawRequest(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

describe('security headers (issue 45 item 3)', () => {
  let s: WebSite;
  let port: number;
  before(async () => {
    s = await startWebSite({ historyHours: 2, auctions: 300 });
    port = Number(new URL(s.origin).port);
  });
  after(() => s?.close());

  it('pages: a policy that allows scripts, styles and connections only from the site, frame protection, Referrer-Policy', async () => {
    for (const path of ['/', '/data', '/flips', `/item/${s.item}`, `/bazaar/${encodeURIComponent(s.product)}`]) {
      for (const round of ['rendered', 'cached']) {
        const res = await fetch(s.origin + path);
        assert.equal(res.status, 200, path);
        const csp = res.headers.get('content-security-policy') ?? '';
        const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name = '', ...values]) => [name, values]));
        assert.deepEqual(directives.get('script-src'), ["'self'"], `${path} (${round}): ${csp}`);
        assert.deepEqual(directives.get('style-src'), ["'self'"], `${path} (${round})`);
        assert.deepEqual(directives.get('default-src'), ["'self'"], `${path} (${round})`);
        assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], `${path} (${round})`);
        assert.deepEqual(directives.get('object-src'), ["'none'"], `${path} (${round})`);
        assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
        assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', path);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
        // The policy fits the page: every script is the bundle (src on the site) or inert JSON data,
        // no <style> element and no style or event-handler attribute.
        const html = await res.text();
        for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) {
          assert.ok(/\bsrc="\/assets\/[^"]+\.js"/.test(tag) || tag.includes('type="application/json"'), `${path}: ${tag}`);
        }
        assert.doesNotMatch(html, /<style\b|\sstyle=|\son[a-z]+=/i, path);
      }
    }
  });

  it('the icon SVG gets a policy that allows nothing, and nosniff', async () => {
    const res = await fetch(`${s.origin}/api/item/${s.item}/icon`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /\bsandbox\b/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });

  it('the API docs page has its own policy: scripts only from the site, framed by nobody, no upgrade-insecure-requests', async () => {
    const res = await fetch(`${s.origin}/api/docs/static/index.html`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  });

  it('nosniff on JSON, on the fast path, on problem bodies and on the raw answers to broken requests', async () => {
    // The first request prepares the stored page; a later one is answered by the fast path.
    for (let i = 0; ; i++) {
      const before = s.t.app.storedResponses.served;
      const res = await fetch(`${s.origin}/api/auctions/tag/${s.item}/active/bin`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `request ${i + 1}`);
      if (s.t.app.storedResponses.served > before) break;
      assert.ok(i < 3, 'the fast path answers once the page is stored');
    }
    for (const [path, status] of [
      ['/api/version', 200],
      ['/api/no-such-route', 404],
      ['/api/item/%E0%A4%A/icon', 400],
      ['/assets/missing.js', 404],
      [`/api/auctions/tag/${s.item}/active/bin?pageSize=x`, 400],
    ] as const) {
      const res = await fetch(s.origin + path);
      assert.equal(res.status, status, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    }
    for (const raw of ['GARBAGE\r\n\r\n', `GET /api/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]) {
      const answer = await rawRequest(port, raw);
      assert.match(answer, /^HTTP\/1\.1 4\d\d /);
      assert.match(answer.split('\r\n\r\n')[0] ?? '', /\r\nX-Content-Type-Options: nosniff\r\n/i);
    }
  });
});
