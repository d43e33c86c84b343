/**
 * The spine on Redis Streams, against a real Redis: a writer's changes reach a reader process's
 * followers in order with the writer's numbers; a follower that starts behind a trimmed stream
 * resynchronises; and with a Redis of the test's own (a `redis-server` on a random port) stopped
 * and started again empty, the follower says it is behind, resynchronises once it is back, and
 * the writer's changes made meanwhile are not lost silently.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { RedisSpine } from '../../../src/spine/redis.ts';
import { Follower, Followers } from '../../../src/spine/follower.ts';
import type { MarketChange, MarketChangeBody } from '../../../src/domain/market-change.ts';
import { createLogger } from '../../../src/logger.ts';
import { dropRedisPrefix, freePort, IN_CI, probeRedis } from '../../helpers/services.ts';
import { waitUntil } from '../../helpers/wait.ts';

const REDIS_URL = process.env.REDIS_URL_TEST ?? 'redis://127.0.0.1:6379';
const redisUnavailable = await probeRedis(REDIS_URL);
const skip = redisUnavailable && !IN_CI ? `Redis unreachable at ${REDIS_URL} (${redisUnavailable})` : false;
const logger = createLogger('silent');

const resource = (lastUpdated: number): MarketChangeBody => ({ kind: 'resource', resource: 'items', lastUpdated });

const until = (what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> => waitUntil(condition, timeoutMs, what, 10);

/** A follower of `source` over a plain `store` of the items resource's lastUpdated. */
function follow(source: RedisSpine, store: { lastUpdated: number }) {
  const state = { lastUpdated: -1, loads: 0, applied: [] as number[] };
  const followers = new Followers();
  const follower = new Follower({
    name: 'items',
    source,
    followers,
    now: () => Date.now(),
    logger,
    projection: {
      async load() {
        state.loads++;
        state.lastUpdated = store.lastUpdated;
      },
      apply(change: MarketChange) {
        if (change.kind !== 'resource') return;
        state.applied.push(change.seq);
        state.lastUpdated = change.lastUpdated;
      },
    },
  });
  return { state, followers, follower };
}

describe('spine on Redis Streams [redis]', { skip, timeout: 120_000 }, () => {
  const prefix = `skymarket-test:spine-${randomUUID()}:`;
  const spines: RedisSpine[] = [];
  const open = (url = REDIS_URL, maxLen = 64) => {
    const s = new RedisSpine({ url, prefix, maxLen, logger, blockMs: 500 });
    spines.push(s);
    return s;
  };
  after(async () => {
    for (const s of spines) await s.close();
    if (!redisUnavailable) await dropRedisPrefix(REDIS_URL, prefix);
  });

  it('a reader\'s follower applies the writer\'s changes in order, numbered 1, 2, 3 …', async () => {
    const writer = open();
    const reader = open();
    const store = { lastUpdated: 0 };
    const { state, follower } = follow(reader, store);
    await follower.start();
    assert.equal(state.loads, 1);
    for (let i = 1; i <= 20; i++) writer.publish(resource(i));
    await writer.flushed();
    await until('20 changes applied', () => state.applied.length === 20);
    assert.deepEqual(state.applied, Array.from({ length: 20 }, (_, i) => i + 1));
    assert.equal(state.lastUpdated, 20);
    assert.equal(state.loads, 1, 'no reload');
    assert.equal(await reader.head(), 20);
    follower.stop();
  });

  it('a follower behind a trimmed stream (a replica that was down) sees the hole and resynchronises from the store', async () => {
    const writer = open(REDIS_URL, 10);
    const from = await writer.head();
    // While the replica is down: far more changes than the stream keeps (MAXLEN ~ trims whole nodes of ~100).
    for (let i = 1; i <= 400; i++) writer.publish(resource(1000 + i));
    await writer.flushed();
    const store = { lastUpdated: 1400 };
    const lagging = open();
    // The replica's view was loaded at `from`; the first head it reads again is the real one.
    let first = true;
    const source = {
      head: async () => (first ? ((first = false), from) : lagging.head()),
      subscribe: (fromSeq: number, h: Parameters<RedisSpine['subscribe']>[1]) => lagging.subscribe(fromSeq, h),
    } as unknown as RedisSpine;
    const { state, followers, follower } = follow(source, store);
    await follower.start();
    await until('resynchronised past the trimmed part', () => state.loads === 2 && followers.behind().length === 0);
    assert.deepEqual(follower.state.resyncs, { 'seq-jump': 1 });
    assert.equal(state.lastUpdated, 1400);
    assert.equal(follower.state.seq, await writer.head());
    writer.publish(resource(1401));
    await writer.flushed();
    await until('the next change applied in order', () => state.lastUpdated === 1401);
    assert.equal(state.loads, 2);
    follower.stop();
  });

  it('Redis stopped and started again empty: behind while away, resynchronised after, nothing lost silently', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    let server: ChildProcess | undefined;
    const startServer = async () => {
      server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      while ((await probeRedis(url)) !== undefined) {
        if (Date.now() > deadline) throw new Error('redis-server did not start');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const stopServer = async () => {
      const s = server!;
      const exited = new Promise((r) => s.once('exit', r));
      s.kill('SIGKILL');
      await exited;
    };
    await startServer();
    try {
      const writer = open(url);
      const reader = open(url);
      const store = { lastUpdated: 0 };
      const { state, followers, follower } = follow(reader, store);
      await follower.start();
      writer.publish(resource(1));
      await writer.flushed();
      await until('the first change', () => state.lastUpdated === 1);
      assert.deepEqual(followers.behind(), []);

      await stopServer();
      await until('the follower knows it is behind', () => followers.behind().length === 1);
      assert.match(followers.behind()[0]!.behind!, /unavailable/);
      // Committed meanwhile: the store has it, the stream never will.
      store.lastUpdated = 2;
      writer.publish(resource(2));
      await writer.flushed();
      assert.equal(writer.failedPublishes, 1);

      await startServer();
      await until('resynchronised after Redis came back', () => followers.behind().length === 0 && state.lastUpdated === 2);
      const resyncs = follower.state.resyncs;
      assert.ok((resyncs.restarted ?? 0) + (resyncs.unavailable ?? 0) >= 1, JSON.stringify(resyncs));
      // And it follows the new stream from there.
      store.lastUpdated = 3;
      writer.publish(resource(3));
      await writer.flushed();
      await until('a change after the restart', () => state.lastUpdated === 3);
      follower.stop();
    } finally {
      if (server && server.exitCode === null && server.signalCode === null) await stopServer();
    }
  });
});
