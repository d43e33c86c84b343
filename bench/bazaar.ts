/**
 * Bazaar: snapshot ingest CPU and storage per row (SQLite and PostgreSQL), rollup
 * catch-up, history and snapshot latencies over 14 days of 20-second data, and the zip
 * export's throughput and memory.
 *
 * Scale: a 1,500-product snapshot is the simulator's 413 products cloned under new ids.
 * 14 days × 1,500 products (90.7 M rows) is too slow to backfill on the 2-core VM, so the
 * latency part backfills 14 days × K products at full 20-second resolution (K = 20, quick: 4)
 * and storage is extrapolated from measured bytes per row. One product's lookups are key-range
 * scans by product (chunks and recent rows), so their cost grows with log(rows), not with the
 * product count. The latency part's "rollup catch-up" includes packing the backfilled 14 days
 * into chunks (the history job's compaction), as after migration 011.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { buildApp } from '../src/app.ts';
import { ManualClock, systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { encodeBook, readVarint, type BookLevel } from '../src/domain/bazaar-book.ts';
import { decodeChunk, encodeChunk } from '../src/domain/bazaar-chunk.ts';
import { DAY, HOUR, MINUTE } from '../src/domain/bazaar-history.ts';
import { BazaarIngester } from '../src/ingest/bazaar.ts';
import type { IngestContext } from '../src/ingest/context.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { BazaarHistoryJobs } from '../src/jobs/bazaar-history.ts';
import { createLogger } from '../src/logger.ts';
import { exportJson } from '../src/services/bazaar-export.ts';
import { createMetrics } from '../src/metrics.ts';
import { Market } from '../src/simulator/market.ts';
import { Store } from '../src/store/index.ts';
import type { BazaarSnapshotsTable } from '../src/store/schema.ts';
import { dropBenchSchema, median, POSTGRES_URL, postgresReachable, type BenchOptions, type BenchRow } from './lib.ts';

type Backend = 'sqlite' | 'postgres';
const PRODUCTS = 1500;
const END = Date.UTC(2026, 10, 22, 12, 0, 0);
const logger = createLogger('silent');
const mb = (bytes: number) => bytes / 1024 / 1024;

async function openStore(backend: Backend): Promise<{ store: Store; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-bazaar-'));
  const schema = `bench_bz_${process.pid}_${Date.now()}`;
  const store = backend === 'sqlite' ? await Store.open({ dataDir: dir }) : await Store.open({ databaseUrl: POSTGRES_URL, dataDir: dir, schema });
  return {
    store,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      if (backend === 'postgres') await dropBenchSchema(schema);
    },
  };
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
}

/** Bytes of tables with their indexes (SQLite: every b-tree named after or attached to them). */
async function tableBytes(store: Store, tables: string[]): Promise<number> {
  if (store.dialect === 'sqlite') {
    const r = await sql<{ n: number }>`select sum(pgsize) as n from dbstat where name in (
      select name from sqlite_schema where tbl_name in (${sql.join(tables)}))`.execute(store.kysely);
    return Number(r.rows[0]?.n ?? 0);
  }
  let total = 0;
  for (const table of tables) {
    const r = await sql<{ n: number }>`select pg_total_relation_size(${table}::regclass) as n`.execute(store.kysely);
    total += Number(r.rows[0]?.n ?? 0);
  }
  return total;
}

/** Where packed snapshots live: chunks, the keyframes their book deltas refer to, and the product numbers. */
const PACKED_TABLES = ['bazaar_snapshot_chunks', 'bazaar_book_keyframes', 'bazaar_products'];

/** Bytes of chunk payloads as stored, and re-encoded without their books (what the books cost). */
async function payloadBytes(store: Store): Promise<{ payload: number; inflated: number; withoutBooks: number; chunks: number }> {
  const rows = await store.kysely.selectFrom('bazaar_snapshot_chunks').select('payload').execute();
  let payload = 0;
  let inflated = 0;
  let withoutBooks = 0;
  for (const r of rows) {
    payload += r.payload.length;
    inflated += inflatedBytes(Buffer.from(r.payload));
    withoutBooks += encodeChunk(decodeChunk(r.payload).map((c) => ({ ...c, book: null }))).length;
  }
  return { payload, inflated, withoutBooks, chunks: rows.length };
}

