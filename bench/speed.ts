/**
 * Speed where users feel it (issue 28), each against a floor measured in the same run:
 *
 * - hot reads of the compiled-in app (60,000 simulated auctions, quick: 10,000; the bazaar's
 *   products with 7 days of 5-minute snapshots and the last hour at 20 seconds) against a bare
 *   node:http server returning the same bytes (the same compressed bytes with gzip), with two header
 *   lines and with the answer's own, and against a bare listener inside the app's own process
 *   replaying the same answer (the floor of any handler there: what separates it from the fresh
 *   process is the cost of living in a large app, docs/performance.md 2026-11-27): the lowest-BIN
 *   page, the bazaar snapshot, the bazaar histories and the twelve flip feeds; requests per second and the
 *   server's CPU per request (from /proc), alternated rounds: the median round of each, and each
 *   ratio the median of the rounds' own ratios (ours and the floor measured seconds apart).
 * - compression: bytes on the wire and CPU per answer (gzip, brotli) of the large answers: sold
 *   page 0 (1,000 sales), a uid's sales (1,000), the histories.
 *
 * `npm run bench -- speed` (or `--quick`; `BENCH_SPEED_ONLY=snapshot,flip` measures only the hot reads so named). The cold-ingest floor is bench/ingest-floor.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { Registry } from 'prom-client';
import { systemClock } from '../src/clock.ts';
import { compressSync, type Encoding } from '../src/http/compression.ts';
import { BazaarIngester } from '../src/ingest/bazaar.ts';
import type { IngestContext } from '../src/ingest/context.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { BazaarHistoryJobs } from '../src/jobs/bazaar-history.ts';
import { createLogger } from '../src/logger.ts';
import { Market } from '../src/simulator/market.ts';
import { Store } from '../src/store/index.ts';
import type { AuctionsTable } from '../src/store/schema.ts';
import { busiestTag, ingestSimulator } from './auctions.ts';
import { startServer, type ServerProcess } from './harness.ts';
import { NODE_WRITES } from './servers/in-process-floor.ts';
import { median, type BenchOptions, type BenchRow } from './lib.ts';
import { syntheticSale } from './servers/synthetic-sale.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Products of the bazaar kept (history reads are key-range scans per product: their cost does not depend on the count). */
const BAZAAR_PRODUCTS = 8;
const UID = 'abcdef123456';

/** CPU seconds (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const { user, system } = cpuSplit(pid);
  return user + system;
}

/** CPU seconds a process has used so far in its own code (user) and in the kernel (system: its sockets' syscalls). */
function cpuSplit(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

interface Measured {
  rps: number;
  cpuUsPerRequest: number;
  /** of which in the kernel */
  systemUsPerRequest: number;
  p99: number;
  non2xx: number;
}

/** One load run: requests per second and the server's CPU per request. */
async function measure(server: ServerProcess, url: string, seconds: number, headers: Record<string, string>): Promise<Measured> {
  const before = cpuSplit(server.child.pid!);
  const result = await autocannon({ url, connections: 50, duration: seconds, pipelining: 1, headers });
  const after = cpuSplit(server.child.pid!);
  const n = Math.max(1, result.requests.total);
  const used = after.user + after.system - before.user - before.system;
  return { rps: result.requests.average, cpuUsPerRequest: (used * 1e6) / n, systemUsPerRequest: ((after.system - before.system) * 1e6) / n, p99: result.latency.p99, non2xx: result.non2xx };
}

/**
 * Alternated rounds of each target (ours first, then the floors), each target's rounds in order.
 * The machine drifts between phases lasting tens of seconds (a bare server's CPU per request moved
 * 15 → 24 µs and back within one run, 2026-11-27), so ratios are taken round by round between
 * measurements seconds apart (`pairedRatio`), not between medians taken minutes apart.
 */
async function sideBySide(targets: ReadonlyArray<{ server: ServerProcess; url: string }>, headers: Record<string, string>, rounds: number, seconds: number): Promise<Measured[][]> {
  for (const t of targets) await measure(t.server, t.url, 1, headers);
  const runs: Measured[][] = targets.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [k, t] of targets.entries()) runs[k]!.push(await measure(t.server, t.url, seconds, headers));
  }
  return runs;
}

