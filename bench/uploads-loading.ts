/**
 * Upload bombs while the demo history loads (issue 45 item 1), as the issue sent them: `skymarket
 * serve --demo` on a fresh data directory, and while `/api/health` says `loading`, two concurrent
 * 15 KB gzip uploads of a profiles document whose one profile holds `"f": [[],[],…]` (15.6 MB
 * inflated) plus an auctions page over its cap, while another client asks `/api/version` every
 * 20 ms. Measured: when each upload was answered, the probe's p99 and slowest answer, the server's
 * RSS (`/metrics`) before and at its highest. Side by side with a baseline checkout
 * (`BENCH_UPLOADS_LOADING_BASELINE`, a git ref; default ce91b98, before the fix; `none` skips it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { checkout } from './analysis.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

const ROOT = join(import.meta.dirname, '..');
const DEFAULT_BASELINE = 'ce91b98';
const UPLOAD_WAIT_MS = 120_000;

const profilesBomb = () => gzipSync(`{"success":true,"profiles":[{"profile_id":"p","f":[${'[],'.repeat(5_200_000)}[]]}]}`, { level: 9 });
const pageOverCap = () => gzipSync(`{"success":true,"page":0,"totalPages":1,"auctions":[{"uuid":"a","item_bytes":"b","x":[${'[],'.repeat(2_000_000)}[]]}]}`, { level: 9 });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function rssMb(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
  const line = text.split('\n').find((l) => l.startsWith('process_resident_memory_bytes'));
  return line ? Number(line.split(' ').pop()) / 1024 / 1024 : Number.NaN;
}

interface Measured {
  answers: string[];
  probe: { n: number; p99: number; max: number };
  rssBeforeMb: number;
  rssPeakMb: number;
}

async function measure(tree: string): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-uploads-loading-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--demo'], {
    cwd: tree,
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1', DATABASE_URL: '', REDIS_URL: '' },
  });
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const status = await fetch(`${url}/api/health`).then(async (r) => ((await r.json()) as { status: string }).status).catch(() => undefined);
      if (status === 'loading') break;
      if (Date.now() > deadline || status === 'ok') throw new Error(`the demo never said loading (last: ${status})`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const bombs = [profilesBomb(), profilesBomb(), pageOverCap()];
    const rssBeforeMb = await rssMb(url);
    let rssPeakMb = rssBeforeMb;
    let done = false;
    const sampling = (async () => {
      while (!done) {
        rssPeakMb = Math.max(rssPeakMb, await rssMb(url).catch(() => 0));
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const times: number[] = [];
    const probing = (async () => {
      while (!done) {
        const t0 = performance.now();
        await (await fetch(`${url}/api/version`)).arrayBuffer();
        times.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = performance.now();
    const answers = await Promise.all(
      bombs.map((body) =>
        fetch(`${url}/api/data/proxy`, { method: 'POST', body, headers: { 'content-encoding': 'gzip' }, signal: AbortSignal.timeout(UPLOAD_WAIT_MS) })
          .then(async (r) => (await r.arrayBuffer(), `${r.status} after ${((performance.now() - started) / 1000).toFixed(1)} s`))
          .catch(() => `no answer within ${UPLOAD_WAIT_MS / 1000} s`),
      ),
    );
    const stillLoading = ((await (await fetch(`${url}/api/health`)).json()) as { status: string }).status === 'loading';
    done = true;
    await Promise.all([probing, sampling]);
    times.sort((a, b) => a - b);
    const probe = { n: times.length, p99: times[Math.floor(times.length * 0.99)] ?? Number.NaN, max: times.at(-1) ?? Number.NaN };
    return { answers: [...answers, stillLoading ? 'history still loading' : 'history loaded meanwhile'], probe, rssBeforeMb, rssPeakMb };
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(_options: BenchOptions): Promise<BenchRow[]> {
  const ref = process.env.BENCH_UPLOADS_LOADING_BASELINE ?? DEFAULT_BASELINE;
  const baselineTree = ref === 'none' ? undefined : checkout(ref);
  const results: Array<{ name: string; m: Measured }> = [];
  try {
    if (baselineTree) results.push({ name: `baseline ${ref}`, m: await measure(baselineTree) });
    results.push({ name: 'skymarket', m: await measure(ROOT) });
  } finally {
    if (baselineTree) rmSync(baselineTree, { recursive: true, force: true });
  }
  const slowest = (m: Measured) => Math.max(...m.answers.slice(0, 3).map((a) => (a.startsWith('no answer') ? UPLOAD_WAIT_MS / 1000 : Number(/after ([\d.]+) s/.exec(a)?.[1]))));
  const base = results.find((r) => r.name !== 'skymarket');
  return results.map(({ name, m }) => ({
    name: `slowest of 2 profile bombs (15.6 MB of [[],…]) + a page over its cap, answered while the demo history loads (${name})`,
    figure: slowest(m),
    unit: 's',
    ...(base && name === 'skymarket' ? { ratio: slowest(m) / slowest(base.m), baseline: base.name } : {}),
    notes: `answers: ${m.answers.join('; ')}; /api/version p99 ${Math.round(m.probe.p99)} ms, max ${Math.round(m.probe.max)} ms (n ${m.probe.n}); RSS ${Math.round(m.rssBeforeMb)} → ${Math.round(m.rssPeakMb)} MB`,
  }));
}
