/**
 * The spine's measurements (issue 41, "Measure") on the processes users run: the compiled service
 * (`npm run build`, then `node dist/cli.js serve`) fed by the simulator in its own process.
 *
 * Scale-out (PostgreSQL + a private Redis started for the run, 1 `ROLE=ingest` process, 3 `ROLE=api` replicas):
 * 1. freshness: from a generation's commit (seen by polling the `feeds` row in PostgreSQL every 20 ms) until
 *    one of its new listings is served by each replica (polled on the lowest-BIN route filtered by its seller,
 *    an answer from the replica's view), p50/p99 over listings × replicas;
 * 2. replica CPU per generation (5 s after the commit) against a full reload of every active listing (the
 *    old behaviour, forced side by side in the same cycle by a `lost` change on the spine, which makes every
 *    follower resynchronise from the store), and the listings each replica read from the store per generation
 *    (`skymarket_market_listings_loaded_total`);
 * 3. the private Redis stopped for 60 s (its data lost: no persistence) and restarted: per replica, whether
 *    health warned meanwhile, whether it resynchronised without a restart (and how long after), whether an
 *    SSE client connected through the outage got `gap`, and whether the generations committed meanwhile are
 *    in the store and served afterwards.
 * One process on SQLite (role all, as `npm start` runs it):
 * 4. hot reads while it ingests, with its worker, jobs and timers: the lowest-BIN page, a bazaar snapshot and
 *    `/neu/lowestbin.json`, identity encoding, 50 connections, alternated with a bare node:http server sending
 *    the same bytes and header lines, 3 rounds; the service's CPU per request, its idle CPU (no requests),
 *    and its event-loop delay during the load;
 * 5. the cold generation: a fresh SQLite store, the first generation's `ms` from the service's log, alternated
 *    with the naive complete ingester of bench/ingest-floor.ts, 3 rounds; and "stored and served": until the
 *    service answers from that generation (a listing of its view, a non-empty `/neu/lowestbin.json`).
 *    `BENCH_SPINE_BASE_CLI=<dir>/dist/cli.js` runs another build (e.g. main's, built in a copy with
 *    node_modules linked) in the same rounds too: before and after in one run.
 *
 * `npm run bench -- spine` (`--quick`: 10,000 auctions, fewer generations, 1 round). `BENCH_SPINE_ONLY=fresh,outage,hot,cold`
 * picks parts (`fresh` is 1 and 2). `BENCH_SPINE_AUCTIONS` overrides the simulated size; `BENCH_SPINE_GENERATIONS`
 * the generations measured in 1–2; `BENCH_SPINE_OUTAGE_SECONDS` the outage (60). `BENCH_SERVER_NODE_ARGS` adds node
 * flags to the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`); `BENCH_SPINE_LOGS=<dir>` keeps each service's log there;
 * `BENCH_SPINE_GENERATION_SECONDS` sets the simulator's generation interval in 1–3 (20).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ALLOCATOR_TUNABLES } from '../src/heap.ts';
import { PUBLISH_SCRIPT } from '../src/spine/redis.ts';
import { startServer, type ServerProcess } from './harness.ts';
import { fetchPages, naive, timed } from './ingest-floor.ts';
import { dropBenchSchema, median, POSTGRES_URL, postgresReachable, type BenchOptions, type BenchRow } from './lib.ts';
import { cpuMsOf, metricsText, spawnListening, stopProcess, waitReady } from './load.ts';
import { NODE_WRITES } from './servers/in-process-floor.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/skymarket.js');
const DIST_CLI = join(ROOT, 'dist/cli.js');
const REPLICAS = 3;
const COMMIT_POLL_MS = 20;
const SEEN_POLL_MS = 25;
const LOCAL = '127.0.0.1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nodeArgs = () => (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

function load1(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, LOCAL, r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** A Redis of the bench's own (no persistence: a stop loses its data, as a restarted cache does). */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', LOCAL, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis({ port, host: LOCAL, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  for (let i = 0; ; i++) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch {
      if (i > 100) throw new Error('redis-server did not start');
      await sleep(100);
    }
  }
}

/** `skymarket simulate` (through tsx, as bench/load.ts starts it) with its own settings. */
async function startSimulator(auctions: number, env: NodeJS.ProcessEnv = {}): Promise<{ url: string; child: ChildProcess }> {
  const { url, child } = await spawnListening('simulator', [BIN, 'simulate', '--port', '0', '--host', LOCAL], { ...process.env, SIM_AUCTIONS: String(auctions), LOG_LEVEL: 'info', ...env });
  return { url, child };
}

interface Service {
  url: string;
  child: ChildProcess;
  /** the JSON log lines it printed (parsed), in order */
  logs: Array<Record<string, unknown>>;
}