/** The median round of a target (by requests per second). */
function medianRound(runs: readonly Measured[]): Measured {
  return [...runs].sort((x, y) => x.rps - y.rps)[Math.floor(runs.length / 2)]!;
}

/** The median over rounds of ours ÷ the floor, each round's pair measured seconds apart. */
function pairedRatio(ours: readonly Measured[], floor: readonly Measured[]): number {
  return median(ours.map((m, i) => m.rps / floor[i]!.rps));
}

/** 7 days of 5-minute snapshots and the last hour's 20-second ones, a few products, rolled up. */
async function fillBazaar(dir: string, now: number): Promise<string[]> {
  const store = await Store.open({ dataDir: dir });
  try {
    const start = now - 7 * DAY;
    const market = new Market({ seed: 42, auctions: 100, generationSeconds: 60, bazaarSeconds: 20 }, start);
    const ctx = { client: undefined as never, store, clock: systemClock, logger: createLogger('silent'), metrics: new IngestMetrics(new Registry()), source: 'simulator' } satisfies IngestContext;
    const ingester = new BazaarIngester(ctx, { fresh: true });
    let kept: string[] | undefined;
    const apply = async (ms: number) => {
      const payload = market.bazaarAt(ms);
      kept ??= Object.keys(payload.products).sort().slice(0, BAZAAR_PRODUCTS);
      const products = Object.fromEntries(kept.map((id) => [id, payload.products[id]]));
      await ingester.apply({ ...payload, products });
    };
    for (let ms = start; ms < now - HOUR; ms += 5 * MINUTE) await apply(ms);
    for (let ms = now - HOUR; ms <= now - 5_000; ms += 20_000) await apply(ms);
    const jobs = new BazaarHistoryJobs({ store, clock: systemClock, logger: createLogger('silent') });
    for (let i = 0; i < 50; i++) {
      const report = await jobs.runOnce();
      if (report.rows['5m'] + report.rows['2h'] + report.rows['1d'] === 0) break;
    }
    return kept!;
  } finally {
    await store.close();
  }
}

/** 1,000 sales of HOT_ITEM and 1,000 of one item uid (sold page 0 and the uid's history). */
async function fillSales(dir: string, now: number): Promise<void> {
  const store = await Store.open({ dataDir: dir });
  try {
    const rows: AuctionsTable[] = [];
    for (let i = 0; i < 2000; i++) {
      const soldAt = now - (i + 1) * 60_000;
      const row = syntheticSale(i, { uuid: `c${i.toString(16).padStart(31, '0')}`, tag: 'HOT_ITEM', soldAt, price: 1_000_000 + i * 37, count: 1, startAt: soldAt - 3_600_000 });
      rows.push(i >= 1000 ? { ...row, tag: 'UID_ITEM', item_uid: UID } : row);
    }
    await store.auctions.recordSales(rows, [], { name: 'auctions_ended', lastUpdated: now, storedAt: now, records: rows.length, source: 'simulator' });
  } finally {
    await store.close();
  }
}

