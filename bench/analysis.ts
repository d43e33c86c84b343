/**
 * Price analysis and the event loop: a SQLite store with 90 days of sales of one tag (40,600,
 * the figure, among 60,000 sales of other tags); the analysis at 7, 30 and 90 days
 * (sequential requests), then one client looping the 90-day analysis while another asks
 * `/api/version` every 2 ms: its p50/p99/max against the same server's idle figures (the floor),
 * and the server's own longest event-loop stall (prom-client's nodejs_eventloop_lag_max_seconds
 * over the loop). The same runs against a baseline checkout (`BENCH_ANALYSIS_BASELINE`, a git ref;
 * default f8b489e, the last commit reading the analysis with LIMIT/OFFSET in one synchronous
 * stretch), in the same run window; `BENCH_ANALYSIS_BASELINE=none` skips it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchOptions, BenchRow } from './lib.ts';
import { spawnServer } from './harness.ts';

const ROOT = join(import.meta.dirname, '..');
const HOT_SALES = 40_600;
const DAYS = 90;
const DEFAULT_BASELINE = 'f8b489e';

export interface Server {
  url: string;
  /** the server process, for its RSS */
  pid: number;
  stop(): Promise<void>;
}

/** Runs `node --import tsx <script> ...args` in `tree`; resolves with its stdout once it exits 0. */
async function runScript(tree: string, script: string, args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(tree, script), ...args], { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return out;
}