/** The compiled service (`node dist/cli.js serve`) with `env`; its JSON log lines kept. */
async function startService(env: NodeJS.ProcessEnv, dataDir: string, cli = DIST_CLI): Promise<Service> {
  const logs: Array<Record<string, unknown>> = [];
  const { url, child } = await spawnListening('skymarket', [...nodeArgs(), cli, 'serve', '--data-dir', dataDir, '--port', '0', '--host', LOCAL], {
    ...process.env,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    RATE_LIMIT_EXEMPT: `${LOCAL},::1`,
    // What `npm start` runs the service with.
    GLIBC_TUNABLES: process.env.GLIBC_TUNABLES ?? ALLOCATOR_TUNABLES,
    ...env,
  });
  collectLogs(child, logs);
  // BENCH_SPINE_LOGS=<dir>: each service's log in a file of its own, for a closer look.
  const logDir = process.env.BENCH_SPINE_LOGS;
  if (logDir) {
    const file = join(logDir, `${env.ROLE ?? 'all'}-${child.pid}.log`);
    child.stdout!.on('data', (d: Buffer) => appendFileSync(file, d));
  }
  return { url, child, logs };
}

function collectLogs(child: ChildProcess, logs: Array<Record<string, unknown>>): void {
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
    if (logs.length > 20_000) logs.splice(0, 10_000);
  });
}

async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const res = await fetch(url);
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

async function health(url: string): Promise<{ status: string; warnings: string[] } | undefined> {
  return (await getJson<{ status: string; warnings: string[] }>(`${url}/api/health`).catch(() => undefined))?.body;
}

