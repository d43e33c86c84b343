/**
 * Benchmark target for bench/ratelimit.ts: the real app on a throwaway SQLite store, with the
 * per-IP limits in the mode given as argv[2]: 'off' (every client exempt), 'memory', or
 * 'redis' (REDIS_URL, default redis://127.0.0.1:6379, under a fresh key prefix).
 * TRUST_PROXY=true so the load generator can present many clients through X-Forwarded-For.
 */
import { randomBytes } from 'node:crypto';
import { serveBenchApp } from './serve-app.ts';

const mode = process.argv[2] ?? 'memory';
if (!['off', 'memory', 'redis'].includes(mode)) throw new Error(`mode must be off, memory or redis, got ${mode}`);
const prefix = `bench:${process.pid}:${randomBytes(3).toString('hex')}:`;
await serveBenchApp({
  env: {
    TRUST_PROXY: 'true',
    RATE_LIMIT_EXEMPT: mode === 'off' ? '0.0.0.0/0,::/0' : '',
    ...(mode === 'redis' ? { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: prefix } : {}),
  },
  // Leave nothing behind in a shared Redis.
  beforeClose: async (app) => {
    if (!app.redis) return;
    let cursor = '0';
    do {
      const [next, keys] = await app.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await app.redis.del(...keys);
    } while (cursor !== '0');
  },
});
