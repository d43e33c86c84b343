/**
 * Prices and price history (issue 24): the price endpoints at a short and a long stored history,
 * side by side in one run, on SQLite. Each history is synthetic sales (test/helpers/sales-history.ts:
 * 400 tags, Zipf-like popularity, pets with rarities and levels) at SALES_PER_DAY, ending now; a
 * few hundred active BINs of the most sold tag. The rollups are built by the market's own
 * catch-up (timed: CPU per minute of sales), then each endpoint is asked REQUESTS times through
 * the app (inject: routing, validation, serialisation included) and its p50 compared between the
 * two histories (ratio long / short: 1 means the cost does not grow with the history). Disk: the
 * database file per million sales, and the price rollup tables' share of it (SQLite dbstat).
 *
 * A third store holds 6 hours at Hypixel's rate (500,000 sales a day): the rollup's CPU per minute
 * of sales at that rate.
 *
 * `npm run bench -- prices` (`--quick`: smaller histories); standalone
 * `node --import tsx bench/prices.ts [--quick]`.
 */
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { ManualClock } from '../src/clock.ts';
import { PriceRollups } from '../src/market/price-rollups.ts';
import { Store } from '../src/store/index.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { listing, storeGeneration } from '../test/helpers/auctions.ts';
import { storeManySales } from '../test/helpers/sales-history.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const DAY = 86_400_000;
const HOT = 'SYNTH_ITEM_0';

interface Sized {
  days: number;
  sales: number;
  rollupCpuMs: number;
  fileBytes: number;
  rollupBytes: number;
  p50: Record<string, number>;
  p99: Record<string, number>;
}

const ENDPOINTS: Record<string, string> = {
  'history/month': `/api/item/price/${HOT}/history/month`,
  'history/full': `/api/item/price/${HOT}/history/full`,
  summary: `/api/item/price/${HOT}`,
  bin: `/api/item/price/${HOT}/bin`,
  'current?count=64': `/api/item/price/${HOT}/current?count=64`,
  'history/week': `/api/item/price/${HOT}/history/week`,
};

function fileSize(path: string): number {
  let n = 0;
  for (const p of [path, `${path}-wal`]) if (existsSync(p)) n += statSync(p).size;
  return n;
}

async function rollupBytes(store: Store): Promise<number> {
  try {
    const { rows } = await sql<{ n: number }>`select sum(pgsize) as n from dbstat where name like 'price_%' or name like 'sqlite_autoindex_price_%'`.execute(store.kysely);
    return Number(rows[0]?.n ?? 0);
  } catch {
    return Number.NaN;
  }
}

/** Fills a store with `days` of history, rolls it up, measures the endpoints. */
async function measure(days: number, perDay: number, requests: number): Promise<Sized> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-prices-'));
  try {
    const store = await Store.open({ dataDir: dir });
    const sales = await storeManySales(store, { now: NOW - 20 * 60_000, days, sales: perDay * days, seed: 3 });
    const clock = new ManualClock(NOW);
    const cpu0 = process.cpuUsage();
    await new PriceRollups(store, clock, undefined).catchUp(NOW);
    const cpu = process.cpuUsage(cpu0);
    const rollupCpuMs = (cpu.user + cpu.system) / 1000;
    const listings = Array.from({ length: 300 }, (_, i) => listing(NOW, { tag: HOT, item_name: 'Synth Item 0', starting_bid: 1_000_000 + i * 997, count: 1 + (i % 5), enchantments: {} }));
    await storeGeneration(store, NOW - 60_000, listings);
    const t = await createTestApp({ store, env: { FLIPS_POLL_MS: '0' } });
    t.clock.set(NOW);
    try {
      await t.app.market.activeAuctions.ready();
      await t.app.market.priceRollups.recordLowestBins(NOW);
      const p50: Record<string, number> = {};
      const p99: Record<string, number> = {};
      for (const [name, url] of Object.entries(ENDPOINTS)) {
        for (let i = 0; i < 5; i++) await t.app.inject(url); // warm-up
        const times: number[] = [];
        for (let i = 0; i < requests; i++) {
          const t0 = performance.now();
          const res = await t.app.inject(url);
          times.push(performance.now() - t0);
          if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
        times.sort((a, b) => a - b);
        p50[name] = times[Math.floor(times.length / 2)]!;
        p99[name] = times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!;
      }
      const bytes = await rollupBytes(store);
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store.kysely);
      return { days, sales, rollupCpuMs, fileBytes: fileSize(join(dir, 'skymarket.db')), rollupBytes: bytes, p50, p99 };
    } finally {
      await t.close();
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rollup's CPU per minute of sales at `perDay` (hours of history rolled in one catch-up). */
async function maintenance(perDay: number, hours: number): Promise<{ cpuMsPerMinute: number; sales: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-prices-rate-'));
  try {
    const store = await Store.open({ dataDir: dir });
    try {
      const sales = await storeManySales(store, { now: NOW - 20 * 60_000, days: hours / 24, sales: Math.round((perDay * hours) / 24), seed: 5 });
      const cpu0 = process.cpuUsage();
      await new PriceRollups(store, new ManualClock(NOW), undefined).catchUp(NOW);
      const cpu = process.cpuUsage(cpu0);
      const minutes = (await store.priceRollups.state()).rolledTo - (NOW - hours * 3_600_000 - 20 * 60_000);
      return { cpuMsPerMinute: (cpu.user + cpu.system) / 1000 / Math.max(1, minutes / 60_000), sales };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const perDay = options.quick ? 10_000 : Number(process.env['BENCH_PRICES_PER_DAY'] ?? 50_000);
  const longDays = options.quick ? 14 : Number(process.env['BENCH_PRICES_DAYS'] ?? 30);
  const requests = options.quick ? 30 : 200;
  const short = await measure(7, perDay, requests);
  const long = await measure(longDays, perDay, requests);
  const rows: BenchRow[] = [];
  for (const name of Object.keys(ENDPOINTS)) {
    rows.push({
      name: `${name} p50, ${long.days} d vs 7 d of history`,
      figure: long.p50[name]!,
      unit: 'ms',
      ratio: long.p50[name]! / short.p50[name]!,
      baseline: `7 d: ${short.p50[name]!.toFixed(2)} ms`,
      notes: `p99 ${long.p99[name]!.toFixed(2)} / ${short.p99[name]!.toFixed(2)} ms; ${long.sales.toLocaleString('en-US')} vs ${short.sales.toLocaleString('en-US')} sales`,
    });
  }
  for (const s of [short, long]) {
    rows.push({ name: `rollup catch-up CPU per minute of sales (${s.days} d at ${perDay.toLocaleString('en-US')}/day)`, figure: s.rollupCpuMs / (s.days * 1440), unit: 'ms', notes: `${(s.rollupCpuMs / 1000).toFixed(1)} s CPU for ${s.sales.toLocaleString('en-US')} sales` });
    rows.push({
      name: `disk per million sales (${s.days} d)`,
      figure: (s.fileBytes / s.sales) * 1e6 / 1e6,
      unit: 'MB',
      notes: `price rollup tables ${Number.isFinite(s.rollupBytes) ? ((s.rollupBytes / s.sales) * 1e6 / 1e6).toFixed(1) : '?'} MB of it (synthetic sales carry no item bytes)`,
    });
  }
  const rate = await maintenance(500_000, options.quick ? 2 : 6);
  rows.push({ name: 'rollup CPU per minute of sales at 500,000 sales/day', figure: rate.cpuMsPerMinute, unit: 'ms', notes: `${rate.sales.toLocaleString('en-US')} sales rolled up` });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
