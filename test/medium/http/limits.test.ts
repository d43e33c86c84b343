import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { assertQueueCapacity, createCostLimiter } from '../../../src/http/limits.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { dropRedisPrefix, probeRedis } from '../../helpers/services.ts';

const REDIS_URL = process.env.REDIS_URL_TEST ?? 'redis://127.0.0.1:6379';

const redisUnavailable = await probeRedis(REDIS_URL);
const HAVE_REDIS = redisUnavailable === undefined;

const dropPrefix = (prefix: string) => dropRedisPrefix(REDIS_URL, prefix);

function routes(app: FastifyInstance) {
  app.get('/test/ping', async () => ({ ok: true }));
  const exportBudget = createCostLimiter(app, { keyPrefix: 'export', points: 5, durationSec: 300 });
  app.get<{ Querystring: { cost: string; who?: string } }>('/test/export', async (request) => {
    await exportBudget.consume(request.query.who ?? 'acct:1', Number(request.query.cost));
    return { ok: true };
  });
  app.get<{ Querystring: { queued: string } }>('/test/queue', async (request) => {
    assertQueueCapacity(Number(request.query.queued), 4);
    return { ok: true };
  });
}

type Backend = 'memory' | 'redis';

function envFor(backend: Backend, prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return { RATE_LIMIT_EXEMPT: '', ...(backend === 'redis' ? { REDIS_URL, REDIS_PREFIX: prefix } : {}), ...extra };
}

