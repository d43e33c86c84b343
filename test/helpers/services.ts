/**
 * Reachability probes for the external servers the PostgreSQL and Redis suites need.
 * Under CI=true a server that is briefly slow to accept (just started, a loaded machine)
 * must not turn into a failed suite, so the probe retries for up to PROBE_PATIENCE_MS;
 * elsewhere one short attempt decides, so an absent server skips quickly.
 */
import { createServer } from 'node:net';
import pg from 'pg';
import { Redis } from 'ioredis';

export const IN_CI = process.env.CI === 'true';
const PATIENCE_MS = Number(process.env.PROBE_PATIENCE_MS ?? (IN_CI ? 30_000 : 0));
const ATTEMPT_TIMEOUT_MS = IN_CI ? 5_000 : 3_000;

async function withPatience(attempt: () => Promise<void>): Promise<string | undefined> {
  const deadline = Date.now() + PATIENCE_MS;
  const reasons: string[] = [];
  for (;;) {
    try {
      await attempt();
      return undefined;
    } catch (err) {
      reasons.push(err instanceof Error ? err.message || err.name : String(err));
      if (Date.now() >= deadline) {
        const tries = reasons.length > 1 ? ` (${reasons.length} attempts)` : '';
        return `${reasons.at(-1)}${tries}`;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** Why PostgreSQL at `url` cannot be used, or undefined when it can. */
export function probePostgres(url: string): Promise<string | undefined> {
  return withPatience(async () => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: ATTEMPT_TIMEOUT_MS });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
    } finally {
      await client.end().catch(() => {});
    }
  });
}

/** Why Redis at `url` cannot be used, or undefined when it can. */
export function probeRedis(url: string): Promise<string | undefined> {
  return withPatience(async () => {
    const client = new Redis(url, {
      lazyConnect: true,
      connectTimeout: ATTEMPT_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
    } finally {
      client.disconnect();
    }
  });
}

/** Removes every Redis key under `prefix` (each test run has its own prefix). */
export async function dropRedisPrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** A TCP port free on 127.0.0.1 right now, for a child process to listen on. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
