/**
 * The live feeds never lose events silently (docs/streaming.md, gaps): a `Last-Event-ID` the ring
 * cannot serve (from the future, from before this process started) gets a `gap` event; with Redis
 * (a redis-server of the test's own, stopped and started again, never the shared one) events
 * published while it was away are lost, and every client, live or resuming, gets a `gap` before the
 * next event; health warns while Redis is unreachable and for a while after events were lost; the
 * outage is logged once each way by the feeds and by the rate limits, every failure counted in
 * `skymarket_dependency_failures_total`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { LOSS_WARNING_MS } from '../../../src/services/stream.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { openSse, syntheticNew, waitUntil, type SseClient } from './clients.ts';


describe('live feeds: ids the ring cannot serve get a gap [one process]', () => {
  let t: TestApp;
  let base: string;
  const clients: SseClient[] = [];
  before(async () => {
    t = await createTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    clients.forEach((c) => c.close());
    await t.close();
  });
  const sse = async (headers: Record<string, string>) => {
    const c = await openSse(`${base}/api/stream`, headers);
    clients.push(c);
    return c;
  };

  it('an id from the future gets a gap, then the live events', async () => {
    const hub = t.app.services.stream.hub;
    await hub.publish([syntheticNew('a')]);
    const now = t.clock.now();
    const future = `${now + 3_600_000}-0-0`;
    const client = await sse({ 'last-event-id': future });
    await client.waitFor((e) => e.length >= 1);
    assert.equal(client.events[0]!.topic, 'gap');
    assert.equal(client.events[0]!['lastEventId'], future);
    await hub.publish([syntheticNew('b')]);
    await client.waitFor((e) => e.some((x) => x['uuid'] === 'b'), 15_000, 'the live event after the gap');
  });

  it('an id from before this process started (its ring began empty) gets a gap, not a replay from the oldest event', async () => {
    const client = await sse({ 'last-event-id': `${t.context.startedAt - 60_000}-0-0` });
    await client.waitFor((e) => e.length >= 1);
    assert.equal(client.events[0]!.topic, 'gap');
    assert.equal(client.events.filter((e) => e.topic === 'auction.new').length, 0, 'nothing replayed as if complete');
  });

  it('an id the ring holds still resumes exactly', async () => {
    const hub = t.app.services.stream.hub;
    const first = hub.lastId()!;
    await hub.publish([syntheticNew('c')]);
    const client = await sse({ 'last-event-id': first });
    await client.waitFor((e) => e.some((x) => x['uuid'] === 'c'));
    assert.equal(client.events.some((e) => e.topic === 'gap'), false);
  });
});

/** A redis-server of this test's own on a free port, without persistence: stopped, it restarts empty. */
class OwnRedis {
  private child: ChildProcess | undefined;
  port = 0;

  async start(): Promise<void> {
    if (this.port === 0) {
      const probe = createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      this.port = (probe.address() as { port: number }).port;
      await new Promise((r) => probe.close(r));
    }
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.child = child;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += String(d)));
    await waitUntil(() => /Ready to accept connections/.test(out) || child.exitCode !== null, 15_000, 'redis-server ready');
    assert.equal(child.exitCode, null, `redis-server exited: ${out}`);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
}