for (const backend of ['memory', 'redis'] as const) {
  const title = `rate limits [${backend}]`;
  if (backend === 'redis' && !HAVE_REDIS) {
    if (process.env.CI === 'true') throw new Error(`Redis required under CI=true but unreachable at ${REDIS_URL}: ${redisUnavailable}`);
    console.log(`# SKIP ${title}: Redis unreachable at ${REDIS_URL} (${redisUnavailable})`);
    continue;
  }

  describe(title, () => {
    const prefix = `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
    const apps: TestApp[] = [];
    let t: TestApp;
    const make = async (extra: Record<string, string> = {}, store?: TestApp['store']) => {
      const app = await createTestApp({ env: envFor(backend, prefix, extra), extend: routes, ...(store ? { store } : {}) });
      apps.push(app);
      return app;
    };
    before(async () => {
      t = await make();
    });
    after(async () => {
      for (const a of apps.reverse()) await a.close();
      if (backend === 'redis') await dropPrefix(prefix);
    });

    let ipCounter = 0;
    /** A fresh client address per test, so tests do not share counters. */
    const freshIp = () => `203.0.113.${++ipCounter}`;
    const hit = (app: TestApp, ip: string, url = '/test/ping', extra: Partial<InjectOptions> = {}) =>
      app.app.inject({ method: 'GET', url, remoteAddress: ip, ...extra });

    it('allows 30 requests in 10 s, refuses the 31st with 429, Retry-After and a problem body, resets with the window', async () => {
      const ip = freshIp();
      const start = t.clock.now();
      for (let i = 1; i <= 30; i++) assert.equal((await hit(t, ip)).statusCode, 200, `request ${i}`);
      t.clock.advance(4_000);
      const refused = await hit(t, ip);
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.headers['retry-after'], '6');
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
      const body = refused.json();
      assert.equal(body.status, 429);
      assert.equal(body.slug, 'rate_limited');
      assert.match(body.detail, /maximum admitted 30 per 10s/);
      assert.equal(refused.headers['x-rate-limit-limit'], '1m');
      t.clock.set(start + 10_000);
      assert.equal((await hit(t, ip)).statusCode, 200, 'a new 10 s window');
      t.clock.set(start);
    });

    it('enforces the minute window on its own: 100 per minute even when every 10 s window has room', async () => {
      const ip = freshIp();
      const start = t.clock.now() + 60_000 * 5;
      try {
        for (let w = 0; w < 3; w++) {
          t.clock.set(start + w * 10_000);
          for (let i = 0; i < 30; i++) assert.equal((await hit(t, ip)).statusCode, 200);
        }
        t.clock.set(start + 30_000);
        for (let i = 0; i < 10; i++) assert.equal((await hit(t, ip)).statusCode, 200);
        const last = await hit(t, ip);
        assert.equal(last.headers['x-rate-limit-remaining'], '0');
        assert.equal(last.statusCode, 429, 'the 101st request in the minute');
        assert.match(last.json().detail, /100 per 1m/);
        assert.equal(last.headers['retry-after'], '30');
        t.clock.set(start + 60_000);
        assert.equal((await hit(t, ip)).statusCode, 200, 'a new minute');
      } finally {
        t.clock.set(start - 60_000 * 5);
      }
    });

    it('sends the longest window in X-Rate-Limit-* and X-RateLimit-*', async () => {
      const ip = freshIp();
      const res = await hit(t, ip);
      const reset = new Date(Math.floor(t.clock.now() / 60_000) * 60_000 + 60_000).toISOString();
      for (const p of ['x-rate-limit-', 'x-ratelimit-']) {
        assert.equal(res.headers[`${p}limit`], '1m');
        assert.equal(res.headers[`${p}remaining`], '99');
        assert.equal(res.headers[`${p}reset`], reset);
      }
      assert.equal((await hit(t, ip)).headers['x-rate-limit-remaining'], '98');
    });

    it('counts per client IP, and never limits health or metrics', async () => {
      const a = freshIp();
      const b = freshIp();
      for (let i = 0; i < 30; i++) await hit(t, a);
      assert.equal((await hit(t, a)).statusCode, 429);
      assert.equal((await hit(t, b)).statusCode, 200);
      assert.equal((await hit(t, a, '/no/such/route')).statusCode, 429, 'unknown routes count too');
      const live = await hit(t, a, '/api/health/live');
      assert.equal(live.statusCode, 200);
      assert.equal(live.headers['x-rate-limit-limit'], undefined);
      assert.equal((await hit(t, a, '/metrics')).statusCode, 200);
    });

    it('exempts RATE_LIMIT_EXEMPT networks', async () => {
      const e = await make({ RATE_LIMIT_EXEMPT: '10.0.0.0/8, 2001:db8::/32' });
      for (let i = 0; i < 40; i++) assert.equal((await hit(e, '10.9.8.7')).statusCode, 200);
      for (let i = 0; i < 40; i++) assert.equal((await hit(e, '2001:db8::5')).statusCode, 200);
      assert.equal((await hit(e, '10.9.8.7')).headers['x-rate-limit-limit'], undefined);
      const other = '198.51.100.200';
      for (let i = 0; i < 30; i++) await hit(e, other);
      assert.equal((await hit(e, other)).statusCode, 429);
    });

    it('ignores proxy headers unless TRUST_PROXY trusts the peer', async () => {
      const peer = freshIp();
      // Untrusted: spoofed X-Forwarded-For / CF-Connecting-IP do not give a new budget.
      for (let i = 0; i < 30; i++) {
        await hit(t, peer, '/test/ping', { headers: { 'x-forwarded-for': `192.0.2.${i}`, 'cf-connecting-ip': `192.0.2.${i}` } });
      }
      assert.equal((await hit(t, peer, '/test/ping', { headers: { 'x-forwarded-for': '192.0.2.99' } })).statusCode, 429);

      const proxied = await make({ TRUST_PROXY: '10.1.1.1' });
      const proxy = '10.1.1.1';
      for (let i = 0; i < 30; i++) await hit(proxied, proxy, '/test/ping', { headers: { 'x-forwarded-for': '192.0.2.1' } });
      assert.equal((await hit(proxied, proxy, '/test/ping', { headers: { 'x-forwarded-for': '192.0.2.1' } })).statusCode, 429);
      assert.equal((await hit(proxied, proxy, '/test/ping', { headers: { 'x-forwarded-for': '192.0.2.2' } })).statusCode, 200);
      // CF-Connecting-IP only with TRUST_PROXY_HEADER=cf-connecting-ip.
      const cloudflare = await make({ TRUST_PROXY: '10.1.1.1', TRUST_PROXY_HEADER: 'cf-connecting-ip' });
      for (let i = 0; i < 30; i++) await hit(cloudflare, proxy, '/test/ping', { headers: { 'cf-connecting-ip': '192.0.2.3' } });
      assert.equal((await hit(cloudflare, proxy, '/test/ping', { headers: { 'cf-connecting-ip': '192.0.2.3' } })).statusCode, 429);
      assert.equal((await hit(cloudflare, proxy, '/test/ping', { headers: { 'cf-connecting-ip': '192.0.2.4' } })).statusCode, 200);
      // A peer outside TRUST_PROXY cannot pick its address.
      const stranger = '198.51.100.7';
      for (let i = 0; i < 30; i++) await hit(cloudflare, stranger, '/test/ping', { headers: { 'cf-connecting-ip': `192.0.2.${100 + i}` } });
      assert.equal((await hit(cloudflare, stranger, '/test/ping', { headers: { 'cf-connecting-ip': '192.0.2.200' } })).statusCode, 429);
    });

    it('behind a proxy that is not Cloudflare, CF-Connecting-IP neither evades the limits nor bans a victim (issue 21 item 6)', async () => {
      const proxied = await make({ TRUST_PROXY: '10.1.1.1', RATE_LIMIT_BAN_THRESHOLD: '2' });
      const proxy = '10.1.1.1';
      const attacker = '192.0.2.50';
      const victim = '192.0.2.51';
      // Rotating the header gives no new budget: the client is the X-Forwarded-For address.
      const codes = [];
      for (let i = 0; i < 33; i++) codes.push((await hit(proxied, proxy, '/test/ping', { headers: { 'x-forwarded-for': attacker, 'cf-connecting-ip': `198.18.0.${i}` } })).statusCode);
      assert.deepEqual(codes.slice(29), [200, 429, 429, 403]);
      // Naming the victim in the header got the attacker banned, not the victim.
      assert.equal((await hit(proxied, proxy, '/test/ping', { headers: { 'x-forwarded-for': victim } })).statusCode, 200);
      for (let i = 0; i < 3; i++) await hit(proxied, proxy, '/test/ping', { headers: { 'x-forwarded-for': '192.0.2.52', 'cf-connecting-ip': victim } });
      assert.equal((await hit(proxied, proxy, '/test/ping', { headers: { 'x-forwarded-for': victim } })).statusCode, 200);
    });

    it('blacklists an IP that keeps hammering; a Premium+ token unblocks it without raising its limits', async () => {
      const b = await make({ RATE_LIMIT_BAN_THRESHOLD: '3' });
      const ip = '198.51.100.66';
      const now = b.clock.now();
      const premium = (await b.store.accounts.create({ tier: 'premium', now })).token;
      const plus = (await b.store.accounts.create({ tier: 'premium_plus', now })).token;
      for (let i = 0; i < 30; i++) await hit(b, ip);
      // Exactly RATE_LIMIT_BAN_THRESHOLD 429s, then the ban (issue 21 item 12: it took one more).
      for (let i = 0; i < 3; i++) assert.equal((await hit(b, ip)).statusCode, 429);
      assert.equal((await hit(b, ip)).statusCode, 403);
      b.clock.advance(60_000);
      const blocked = await hit(b, ip);
      assert.equal(blocked.statusCode, 403);
      // A problem body with its slug and Retry-After for the rest of the ban (issue 45 item 2),
      // keeping the established service's `error` / `message` / `resolution` fields.
      assert.equal(blocked.headers['content-type'], 'application/problem+json');
      const retryAfter = Number(blocked.headers['retry-after']);
      assert.ok(retryAfter > 3600 && retryAfter <= 86_400, `Retry-After ${blocked.headers['retry-after']}`);
      const body = blocked.json();
      assert.equal(body.status, 403);
      assert.equal(body.slug, 'blocked');
      assert.equal(body.retryAfter, retryAfter);
      assert.equal(body.error, 'blocked');
      assert.match(body.message, /198\.51\.100\.66/);
      assert.match(body.resolution, /Premium\+/);
      assert.equal((await hit(b, ip, '/test/ping', { headers: { authorization: `Bearer ${premium}` } })).statusCode, 403, 'Premium does not unblock');
      assert.equal((await hit(b, ip, '/test/ping', { headers: { authorization: `Bearer ${plus}` } })).statusCode, 200);
      assert.equal((await hit(b, ip)).statusCode, 200, 'the IP is unblocked');
      // Premium+ counts per account and gets the default limits.
      b.clock.advance(60_000);
      let last = 0;
      for (let i = 0; i < 31; i++) last = (await hit(b, `198.51.100.${70 + (i % 3)}`, '/test/ping', { headers: { authorization: `Bearer ${plus}` } })).statusCode;
      assert.equal(last, 429);
    });

    it('cost limiter: 5 units per 5 minutes, refused requests are not charged', async () => {
      const who = `acct:${freshIp()}`;
      const url = (cost: number) => `/test/export?cost=${cost}&who=${encodeURIComponent(who)}`;
      const start = t.clock.now();
      try {
        assert.equal((await hit(t, freshIp(), url(3))).statusCode, 200);
        const refused = await hit(t, freshIp(), url(3));
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.json().slug, 'rate_limited');
        assert.equal(refused.headers['retry-after'], '300');
        assert.equal((await hit(t, freshIp(), url(1))).statusCode, 200);
        assert.equal((await hit(t, freshIp(), url(1))).statusCode, 200, 'the refused 3 was not charged');
        assert.equal((await hit(t, freshIp(), url(1))).statusCode, 429);
        assert.equal((await hit(t, freshIp(), url(6))).statusCode, 429, 'more than the whole budget');
        t.clock.set(start + 300_000);
        assert.equal((await hit(t, freshIp(), url(3))).statusCode, 200, 'a new window');
      } finally {
        t.clock.set(start);
      }
    });

    it('queue cap', async () => {
      assert.equal((await hit(t, freshIp(), '/test/queue?queued=3')).statusCode, 200);
      const full = await hit(t, freshIp(), '/test/queue?queued=4');
      assert.equal(full.statusCode, 429);
      assert.equal(full.json().slug, 'queue_full');
      assert.equal(full.headers['retry-after'], '60');
    });

    if (backend === 'redis') {
      it('serves uncounted requests when Redis goes away, and refuses to start without it', async () => {
        const lost = await make();
        lost.app.redis?.disconnect();
        const res = await hit(lost, freshIp());
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['x-rate-limit-limit'], undefined);
        // The cost limiter (bazaar export) fails open too: it answered 500 (issue 21 item 7).
        assert.equal((await hit(lost, freshIp(), '/test/export?cost=1')).statusCode, 200);
        await assert.rejects(
          createTestApp({ env: { RATE_LIMIT_EXEMPT: '', REDIS_URL: 'redis://127.0.0.1:1' } }),
          /Redis unreachable at redis:\/\/127\.0\.0\.1:1/,
        );
      });

      it('two app instances sharing one Redis enforce one combined limit', async () => {
        const other = await make({}, undefined);
        other.clock.set(t.clock.now());
        const ip = freshIp();
        for (let i = 0; i < 15; i++) {
          assert.equal((await hit(t, ip)).statusCode, 200);
          assert.equal((await hit(other, ip)).statusCode, 200);
        }
        assert.equal((await hit(other, ip)).statusCode, 429);
        assert.equal((await hit(t, ip)).statusCode, 429);
        const cost = `/test/export?cost=3&who=shared-${ip}`;
        assert.equal((await hit(t, freshIp(), cost)).statusCode, 200);
        assert.equal((await hit(other, freshIp(), cost)).statusCode, 429, 'the cost budget is shared too');
      });
    }
  });
}
