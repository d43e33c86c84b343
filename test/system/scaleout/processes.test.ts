/**
 * Scale-out as deployed: real `skymarket serve` processes on one PostgreSQL schema and one
 * Redis prefix, fed by the simulator. Two `--role api` processes serve the same data, follow the
 * ingest leader's committed changes on the spine (Redis Streams) without reloading listings, and
 * share the per-IP rate limits; of two `--role ingest` processes one leads and one stands
 * by, and `kill -9` of the leader lets the standby take over at its next lock attempts (counted
 * in `skymarket_leader_lock_attempts_total`), after which the feeds keep advancing.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { Store } from '../../../src/store/index.ts';
import { IN_CI, POSTGRES_TEST_URL, dropSchema, postgresUnavailable, uniqueSchema } from '../../helpers/databases.ts';
import { probeRedis } from '../../helpers/services.ts';
import { openSse, type FeedEvent } from '../../medium/stream/clients.ts';
import { waitFor } from '../../helpers/wait.ts';

const REDIS_URL = process.env.REDIS_URL_TEST ?? 'redis://127.0.0.1:6379';
const redisUnavailable = await probeRedis(REDIS_URL);
const missing = [
  postgresUnavailable && `PostgreSQL unreachable at ${POSTGRES_TEST_URL} (${postgresUnavailable})`,
  redisUnavailable && `Redis unreachable at ${REDIS_URL} (${redisUnavailable})`,
].filter(Boolean);
const skip = missing.length > 0 && !IN_CI ? missing.join('; ') : false;
if (skip) console.log(`# SKIP scale-out processes: ${skip}`);

const ROOT = join(import.meta.dirname, '../../..');
/** How long the test waits for a takeover before it gives up (a deadline, not what it asserts). */
const TAKEOVER_DEADLINE_MS = 20_000;

interface Proc {
  name: string;
  child: ChildProcess;
  output: string;
  url: Promise<string>;
  exited: Promise<unknown>;
}

interface Health {
  status: string;
  role: string;
  ingest?: 'leader' | 'standby';
  feeds: Record<string, { lastUpdated: string }>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` (a failed probe counts as not yet); at the deadline the error carries the processes' last output. */
const until = <T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, procs: Proc[] = []): Promise<T> =>
  waitFor(what, () => probe().catch(() => undefined), {
    timeoutMs,
    intervalMs: 100,
    detail: () => procs.map((p) => `--- ${p.name}:\n${p.output.slice(-3000)}`).join('\n'),
  });

/** The sum of a metric's samples on a process (those whose labels include `having`). */
async function metric(url: string, name: string, having = ''): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if ((line.startsWith(`${name}{`) || line.startsWith(`${name} `)) && line.includes(having)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function health(url: string): Promise<Health> {
  const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5000) });
  return (await res.json()) as Health;
}

/** A distinct client per call, so the checks do not spend one client's rate limit. */
function someIp(): string {
  return `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;
}

async function getText(url: string, ip = someIp()): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers: { 'x-forwarded-for': ip }, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, body: await res.text() };
}

