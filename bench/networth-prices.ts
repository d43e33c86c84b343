/**
 * The price file networth libraries read (`/api/prices/networth`, issue 43):
 * - its size and the CPU of a rebuild after a change of the listings, at demo scale (the
 *   simulator's 2,000 auctions and its bazaar) and at the bulk files' 60,000 auctions;
 * - `GET /api/prices/networth` against a bare node:http server returning the same bytes, side by
 *   side at 50 connections (the floor of the other bulk files: ≥ 0.8× of its throughput), with
 *   `/neu/lowestbin.json` of the same app in the same rounds as the reference of a bulk file on the
 *   fast path (on a loaded machine both ratios fall together; the gap between them is the file's own).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { systemClock } from '../src/clock.ts';
import { AuctionIngester } from '../src/ingest/auctions.ts';
import { BazaarIngester } from '../src/ingest/bazaar.ts';
import { HypixelClient } from '../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { createLogger } from '../src/logger.ts';
import { PreparedAnswer } from '../src/http/prepared-answers.ts';
import { Store } from '../src/store/index.ts';
import { rebuildCpu, withBulkPrices } from './bulk-prices.ts';
import { compare, startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

/** One generation of the simulator's auctions and one bazaar snapshot, stored in `dir`. */
async function ingest(dir: string, auctions: number): Promise<void> {
  const sim = await startServer('simulator', [], { SIM_AUCTIONS: String(auctions), SIM_GENERATION_SECONDS: '3600', SIM_SEED: '42' });
  const store = await Store.open({ dataDir: dir });
  const client = new HypixelClient({ baseUrl: sim.url, timeoutMs: 60_000, concurrency: 8 });
  try {
    const ctx = { client, store, clock: systemClock, logger: createLogger('silent'), metrics: new IngestMetrics(new Registry()), source: 'simulator' as const };
    if ((await new AuctionIngester(ctx).pollOnce()) === 'unchanged') throw new Error('no generation ingested');
    await new BazaarIngester(ctx).pollOnce();
  } finally {
    await client.close();
    await store.close();
    await sim.stop();
  }
}

async function rebuild(dir: string, auctions: number, quick: boolean): Promise<BenchRow> {
  return withBulkPrices(dir, async (bulk, view) => {
    const cpu = await rebuildCpu(view, quick, () => bulk.networthBuild());
    const last = await bulk.networthBuild();
    const file = last.files['networth/lower'];
    const answer = new PreparedAnswer(Buffer.from(JSON.stringify(file.value)));
    return {
      name: `networth file rebuild, ${auctions.toLocaleString('en-US')} simulated auctions (${last.listings.toLocaleString('en-US')} active BINs, ${last.products} bazaar products)`,
      figure: cpu[Math.floor(cpu.length / 2)]!,
      unit: 'ms CPU (median)',
      notes: `max ${cpu.at(-1)!.toFixed(1)} ms; both files (lower and upper case); ${file.keys} keys, ${(answer.plain.length / 1024).toFixed(0)} KB (gzip ${(answer.variant('gzip').length / 1024).toFixed(0)} KB)`,
    };
  });
}

async function overHttp(dir: string, quick: boolean): Promise<BenchRow[]> {
  const app = await startServer('auctions-app', [dir]);
  let bare: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const url = `${app.url}/api/prices/networth`;
    const bytes = await (await fetch(url)).text();
    if (Object.keys(JSON.parse(bytes) as object).length < 100) throw new Error('the networth file holds fewer than 100 keys');
    bare = await startServer('bare', [bytes]);
    if ((await (await fetch(bare.url)).text()) !== bytes) throw new Error('baseline does not return the same bytes');
    const results = await compare(
      [
        { name: 'skymarket', url },
        { name: 'lowestbin', url: `${app.url}/neu/lowestbin.json` },
        { name: 'node:http', url: bare.url },
      ],
      { rounds: quick ? 1 : 3, seconds: quick ? 2 : 5, connections: 50 },
    );
    const ours = results.get('skymarket')!;
    const base = results.get('node:http')!;
    const lowest = results.get('lowestbin')!;
    return [
      { name: `bare node:http, the same ${(bytes.length / 1024).toFixed(0)} KB`, figure: base.requestsPerSecond, unit: 'req/s', notes: `p50 ${base.p50} ms, p99 ${base.p99} ms, 50 connections` },
      {
        name: 'GET /api/prices/networth, skymarket',
        figure: ours.requestsPerSecond,
        unit: 'req/s',
        ratio: ours.requestsPerSecond / base.requestsPerSecond,
        baseline: 'bare node:http',
        notes: `p50 ${ours.p50} ms, p99 ${ours.p99} ms, non-2xx ${ours.non2xx}; floor 0.8×`,
      },
      {
        name: 'GET /neu/lowestbin.json of the same app, same rounds (reference)',
        figure: lowest.requestsPerSecond,
        unit: 'req/s',
        ratio: lowest.requestsPerSecond / base.requestsPerSecond,
        baseline: 'bare node:http',
        notes: `p50 ${lowest.p50} ms, p99 ${lowest.p99} ms; a smaller file (the same app's fast path)`,
      },
    ];
  } finally {
    await bare?.stop();
    await app.stop();
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const auctions of options.quick ? [2_000] : [2_000, 60_000]) {
    const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-networth-'));
    try {
      await ingest(dir, auctions);
      rows.push(await rebuild(dir, auctions, options.quick));
      // Serving at demo scale: the file's size there is what a library downloads from the demo.
      if (auctions === 2_000) rows.push(...(await overHttp(dir, options.quick)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
