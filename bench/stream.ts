/**
 * Live feeds (issue 27): one API process (bench/servers/stream.ts) and its SSE clients in another
 * (bench/servers/stream-clients.ts), each subscribed to everything.
 * - RSS growth per idle connection: server RSS after opening STREAM_BENCH_IDLE connections (5,000
 *   unless set) minus before, per connection.
 * - Delivery: one generation's events (2,000 new, 2,000 sold, 1,000 lowest-BIN changes, ≈ 4 MB
 *   of JSON) to STREAM_BENCH_CLIENTS connections (comma list; default 100,500), p50/p99/max from the
 *   moment the batch is handed to the hub to each client's receipt of its last event. The floors,
 *   in the same run: the same generation to a single client; and, at each size, a bare node:http
 *   server writing the same bytes to every socket (bench/servers/stream-bare.ts), plain and
 *   compressed once per batch.
 * - A stalled client among them: cut off (the server's connection count drops and the socket ends),
 *   while the p99 of the others is measured again.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchOptions, BenchRow } from './lib.ts';

function child(script: string, args: string[] = []): ChildProcess {
  return fork(join(import.meta.dirname, 'servers', script), args, { execArgv: ['--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
}

function ask<T>(proc: ChildProcess, message: object, key: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (key in m) {
        proc.off('message', onMessage);
        resolve(m as T);
      }
    };
    proc.on('message', onMessage);
    proc.send(message);
  });
}

async function serverUrl(proc: ChildProcess): Promise<string> {
  let buffered = '';
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((l) => l.startsWith('http'));
      if (line) resolve(line.trim());
    });
    proc.once('exit', (code) => reject(new Error(`stream server exited with ${code}`)));
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const idle = Number(process.env.STREAM_BENCH_IDLE ?? (options.quick ? 1000 : 5000));
  const sizes = (process.env.STREAM_BENCH_CLIENTS ?? (options.quick ? '50' : '100,500')).split(',').map(Number);
  const server = child('stream.ts');
  const url = await serverUrl(server);
  // The floors: a bare node:http server writing the same generation to every socket, plain and compressed once per batch.
  const bare = child('stream-bare.ts');
  const bareGzip = child('stream-bare.ts', ['gzip']);
  const bareUrl = await serverUrl(bare);
  const bareGzipUrl = await serverUrl(bareGzip);
  const clients = child('stream-clients.ts');
  await once(clients, 'message');
  const rows: BenchRow[] = [];
  const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ');
  try {
    // Idle connections: RSS per connection.
    const before = await ask<{ rss: number; heapUsed: number }>(server, { cmd: 'stats' }, 'rss');
    await ask(clients, { cmd: 'open', url, n: idle }, 'open');
    await new Promise((r) => setTimeout(r, 2000));
    const afterOpen = await ask<{ rss: number; heapUsed: number }>(server, { cmd: 'stats' }, 'rss');
    const perConnection = (afterOpen.rss - before.rss) / idle;
    rows.push({
      name: `RSS growth per idle SSE connection (${idle.toLocaleString('en-US')} connections)`,
      figure: perConnection / 1024,
      unit: 'KB',
      notes: `server RSS ${mb(before.rss)} → ${mb(afterOpen.rss)} MB, heap ${mb(before.heapUsed)} → ${mb(afterOpen.heapUsed)} MB (${((afterOpen.heapUsed - before.heapUsed) / idle / 1024).toFixed(1)} KB each); target ≤ 20 KB; load ${load()}`,
    });
    await ask(clients, { cmd: 'close' }, 'closed');
    await new Promise((r) => setTimeout(r, 500));

    type Target = { proc: ChildProcess; url: string; gzip?: boolean };
    const ours: Target = { proc: server, url };
    const deliver = async (n: number, stall = false, target: Target = ours) => {
      await ask(clients, { cmd: 'open', url: target.url, n, gzip: target.gzip }, 'open');
      if (stall) await ask(clients, { cmd: 'stall', url }, 'stalled');
      await new Promise((r) => setTimeout(r, 300));
      const runs: number[][] = [];
      let info = { events: 0, bytes: 0, wire: 0, publishMs: 0 };
      // With a stalled client: several generations, so its unread bytes pass the queue limit.
      for (let g = 0; g < (stall ? 6 : options.quick ? 1 : 2); g++) {
        const published = await ask<{ published: number; events: number; bytes: number; wire?: number; publishMs: number }>(target.proc, { cmd: 'publish' }, 'published');
        info = { ...published, wire: published.wire ?? published.bytes };
        const { latencies } = await ask<{ latencies: number[] }>(clients, { cmd: 'wait', published: published.published }, 'latencies');
        runs.push(latencies);
        await new Promise((r) => setTimeout(r, 200));
      }
      let stalledClosed: boolean | undefined;
      if (stall) stalledClosed = (await ask<{ stalledClosed: boolean }>(clients, { cmd: 'unstall' }, 'stalledClosed')).stalledClosed;
      await ask(clients, { cmd: 'close' }, 'closed');
      await new Promise((r) => setTimeout(r, 300));
      const last = runs[runs.length - 1]!;
      return { p50: pct(last, 50), p99: pct(last, 99), max: last[last.length - 1] ?? NaN, got: last.length, info, stalledClosed, all: runs };
    };

    const floor = await deliver(1);
    rows.push({ name: 'one generation to 1 SSE client (floor)', figure: floor.p99, unit: 'ms', notes: `${floor.info.events} events, ${mb(floor.info.bytes)} MB of JSON; load ${load()}` });
    for (const n of sizes) {
      const r = await deliver(n);
      const b = await deliver(n, false, { proc: bare, url: bareUrl });
      const z = await deliver(n, false, { proc: bareGzip, url: bareGzipUrl, gzip: true });
      rows.push({
        name: `one generation to ${n} SSE clients (everything): p99 delivery`,
        figure: r.p99,
        unit: 'ms',
        ratio: r.p99 / Math.max(1, floor.p99),
        baseline: '1 client',
        notes: `p50 ${r.p50} ms, max ${r.max} ms, ${r.got}/${n} clients got it; ${mb(r.info.bytes * n)} MB sent; target p99 ≤ 1,000 ms at 5,000 clients; load ${load()}`,
      });
      rows.push({
        name: `  floor: bare node:http, the same bytes to ${n} sockets: p99 delivery`,
        figure: b.p99,
        unit: 'ms',
        ratio: r.p99 / Math.max(1, b.p99),
        baseline: 'ours / bare',
        notes: `p50 ${b.p50} ms, max ${b.max} ms, ${b.got}/${n} got it; ${mb(b.info.wire * n)} MB sent; ${((b.info.wire * n) / 1048576 / Math.max(0.001, b.p99 / 1000)).toFixed(0)} MB/s`,
      });
      rows.push({
        name: `  floor: bare, one deflate segment per batch for all ${n} (gzip), clients inflate: p99`,
        figure: z.p99,
        unit: 'ms',
        notes: `p50 ${z.p50} ms, max ${z.max} ms, ${z.got}/${n} got it; ${mb(z.info.wire)} MB per client on the wire (${(z.info.bytes / Math.max(1, z.info.wire)).toFixed(1)}× smaller), ${mb(z.info.wire * n)} MB in all`,
      });
    }
    const n = sizes[0]!;
    const s = await deliver(n, true);
    rows.push({
      name: `${n} SSE clients and one that stops reading: p99 delivery to the others`,
      figure: s.p99,
      unit: 'ms',
      notes: `stalled client cut off: ${s.stalledClosed ? 'yes' : 'NO'}; p99 per generation ${s.all.map((l) => pct(l, 99)).join(', ')} ms; all ${n} got each: ${s.all.every((l) => l.length === n) ? 'yes' : 'no'}; load ${load()}`,
    });
  } finally {
    clients.kill();
    for (const proc of [bare, bareGzip]) proc.kill('SIGTERM');
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
