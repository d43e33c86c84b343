/**
 * Bulk price files (issue "Bulk price files for mods") from a 60,000-auction simulated market:
 * - the rebuild of every file after a change of the listings, CPU per build (the budget:
 *   ≤ 200 ms);
 * - `GET /neu/lowestbin.json` against a bare node:http server returning the same bytes, side by
 *   side at 50 connections (the floor: ≥ 80 % of its throughput).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../src/clock.ts';
import { createLogger } from '../src/logger.ts';
import { ActiveAuctionsView } from '../src/market/active-auctions.ts';
import { BulkPrices, type PreparedFile } from '../src/market/bulk-prices.ts';
import { PreparedAnswer } from '../src/http/prepared-answers.ts';
import { Store } from '../src/store/index.ts';
import { ingestSimulator } from './auctions.ts';
import { compare, startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

/** Runs `measure` over a bulk-prices builder on a view of the store in `dir`, built only when asked (no following). */
export async function withBulkPrices<T>(dir: string, measure: (bulk: BulkPrices, view: ActiveAuctionsView) => Promise<T>): Promise<T> {
  const store = await Store.open({ dataDir: dir });
  const view = new ActiveAuctionsView(store, systemClock);
  const bulk = new BulkPrices({ store, view, clock: systemClock, logger: createLogger('silent'), follow: false });
  try {
    await view.ready();
    return await measure(bulk, view);
  } finally {
    bulk.close();
    view.close();
    await store.close();
  }
}

/**
 * The CPU of each rebuild after a change of the listings (ms, ascending), with what the routes do after
 * a build (api/bulk-prices.ts): each file's JSON and its gzip. One warm-up build first.
 */
export async function rebuildCpu(view: ActiveAuctionsView, quick: boolean, build: () => Promise<{ files: Readonly<Record<string, PreparedFile>> }>): Promise<number[]> {
  await build(); // warm-up
  const cpu: number[] = [];
  for (let i = 0; i < (quick ? 5 : 20); i++) {
    view.version++; // as a change of the listings does
    const start = process.cpuUsage();
    const built = await build();
    for (const f of Object.values(built.files)) new PreparedAnswer(Buffer.from(JSON.stringify(f.value))).variant('gzip');
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
  }
  return cpu.sort((a, b) => a - b);
}

async function rebuild(dir: string, quick: boolean): Promise<BenchRow> {
  return withBulkPrices(dir, async (bulk, view) => {
    const cpu = await rebuildCpu(view, quick, () => bulk.build());
    const last = bulk.latest()!;
    const sizes = Object.entries(last.files).map(([name, f]) => {
      const answer = new PreparedAnswer(Buffer.from(JSON.stringify(f.value)));
      return `${name} ${f.keys} keys ${(answer.plain.length / 1024).toFixed(0)} KB (gzip ${(answer.variant('gzip').length / 1024).toFixed(0)} KB)`;
    });
    return {
      name: `rebuild of every bulk file from ${last.listings.toLocaleString('en-US')} active BINs (${view.size.toLocaleString('en-US')} active auctions)`,
      figure: cpu[Math.floor(cpu.length / 2)]!,
      unit: 'ms CPU (median)',
      notes: `max ${cpu.at(-1)!.toFixed(1)} ms; budget 200 ms; ${sizes.join('; ')}`,
    };
  });
}

async function overHttp(dir: string, quick: boolean): Promise<BenchRow[]> {
  const app = await startServer('auctions-app', [dir]);
  let bare: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const url = `${app.url}/neu/lowestbin.json`;
    const bytes = await (await fetch(url)).text();
    if (Object.keys(JSON.parse(bytes) as object).length < 100) throw new Error('lowestbin.json holds fewer than 100 ids');
    bare = await startServer('bare', [bytes]);
    if ((await (await fetch(bare.url)).text()) !== bytes) throw new Error('baseline does not return the same bytes');
    const results = await compare(
      [
        { name: 'skymarket', url },
        { name: 'node:http', url: bare.url },
      ],
      { rounds: quick ? 1 : 3, seconds: quick ? 2 : 5, connections: 50 },
    );
    const ours = results.get('skymarket')!;
    const base = results.get('node:http')!;
    return [
      { name: `bare node:http, the same ${(bytes.length / 1024).toFixed(0)} KB`, figure: base.requestsPerSecond, unit: 'req/s', notes: `p50 ${base.p50} ms, p99 ${base.p99} ms, 50 connections` },
      {
        name: 'GET /neu/lowestbin.json, skymarket',
        figure: ours.requestsPerSecond,
        unit: 'req/s',
        ratio: ours.requestsPerSecond / base.requestsPerSecond,
        baseline: 'bare node:http',
        notes: `p50 ${ours.p50} ms, p99 ${ours.p99} ms, non-2xx ${ours.non2xx}; floor 0.8×`,
      },
    ];
  } finally {
    await bare?.stop();
    await app.stop();
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const auctions = options.quick ? 10_000 : 60_000;
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-bulk-'));
  try {
    const t = performance.now();
    await ingestSimulator(dir, auctions);
    process.stderr.write(`  ${auctions} auctions ingested in ${Math.round(performance.now() - t)} ms\n`);
    return [await rebuild(dir, options.quick), ...(await overHttp(dir, options.quick))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
