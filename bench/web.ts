/**
 * The web pages' budgets (issue 26), measured as ratios against their budget and against a floor:
 * - what an item page costs to download: its JS and CSS, gzip and brotli (budget 150 KB compressed);
 * - the server time of an item page at 60,000 active auctions (the simulator) and 30 days of sales
 *   history, the page cache off (WEB_PAGE_CACHE_MS=0) so every request renders: p50 of sequential
 *   requests through inject() (the server's own time, without a client competing for the 2 cores;
 *   budget 20 ms), beside `GET /api/version` of the same app (the floor), and with the page cache on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createMetrics } from '../src/metrics.ts';
import { Store } from '../src/store/index.ts';
import type { AuctionsTable } from '../src/store/schema.ts';
import { PriceRollupJob } from '../src/jobs/price-rollups.ts';
import { ingestSimulator } from './auctions.ts';
import { startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';
import { syntheticSale } from './servers/synthetic-sale.ts';

const DAY = 86_400_000;
const KB = 1024;
export const ASSET_BUDGET_BYTES = 150 * KB;
export const ITEM_PAGE_BUDGET_MS = 20;

/** 30 days of sales: `busy` of them on `tag`, `rest` over 200 other tags. */
export async function storeHistory(dir: string, tag: string, busy: number, rest: number): Promise<void> {
  const store = await Store.open({ dataDir: dir });
  const now = Date.now();
  const total = busy + rest;
  try {
    for (let done = 0; done < total; done += 20_000) {
      const rows: AuctionsTable[] = [];
      for (let i = done; i < Math.min(total, done + 20_000); i++) {
        const t = i < busy ? tag : `HISTORY_TAG_${i % 200}`;
        const soldAt = now - Math.floor((((i * 7919) % total) / total) * 30 * DAY);
        rows.push(syntheticSale(i, { uuid: `c${i.toString(16).padStart(31, '0')}`, tag: t, soldAt, price: 1_000_000 + ((i * 104729) % 500_000), count: 1, startAt: soldAt - 3_600_000 }));
      }
      await store.auctions.recordSales(rows, [], { name: 'auctions_ended', lastUpdated: now, storedAt: now, records: rows.length, source: 'simulator' });
    }
  } finally {
    await store.close();
  }
}

async function busiestBinTag(dir: string): Promise<string> {
  const store = await Store.open({ dataDir: dir });
  try {
    const counts = new Map<string, number>();
    for await (const chunk of store.auctionQueries.activeListingChunks()) for (const l of chunk) if (l.bin) counts.set(l.tag, (counts.get(l.tag) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  } finally {
    await store.close();
  }
}

async function assetBytes(origin: string, html: string): Promise<{ raw: number; gzip: number; br: number; files: string[] }> {
  const files = [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
  let raw = 0;
  let gzip = 0;
  let br = 0;
  for (const f of files) {
    raw += (await (await fetch(origin + f, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer()).byteLength;
    // fetch() would decode: ask for the encoded length through a raw request
    for (const [enc, add] of [['gzip', (n: number) => (gzip += n)], ['br', (n: number) => (br += n)]] as const) {
      const { request } = await import('node:http');
      const n = await new Promise<number>((resolve, reject) => {
        request(origin + f, { headers: { 'accept-encoding': enc } }, (res) => {
          let len = 0;
          res.on('data', (c: Buffer) => (len += c.length));
          res.on('end', () => resolve(len));
        }).on('error', reject).end();
      });
      add(n);
    }
  }
  return { raw, gzip, br, files };
}

async function inProcessApp(dir: string, cacheMs: string) {
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'warn', WEB_PAGE_CACHE_MS: cacheMs, RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1' });
  const store = await Store.open({ dataDir: dir });
  const app = await buildApp({ config, store, clock: systemClock, metrics: createMetrics(), logger: createLogger('warn'), dataSource: 'simulator', startedAt: Date.now() });
  await app.ready();
  // A running service's jobs keep its price rollups current; the sales were stored before it started.
  const t = performance.now();
  await new PriceRollupJob(store, systemClock, undefined).catchUp();
  process.stderr.write(`  price rollups caught up in ${Math.round(performance.now() - t)} ms\n`);
  return { app, close: async () => (await app.close(), await store.close()) };
}

/** Server time of `url` through inject() (no client, no socket): p50 and p90 of `n` sequential requests. */
async function serverTime(app: FastifyInstance, url: string, n: number): Promise<{ p50: number; p90: number; status: number }> {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    status = (await app.inject(url)).statusCode;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)]!, p90: times[Math.floor(n * 0.9)]!, status };
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const auctions = options.quick ? 10_000 : 60_000;
  const busy = options.quick ? 2_000 : 20_000;
  const rest = options.quick ? 20_000 : 200_000;
  const n = options.quick ? 20 : 100;
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-web-'));
  const rows: BenchRow[] = [];
  try {
    let t = performance.now();
    await ingestSimulator(dir, auctions);
    process.stderr.write(`  ${auctions} auctions ingested in ${Math.round(performance.now() - t)} ms\n`);
    const tag = await busiestBinTag(dir);
    t = performance.now();
    await storeHistory(dir, tag, busy, rest);
    process.stderr.write(`  ${busy + rest} sales over 30 days stored in ${Math.round(performance.now() - t)} ms (${busy} of ${tag})\n`);
    const scale = `${auctions.toLocaleString('en-US')} active, ${(busy + rest).toLocaleString('en-US')} sales / 30 d`;

    // The asset bytes over a real socket (the encodings as a browser gets them).
    const server = await startServer('auctions-app', [dir], { WEB_PAGE_CACHE_MS: '0' });
    try {
      const html = await (await fetch(`${server.url}/item/${tag}`)).text();
      const a = await assetBytes(server.url, html);
      rows.push({
        name: `item page JS+CSS (${a.files.length} files), gzip`,
        figure: a.gzip / KB,
        unit: 'KB',
        ratio: a.gzip / ASSET_BUDGET_BYTES,
        baseline: 'of the 150 KB budget',
        notes: `brotli ${(a.br / KB).toFixed(1)} KB, uncompressed ${(a.raw / KB).toFixed(1)} KB`,
      });
    } finally {
      await server.stop();
    }

    for (const cacheMs of ['0', '5000']) {
      const { app, close } = await inProcessApp(dir, cacheMs);
      try {
        const page = `/item/${tag}`;
        await serverTime(app, page, 5); // warm-up
        const floor = await serverTime(app, '/api/version', n);
        const ranges = cacheMs === '0' ? ['week', 'day', 'month', 'full'] : ['week'];
        for (const range of ranges) {
          const r = await serverTime(app, `${page}?range=${range}`, n);
          if (r.status !== 200) throw new Error(`item page ${range}: ${r.status}`);
          rows.push({
            name: `item page ${tag} range=${range}, ${cacheMs === '0' ? 'rendered every request' : 'page cache on (5 s)'} (${scale})`,
            figure: r.p50,
            unit: 'ms p50',
            ratio: r.p50 / ITEM_PAGE_BUDGET_MS,
            baseline: 'of the 20 ms budget',
            notes: `p90 ${r.p90.toFixed(1)} ms; GET /api/version p50 ${floor.p50.toFixed(2)} ms (floor, ${(r.p50 / floor.p50).toFixed(0)}×); ${n} requests via inject(); load ${loadavg()[0]!.toFixed(2)}`,
          });
        }
      } finally {
        await close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