/** A chunk payload's size with its deflated sections inflated (format 1: one stream; 2: columns and books apart). */
function inflatedBytes(payload: Buffer): number {
  if (payload[0] === 1) return 1 + inflateRawSync(payload.subarray(1)).length;
  const pos = { at: 1 };
  const length = readVarint(payload, pos);
  const books = pos.at + length < payload.length ? inflateRawSync(payload.subarray(pos.at + length)).length : 0;
  return pos.at + inflateRawSync(payload.subarray(pos.at, pos.at + length)).length + books;
}

/**
 * The order-book change model of the "realistic" storage run (docs/storage.md). The
 * simulator redraws every level of every book each tick (the worst case); between two real
 * 20-second polls most levels stay put. Per tick, from the previous tick's book: the third of
 * products with the highest moving week change their best level on both sides (amount and
 * orders), get undercut (a new best level) with probability 0.3 or lose the best level to fills
 * with 0.2 per side, and have 2 random deeper levels per side amended; the middle third change
 * the best level with probability 0.5 and one deeper level with 0.2 per side; the least traded
 * third change one level per side with probability 0.1. Prices and quick status are the
 * simulator's (the rows' columns do not depend on the model).
 */
class RealisticBooks {
  private readonly previous = new Map<string, { sell: BookLevel[]; buy: BookLevel[] }>();
  private seed = 7;
  private rand = () => (this.seed = (this.seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

  apply(payload: { products: Record<string, unknown> }): void {
    const products = Object.values(payload.products) as Array<{ product_id: string; sell_summary: BookLevel[]; buy_summary: BookLevel[]; quick_status: { buyMovingWeek: number } }>;
    const byWeek = [...products].sort((a, b) => b.quick_status.buyMovingWeek - a.quick_status.buyMovingWeek);
    const tier = new Map(byWeek.map((p, i) => [p.product_id, Math.floor((i * 3) / byWeek.length)]));
    for (const p of products) {
      const before = this.previous.get(p.product_id);
      if (before) {
        const t = tier.get(p.product_id)!;
        p.sell_summary = this.step(before.sell, t, -1);
        p.buy_summary = this.step(before.buy, t, 1);
      }
      this.previous.set(p.product_id, { sell: p.sell_summary, buy: p.buy_summary });
    }
  }

  private step(levels: BookLevel[], tier: number, dir: 1 | -1): BookLevel[] {
    const out = levels.map((l) => ({ ...l }));
    const amend = (i: number) => {
      const l = out[i];
      if (!l) return;
      l.amount = Math.max(1, Math.round(l.amount * (0.7 + this.rand() * 0.6)));
      l.orders = Math.max(1, l.orders + Math.floor(this.rand() * 3) - 1);
    };
    const deeper = () => 1 + Math.floor(this.rand() * Math.max(1, out.length - 1));
    if (tier === 0) {
      amend(0);
      if (this.rand() < 0.3 && out[0]) out.unshift({ pricePerUnit: Math.max(0.1, Math.round((out[0].pricePerUnit - dir * 0.1) * 10) / 10), amount: 1 + Math.floor(this.rand() * 1000), orders: 1 });
      else if (this.rand() < 0.2 / 0.7 && out.length > 2) out.shift();
      amend(deeper());
      amend(deeper());
    } else if (tier === 1) {
      if (this.rand() < 0.5) amend(0);
      if (this.rand() < 0.2) amend(deeper());
    } else if (this.rand() < 0.1) amend(Math.floor(this.rand() * out.length));
    return out.slice(0, 30);
  }
}

/** A 1,500-product upstream payload: the simulator's products, cloned under new ids. */
function payloadAt(market: Market, ms: number): { lastUpdated: number; success: true; products: Record<string, unknown> } {
  const base = market.bazaarAt(ms);
  const products: Record<string, unknown> = {};
  const ids = Object.keys(base.products);
  for (let i = 0; i < PRODUCTS; i++) {
    const src = base.products[ids[i % ids.length]!]!;
    const copy = Math.floor(i / ids.length);
    const id = copy === 0 ? src.product_id : `${src.product_id}_C${copy}`;
    products[id] = { ...src, product_id: id };
  }
  return { success: true, lastUpdated: base.lastUpdated, products };
}

/**
 * Ingest CPU per 1,500-product snapshot, and storage per row once packed into chunks. The
 * history job's compaction runs once a minute of snapshot time, as in production (its CPU is
 * reported apart: it is not ingestion); at the end every closed window is packed and bytes are
 * measured over the packed rows (chunks, keyframes, products). Steady state: the growth after
 * the first window, which carries every product's first full book and first keyframe.
 */
async function ingestAndStorage(backend: Backend, snapshots: number, model: 'worst case' | 'realistic'): Promise<BenchRow[]> {
  const { store, close } = await openStore(backend);
  try {
    const start = END - DAY;
    const market = new Market({ seed: 42, auctions: 100, generationSeconds: 60, bazaarSeconds: 20 }, start);
    const ctx = {
      client: undefined as never,
      store,
      clock: systemClock,
      logger,
      metrics: new IngestMetrics(new Registry()),
      source: 'simulator',
    } satisfies IngestContext;
    const ingester = new BazaarIngester(ctx, { fresh: true });
    const realistic = model === 'realistic' ? new RealisticBooks() : undefined;
    const cpu: number[] = [];
    const wall: number[] = [];
    let compactCpu = 0;
    let books = 0;
    let firstWindow: { bytes: number; rows: number } | undefined;
    const compact = async (before: number) => {
      const c = process.cpuUsage();
      await store.bazaarHistory.compact(before);
      const used = process.cpuUsage(c);
      compactCpu += (used.user + used.system) / 1000;
      const packed = Number((await store.kysely.selectFrom('bazaar_snapshot_chunks').select((eb) => eb.fn.sum<number>('row_count').as('n')).executeTakeFirstOrThrow()).n ?? 0);
      if (!firstWindow && packed > 0) firstWindow = { bytes: await tableBytes(store, PACKED_TABLES), rows: packed };
      return packed;
    };
    for (let i = 0; i < snapshots; i++) {
      const payload = payloadAt(market, start + i * 20_000);
      realistic?.apply(payload);
      const c = process.cpuUsage();
      const t = performance.now();
      const result = await ingester.apply(payload);
      wall.push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
      if (result !== 'unchanged' && i > 0) books += result.booksStored;
      if (i % 3 === 2) await compact(start + i * 20_000 - 30_000);
    }
    const packed = await compact(start + snapshots * 20_000);
    const recentRows = await store.bazaar.count() - packed;
    const keyframeCount = Number((await sql<{ n: number }>`select count(*) as n from bazaar_book_keyframes`.execute(store.kysely)).rows[0]?.n ?? 0);
    const bytes = await tableBytes(store, PACKED_TABLES);
    const recentBytes = await tableBytes(store, ['bazaar_recent_rows']);
    const payloads = await payloadBytes(store);
    const perRow = bytes / packed;
    const steadyPerRow = firstWindow && packed > firstWindow.rows ? (bytes - firstWindow.bytes) / (packed - firstWindow.rows) : NaN;
    const fourteenDays = 14 * 4320 * PRODUCTS;
    // A run short enough to pack one window (--quick) has no growth after it to report.
    const steady = Number.isNaN(steadyPerRow)
      ? []
      : [
          {
            name: `storage per packed snapshot row with order books (${model}), steady state, ${backend}`,
            figure: steadyPerRow,
            unit: 'bytes',
            notes: `growth after the first window (${firstWindow?.rows.toLocaleString('en-US') ?? 0} rows); 14 days × ${PRODUCTS} products ≈ ${((steadyPerRow * fourteenDays) / 1e9).toFixed(1)} GB`,
          },
        ];
    return [
      {
        name: `ingest one ${PRODUCTS}-product snapshot (${model} books), ${backend}`,
        figure: median(cpu),
        unit: 'ms CPU',
        notes: `median of ${snapshots}; p90 ${percentile(cpu, 0.9).toFixed(1)} ms CPU; wall median ${median(wall).toFixed(1)} ms; order books changed in ${((books / ((snapshots - 1) * PRODUCTS)) * 100).toFixed(0)}% of rows; compaction (history job) ${(compactCpu / (packed / PRODUCTS)).toFixed(1)} ms CPU per snapshot packed`,
      },
      {
        name: `storage per packed snapshot row with order books (${model}), ${backend}`,
        figure: perRow,
        unit: 'bytes',
        notes: `${((perRow * 4320) / 1024).toFixed(0)} KB per product-day; 14 days × ${PRODUCTS} products ≈ ${((perRow * fourteenDays) / 1e9).toFixed(1)} GB (measured on ${packed.toLocaleString('en-US')} packed rows in ${payloads.chunks.toLocaleString('en-US')} chunks: chunks, keyframes, products, with indexes); payload ${(payloads.payload / packed).toFixed(1)} B per row (${(payloads.inflated / packed).toFixed(1)} B before deflate), ${(payloads.withoutBooks / packed).toFixed(1)} B of it without books; ${keyframeCount.toLocaleString('en-US')} keyframes (${((keyframeCount / (packed + recentRows)) * 100).toFixed(1)}% of rows); recent rows table ${(recentBytes / 1e6).toFixed(1)} MB for ${recentRows.toLocaleString('en-US')} unpacked rows (bounded: the open window)`,
      },
      ...steady,
    ];
  } finally {
    await close();
  }
}

/** Synthetic 14-day history of `products` at 20-second resolution, with order books on 1 row in 3. */
async function backfill(store: Store, products: number): Promise<number> {
  const start = END - 14 * DAY;
  let seed = 99;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const level = (p: number): BookLevel => ({ pricePerUnit: Math.round(p * 10) / 10, amount: Math.floor(rand() * 100_000), orders: 1 + Math.floor(rand() * 50) });
  const books = Array.from({ length: 64 }, () => {
    const mid = 100 + rand() * 1000;
    return encodeBook({
      buyOrders: Array.from({ length: 30 }, (_, i) => level(mid * (1 - i * 0.002))),
      sellOffers: Array.from({ length: 30 }, (_, i) => level(mid * (1.01 + i * 0.002))),
    });
  });
  const price = Array.from({ length: products }, () => 100 + rand() * 1000);
  let batch: BazaarSnapshotsTable[] = [];
  let total = 0;
  for (let ts = start; ts < END; ts += 20_000) {
    for (let p = 0; p < products; p++) {
      price[p] = Math.max(1, price[p]! * (1 + (rand() - 0.5) * 0.004));
      const buy = Math.round(price[p]! * 10) / 10;
      batch.push({
        product_id: `BENCH_PRODUCT_${p}`,
        ts: ts + 311,
        buy_price: buy,
        sell_price: Math.round(buy * 0.97 * 10) / 10,
        buy_volume: Math.floor(rand() * 1e6),
        sell_volume: Math.floor(rand() * 1e6),
        buy_moving_week: Math.floor(1e7 + rand() * 1e6),
        sell_moving_week: Math.floor(1e7 + rand() * 1e6),
        buy_orders: Math.floor(rand() * 300),
        sell_orders: Math.floor(rand() * 300),
        book: ts === start || rand() < 1 / 3 ? books[Math.floor(rand() * books.length)]! : null,
      });
    }
    if (batch.length >= 20_000) {
      await store.bazaar.insertSnapshot(batch, { name: 'bazaar', lastUpdated: ts + 311, storedAt: ts, records: products, source: 'simulator' });
      total += batch.length;
      batch = [];
    }
  }
  if (batch.length) await store.bazaar.insertSnapshot(batch, { name: 'bazaar', lastUpdated: END, storedAt: END, records: products, source: 'simulator' });
  return total + batch.length;
}

async function historyAndExport(backend: Backend, products: number, iterations: number): Promise<BenchRow[]> {
  const { store, close } = await openStore(backend);
  const rows: BenchRow[] = [];
  try {
    let t = performance.now();
    const n = await backfill(store, products);
    const loadMs = performance.now() - t;
    const clock = new ManualClock(END + MINUTE);
    t = performance.now();
    const report = await new BazaarHistoryJobs({ store, clock, logger }).runOnce();
    const rollMs = performance.now() - t;
    rows.push({
      name: `rollup catch-up of 14 days × ${products} products (5m, 2h, 1d), ${backend}`,
      figure: rollMs,
      unit: 'ms',
      notes: `${Math.round(n / (rollMs / 1000)).toLocaleString('en-US')} snapshots/s; ${report.rows['5m'].toLocaleString('en-US')} 5-minute rows; backfill insert ${Math.round(n / (loadMs / 1000)).toLocaleString('en-US')} rows/s`,
    });

    const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-app-'));
    const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1', PORT: '0', HOST: '127.0.0.1' });
    const app = await buildApp({ config, store, clock, metrics: createMetrics({ defaultMetrics: false }), logger, dataSource: 'simulator', startedAt: END });
    try {
      await app.ready();
      let seed = 5;
      const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const product = () => `BENCH_PRODUCT_${Math.floor(rand() * products)}`;
      const iso = (ms: number) => new Date(ms).toISOString();
      const cases: Array<[string, () => string, string]> = [
        ['history/hour (180 20-second points)', () => `/api/bazaar/${product()}/history/hour`, 'raw'],
        ['history/day (288 5-minute points)', () => `/api/bazaar/${product()}/history/day`, 'rollups'],
        ['history/week (84 2-hour points)', () => `/api/bazaar/${product()}/history/week`, 'rollups'],
        ['history?start&end (3 random days, 2-hour)', () => {
          const s = END - 14 * DAY + Math.floor(rand() * 11 * DAY);
          return `/api/bazaar/${product()}/history?start=${iso(s)}&end=${iso(s + 3 * DAY)}`;
        }, 'rollups'],
        ['snapshot at a random time with both books', () => `/api/bazaar/${product()}/snapshot?timestamp=${iso(END - Math.floor(rand() * 14 * DAY))}`, ''],
      ];
      for (const [name, url, _] of cases) {
        for (let i = 0; i < 20; i++) await app.inject({ method: 'GET', url: url() }); // warm-up
        const times: number[] = [];
        const cpu0 = process.cpuUsage();
        for (let i = 0; i < iterations; i++) {
          const u = url();
          const t0 = performance.now();
          const res = await app.inject({ method: 'GET', url: u });
          times.push(performance.now() - t0);
          if (res.statusCode !== 200) throw new Error(`${u}: ${res.statusCode} ${res.body}`);
        }
        const cpu = process.cpuUsage(cpu0);
        rows.push({
          name: `${name}, ${backend}`,
          figure: median(times),
          unit: 'ms',
          notes: `median of ${iterations} (in-process inject); p99 ${percentile(times, 0.99).toFixed(2)} ms; ${((cpu.user + cpu.system) / 1000 / iterations).toFixed(2)} ms CPU per request`,
        });
      }

      // Export of one product's 14 days: JSON generation alone, then the zip over HTTP.
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      // The client's first fetch() loads and compiles undici (~50 ms CPU here): a cost of this
      // in-process client, not of the server's export, so it is paid before any export is timed.
      await (await fetch(`${url}/api/version`)).arrayBuffer();
      for (const fullOrderBook of [false, true]) {
        let jsonBytes = 0;
        let t0 = performance.now();
        const jsonCpu0 = process.cpuUsage();
        for await (const chunk of exportJson(store, { productId: 'BENCH_PRODUCT_0', start: END - 14 * DAY, end: END, now: clock.now(), fullOrderBook })) {
          jsonBytes += Buffer.byteLength(chunk);
        }
        const jsonMs = performance.now() - t0;
        const jsonCpu = process.cpuUsage(jsonCpu0);
        global.gc?.();
        const heap0 = process.memoryUsage().heapUsed;
        const rss0 = process.memoryUsage().rss;
        let heapPeak = heap0;
        let rssPeak = rss0;
        const sampler = setInterval(() => {
          const m = process.memoryUsage();
          heapPeak = Math.max(heapPeak, m.heapUsed);
          rssPeak = Math.max(rssPeak, m.rss);
        }, 5);
        const overHttp = async () => {
          // An account per export: the cost limiter admits 5 units per 5 minutes per account.
          const account = await store.accounts.create({ tier: 'premium_plus' });
          const t = performance.now();
          const cpu0 = process.cpuUsage();
          const res = await fetch(`${url}/api/bazaar/BENCH_PRODUCT_0/export?start=${iso(END - 14 * DAY)}&end=${iso(END)}&fullOrderBook=${fullOrderBook}`, {
            headers: { authorization: `Bearer ${account.token}` },
          });
          if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
          let zipBytes = 0;
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) zipBytes += chunk.length;
          const cpu = process.cpuUsage(cpu0);
          return { ms: performance.now() - t, cpuSeconds: (cpu.user + cpu.system) / 1e6, zipBytes };
        };
        // One warm-up (the first export over HTTP: zip, stream and route code not yet compiled),
        // then the median of three.
        const warmUp = await overHttp();
        const runs = [await overHttp(), await overHttp(), await overHttp()];
        clearInterval(sampler);
        runs.sort((a, b) => a.ms - b.ms);
        const { ms: zipMs, cpuSeconds, zipBytes } = runs[1]!;
        rows.push({
          name: `export 14 days of one product (${(n / products).toLocaleString('en-US')} rows${fullOrderBook ? ', fullOrderBook' : ''}) as zip over HTTP, ${backend}`,
          figure: mb(jsonBytes) / (zipMs / 1000),
          unit: 'MB/s of JSON',
          notes: `median of 3 after a warm-up (${runs.map((x) => (mb(jsonBytes) / (x.ms / 1000)).toFixed(0)).join(' / ')} MB/s; the warm-up ${(mb(jsonBytes) / (warmUp.ms / 1000)).toFixed(0)} MB/s); ${mb(jsonBytes).toFixed(1)} MB JSON → ${mb(zipBytes).toFixed(1)} MB zip in ${Math.round(zipMs)} ms wall, ${(mb(jsonBytes) / cpuSeconds).toFixed(0)} MB per CPU-second (server and client in one process); JSON alone ${(mb(jsonBytes) / (jsonMs / 1000)).toFixed(0)} MB/s (${(mb(jsonBytes) / ((jsonCpu.user + jsonCpu.system) / 1e6)).toFixed(0)} MB per CPU-second); heap peak +${mb(heapPeak - heap0).toFixed(1)} MB, RSS peak +${mb(rssPeak - rss0).toFixed(1)} MB`,
        });
      }
    } finally {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  } finally {
    await close();
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const havePg = await postgresReachable();
  for (const backend of ['sqlite', 'postgres'] as const) {
    if (backend === 'postgres' && !havePg) {
      rows.push({ name: 'bazaar, postgres', figure: NaN, unit: '', notes: 'skipped: PostgreSQL unreachable' });
      continue;
    }
    // BAZAAR_BENCH=storage or =history runs one part only.
    const part = process.env.BAZAAR_BENCH ?? 'all';
    if (part !== 'history') {
      for (const model of ['worst case', 'realistic'] as const) rows.push(...(await ingestAndStorage(backend, options.quick ? 36 : 90, model)));
    }
    if (part !== 'storage') rows.push(...(await historyAndExport(backend, options.quick ? 4 : 20, options.quick ? 100 : 400)));
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