/** A metric's value (summed over its label sets) from a Prometheus text. */
function metricValue(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)`, 'gm'))) if (!labels || (m[1] ?? '').includes(labels)) sum += Number(m[2]);
  return sum;
}

// ---------------------------------------------------------------------------
// Scale-out: PostgreSQL + Redis, 1 ingest process, 3 api replicas

interface Commit {
  lastUpdated: number;
  /** when the bench first saw the committed feeds row */
  at: number;
}

/** Polls the auctions feed row of the run's schema: each new generation's commit time. */
class CommitWatch {
  readonly commits: Commit[] = [];
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(private readonly client: pg.Client) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    let last = -1;
    while (!this.stopped) {
      const res = await this.client.query<{ last_updated: string }>(`select last_updated from feeds where name = 'auctions'`).catch(() => undefined);
      const lu = Number(res?.rows[0]?.last_updated ?? -1);
      if (lu !== last && lu > 0) {
        last = lu;
        this.commits.push({ lastUpdated: lu, at: Date.now() });
      }
      await sleep(COMMIT_POLL_MS);
    }
  }

  /** Resolves with the first commit after `count` commits were seen (waits up to `ms`). */
  async next(count: number, ms: number): Promise<Commit | undefined> {
    const until = Date.now() + ms;
    while (this.commits.length <= count && Date.now() < until) await sleep(10);
    return this.commits[count];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

interface NewListing {
  uuid: string;
  tag: string;
  seller: string;
  lastUpdated: number;
}

/** Reads the spine's Redis stream as the replicas do and keeps, per generation, a few listings new in it. */
class StreamWatch {
  readonly byGeneration = new Map<number, NewListing[]>();
  /** when the bench read each generation's change from the stream */
  readonly arrivedAt = new Map<number, number>();
  private readonly redis: Redis;
  private stopped = false;
  private readonly done: Promise<void>;
  private previous: number;

  constructor(url: string, private readonly key: string, startAfter: number) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: (n) => Math.min(100 * n, 1000) });
    this.redis.on('error', () => undefined);
    this.previous = startAfter;
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    let cursor = '$';
    while (!this.stopped) {
      const res = await this.redis.xread('COUNT', 50, 'BLOCK', 1000, 'STREAMS', this.key, cursor).catch(async () => {
        await sleep(200);
        cursor = '$';
        return null;
      });
      if (!res) continue;
      for (const [, entries] of res) {
        for (const [id, fields] of entries) {
          cursor = id;
          const body = JSON.parse(fields[fields.indexOf('c') + 1] ?? '{}') as { kind: string; lastUpdated?: number; upserted?: Array<{ uuid: string; tag: string; seller: string; start: number | null; bin: boolean; highestBid: number; state: string }> };
          if (body.kind !== 'auctions' || body.lastUpdated === undefined) continue;
          this.arrivedAt.set(body.lastUpdated, Date.now());
          const fresh = (body.upserted ?? []).filter((l) => l.state === 'active' && l.bin && l.highestBid === 0 && (l.start ?? 0) > this.previous);
          // Three per generation, spread over the generation's new listings.
          const picked = [0, 0.5, 0.99].map((f) => fresh[Math.floor(f * (fresh.length - 1))]).filter((l): l is NonNullable<typeof l> => l !== undefined);
          this.byGeneration.set(
            body.lastUpdated,
            [...new Map(picked.map((l) => [l.uuid, l])).values()].map((l) => ({ uuid: l.uuid, tag: l.tag, seller: l.seller, lastUpdated: body.lastUpdated! })),
          );
          this.previous = body.lastUpdated;
        }
      }
    }
  }

  async listingsOf(lastUpdated: number, ms: number): Promise<NewListing[]> {
    const until = Date.now() + ms;
    while (!this.byGeneration.has(lastUpdated) && Date.now() < until) await sleep(10);
    return this.byGeneration.get(lastUpdated) ?? [];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    this.redis.disconnect();
  }
}

/** Polls a replica until it serves `listing` from its view; resolves with when (undefined after `ms`). */
async function servedAt(replica: Service, listing: NewListing, ms: number): Promise<number | undefined> {
  const url = `${replica.url}/api/auctions/tag/${encodeURIComponent(listing.tag)}/active/bin?Seller=${listing.seller}`;
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const res = await fetch(url).catch(() => undefined);
    if (res?.status === 200) {
      const list = (await res.json()) as Array<{ uuid: string }>;
      if (list.some((a) => a.uuid === listing.uuid)) return Date.now();
    } else await res?.arrayBuffer().catch(() => undefined);
    await sleep(SEEN_POLL_MS);
  }
  return undefined;
}


interface ScaleOut {
  redisPort: number;
  redis: ChildProcess;
  prefix: string;
  pgClient: pg.Client;
  schema: string;
  simulator: { url: string; child: ChildProcess };
  ingest: Service;
  replicas: Service[];
  dirs: string[];
  stop(): Promise<void>;
}

async function startScaleOut(auctions: number, generationSeconds: number): Promise<ScaleOut> {
  if (!(await postgresReachable())) throw new Error(`PostgreSQL does not answer at ${POSTGRES_URL}`);
  const schema = `bench_spine_${process.pid}_${Date.now() % 1e6}`;
  const databaseUrl = `${POSTGRES_URL}${POSTGRES_URL.includes('?') ? '&' : '?'}schema=${schema}`;
  const redisPort = await freePort();
  const redis = await startRedis(redisPort);
  const prefix = `bench-spine-${process.pid}:`;
  const simulator = await startSimulator(auctions, { SIM_GENERATION_SECONDS: String(generationSeconds), SIM_BACKFILL: '30m' });
  const dirs: string[] = [];
  const common = (role: string): NodeJS.ProcessEnv => {
    const dir = mkdtempSync(join(tmpdir(), `skymarket-spine-${role}-`));
    dirs.push(dir);
    return { ROLE: role, DATABASE_URL: databaseUrl, REDIS_URL: `redis://${LOCAL}:${redisPort}`, REDIS_PREFIX: prefix, UPSTREAM_URL: simulator.url, INGEST_AUCTIONS_SECONDS: '1', DATA_DIR: dir };
  };
  const ingestEnv = common('ingest');
  const ingest = await startService(ingestEnv, ingestEnv.DATA_DIR!);
  const pgClient = new pg.Client({ connectionString: POSTGRES_URL });
  await pgClient.connect();
  await pgClient.query(`set search_path to "${schema}"`);
  const replicas: Service[] = [];
  const deployment: ScaleOut = {
    redisPort,
    redis,
    prefix,
    pgClient,
    schema,
    simulator,
    ingest,
    replicas,
    dirs,
    async stop() {
      for (const p of [...replicas.map((r) => r.child), ingest.child, simulator.child, deployment.redis]) await stopProcess(p);
      await pgClient.end().catch(() => undefined);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await dropBenchSchema(schema);
    },
  };
  try {
    // The cold sweep first, then the replicas load what it stored.
    const until = Date.now() + 600_000;
    while (!ingest.logs.some((l) => l.msg === 'auctions generation applied')) {
      if (Date.now() > until) throw new Error('the ingest process stored no generation in 10 min');
      await sleep(250);
    }
    for (let i = 0; i < REPLICAS; i++) {
      const env = common('api');
      replicas.push(await startService(env, env.DATA_DIR!));
    }
    for (const r of replicas) {
      for (;;) {
        const h = await health(r.url);
        if (h && !h.warnings.some((w) => w.includes('behind'))) break;
        if (Date.now() > until) throw new Error(`replica ${r.url} not ready: ${JSON.stringify(h)}`);
        await sleep(250);
      }
    }
    return deployment;
  } catch (err) {
    await deployment.stop();
    throw err;
  }
}

