/**
 * Ingestion: a cold 60,000-auction generation from the simulator (fetch every page,
 * decode every item, store) on SQLite and PostgreSQL, then a steady-state generation
 * (about 3 % new auctions) measured in CPU time. The simulator runs in a child process
 * so its page building is not counted.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { systemClock } from '../src/clock.ts';
import { AuctionIngester } from '../src/ingest/auctions.ts';
import { defaultDecodeWorkers } from '../src/ingest/decode-pool.ts';
import type { IngestContext } from '../src/ingest/context.ts';
import { HypixelClient } from '../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { createLogger } from '../src/logger.ts';
import { Store } from '../src/store/index.ts';
import { startServer } from './harness.ts';
import { dropBenchSchema, POSTGRES_URL, postgresReachable, type BenchOptions, type BenchRow } from './lib.ts';

/** CPU of the main thread alone (Linux), ms: the ingest thread's share beside the decode workers. */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

async function measure(backend: 'sqlite' | 'postgres', simUrl: string, auctions: number, decodeWorkers?: number): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-ingest-'));
  const schema = `bench_${process.pid}_${Date.now()}`;
  const store =
    backend === 'sqlite'
      ? await Store.open({ dataDir: dir })
      : await Store.open({ databaseUrl: POSTGRES_URL, dataDir: dir, schema });
  const ctx: IngestContext = {
    client: new HypixelClient({ baseUrl: simUrl, timeoutMs: 30_000, concurrency: 8 }),
    store,
    clock: systemClock,
    logger: createLogger('silent'),
    metrics: new IngestMetrics(new Registry()),
    source: 'simulator',
  };
  try {
    const ingester = new AuctionIngester(ctx, { decodeWorkers: decodeWorkers ?? 0 });
    const variant = decodeWorkers ? `, ${decodeWorkers} decode workers` : '';
    // Warm the simulator's page cache so the first measurement is our work, not its serialisation.
    await Promise.all(Array.from({ length: Math.ceil(auctions / 1000) }, (_, i) => fetch(`${simUrl}/v2/skyblock/auctions?page=${i}`).then((r) => r.arrayBuffer())));
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuMs();
    const t0 = performance.now();
    const cold = await ingester.pollOnce();
    const coldMs = performance.now() - t0;
    const coldCpu = process.cpuUsage(cpu0);
    const coldMainCpu = mainThreadCpuMs() - main0;
    if (cold === 'unchanged') throw new Error('cold generation not applied');

    // Wait for the simulator's next generation, then measure the steady-state diff.
    let steady: Awaited<ReturnType<AuctionIngester['pollOnce']>> = 'unchanged';
    let steadyMs = 0;
    let steadyCpu = { user: 0, system: 0 };
    const deadline = decodeWorkers ? 0 : Date.now() + 90_000;
    while (steady === 'unchanged' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const c = process.cpuUsage();
      const t = performance.now();
      steady = await ingester.pollOnce();
      steadyMs = performance.now() - t;
      steadyCpu = process.cpuUsage(c);
    }
    const rows: BenchRow[] = [
      {
        name: `cold generation of ${cold.auctions.toLocaleString('en-US')} auctions, ${backend}${variant}`,
        figure: coldMs,
        unit: 'ms',
        notes: `${Math.round(cold.auctions / (coldMs / 1000)).toLocaleString('en-US')} auctions/s; CPU ${Math.round((coldCpu.user + coldCpu.system) / 1000)} ms (ingest thread ${coldMainCpu} ms); ${cold.pages} pages`,
      },
    ];
    if (steady !== 'unchanged') {
      // The floor: the CPU it takes only to receive every page of a generation, same client, no work.
      const pages = steady.pages;
      const f = process.cpuUsage();
      await Promise.all(
        Array.from({ length: pages }, (_, i) => ctx.client.getWith(`/v2/skyblock/auctions?page=${i}`, [404], (raw) => raw.length)),
      );
      const floorCpu = process.cpuUsage(f);
      const floorMs = (floorCpu.user + floorCpu.system) / 1000;
      const steadyCpuMs = (steadyCpu.user + steadyCpu.system) / 1000;
      rows.push(
        {
          name: `steady-state generation, ${backend}`,
          figure: steadyCpuMs,
          unit: 'ms CPU',
          ratio: steadyCpuMs / floorMs,
          baseline: 'receiving the pages only',
          notes: `wall ${Math.round(steadyMs)} ms; ${steady.inserted} new, ${steady.updated} changed, ${steady.departed} gone of ${steady.auctions.toLocaleString('en-US')}`,
        },
        { name: `receiving all ${pages} pages only (floor), ${backend}`, figure: floorMs, unit: 'ms CPU' },
      );
    }
    return rows;
  } finally {
    await ctx.client.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    if (backend === 'postgres') await dropBenchSchema(schema);
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const auctions = options.quick ? 10_000 : 60_000;
  const rows: BenchRow[] = [];
  for (const backend of ['sqlite', 'postgres'] as const) {
    if (backend === 'postgres' && !(await postgresReachable())) {
      rows.push({ name: 'cold generation, postgres', figure: NaN, unit: 'ms', notes: 'skipped: PostgreSQL unreachable' });
      continue;
    }
    // A fresh simulator per backend, so both see a cold generation of the same size.
    const sim = await startServer('simulator', [], {
      SIM_AUCTIONS: String(auctions),
      SIM_GENERATION_SECONDS: options.quick ? '10' : '45',
      SIM_SEED: '42',
    });
    try {
      rows.push(...(await measure(backend, sim.url, auctions)));
    } finally {
      await sim.stop();
    }
    if (backend !== 'sqlite') continue;
    // Side by side: the same cold sweep with decode worker threads (off by default).
    const again = await startServer('simulator', [], { SIM_AUCTIONS: String(auctions), SIM_GENERATION_SECONDS: options.quick ? '10' : '45', SIM_SEED: '42' });
    try {
      rows.push(...(await measure(backend, again.url, auctions, defaultDecodeWorkers())));
    } finally {
      await again.stop();
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
