/**
 * Hostile proxied uploads (issue 21 item 1): rounds of 6 concurrent 16 KB gzip uploads that inflate
 * to 15.9 MB of `[[],[],…]`, sent to POST /api/data/proxy of the real app (SQLite), while another
 * client asks `/api/version` every 5 ms: its slowest answer, the server's own longest event-loop
 * stall (prom-client) and the server's peak RSS (read from /proc beside it). The same against a
 * baseline checkout (`BENCH_UPLOADS_BASELINE`, a git ref; default 95a2528, before the streaming
 * scan; `none` skips it), in the same run window.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { checkout, withApp, type Server } from './analysis.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

const ROOT = join(import.meta.dirname, '..');
const DEFAULT_BASELINE = '95a2528';
const CONCURRENT = 6;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function lagMaxMs(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds'));
  return line ? Number(line.split(' ').pop()) * 1000 : Number.NaN;
}

interface Measured {
  probeMaxMs: number;
  lagMaxMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  statuses: string;
  wallMs: number;
}

/** `[[],[],…]` at the top (refused at its first byte now), and inside a plausible auctions page (read up to the page's cap). */
const PAYLOADS = {
  'top-level': () => gzipSync('[' + '[],'.repeat(5_300_000) + '[]]', { level: 9 }),
  'inside a page': () => gzipSync('{"success":true,"page":0,"totalPages":1,"auctions":[{"uuid":"a","item_bytes":"b","x":[' + '[],'.repeat(5_300_000) + '[]]}]}', { level: 9 }),
};

async function measure(server: Server, rounds: number, bomb: Buffer): Promise<Measured> {
  for (let i = 0; i < 50; i++) await (await fetch(`${server.url}/api/version`)).arrayBuffer();
  await lagMaxMs(server.url); // resets the histogram
  const rssBeforeMb = rssMb(server.pid);
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => (rssPeakMb = Math.max(rssPeakMb, rssMb(server.pid))), 20);
  let done = false;
  let probeMaxMs = 0;
  const probing = (async () => {
    while (!done) {
      const t0 = performance.now();
      await (await fetch(`${server.url}/api/version`)).arrayBuffer();
      probeMaxMs = Math.max(probeMaxMs, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const statuses = new Map<number, number>();
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, () => fetch(`${server.url}/api/data/proxy`, { method: 'POST', body: bomb, headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' } }).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    for (const s of answers) statuses.set(s, (statuses.get(s) ?? 0) + 1);
  }
  const wallMs = performance.now() - started;
  done = true;
  await probing;
  clearInterval(sampler);
  return { probeMaxMs, lagMaxMs: await lagMaxMs(server.url), rssBeforeMb, rssPeakMb, statuses: [...statuses].map(([s, n]) => `${n}×${s}`).join(' '), wallMs };
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const rounds = options.quick ? 1 : 3;
  const ref = process.env.BENCH_UPLOADS_BASELINE ?? DEFAULT_BASELINE;
  const trees: Array<{ name: string; tree: string }> = [];
  const baselineTree = ref === 'none' ? undefined : checkout(ref);
  if (baselineTree) trees.push({ name: `baseline ${ref}`, tree: baselineTree });
  trees.push({ name: 'skymarket', tree: ROOT });
  const results = new Map<string, Measured>();
  try {
    for (const { name, tree } of trees) {
      await withApp(tree, 'skymarket-bench-uploads-', async () => undefined, async (server) => {
        for (const [payload, make] of Object.entries(PAYLOADS)) results.set(`${payload}|${name}`, await measure(server, rounds, make()));
      });
    }
  } finally {
    if (baselineTree) rmSync(baselineTree, { recursive: true, force: true });
  }
  const rows: BenchRow[] = [];
  for (const [key, m] of results) {
    const [payload, name] = key.split('|') as [string, string];
    const base = baselineTree ? results.get(`${payload}|baseline ${ref}`) : undefined;
    const vsBase = base && name === 'skymarket' ? { ratio: m.probeMaxMs / base.probeMaxMs, baseline: `baseline ${ref}` } : {};
    rows.push({
      name: `/api/version slowest answer during ${rounds}×${CONCURRENT} concurrent 16 KB gzip uploads of 15.9 MB of [[],…] ${payload} (${name})`,
      figure: Math.round(m.probeMaxMs),
      unit: 'ms',
      ...vsBase,
      notes: `event-loop lag max ${Math.round(m.lagMaxMs)} ms; RSS ${Math.round(m.rssBeforeMb)} → peak ${Math.round(m.rssPeakMb)} MB; answers ${m.statuses}; ${Math.round(m.wallMs)} ms in all`,
    });
  }
  return rows;
}