async function scaleOutRows(auctions: number, generations: number, parts: Set<string>, quick: boolean): Promise<BenchRow[]> {
  // A generation every 20 s (Hypixel: ~60 s): room for a generation's window and a forced reload's in each cycle.
  const generationSeconds = Number(process.env.BENCH_SPINE_GENERATION_SECONDS ?? 20);
  const started = Date.now();
  const d = await startScaleOut(auctions, generationSeconds);
  const rows: BenchRow[] = [];
  const loadAtStart = load1();
  try {
    process.stderr.write(`  scale-out ready after ${Math.round((Date.now() - started) / 1000)} s (load ${load1()})\n`);
    const commits = new CommitWatch(d.pgClient);
    const first = Number((await d.pgClient.query<{ last_updated: string }>(`select last_updated from feeds where name = 'auctions'`)).rows[0]?.last_updated ?? 0);
    const stream = new StreamWatch(`redis://${LOCAL}:${d.redisPort}`, `${d.prefix}spine:changes`, first);
    const pids = d.replicas.map((r) => r.child.pid!);
    try {
      if (parts.has('fresh')) {
        const lags: number[] = [];
        let missed = 0;
        const genCpu: number[][] = pids.map(() => []);
        const reloadCpu: number[][] = pids.map(() => []);
        const readPerGeneration: number[][] = pids.map(() => []);
        const readPerReload: number[][] = pids.map(() => []);
        let seen = commits.commits.length;
        const publisher = new Redis(`redis://${LOCAL}:${d.redisPort}`);
        // Freshness first (its polling would count in the CPU windows, and the forced reloads load the machine).
        const freshCycles = Math.ceil(generations / 2);
        const published: number[] = [];
        const loadedOf = () => Promise.all(d.replicas.map(async (r) => metricValue(await metricsText(r.url), 'skymarket_market_listings_loaded_total')));
        let lastLoaded = await loadedOf();
        try {
          for (let g = 0; g < generations; g++) {
            const commit = await commits.next(seen, generationSeconds * 4000);
            if (!commit) throw new Error('no generation committed');
            seen = commits.commits.length;
            if (g < freshCycles) {
              // 1. freshness (the first half): every replica, each of the generation's picked listings.
              const listings = await stream.listingsOf(commit.lastUpdated, 5000);
              const seenAt = await Promise.all(listings.flatMap((l) => d.replicas.map((r) => servedAt(r, l, 20_000))));
              for (const at of seenAt) {
                if (at === undefined) missed++;
                else lags.push(at - commit.at);
              }
              const arrived = stream.arrivedAt.get(commit.lastUpdated);
              if (arrived !== undefined) published.push(arrived - commit.at);
              const loaded = await loadedOf();
              for (const [i, l] of loaded.entries()) readPerGeneration[i]!.push(l - lastLoaded[i]!);
              lastLoaded = loaded;
              process.stderr.write(`  generation ${g + 1}/${generations}: lag ${seenAt.map((a) => (a === undefined ? '—' : a - commit.at)).join(' ')} ms (load ${load1()})\n`);
              continue;
            }
            // 2. CPU (the second half, no requests but the bench's metric reads): the generation's (5 s from
            // the commit), then a forced full reload's (the old behaviour) in the same cycle.
            if (Date.now() > commit.at + 1000) continue; // seen too late for a window from the commit
            const cpu0 = pids.map(cpuMsOf);
            await sleep(Math.max(0, commit.at + 5000 - Date.now()));
            const cpu1 = pids.map(cpuMsOf);
            for (const i of pids.keys()) genCpu[i]!.push(cpu1[i]! - cpu0[i]!);
            const loaded1 = await loadedOf();
            for (const [i, l] of loaded1.entries()) readPerGeneration[i]!.push(l - lastLoaded[i]!);
            lastLoaded = loaded1;
            if (commits.commits.length > seen) continue; // the next generation came already: no room for a reload here
            const cpu2 = pids.map(cpuMsOf);
            // The writer's own script (src/spine/redis.ts): a `lost` change, after which every follower reloads from the store.
            await publisher.eval(PUBLISH_SCRIPT, 2, `${d.prefix}spine:seq`, `${d.prefix}spine:changes`, 64, JSON.stringify({ kind: 'lost', count: 0 }));
            // At least as long as the generation's window, and until every replica has read the listings again.
            const reloadStart = Date.now();
            await sleep(5000);
            let loaded2 = await loadedOf();
            while (loaded2.some((l, i) => l - loaded1[i]! < auctions * 0.9) && Date.now() < reloadStart + 30_000) {
              await sleep(500);
              loaded2 = await loadedOf();
            }
            const cpu3 = pids.map(cpuMsOf);
            const clean = commits.commits.length === seen; // no generation landed in the reload's window
            for (const i of pids.keys()) {
              if (clean) reloadCpu[i]!.push(cpu3[i]! - cpu2[i]!);
              readPerReload[i]!.push(loaded2[i]! - loaded1[i]!);
            }
            lastLoaded = loaded2;
            // Let the machine settle before the next generation's window.
            await commits.next(commits.commits.length, generationSeconds * 3000);
            seen = commits.commits.length;
            process.stderr.write(`  generation ${g + 1}/${generations}: replica CPU ${pids.map((_, i) => cpu1[i]! - cpu0[i]!).join('/')} ms, reload ${pids.map((_, i) => cpu3[i]! - cpu2[i]!).join('/')} ms in ${((Date.now() - reloadStart) / 1000).toFixed(1)} s${clean ? '' : ' (a generation landed: not counted)'} (load ${load1()})\n`);
          }
        } finally {
          publisher.disconnect();
        }
        const perReplica = pids.map((_, i) => ({ gen: median(genCpu[i]!), reload: median(reloadCpu[i]!), read: median(readPerGeneration[i]!), reloadRead: median(readPerReload[i]!) }));
        rows.push({
          name: `freshness: commit by the ingest process → served by every replica's view, PostgreSQL + Redis, 1 ingest + ${REPLICAS} api, ${auctions.toLocaleString('en')} auctions, p99 (target ≤ 1 s)`,
          figure: percentile(lags, 99),
          unit: 'ms',
          notes: `p50 ${percentile(lags, 50)} ms, max ${Math.max(...lags)} ms over ${lags.length} samples (${Math.ceil(generations / 2)} generations × up to 3 new listings × ${REPLICAS} replicas), ${missed} not served within 20 s; the change reached the Redis stream (read by the bench) p50 ${percentile(published, 50)} ms, max ${Math.max(...published)} ms after the commit; a generation every ${generationSeconds} s; commit seen by polling PostgreSQL every ${COMMIT_POLL_MS} ms, replicas polled every ${SEEN_POLL_MS} ms (lowest-BIN route filtered by seller); load ${loadAtStart} at start, ${load1()} at the end`,
        });
        const gen = median(perReplica.map((p) => p.gen));
        const reload = median(perReplica.map((p) => p.reload));
        rows.push({
          name: `replica CPU per generation (5 s from the commit) vs a full reload of every active listing, ${auctions.toLocaleString('en')} auctions (target ≤ 10 %)`,
          figure: gen,
          unit: 'ms CPU',
          ratio: gen / reload,
          baseline: 'a forced full reload (5 s from a `lost` change), same replicas, same cycle',
          notes: `per replica (median over generations): ${perReplica.map((p) => `${p.gen}/${p.reload} ms`).join(', ')}; CPU from /proc (10 ms ticks), both windows include the replica's timers and any bazaar snapshot that lands in them; up to ${Math.floor(generations / 2)} generations measured after the freshness ones (whose polling would count here), ${reloadCpu[0]!.length} reloads without a generation landing in their window`,
        });
        rows.push({
          name: 'listings read from the store per replica per generation (skymarket_market_listings_loaded_total; target ≈ 0)',
          figure: median(perReplica.map((p) => p.read)),
          unit: 'rows',
          notes: `per replica ${perReplica.map((p) => p.read).join(', ')}; a forced reload read ${perReplica.map((p) => p.reloadRead).join(', ')}`,
        });
      }
      if (parts.has('outage')) rows.push(...(await outage(d, commits, stream, quick)));
    } finally {
      await stream.stop();
      await commits.stop();
    }
  } finally {
    await d.stop();
  }
  return rows;
}