describe('scale-out processes [postgres+redis]', { skip, timeout: 150_000 }, () => {
  const schema = uniqueSchema('scale');
  const prefix = `skymarket-test:${schema}:`;
  const procs: Proc[] = [];
  let sim: SimulatorHandle | undefined;
  // The simulator's clock: real time, or stopped while a test needs the upstream to hold still.
  let frozenAt: number | undefined;
  const simClock = { now: () => frozenAt ?? Date.now() };
  let store: Store | undefined;
  let api: Proc[] = [];
  let ingest: Proc[] = [];

  function serve(name: string, role: string, env: Record<string, string>): Proc {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--role', role, '--port', '0', '--host', '127.0.0.1'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: Proc = { name, child, output: '', url: undefined!, exited: new Promise((r) => child.once('exit', r)) };
    proc.url = new Promise((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        proc.output = (proc.output + chunk.toString()).slice(-50_000);
        const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(proc.output);
        if (match) resolve(match[1]!);
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${proc.output}`)));
    });
    proc.url.catch(() => undefined); // awaited (and reported) by the tests
    procs.push(proc);
    return proc;
  }

  before(async () => {
    if (missing.length > 0) throw new Error(`PostgreSQL and Redis are required under CI=true: ${missing.join('; ')}`);
    // The upstream: a small, fast simulated market (a new auctions generation and bazaar snapshot every 2 s).
    sim = await startSimulator({
      ...DEFAULT_SIMULATOR_OPTIONS,
      seed: 9,
      auctions: 300,
      products: 30,
      generationSeconds: 2,
      bazaarSeconds: 2,
      backfillMs: 0,
      port: 0,
    }, { clock: simClock });
    // Migrated once here, so the processes start on a ready schema (and the test can read the feeds).
    store = await Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: tmpdir(), schema });
    const url = new URL(POSTGRES_TEST_URL);
    url.searchParams.set('schema', schema);
    const env = {
      DATABASE_URL: url.toString(),
      REDIS_URL,
      REDIS_PREFIX: prefix,
      UPSTREAM_URL: sim.url,
      TRUST_PROXY: 'true',
      RATE_LIMIT_EXEMPT: '',
      LEADER_RETRY_MS: '500',
      INGEST_AUCTIONS_SECONDS: '1',
      INGEST_BAZAAR_SECONDS: '1',
      INGEST_ENDED_SECONDS: '2',
      LOG_LEVEL: 'info',
      DEMO: '',
      DATA_DIR: tmpdir(),
    };
    api = [serve('api-1', 'api', env), serve('api-2', 'api', env)];
    ingest = [serve('ingest-1', 'ingest', env), serve('ingest-2', 'ingest', env)];
    await Promise.all(procs.map((p) => p.url));
  });

  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await sim?.close();
    await store?.close();
    if (!postgresUnavailable) await dropSchema(schema);
    if (!redisUnavailable) {
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        const keys: string[] = [];
        for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 })) keys.push(...(batch as string[]));
        if (keys.length) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    }
  });

  let leader: Proc;
  let standby: Proc;

  it('one ingest process leads, the other stands by; both API processes become ready', async () => {
    const states = await until(
      'one ingest leader and one standby',
      30_000,
      async () => {
        const s = await Promise.all(ingest.map(async (p) => (await health(await p.url)).ingest));
        return s.includes('leader') && s.includes('standby') ? s : undefined;
      },
      procs,
    );
    leader = ingest[states.indexOf('leader')]!;
    standby = ingest[states.indexOf('standby')]!;
    const metrics = await (await fetch(`${await standby.url}/metrics`)).text();
    assert.match(metrics, /skymarket_leader\{[^}]*duty="ingest"[^}]*\} 0/);
    assert.match(await (await fetch(`${await leader.url}/metrics`)).text(), /skymarket_leader\{[^}]*duty="ingest"[^}]*\} 1/);
    for (const p of api) {
      const h = await until(`${p.name} ready`, 30_000, async () => {
        const body = await health(await p.url);
        return body.status === 'ok' ? body : undefined;
      }, procs);
      assert.equal(h.role, 'api');
      assert.equal(h.ingest, undefined, 'an api process does not ingest');
    }
  });

  it('the live feeds: both API processes stream the ingest leader\'s events with the same ids, and one resumes from the other\'s id', async () => {
    const [a, b] = await Promise.all(api.map((p) => p.url));
    const onA = await openSse(`${a}/api/stream?topics=generation,auction.new,lbin.changed`);
    const onB = await openSse(`${b}/api/stream?topics=generation,auction.new,lbin.changed`);
    try {
      const gens = (events: FeedEvent[]) => events.filter((e) => e.topic === 'generation');
      await onA.waitFor((e) => gens(e).length >= 4, 30_000, 'generations on api-1');
      await onB.waitFor((e) => gens(e).length >= 4, 30_000, 'generations on api-2');
      // From a generation both saw to the last event both have.
      const from = gens(onA.events).map((e) => e.id!).find((id) => onB.events.some((e) => e.id === id))!;
      assert.ok(from, 'the processes number the same generation alike');
      const slice = (events: FeedEvent[], until: string) => events.slice(events.findIndex((e) => e.id === from), events.findIndex((e) => e.id === until) + 1);
      const lastA = onA.events[onA.events.length - 1]!.id!;
      const lastB = onB.events[onB.events.length - 1]!.id!;
      const until = onA.events.some((e) => e.id === lastB) ? lastB : lastA;
      await onB.waitFor((e) => e.some((x) => x.id === until), 10_000, 'api-2 to catch up');
      assert.deepEqual(slice(onB.events, until), slice(onA.events, until));
      assert.ok(slice(onA.events, until).length >= 2);
      // A client of api-1 moves to api-2 with its last id: exactly what followed on api-1.
      const resumed = await openSse(`${b}/api/stream?topics=generation,auction.new,lbin.changed`, { 'last-event-id': from });
      try {
        await resumed.waitFor((e) => e.some((x) => x.id === until), 10_000, 'the resumed stream');
        const expected = slice(onA.events, until).slice(1);
        assert.deepEqual(resumed.events.slice(0, expected.length).map((e) => e.id), expected.map((e) => e.id));
      } finally {
        resumed.close();
      }
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('both API processes serve the same data', async () => {
    // The race this test once lost: an API process keeps an in-memory view of the active auctions and, with no
    // ingestion of its own, compares the stored feed state with it at most every 5 s (reading it in the
    // background). With a new generation every 2 s the two processes' views were each up to ~5 s behind, at
    // different moments: one could still hold the view it loaded before the first generation was stored and
    // answer `[]` where the other had listings. So the upstream holds still here: once the store holds the
    // simulator's current generation, sales and bazaar, each process must catch up within its check interval,
    // and then both must answer exactly what the store holds.
    frozenAt = Date.now();
    try {
      sim!.market.advanceTo(frozenAt);
      const generation = sim!.market.generation().lastUpdated;
      const bazaarAt = sim!.market.bazaar().lastUpdated;
      await until('the store to hold the simulator\'s current generation, sales and bazaar', 30_000, async () => {
        const feeds = await store!.feeds.all();
        const at = (name: string) => feeds.find((f) => f.name === name)?.lastUpdated;
        return at('auctions') === generation && at('auctions_ended') === generation && at('bazaar') === bazaarAt ? true : undefined;
      }, procs);

      const [{ tag }] = (await store!.kysely
        .selectFrom('auctions')
        .select('tag')
        .where('state', '=', 'active')
        .where('bin', '=', true)
        .groupBy('tag')
        .orderBy((eb) => eb.fn.countAll(), 'desc')
        .limit(1)
        .execute()) as [{ tag: string }];
      // What the store says the lowest-BIN page holds: the 10 cheapest unended BINs without bids (ties: earliest end, uuid).
      const stored = async (): Promise<string[]> =>
        (
          await store!.kysely
            .selectFrom('auctions')
            .select('uuid')
            .where('tag', '=', tag)
            .where('state', '=', 'active')
            .where('bin', '=', true)
            .where('highest_bid', '=', 0)
            .where('end_at', '>', Date.now())
            .orderBy('starting_bid')
            .orderBy('end_at')
            .orderBy('uuid')
            .limit(10)
            .execute()
        ).map((r) => r.uuid);
      const uuids = (body: string) => (JSON.parse(body) as Array<{ uuid: string }>).map((a) => a.uuid.replaceAll('-', '').toLowerCase());
      const binPath = `/api/auctions/tag/${tag}/active/bin`;
      for (const p of api) {
        const url = await p.url;
        await until(`${p.name} to serve the stored lowest BINs of ${tag}`, 20_000, async () => {
          const res = await getText(url + binPath);
          assert.equal(res.status, 200, `${binPath}: ${res.body}`);
          const expected = await stored();
          assert.ok(expected.length > 0, `${tag} has stored BINs`);
          return JSON.stringify(uuids(res.body)) === JSON.stringify(expected) ? true : undefined;
        }, procs);
      }

      const [{ product_id: product }] = (await store!.kysely.selectFrom('bazaar_snapshots').select('product_id').limit(1).execute()) as [
        { product_id: string },
      ];
      const [a, b] = [await api[0]!.url, await api[1]!.url];
      for (const path of [binPath, `/api/bazaar/${product}/snapshot`]) {
        // Both views hold the same data now; only a listing ending between two requests could change an answer,
        // so compare when a's answer did not change around b's.
        const same = await until(`${path} to be stable across both API processes`, 20_000, async () => {
          const first = await getText(a + path);
          const other = await getText(b + path);
          const again = await getText(a + path);
          assert.equal(first.status, 200, `${path}: ${first.body}`);
          if (first.body !== again.body) return undefined;
          return { first, other };
        });
        assert.equal(same.other.status, 200);
        assert.equal(same.other.body, same.first.body, `${path} differs between the API processes`);
        assert.ok(same.first.body.length > 2, `${path} has data`);
      }
    } finally {
      frozenAt = undefined;
    }
  });

  it('a listing committed by the ingest process reaches both API processes on the spine, without their reading the listings table', async () => {
    const urls = await Promise.all(api.map((p) => p.url));
    const loaded = await Promise.all(urls.map((u) => metric(u, 'skymarket_market_listings_loaded_total')));
    for (const n of loaded) assert.ok(n >= 0);
    const activeNow = async () =>
      new Set((await store!.kysely.selectFrom('auctions').select('uuid').where('state', '=', 'active').execute()).map((r) => r.uuid));
    const before = await activeNow();
    // A listing the simulator lists after this point, as the ingest leader commits it.
    const fresh = await until('a new listing committed by the ingest leader', 30_000, async () => {
      const row = await store!.kysely
        .selectFrom('auctions')
        .select(['uuid', 'item_uid'])
        .where('state', '=', 'active')
        .where('item_uid', 'is not', null)
        .where('end_at', '>', Date.now() + 600_000)
        .orderBy('start_at', 'desc')
        .limit(50)
        .execute();
      return row.find((r) => !before.has(r.uuid));
    }, procs);
    for (const url of urls) {
      await until(`${url} to list the new item`, 10_000, async () => {
        const res = await fetch(`${url}/api/auctions/active/uuid`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': someIp() },
          body: JSON.stringify([fresh.item_uid]),
          signal: AbortSignal.timeout(5000),
        });
        const listed = (await res.json()) as string[];
        return listed.length === 1 ? true : undefined;
      }, procs);
    }
    const after = await Promise.all(urls.map((u) => metric(u, 'skymarket_market_listings_loaded_total')));
    assert.deepEqual(after, loaded, 'no API process read the listings table for it (no reload per generation)');
    for (const url of urls) assert.equal(await metric(url, 'skymarket_spine_resyncs_total'), 0, `${url} followed the spine without a hole`);
    for (const url of urls) assert.ok((await metric(url, 'skymarket_spine_seq', 'follower="active-auctions"')) > 0, 'the view applied changes');
  });

  it('the per-IP rate limit holds across both API processes (Redis)', async () => {
    const [a, b] = [await api[0]!.url, await api[1]!.url];
    const path = '/api/version';
    // Windows are aligned to the clock (10 s): a burst must not straddle a boundary, or it
    // would legitimately see two windows. Retry with a fresh client in that case.
    for (let attempt = 1; ; attempt++) {
      while (10_000 - (Date.now() % 10_000) < 4_000) await sleep(50);
      const ip = `203.0.113.${randomInt(1, 255)}`;
      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => getText((i % 2 ? b : a) + path, ip)));
      const crossed = Math.floor(started / 10_000) !== Math.floor(Date.now() / 10_000);
      if (crossed && attempt < 3) continue;
      assert.ok(!crossed, 'burst kept straddling a window boundary');
      const count = (status: number) => results.filter((r) => r.status === status).length;
      assert.equal(count(200), 30, `admitted: ${results.map((r) => r.status).join(',')}`);
      assert.equal(count(429), 10);
      // Each process saw only 20 requests: with per-process counters all 40 would pass.
      break;
    }
  });

  it('kill -9 of the ingest leader: the standby takes over at its next lock attempts and ingestion continues', async () => {
    const before = await store!.feeds.get('auctions');
    assert.ok(before, 'auctions ingested before the kill');
    const attemptsBefore = await metric(await standby.url, 'skymarket_leader_lock_attempts_total', 'duty="ingest"');
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await leader.exited;
    await until(`${standby.name} to lead`, TAKEOVER_DEADLINE_MS, async () => ((await health(await standby.url)).ingest === 'leader' ? true : undefined), procs);
    // Counted, not timed: PostgreSQL frees the lock when the killed process's session ends (its
    // socket closes with it), so the standby takes it at its next attempt or the one after (every
    // LEADER_RETRY_MS, 500 ms here); a lock that outlived its process would take many more.
    const attempts = (await metric(await standby.url, 'skymarket_leader_lock_attempts_total', 'duty="ingest"')) - attemptsBefore;
    console.log(`# ingest takeover after kill -9: ${attempts} lock attempt(s), ${Date.now() - killedAt} ms`);
    assert.ok(attempts >= 1 && attempts <= 4, `the standby tried the lock ${attempts} times before it led`);

    // Ingestion continues under the new leader: both feeds move past where they were at takeover.
    const auctionsAt = (await store!.feeds.get('auctions'))!.lastUpdated;
    const bazaarAt = (await store!.feeds.get('bazaar'))!.lastUpdated;
    await until('the feeds to advance under the new leader', 30_000, async () => {
      const [auctions, bazaar] = [await store!.feeds.get('auctions'), await store!.feeds.get('bazaar')];
      return auctions!.lastUpdated > auctionsAt && bazaar!.lastUpdated > bazaarAt ? true : undefined;
    }, [standby]);
    assert.ok(auctionsAt >= before.lastUpdated);
    const h = await health(await api[0]!.url);
    assert.equal(h.status, 'ok');
  });
});