/** Starts `bench/servers/auctions-app.ts` of `tree` on `dir` and waits for the URL it prints. */
async function startApp(tree: string, dir: string): Promise<Server> {
  const app = await spawnServer(join(tree, 'bench/servers/auctions-app.ts'), [dir], { cwd: tree, env: { RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1' }, name: 'the app', timeoutMs: 60_000 });
  return { url: app.url, pid: app.child.pid!, stop: () => app.stop() };
}

/**
 * Runs `use` against `tree`'s app on a fresh data directory that `prepare` fills first; stops the
 * app and removes the directory afterwards.
 */
export async function withApp<P, T>(tree: string, dirPrefix: string, prepare: (dir: string) => Promise<P>, use: (server: Server, prepared: P) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  try {
    const prepared = await prepare(dir);
    const server = await startApp(tree, dir);
    try {
      return await use(server, prepared);
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A checkout of `ref` in a temporary directory sharing this tree's node_modules; undefined when git cannot give it. */
export function checkout(ref: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-baseline-'));
  const archive = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', ref], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const tar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (tar.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  // The fill script is this tree's (it only uses the store's recordSales and accounts.create).
  mkdirSync(join(dir, 'bench/servers'), { recursive: true });
  copyFileSync(join(ROOT, 'bench/servers/analysis-fill.ts'), join(dir, 'bench/servers/analysis-fill.ts'));
  return dir;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

function summary(times: number[]) {
  const s = [...times].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s[s.length - 1]! };
}

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t0;
}

async function eventLoopLagMax(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds'));
  return line ? Number(line.split(' ').pop()) * 1000 : Number.NaN;
}

interface Measured {
  analysis: Record<number, number>;
  idle: ReturnType<typeof summary>;
  loaded: ReturnType<typeof summary>;
  analyses: number;
  lagMaxMs: number;
}

async function measure(server: Server, token: string, options: BenchOptions): Promise<Measured> {
  const auth = { authorization: `Bearer ${token}` };
  const analysisUrl = (days: number) => `${server.url}/api/item/price/HOT_ITEM/analysis?days=${days}`;
  for (let i = 0; i < 2; i++) await timed(analysisUrl(DAYS), auth); // warm-up
  const analysis: Record<number, number> = {};
  for (const days of [7, 30, 90]) {
    const times: number[] = [];
    for (let i = 0; i < (options.quick ? 3 : 7); i++) times.push(await timed(analysisUrl(days), auth));
    analysis[days] = summary(times).p50;
  }
  const versionUrl = `${server.url}/api/version`;
  const idle: number[] = [];
  for (let i = 0; i < (options.quick ? 200 : 1000); i++) idle.push(await timed(versionUrl));

  // One client loops the 90-day analysis; another asks /api/version every 2 ms meanwhile.
  await eventLoopLagMax(server.url); // resets the server's lag histogram
  const until = performance.now() + (options.quick ? 4_000 : 15_000);
  let analyses = 0;
  const looping = (async () => {
    while (performance.now() < until) {
      await timed(analysisUrl(DAYS), auth);
      analyses++;
    }
  })();
  const loaded: number[] = [];
  while (performance.now() < until) {
    loaded.push(await timed(versionUrl));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await looping;
  const lagMaxMs = await eventLoopLagMax(server.url);
  return { analysis, idle: summary(idle), loaded: summary(loaded), analyses, lagMaxMs };
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const ref = process.env.BENCH_ANALYSIS_BASELINE ?? DEFAULT_BASELINE;
  const trees: Array<{ name: string; tree: string }> = [];
  let baselineTree: string | undefined;
  let baselineNote: string | undefined;
  if (ref !== 'none') {
    baselineTree = checkout(ref);
    if (baselineTree && existsSync(join(baselineTree, 'bench/servers/auctions-app.ts'))) trees.push({ name: `baseline ${ref}`, tree: baselineTree });
    else baselineNote = `baseline ${ref} unavailable (git archive failed or no bench/servers/auctions-app.ts)`;
  }
  trees.push({ name: 'skymarket', tree: ROOT });
  const results = new Map<string, Measured>();
  try {
    for (const { name, tree } of trees) {
      const fill = async (dir: string) => {
        const t = performance.now();
        const { token } = JSON.parse(await runScript(tree, 'bench/servers/analysis-fill.ts', [dir, String(HOT_SALES), String(DAYS)])) as { token: string };
        process.stderr.write(`  ${name}: ${HOT_SALES} + 60000 sales stored in ${Math.round(performance.now() - t)} ms\n`);
        return token;
      };
      results.set(name, await withApp(tree, 'skymarket-bench-analysis-', fill, (server, token) => measure(server, token, options)));
    }
  } finally {
    if (baselineTree) rmSync(baselineTree, { recursive: true, force: true });
  }

  const ours = results.get('skymarket')!;
  const base = baselineTree ? results.get(`baseline ${ref}`) : undefined;
  for (const days of [7, 30, 90]) {
    if (base) rows.push({ name: `price analysis, ${days} days of ${HOT_SALES.toLocaleString('en-US')} sales over 90 (baseline ${ref})`, figure: Math.round(base.analysis[days]!), unit: 'ms p50' });
    rows.push({
      name: `price analysis, ${days} days (skymarket)`,
      figure: Math.round(ours.analysis[days]!),
      unit: 'ms p50',
      ...(base ? { ratio: ours.analysis[days]! / base.analysis[days]!, baseline: `baseline ${ref}` } : {}),
      ...(baselineNote ? { notes: baselineNote } : {}),
    });
  }
  for (const [name, m] of [...(base ? ([[`baseline ${ref}`, base]] as const) : []), ['skymarket', ours] as const]) {
    rows.push({
      name: `/api/version while one client loops the 90-day analysis (${name})`,
      figure: Math.round(m.loaded.p99 * 10) / 10,
      unit: 'ms p99',
      ratio: m.loaded.p99 / m.idle.p99,
      baseline: 'same server idle p99',
      notes: `p50 ${m.loaded.p50.toFixed(1)} ms, max ${Math.round(m.loaded.max)} ms over ${m.loaded.n} requests, ${m.analyses} analyses; idle p50 ${m.idle.p50.toFixed(1)} / p99 ${m.idle.p99.toFixed(1)} / max ${m.idle.max.toFixed(1)} ms; server event-loop lag max ${Math.round(m.lagMaxMs)} ms`,
    });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