/** An SSE client of a replica's live feed, keeping the event names it receives. */
function sseClient(url: string): { events: Array<{ event: string; at: number }>; close(): void } {
  const events: Array<{ event: string; at: number }> = [];
  const controller = new AbortController();
  void (async () => {
    const res = await fetch(`${url}/api/stream?topics=generation`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let at: number;
      while ((at = buffered.indexOf('\n\n')) >= 0) {
        const message = buffered.slice(0, at);
        buffered = buffered.slice(at + 2);
        // Every message is `data: <json>` with its topic inside (docs/streaming.md), the gap event too.
        const name = /"topic":"([^"]+)"/.exec(message)?.[1];
        if (name) events.push({ event: name, at: Date.now() });
      }
    }
  })().catch(() => undefined);
  return { events, close: () => controller.abort() };
}

async function outage(d: ScaleOut, commits: CommitWatch, stream: StreamWatch, quick: boolean): Promise<BenchRow[]> {
  const seconds = Number(process.env.BENCH_SPINE_OUTAGE_SECONDS ?? (quick ? 20 : 60));
  const clients = d.replicas.map((r) => sseClient(r.url));
  await sleep(1000);
  const resyncs0 = await Promise.all(d.replicas.map(async (r) => metricValue(await metricsText(r.url), 'skymarket_spine_resyncs_total')));
  const commitsBefore = commits.commits.length;
  const stoppedAt = Date.now();
  await stopProcess(d.redis);
  process.stderr.write(`  redis stopped for ${seconds} s\n`);
  const warned = d.replicas.map(() => false);
  const warnings = new Set<string>();
  const replicaStatus = d.replicas.map(() => new Set<string>());
  while (Date.now() < stoppedAt + seconds * 1000) {
    for (const [i, r] of d.replicas.entries()) {
      const h = await health(r.url);
      if (h) replicaStatus[i]!.add(h.status);
      if (h && h.warnings.length > 0) {
        warned[i] = true;
        for (const w of h.warnings) warnings.add(w.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z|\d+ s|\d+ ms/g, '…'));
      }
    }
    await sleep(2000);
  }
  const during = commits.commits.slice(commitsBefore).filter((c) => c.at < Date.now());
  d.redis = await startRedis(d.redisPort);
  const restartedAt = Date.now();
  process.stderr.write(`  redis restarted; ${during.length} generations committed while it was away\n`);
  // Every replica resynchronises (its resync count grows, its health clears) without a restart.
  const recoveredAt: Array<number | undefined> = d.replicas.map(() => undefined);
  const until = restartedAt + 120_000;
  while (recoveredAt.includes(undefined) && Date.now() < until) {
    for (const [i, r] of d.replicas.entries()) {
      if (recoveredAt[i] !== undefined) continue;
      const resyncs = metricValue(await metricsText(r.url), 'skymarket_spine_resyncs_total');
      const h = await health(r.url);
      if (resyncs > resyncs0[i]! && h && !h.warnings.some((w) => w.includes('behind'))) recoveredAt[i] = Date.now();
    }
    await sleep(250);
  }
  // A generation after the restart is served by every replica (they follow again), and one stored during the outage too.
  const next = await commits.next(commits.commits.length, 60_000);
  const afterListings = next ? await stream.listingsOf(next.lastUpdated, 10_000) : [];
  const afterServed = await Promise.all(afterListings.flatMap((l) => d.replicas.map((r) => servedAt(r, l, 20_000))));
  const duringListing = during.length
    ? (
        await d.pgClient.query<{ uuid: string; tag: string; seller: string }>(
          `select uuid, tag, seller from auctions where state = 'active' and bin and highest_bid = 0 and start_at > $1 and end_at > $2 order by start_at limit 1`,
          [commits.commits[commitsBefore - 1]?.lastUpdated ?? 0, Date.now() + 600_000],
        )
      ).rows[0]
    : undefined;
  const duringServed = duringListing ? await Promise.all(d.replicas.map((r) => servedAt(r, { ...duringListing, lastUpdated: 0 }, 20_000))) : [];
  await sleep(2000);
  const gaps = clients.map((c) => c.events.filter((e) => e.event === 'gap' && e.at >= stoppedAt).length);
  const generationsAfter = clients.map((c) => c.events.filter((e) => e.event === 'generation' && e.at >= restartedAt).length);
  for (const c of clients) c.close();
  const healthAfter = await Promise.all(d.replicas.map((r) => health(r.url)));
  const recovered = recoveredAt.filter((t) => t !== undefined).length;
  return [
    {
      name: `Redis stopped ${seconds} s (data lost) and restarted: replicas resynchronised without a restart`,
      figure: recovered,
      unit: `of ${REPLICAS}`,
      notes: `resynchronised ${recoveredAt.map((t) => (t === undefined ? 'never' : `${((t - restartedAt) / 1000).toFixed(1)} s`)).join(', ')} after the restart; health warned during the outage on ${warned.filter(Boolean).length} of ${REPLICAS} (status ${replicaStatus.map((s) => [...s].join('/')).join(', ')}): ${[...warnings].join(' | ') || 'no warning'}; warnings after recovery: ${healthAfter.map((h) => h?.warnings.length ?? '?').join(', ')}`,
    },
    {
      name: 'Redis outage: SSE clients (connected through it) that got `gap`',
      figure: gaps.filter((n) => n > 0).length,
      unit: `of ${REPLICAS}`,
      notes: `gap events per client ${gaps.join(', ')}; generation events after the restart ${generationsAfter.join(', ')}`,
    },
    {
      name: 'Redis outage: store loses nothing (generations committed during it, served by every replica afterwards)',
      figure: during.length,
      unit: 'generations stored',
      notes: `a listing stored during the outage served by ${duringServed.filter((t) => t !== undefined).length} of ${REPLICAS} replicas${duringListing ? '' : ' (none found)'}; a listing of the first generation after the restart served by ${afterServed.filter((t) => t !== undefined).length} of ${afterServed.length} (listing × replica) within 20 s`,
    },
  ];
}