describe('live feeds: events lost while Redis was away [own redis-server]', { timeout: 120_000 }, () => {
  const redis = new OwnRedis();
  const lines: Array<{ level: number; msg: string; user?: string }> = [];
  let t: TestApp;
  let base: string;
  const clients: SseClient[] = [];
  before(async () => {
    await redis.start();
    const logDestination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await createTestApp({ env: { REDIS_URL: redis.url, REDIS_PREFIX: 'gaps:', LOG_LEVEL: 'info', LOG_FORMAT: 'json' }, logDestination });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    clients.forEach((c) => c.close());
    await t?.close();
    await redis.stop();
  });

  const feedWarnings = async () => ((await t.app.inject('/api/health')).json() as { warnings: string[] }).warnings.filter((w) => w.startsWith('live feeds'));
  const failures = async (user: string) => {
    const text = await t.context.metrics.registry.metrics();
    const m = new RegExp(`skymarket_dependency_failures_total\\{[^}]*dependency="redis"[^}]*user="${user}"[^}]*\\} (\\d+)`).exec(text);
    return m ? Number(m[1]) : 0;
  };

  it('clients get a gap before the first event after the outage; health warns while it lasts and clears after; logged once each way', async () => {
    const hub = t.app.services.stream.hub;
    await hub.publish([syntheticNew('before')]);
    const live = await openSse(`${base}/api/stream`);
    clients.push(live);
    await hub.publish([syntheticNew('seen')]);
    await live.waitFor((e) => e.some((x) => x['uuid'] === 'seen'));
    const lastSeen = live.events.find((x) => x['uuid'] === 'seen')!.id!;
    assert.deepEqual(await feedWarnings(), []);

    await redis.stop();
    // Published while Redis is away: lost.
    await assert.rejects(hub.publish([syntheticNew('lost')]));
    let warned: string[] = [];
    const deadline = Date.now() + 30_000;
    while (!(warned = await feedWarnings()).some((w) => /Redis unreachable since/.test(w))) {
      assert.ok(Date.now() < deadline, 'health warns while Redis is unreachable');
      await new Promise((r) => setTimeout(r, 50));
    }
    // Requests meanwhile (from an address the limits count): served (the limits fail open), not one log line each.
    for (let i = 0; i < 20; i++) assert.equal((await t.app.inject({ url: '/api/stream/status', remoteAddress: '203.0.113.9' })).statusCode, 200);

    await redis.start();
    // The first batch that reaches the stream again carries the mark of the lost one.
    const until = Date.now() + 30_000;
    for (;;) {
      try {
        await hub.publish([syntheticNew('after')]);
        break;
      } catch {
        assert.ok(Date.now() < until, 'publishing again once Redis is back');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await live.waitFor((e) => e.some((x) => x['uuid'] === 'after'), 30_000, 'the live client gets the event after the outage');
    const afterOutage = live.events.slice(live.events.findIndex((x) => x['uuid'] === 'seen') + 1);
    assert.deepEqual(afterOutage.map((e) => e.topic), ['gap', 'auction.new'], 'a gap, then the next event; the lost one never');
    assert.equal(afterOutage[0]!['lastEventId'], lastSeen);

    // A client resuming from before the outage gets the same gap in place.
    const resumed = await openSse(`${base}/api/stream`, { 'last-event-id': lastSeen });
    clients.push(resumed);
    await resumed.waitFor((e) => e.some((x) => x['uuid'] === 'after'));
    assert.deepEqual(resumed.events.map((e) => e.topic), ['gap', 'auction.new']);

    // Health: Redis reachable again, events lost lately; then clear.
    await waitUntil(() => lines.some((l) => /reachable again \(live feeds\)/.test(l.msg)), 30_000, 'the end of the outage logged');
    const lately = await feedWarnings();
    assert.equal(lately.some((w) => /Redis unreachable since/.test(w)), false, JSON.stringify(lately));
    assert.equal(lately.some((w) => /events were lost/.test(w)), true, JSON.stringify(lately));
    t.clock.advance(LOSS_WARNING_MS + 1000);
    assert.deepEqual(await feedWarnings(), []);

    // Logged once when it started and once when it ended, per user of Redis; the rest counted.
    const feedLines = lines.filter((l) => /\(live feeds\)/.test(l.msg) || /^stream: (redis|XREAD)/.test(l.msg));
    assert.deepEqual(feedLines.map((l) => l.msg.split(' ').slice(0, 3).join(' ')), ['redis unreachable (live', 'redis reachable again'], JSON.stringify(feedLines));
    assert.ok((await failures('live feeds')) >= 2, `feed failures counted (${await failures('live feeds')})`);
    await waitUntil(() => lines.some((l) => /reachable again \(rate limits\)/.test(l.msg)), 30_000, 'the rate limits saw Redis back');
    const limitLines = lines.filter((l) => /\(rate limits\)|rate limiter unavailable|^redis error/.test(l.msg));
    assert.equal(limitLines.length, 2, JSON.stringify(limitLines));
    assert.ok((await failures('rate limits')) >= 20, `each request's failure counted (${await failures('rate limits')})`);
  });
});