/** A Premium+ account's token, for the token-gated flip feeds. */
async function accountToken(dir: string, now: number): Promise<string> {
  const store = await Store.open({ dataDir: dir });
  try {
    return (await store.accounts.create({ tier: 'premium_plus', now })).token;
  } finally {
    await store.close();
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const auctions = options.quick ? 10_000 : 60_000;
  const rounds = options.quick ? 1 : 5;
  const seconds = options.quick ? 2 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-speed-'));
  const rows: BenchRow[] = [];
  const servers: ServerProcess[] = [];
  try {
    let t = performance.now();
    await ingestSimulator(dir, auctions);
    const { tag } = await busiestTag(dir);
    const now = Date.now();
    const products = await fillBazaar(dir, now);
    await fillSales(dir, now);
    const token = await accountToken(dir, now);
    process.stderr.write(`  store filled in ${Math.round(performance.now() - t)} ms\n`);
    const app = await startServer('auctions-app', [dir], { BENCH_IN_PROCESS_FLOOR: '1' });
    servers.push(app);
    const inProcess = app.printed.find((l) => l.startsWith('in-process floor '))?.slice('in-process floor '.length);
    if (!inProcess) throw new Error('the app printed no in-process floor');
    const product = products[0]!;

    /** A bare server sending these bytes: with two header lines, or with `headerLines` (the answer's own, then the same bytes on the wire). */
    const floorOf = async (bytes: Buffer, encoding?: Encoding, headerLines?: Record<string, string>) => {
      const file = join(dir, `floor-${servers.length}.bin`);
      writeFileSync(file, bytes);
      const args = [file, encoding ?? ''];
      if (headerLines) {
        writeFileSync(`${file}.headers.json`, JSON.stringify(headerLines));
        args.push(`${file}.headers.json`);
      }
      const floor = await startServer('bare-bytes', args);
      servers.push(floor);
      return floor;
    };
    const auth = { authorization: `Bearer ${token}` };
    const hot: Array<{ name: string; path: string; encoding?: Encoding; headers?: Record<string, string> }> = [
      { name: `lowest BIN (${tag})`, path: `/api/auctions/tag/${tag}/active/bin` },
      { name: `lowest BIN (${tag}), gzip`, path: `/api/auctions/tag/${tag}/active/bin`, encoding: 'gzip' },
      { name: `bazaar snapshot (${product})`, path: `/api/bazaar/${product}/snapshot` },
      { name: `bazaar snapshot (${product}), gzip`, path: `/api/bazaar/${product}/snapshot`, encoding: 'gzip' },
      { name: 'bazaar history/hour (180 points)', path: `/api/bazaar/${product}/history/hour` },
      { name: 'bazaar history/day (288 points)', path: `/api/bazaar/${product}/history/day` },
      { name: 'bazaar history/week (84 points)', path: `/api/bazaar/${product}/history/week` },
      // The twelve flip feeds: the public ones' default answers on the fast path, the token-gated
      // ones (a Premium+ token: the auth hook's lookup per request) through Fastify, prepared bytes either way.
      ...['/api/flip/update/when', '/api/flip/bazaar/spread', '/api/flip/bazaar/residual', '/api/flip/bazaar/books', '/api/flip/npc', '/api/flip/fusion', '/api/flip/copper'].map((path) => ({
        name: `flip feed ${path}`,
        path,
      })),
      ...['/api/flip/bazaar/spread/deemand', '/api/flip/mayor', '/api/flip/npc/reverse', '/api/flip/fusion/multistep', '/api/flip/attribute'].map((path) => ({
        name: `flip feed ${path} (token)`,
        path,
        headers: auth,
      })),
    ];
    // BENCH_SPEED_ONLY: comma-separated parts of the names of the hot reads to measure (default all).
    const only = (process.env.BENCH_SPEED_ONLY ?? '').split(',').filter((x) => x !== '');
    for (const h of hot.filter((x) => only.length === 0 || only.some((o) => x.name.includes(o)))) {
      const headers: Record<string, string> = { ...h.headers, ...(h.encoding ? { 'accept-encoding': h.encoding } : {}) };
      const url = `${app.url}${h.path}`;
      // Twice: the first request prepares what is prepared.
      await (await fetch(url, { headers: { ...h.headers, 'accept-encoding': 'identity' } })).arrayBuffer();
      const res = await fetch(url, { headers: { ...headers } });
      if (res.status !== 200) throw new Error(`${h.path}: ${res.status}`);
      // fetch decodes: take the encoded bytes from a raw request instead.
      const plain = Buffer.from(await res.arrayBuffer());
      const sentEncoding = h.encoding && res.headers.get('content-encoding') === h.encoding ? h.encoding : undefined;
      const sent = sentEncoding ? compressSync(plain, sentEncoding) : plain;
      // The answer's header lines but those Node writes itself on every response.
      const headerLines = Object.fromEntries([...res.headers].filter(([name]) => !NODE_WRITES.has(name)));
      const floor = await floorOf(sent, sentEncoding);
      const sameWire = await floorOf(sent, sentEncoding, headerLines);
      // The fourth target: a bare listener in the app's own process replaying the same answer (bench/servers/in-process-floor.ts).
      const [oursRuns, baseRuns, wireRuns, insideRuns] = (await sideBySide(
        [
          { server: app, url },
          { server: floor, url: floor.url },
          { server: sameWire, url: sameWire.url },
          { server: app, url: `${inProcess}${h.path}` },
        ],
        headers,
        rounds,
        seconds,
      )) as [Measured[], Measured[], Measured[], Measured[]];
      const [ours, base, wire, inside] = [oursRuns, baseRuns, wireRuns, insideRuns].map(medianRound) as [Measured, Measured, Measured, Measured];
      const [vsBase, vsWire, vsInside] = [baseRuns, wireRuns, insideRuns].map((floorRuns) => pairedRatio(oursRuns, floorRuns)) as [number, number, number];
      await floor.stop();
      await sameWire.stop();
      rows.push({
        name: `${h.name}, ${sent.length} bytes`,
        figure: ours.rps,
        unit: 'req/s',
        ratio: vsBase,
        baseline: 'bare node:http, same bytes',
        notes: `bare ${Math.round(base.rps)} req/s; CPU/request ${Math.round(ours.cpuUsPerRequest)} µs (kernel ${Math.round(ours.systemUsPerRequest)}) vs ${Math.round(base.cpuUsPerRequest)} µs (kernel ${Math.round(base.systemUsPerRequest)}) bare; bare with the answer's ${Object.keys(headerLines).length} header lines (the same bytes on the wire) ${Math.round(wire.rps)} req/s, ${Math.round(wire.cpuUsPerRequest)} µs (kernel ${Math.round(wire.systemUsPerRequest)}): ours ${vsWire.toFixed(2)}×; bare in the app's own process (same bytes and header lines) ${Math.round(inside.rps)} req/s, ${Math.round(inside.cpuUsPerRequest)} µs (kernel ${Math.round(inside.systemUsPerRequest)}): ours **${vsInside.toFixed(2)}×**; ratios: median of ${rounds} paired rounds (same wire, per round: ${oursRuns.map((m, i) => (m.rps / wireRuns[i]!.rps).toFixed(2)).join(' ')}); p99 ${ours.p99} ms; non-2xx ${ours.non2xx}`,
      });
      process.stderr.write(`  ${rows[rows.length - 1]!.name}: ${rows[rows.length - 1]!.ratio!.toFixed(2)}× (same wire ${vsWire.toFixed(2)}×, in-process ${vsInside.toFixed(2)}×)\n`);
    }

    // What the app spends with no requests at all (its timers: flip polling, views, metrics): part of every figure's CPU per request.
    {
      const idleSeconds = options.quick ? 2 : 5;
      const before = cpuSeconds(app.child.pid!);
      await new Promise((r) => setTimeout(r, idleSeconds * 1000));
      const idleMs = ((cpuSeconds(app.child.pid!) - before) * 1000) / idleSeconds;
      rows.push({ name: 'app idle (no requests)', figure: idleMs, unit: 'ms CPU per second', notes: `over ${idleSeconds} s after the hot reads` });
      process.stderr.write(`  app idle: ${idleMs.toFixed(1)} ms CPU per second\n`);
    }

    // Compression: bytes and CPU per answer.
    for (const [name, path] of [
      ['sold page 0 (1,000 sales)', '/api/auctions/tag/HOT_ITEM/sold'],
      ['uid history (1,000 sales)', `/api/auctions/uid/${UID}/sold?pageSize=1000`],
      ['bazaar history/day', `/api/bazaar/${product}/history/day`],
      ['lowest BIN page', `/api/auctions/tag/${tag}/active/bin`],
    ] as const) {
      const res = await fetch(`${app.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      const plain = Buffer.from(await res.arrayBuffer());
      const cells: string[] = [];
      for (const encoding of ['gzip', 'br'] as const) {
        const n = options.quick ? 5 : 20;
        const c0 = process.cpuUsage();
        let out: Buffer = Buffer.alloc(0);
        for (let i = 0; i < n; i++) out = compressSync(plain, encoding);
        const used = process.cpuUsage(c0);
        cells.push(`${encoding} ${out.length.toLocaleString('en-US')} B (${(plain.length / out.length).toFixed(1)}× smaller, ${Math.round((used.user + used.system) / n)} µs CPU)`);
      }
      rows.push({ name: `compression: ${name}`, figure: plain.length, unit: 'bytes plain', notes: cells.join('; ') });
    }
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
