/**
 * Auctions: the lowest-BIN endpoint with 60,000 active auctions from the simulator
 * (served from the in-memory view) against a bare node:http server returning the same
 * bytes, at 50 connections; a filtered lowest-BIN query; and the sold list and price
 * analysis over 1,000,000 stored sales (SQLite).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { systemClock } from '../src/clock.ts';
import { AuctionIngester } from '../src/ingest/auctions.ts';
import { HypixelClient } from '../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { createLogger } from '../src/logger.ts';
import { Store } from '../src/store/index.ts';
import type { AuctionsTable } from '../src/store/schema.ts';
import { compare, load, startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';
import { syntheticSale } from './servers/synthetic-sale.ts';

const DAY = 86_400_000;

export async function ingestSimulator(dir: string, auctions: number): Promise<void> {
  const sim = await startServer('simulator', [], { SIM_AUCTIONS: String(auctions), SIM_GENERATION_SECONDS: '3600', SIM_SEED: '42' });
  const store = await Store.open({ dataDir: dir });
  const client = new HypixelClient({ baseUrl: sim.url, timeoutMs: 60_000, concurrency: 8 });
  try {
    const ingester = new AuctionIngester({
      client,
      store,
      clock: systemClock,
      logger: createLogger('silent'),
      metrics: new IngestMetrics(new Registry()),
      source: 'simulator',
    });
    const result = await ingester.pollOnce();
    if (result === 'unchanged') throw new Error('no generation ingested');
  } finally {
    await client.close();
    await store.close();
    await sim.stop();
  }
}

/** `total` synthetic sales over 30 days; `hot` of them on tag HOT_ITEM, the rest over 200 tags. */
async function storeSales(dir: string, total: number, hot: number): Promise<void> {
  const store = await Store.open({ dataDir: dir });
  const now = Date.now();
  try {
    const batch = 20_000;
    for (let done = 0; done < total; done += batch) {
      const rows: AuctionsTable[] = [];
      for (let i = done; i < Math.min(total, done + batch); i++) {
        const tag = i < hot ? 'HOT_ITEM' : `TAG_${i % 200}`;
        const soldAt = now - Math.floor(((i * 7919) % total) / total * 30 * DAY);
        const price = 1_000_000 + ((i * 104729) % 500_000);
        rows.push(syntheticSale(i, { uuid: `b${i.toString(16).padStart(31, '0')}`, tag, soldAt, price, count: 1, startAt: soldAt - ((i * 31) % 7200) * 1000 }));
      }
      await store.auctions.recordSales(rows, [], { name: 'auctions_ended', lastUpdated: now, storedAt: now, records: rows.length, source: 'simulator' });
    }
  } finally {
    await store.close();
  }
}

/** The tag with the most active BIN listings. */
export async function busiestTag(dir: string): Promise<{ tag: string; listings: number; tier: string }> {
  const store = await Store.open({ dataDir: dir });
  try {
    const counts = new Map<string, { n: number; tier: string }>();
    for await (const chunk of store.auctionQueries.activeListingChunks()) {
      for (const l of chunk) {
        if (!l.bin) continue;
        const c = counts.get(l.tag) ?? { n: 0, tier: l.tier ?? 'COMMON' };
        c.n++;
        counts.set(l.tag, c);
      }
    }
    const [tag, c] = [...counts.entries()].sort((a, b) => b[1].n - a[1].n)[0]!;
    return { tag, listings: c.n, tier: c.tier };
  } finally {
    await store.close();
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const auctions = options.quick ? 10_000 : 60_000;
  const sales = options.quick ? 100_000 : 1_000_000;
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-auctions-'));
  const rows: BenchRow[] = [];
  try {
    let t = performance.now();
    await ingestSimulator(dir, auctions);
    process.stderr.write(`  ${auctions} auctions ingested in ${Math.round(performance.now() - t)} ms\n`);
    t = performance.now();
    await storeSales(dir, sales, sales / 10);
    process.stderr.write(`  ${sales} sales stored in ${Math.round(performance.now() - t)} ms\n`);
    const busiest = await busiestTag(dir);

    const app = await startServer('auctions-app', [dir]);
    let bare: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const binUrl = `${app.url}/api/auctions/tag/${busiest.tag}/active/bin`;
      const bytes = await (await fetch(binUrl)).text();
      if (JSON.parse(bytes).length !== 10) throw new Error(`expected 10 lowest BINs of ${busiest.tag}`);
      bare = await startServer('bare', [bytes]);
      if ((await (await fetch(bare.url)).text()) !== bytes) throw new Error('baseline does not return the same bytes');
      const shape = { rounds: options.quick ? 1 : 3, seconds: options.quick ? 2 : 5, connections: 50 };
      const results = await compare(
        [
          { name: 'skymarket', url: binUrl },
          { name: 'node:http', url: bare.url },
        ],
        shape,
      );
      const ours = results.get('skymarket')!;
      const base = results.get('node:http')!;
      rows.push(
        {
          name: `lowest BIN (${busiest.tag}, ${busiest.listings} BIN of ${auctions.toLocaleString('en-US')} active), bare node:http same ${bytes.length} bytes`,
          figure: base.requestsPerSecond,
          unit: 'req/s',
          notes: `p50 ${base.p50} ms, p99 ${base.p99} ms, 50 connections`,
        },
        {
          name: `lowest BIN (${busiest.tag}), skymarket`,
          figure: ours.requestsPerSecond,
          unit: 'req/s',
          ratio: ours.requestsPerSecond / base.requestsPerSecond,
          baseline: 'bare node:http',
          notes: `p50 ${ours.p50} ms, p99 ${ours.p99} ms, non-2xx ${ours.non2xx}, errors ${ours.errors}`,
        },
      );
      const filtered = await load(`${binUrl}?Rarity=${busiest.tier}&Bin=true`, { seconds: shape.seconds, connections: 50 });
      rows.push({
        name: `lowest BIN with filters (Rarity, Bin), skymarket`,
        figure: filtered.requestsPerSecond,
        unit: 'req/s',
        ratio: filtered.requestsPerSecond / base.requestsPerSecond,
        baseline: 'bare node:http',
        notes: `p50 ${filtered.p50} ms, p99 ${filtered.p99} ms, non-2xx ${filtered.non2xx}`,
      });
      for (const [name, path] of [
        [`sold list, 1000 newest of HOT_ITEM (${(sales / 10).toLocaleString('en-US')} of ${sales.toLocaleString('en-US')} sales)`, '/api/auctions/tag/HOT_ITEM/sold'],
        ['price analysis, HOT_ITEM, 7 days', '/api/item/price/HOT_ITEM/analysis'],
        ['sold list, 1000 newest of a 4,500-sale tag', '/api/auctions/tag/TAG_7/sold'],
      ] as const) {
        // Sequential requests: latency of one query on an otherwise idle server.
        const times: number[] = [];
        for (let i = 0; i < (options.quick ? 5 : 15); i++) {
          const t0 = performance.now();
          const res = await fetch(`${app.url}${path}`);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
          times.push(performance.now() - t0);
        }
        times.sort((a, b) => a - b);
        const p50 = times[Math.floor(times.length / 2)]!;
        rows.push({ name, figure: Math.round(p50), unit: 'ms p50', notes: `min ${Math.round(times[0]!)} ms, max ${Math.round(times[times.length - 1]!)} ms over ${times.length} sequential requests` });
      }
    } finally {
      await bare?.stop();
      await app.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