// ---------------------------------------------------------------------------
// One process on SQLite, as `npm start` runs it

function cpuSplit(pid: number): number {
  return cpuMsOf(pid);
}

interface Round {
  rps: number;
  cpuUs: number;
  p99: number;
  non2xx: number;
}

async function measure(pid: number, url: string, seconds: number): Promise<Round> {
  const before = cpuSplit(pid);
  const result = await autocannon({ url, connections: 50, duration: seconds, pipelining: 1, headers: { 'accept-encoding': 'identity' } });
  const used = cpuSplit(pid) - before;
  return { rps: result.requests.average, cpuUs: (used * 1000) / Math.max(1, result.requests.total), p99: result.latency.p99, non2xx: result.non2xx };
}

async function hotReads(auctions: number, quick: boolean): Promise<BenchRow[]> {
  const sim = await startSimulator(auctions, { SIM_BACKFILL: '1h' });
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-spine-hot-'));
  const floors: ServerProcess[] = [];
  const rows: BenchRow[] = [];
  const service = await startService({ UPSTREAM_URL: sim.url, REDIS_URL: '', DATABASE_URL: '' }, dir);
  try {
    const readyMs = await waitReady(service.url, auctions);
    const pid = service.child.pid!;
    // Idle: what the background (ingestion, jobs, timers, the worker) costs with no request at all.
    const idleSeconds = quick ? 5 : 15;
    const idle0 = cpuMsOf(pid);
    await sleep(idleSeconds * 1000);
    const idleMsPerS = (cpuMsOf(pid) - idle0) / idleSeconds;
    const tag = (await getJson<{ tag: string }>(`${service.url}/api/auction/random`)).body.tag;
    const product = (await getJson<Array<{ flip: { itemTag: string } }>>(`${service.url}/api/flip/bazaar/spread`)).body[0]?.flip.itemTag ?? 'ENCHANTED_DIAMOND';
    const targets = [
      { name: `lowest BIN page (${tag})`, path: `/api/auctions/tag/${encodeURIComponent(tag)}/active/bin` },
      { name: `bazaar snapshot (${product})`, path: `/api/bazaar/${product}/snapshot` },
      { name: '/neu/lowestbin.json', path: '/neu/lowestbin.json' },
    ];
    const rounds = quick ? 1 : 3;
    const seconds = quick ? 5 : 10;
    for (const t of targets) {
      const url = `${service.url}${t.path}`;
      await (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer();
      const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
      if (res.status !== 200) throw new Error(`${t.path}: ${res.status}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      const headerLines = Object.fromEntries([...res.headers].filter(([name]) => !NODE_WRITES.has(name)));
      const file = join(dir, `floor-${floors.length}.bin`);
      writeFileSync(file, bytes);
      writeFileSync(`${file}.headers.json`, JSON.stringify(headerLines));
      const floor = await startServer('bare-bytes', [file, '', `${file}.headers.json`]);
      floors.push(floor);
      await measure(pid, url, 1);
      await measure(floor.child.pid!, floor.url, 1);
      const ours: Round[] = [];
      const bare: Round[] = [];
      await metricsText(service.url); // resets the event-loop delay histogram (prom-client)
      for (let i = 0; i < rounds; i++) {
        ours.push(await measure(pid, url, seconds));
        bare.push(await measure(floor.child.pid!, floor.url, seconds));
      }
      const m = await metricsText(service.url);
      const lagP99 = metricValue(m, 'nodejs_eventloop_lag_p99_seconds') * 1000;
      const lagMax = metricValue(m, 'nodejs_eventloop_lag_max_seconds') * 1000;
      const ratios = ours.map((o, i) => o.rps / bare[i]!.rps);
      const med = (xs: Round[], k: keyof Round) => median(xs.map((x) => x[k]));
      rows.push({
        name: `hot read as users run it: ${t.name}, ${bytes.length} bytes, identity (compiled service ingesting ${auctions.toLocaleString('en')} auctions on SQLite, target ≥ 0.8×)`,
        figure: med(ours, 'rps'),
        unit: 'req/s',
        ratio: median(ratios),
        baseline: "bare node:http, same bytes and header lines",
        notes: `rounds ${ratios.map((r) => r.toFixed(2)).join(' ')}; bare ${Math.round(med(bare, 'rps'))} req/s; CPU/request ${Math.round(med(ours, 'cpuUs'))} µs vs ${Math.round(med(bare, 'cpuUs'))} µs bare (the service's includes its background work: idle ${Math.round(idleMsPerS)} ms CPU/s); event-loop delay during the rounds p99 ${lagP99.toFixed(1)} ms, max ${lagMax.toFixed(1)} ms; p99 ${med(ours, 'p99')} ms vs ${med(bare, 'p99')} ms; non-2xx ${ours.reduce((s, o) => s + o.non2xx, 0)}; 50 connections, ${rounds}×${seconds} s alternated; load ${load1()}`,
      });
      process.stderr.write(`  ${t.name}: ${median(ratios).toFixed(2)}×\n`);
      await floor.stop();
    }
    rows.push({
      name: 'the service idle (ingesting, no requests): CPU per second of wall time',
      figure: idleMsPerS,
      unit: 'ms/s',
      notes: `over ${idleSeconds} s once ready (ready after ${Math.round(readyMs / 1000)} s); a generation every 60 s, bazaar every 20 s`,
    });
  } finally {
    for (const f of floors) await f.stop();
    await stopProcess(service.child);
    await stopProcess(sim.child);
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/**
 * One cold start of the compiled service on a fresh SQLite store: its first generation's `ms` (log),
 * and "stored and served": from the generation's start (the log line's time less its `ms`) until the
 * service answers from it, both a listing of the active-auctions view (`/api/auction/random`) and a
 * non-empty `/neu/lowestbin.json` (the bulk files follow the view), polled from the moment the log line
 * is read. Work the process does after the line (views, feeds' index, bulk files) shows in the second.
 */
async function coldService(simUrl: string, cli = DIST_CLI): Promise<{ ms: number; servedMs: number; cpuMs: number; servedCpuMs: number; auctions: number; wallMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-spine-cold-'));
  const spawned = Date.now();
  const service = await startService({ UPSTREAM_URL: simUrl, REDIS_URL: '', DATABASE_URL: '' }, dir, cli);
  try {
    const until = Date.now() + 600_000;
    for (;;) {
      const line = service.logs.find((l) => l.msg === 'auctions generation applied');
      if (line) {
        const cpuMs = cpuMsOf(service.child.pid!);
        // pino's `time`: epoch ms, or an ISO string with the logger's ISO timestamps
        const startedAt = (typeof line.time === 'number' ? line.time : Date.parse(String(line.time))) - Number(line.ms);
        const served = { view: false, file: false };
        while (!(served.view && served.file)) {
          if (Date.now() > until) throw new Error('the cold generation was not served in 10 min');
          if (!served.view) served.view = (await fetch(`${service.url}/api/auction/random`).then((r) => r.arrayBuffer().then(() => r.status))) === 200;
          if (!served.file) {
            const res = await fetch(`${service.url}/neu/lowestbin.json`);
            const text = await res.text();
            served.file = res.status === 200 && Object.keys(JSON.parse(text) as object).length > 0;
          }
          if (!(served.view && served.file)) await sleep(10);
        }
        const servedMs = Date.now() - startedAt;
        return { ms: Number(line.ms), servedMs, cpuMs, servedCpuMs: cpuMsOf(service.child.pid!), auctions: Number(line.auctions), wallMs: Date.now() - spawned };
      }
      if (Date.now() > until) throw new Error('no cold generation in 10 min');
      await sleep(50);
    }
  } finally {
    await stopProcess(service.child);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function coldGeneration(auctions: number, quick: boolean): Promise<BenchRow[]> {
  const sim = await startSimulator(auctions, { SIM_GENERATION_SECONDS: '3600', SIM_BACKFILL: '30m' });
  try {
    await fetchPages(sim.url); // the simulator's page cache: its serialisation is not ours to measure
    const rounds = quick ? 1 : 3;
    const service: Array<Awaited<ReturnType<typeof coldService>>> = [];
    const other: Array<Awaited<ReturnType<typeof coldService>>> = [];
    const baseCli = process.env.BENCH_SPINE_BASE_CLI;
    const floor: Array<Awaited<ReturnType<typeof timed>>> = [];
    const round = (r: Awaited<ReturnType<typeof coldService>>, f: { ms: number }) => `${r.ms} ms (${(r.ms / f.ms).toFixed(2)}×), served ${r.servedMs} ms (${(r.servedMs / f.ms).toFixed(2)}×)`;
    for (let i = 0; i < rounds; i++) {
      floor.push(await timed((dir) => naive(sim.url, dir)));
      service.push(await coldService(sim.url));
      if (baseCli) other.push(await coldService(sim.url, baseCli));
      process.stderr.write(`  cold round ${i + 1}: naive ${Math.round(floor[i]!.ms)} ms; service ${round(service[i]!, floor[i]!)}${baseCli ? `; base ${round(other[i]!, floor[i]!)}` : ''} (load ${load1()})\n`);
    }
    const rows = coldRows(service, floor, '');
    return baseCli ? [...rows, ...coldRows(other, floor, ` [${baseCli}]`)] : rows;
  } finally {
    await stopProcess(sim.child);
  }
}

function coldRows(service: Array<Awaited<ReturnType<typeof coldService>>>, floor: Array<{ ms: number; cpuMs: number }>, build: string): BenchRow[] {
  const ratios = service.map((s, i) => s.ms / floor[i]!.ms);
  const servedRatios = service.map((s, i) => s.servedMs / floor[i]!.ms);
  return [
    {
      name: `cold generation as users run it${build}: compiled service, fresh SQLite, ${service[0]!.auctions.toLocaleString('en')} auctions, the log's ms (target ≤ 1.15×)`,
      figure: median(service.map((s) => s.ms)),
      unit: 'ms',
      ratio: median(ratios),
      baseline: 'naive complete ingester (fetch ×8, parse, decode, every row into SQLite), alternated',
      notes: `rounds ${service.map((s) => s.ms).join(', ')} ms vs naive ${floor.map((f) => Math.round(f.ms)).join(', ')} ms (ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}); service CPU from spawn to the log line ${service.map((s) => s.cpuMs).join(', ')} ms (start-up included), naive CPU ${floor.map((f) => Math.round(f.cpuMs)).join(', ')} ms; load ${load1()}`,
    },
    {
      name: `cold generation stored and served${build}: from its start until the view lists it and /neu/lowestbin.json holds it (compiled service, fresh SQLite, ${service[0]!.auctions.toLocaleString('en')} auctions)`,
      figure: median(service.map((s) => s.servedMs)),
      unit: 'ms',
      ratio: median(servedRatios),
      baseline: 'the same naive ingester runs (which serves nothing)',
      notes: `rounds ${service.map((s) => s.servedMs).join(', ')} ms (ratios ${servedRatios.map((r) => r.toFixed(2)).join(' ')}), polled from the moment the log line was read; service CPU from spawn until served ${service.map((s) => s.servedCpuMs).join(', ')} ms`,
    },
  ];
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const only = (process.env.BENCH_SPINE_ONLY ?? 'fresh,outage,hot,cold').split(',').filter(Boolean);
  const parts = new Set(only);
  const auctions = Number(process.env.BENCH_SPINE_AUCTIONS ?? (options.quick ? 10_000 : 60_000));
  const generations = Number(process.env.BENCH_SPINE_GENERATIONS ?? (options.quick ? 3 : 10));
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  const rows: BenchRow[] = [];
  if (parts.has('fresh') || parts.has('outage')) rows.push(...(await scaleOutRows(auctions, generations, parts, options.quick)));
  if (parts.has('hot')) rows.push(...(await hotReads(auctions, options.quick)));
  if (parts.has('cold')) rows.push(...(await coldGeneration(auctions, options.quick)));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
