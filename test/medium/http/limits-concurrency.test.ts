/**
 * Rate-limit exactness under concurrency, over real sockets: many client IPs (through
 * X-Forwarded-For with TRUST_PROXY) each fire concurrent bursts, and exactly 30 per 10 s
 * and 100 per 60 s are admitted per IP, with the memory and the Redis counters. The
 * sequential cases live in limits.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { IN_CI, dropRedisPrefix, probeRedis } from '../../helpers/services.ts';

const REDIS_URL = process.env.REDIS_URL_TEST ?? 'redis://127.0.0.1:6379';
const redisUnavailable = await probeRedis(REDIS_URL);

const IPS = 20;
const BURST = 40;

const dropPrefix = (prefix: string) => dropRedisPrefix(REDIS_URL, prefix);

for (const backend of ['memory', 'redis'] as const) {
  const title = `rate limits under concurrency [${backend}]`;
  if (backend === 'redis' && redisUnavailable) {
    if (IN_CI) throw new Error(`Redis required under CI=true but unreachable at ${REDIS_URL}: ${redisUnavailable}`);
    console.log(`# SKIP ${title}: Redis unreachable at ${REDIS_URL} (${redisUnavailable})`);
    continue;
  }

  describe(title, () => {
    const prefix = `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
    let t: TestApp;
    let base: string;
    // Enough sockets that a whole burst is in flight at once.
    const agent = new Agent({ connections: IPS * BURST, pipelining: 1 });

    before(async () => {
      t = await createTestApp({
        env: { TRUST_PROXY: 'true', RATE_LIMIT_EXEMPT: '', ...(backend === 'redis' ? { REDIS_URL, REDIS_PREFIX: prefix } : {}) },
      });
      base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await agent.close();
      await t.close();
      if (backend === 'redis') await dropPrefix(prefix);
    });

    /** Every IP sends `BURST` requests at once; returns [admitted, refused] per IP. */
    async function burst(ips: string[]): Promise<Map<string, [number, number]>> {
      const counts = new Map(ips.map((ip) => [ip, [0, 0] as [number, number]]));
      await Promise.all(
        ips.flatMap((ip) =>
          Array.from({ length: BURST }, async () => {
            const res = await request(`${base}/api/version`, { dispatcher: agent, headers: { 'x-forwarded-for': ip } });
            await res.body.dump();
            const c = counts.get(ip)!;
            if (res.statusCode === 200) c[0]++;
            else if (res.statusCode === 429) c[1]++;
            else assert.fail(`unexpected status ${res.statusCode} for ${ip}`);
          }),
        ),
      );
      return counts;
    }

    it(`${IPS} IPs x ${BURST} concurrent requests: exactly 30 admitted per IP per 10 s, 100 per minute`, async () => {
      const ips = Array.from({ length: IPS }, (_, i) => `198.18.${backend === 'redis' ? 1 : 0}.${i + 1}`);
      // Start at the beginning of a minute so four 10 s windows fit in it.
      t.clock.set(Math.ceil(t.clock.now() / 60_000) * 60_000);
      const expected = [30, 30, 30, 10];
      for (const [i, admitted] of expected.entries()) {
        const counts = await burst(ips);
        for (const [ip, [ok, refused]] of counts) {
          assert.equal(ok, admitted, `${ip}, 10 s window ${i + 1}: admitted`);
          assert.equal(refused, BURST - admitted, `${ip}, 10 s window ${i + 1}: refused`);
        }
        t.clock.advance(10_000);
      }
      t.clock.advance(20_000); // the next minute
      for (const [ip, [ok]] of await burst(ips)) assert.equal(ok, 30, `${ip}: a new minute admits again`);
    });
  });
}
