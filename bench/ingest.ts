/**
 * Ingestion: a cold 60,000-auction generation from the simulator (fetch every page,
 * decode every item, store) on SQLite and PostgreSQL, then a steady-state generation
 * (about 3 % new auctions; the median of three) measured in CPU time, as a ratio to receiving and scanning the
 * same pages (issue 28's floor; receiving alone is reported beside it). The simulator runs
 * in a child process so its page building is not counted. BENCH_INGEST_BACKENDS=postgres
 * (or sqlite) runs one backend only, without the decode-worker variant.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { systemClock } from '../src/clock.ts';
import { AuctionIngester, type GenerationResult } from '../src/ingest/auctions.ts';
import { defaultDecodeWorkers } from '../src/ingest/decode-pool.ts';
import type { IngestContext } from '../src/ingest/context.ts';
import { HypixelClient } from '../src/ingest/hypixel-client.ts';
import { scanAuctionPage } from '../src/ingest/page-scan.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { createLogger } from '../src/logger.ts';
import { Store } from '../src/store/index.ts';
import { startServer } from './harness.ts';
import { dropBenchSchema, median, POSTGRES_URL, postgresReachable, type BenchOptions, type BenchRow } from './lib.ts';

/** CPU of the main thread alone (Linux), ms: the ingest thread's share beside the decode workers. */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

interface Floors {
  receiveMs: number;
  scanMs: number;
  parseMs: number;
}

/**
 * The floors of a steady generation, on the pages it read: the CPU it takes only to receive every
 * page (same client, no work), and to receive and scan them, issue 28's floor ("only receiving and
 * scanning the pages"), with the ingester's own scanner and with JSON.parse: the ratio takes the
 * cheaper, so a slow scanner of ours cannot flatter it.
 */
async function measureFloors(client: HypixelClient, pages: number): Promise<Floors> {
  const cpuOf = async (parse: (raw: Buffer) => unknown): Promise<number> => {
    const f = process.cpuUsage();
    await Promise.all(Array.from({ length: pages }, (_, i) => client.getWith(`/v2/skyblock/auctions?page=${i}`, [404], parse)));
    const cpu = process.cpuUsage(f);
    return (cpu.user + cpu.system) / 1000;
  };
  return {
    receiveMs: await cpuOf((raw) => raw.length),
    scanMs: await cpuOf((raw) => scanAuctionPage(raw).auctions?.length),
    parseMs: await cpuOf((raw) => (JSON.parse(raw.toString('utf8')) as { auctions?: unknown[] }).auctions?.length),
  };
}

async function measure(backend: 'sqlite' | 'postgres', simUrl: string, auctions: number, quick: boolean, decodeWorkers?: number): Promise<BenchRow[]> {
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

    // The steady state: the next generations' diffs (quick: one, else three), each followed by the
    // floors measured on the same pages (see below); the medians are reported.
    const wanted = decodeWorkers ? 0 : quick ? 1 : 3;
    const steadies: Array<{ result: GenerationResult; ms: number; cpuMs: number; floors: Floors }> = [];
    const deadline = Date.now() + 60_000 * (wanted + 1);
    while (steadies.length < wanted && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const c = process.cpuUsage();
      const t = performance.now();
      const result = await ingester.pollOnce();
      const ms = performance.now() - t;
      const cpu = process.cpuUsage(c);
      if (result === 'unchanged') continue;
      steadies.push({ result, ms, cpuMs: (cpu.user + cpu.system) / 1000, floors: await measureFloors(ctx.client, result.pages) });
    }
    const rows: BenchRow[] = [
      {
        name: `cold generation of ${cold.auctions.toLocaleString('en-US')} auctions, ${backend}${variant}`,
        figure: coldMs,
        unit: 'ms',
        notes: `${Math.round(cold.auctions / (coldMs / 1000)).toLocaleString('en-US')} auctions/s; CPU ${Math.round((coldCpu.user + coldCpu.system) / 1000)} ms (ingest thread ${coldMainCpu} ms); ${cold.pages} pages`,
      },
    ];
    if (steadies.length > 0) {
      const steadyCpuMs = median(steadies.map((s) => s.cpuMs));
      const floorMs = median(steadies.map((s) => s.floors.receiveMs));
      const scanMs = median(steadies.map((s) => s.floors.scanMs));
      const parseMs = median(steadies.map((s) => s.floors.parseMs));
      const scanFloorMs = Math.min(scanMs, parseMs);
      const { result } = steadies[0]!;
      rows.push(
        {
          name: `steady-state generation, ${backend}`,
          figure: steadyCpuMs,
          unit: 'ms CPU',
          ratio: steadyCpuMs / scanFloorMs,
          baseline: 'receiving and scanning the pages',
          notes: `median of ${steadies.length} (${steadies.map((s) => Math.round(s.cpuMs)).join(', ')} ms); wall ${steadies.map((s) => Math.round(s.ms)).join(', ')} ms; the first ${result.inserted} new, ${result.updated} changed, ${result.departed} gone of ${result.auctions.toLocaleString('en-US')}; ${(steadyCpuMs / floorMs).toFixed(2)}× receiving only`,
        },
        { name: `receiving all ${result.pages} pages only (floor), ${backend}`, figure: floorMs, unit: 'ms CPU', notes: steadies.map((s) => Math.round(s.floors.receiveMs)).join(', ') },
        {
          name: `receiving and scanning all ${result.pages} pages (floor), ${backend}`,
          figure: scanFloorMs,
          unit: 'ms CPU',
          notes: `the cheaper of the ingester's scanner (${steadies.map((s) => Math.round(s.floors.scanMs)).join(', ')} ms) and JSON.parse (${steadies.map((s) => Math.round(s.floors.parseMs)).join(', ')} ms)`,
        },
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
  const only = process.env.BENCH_INGEST_BACKENDS?.split(',');
  for (const backend of ['sqlite', 'postgres'] as const) {
    if (only && !only.includes(backend)) continue;
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
      rows.push(...(await measure(backend, sim.url, auctions, options.quick)));
    } finally {
      await sim.stop();
    }
    if (backend !== 'sqlite' || only) continue;
    // Side by side: the same cold sweep with decode worker threads (off by default).
    const again = await startServer('simulator', [], { SIM_AUCTIONS: String(auctions), SIM_GENERATION_SECONDS: options.quick ? '10' : '45', SIM_SEED: '42' });
    try {
      rows.push(...(await measure(backend, again.url, auctions, options.quick, defaultDecodeWorkers())));
    } finally {
      await again.stop();
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
