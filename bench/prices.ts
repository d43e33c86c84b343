/**
 * Prices and price history (issue 24): the price endpoints at a short and a long stored history,
 * side by side in one run, on SQLite. Each history is synthetic sales (test/helpers/sales-history.ts:
 * 400 tags, Zipf-like popularity, pets with rarities and levels) at SALES_PER_DAY, ending now; a
 * few hundred active BINs of the most sold tag (`PET_SYNTH_0`, ~13.6 % of the sales). The rollups are built by the market's own
 * catch-up (timed: CPU per minute of sales), then each endpoint is asked of both apps in turn
 * (inject: routing, validation, serialisation included; A, B, A, B … so both share JIT state and
 * load) and its p50 compared (ratio long / short: 1 means the cost does not grow with the history). Disk: the
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
import { PriceRollupJob, viewBins } from '../src/jobs/price-rollups.ts';
import { Store } from '../src/store/index.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../test/helpers/auctions.ts';
import { storeManySales } from '../test/helpers/sales-history.ts';
import { dropBenchSchema, POSTGRES_URL, postgresReachable, type BenchOptions, type BenchRow } from './lib.ts';

export const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
export const DAY = 86_400_000;
/** The most sold tag of the synthetic history (tag 0 of the Zipf-like popularity, a pet: ~13.6 % of all sales). */
export const HOT = 'PET_SYNTH_0';
/** Its share of the sales. */
const HOT_SHARE = 0.136;

const ENDPOINTS: Record<string, string> = {
  'history/month': `/api/item/price/${HOT}/history/month`,
  'history/full': `/api/item/price/${HOT}/history/full`,
  summary: `/api/item/price/${HOT}`,
  bin: `/api/item/price/${HOT}/bin`,
  'current?count=64': `/api/item/price/${HOT}/current?count=64`,
  'history/week': `/api/item/price/${HOT}/history/week`,
};

/**
 * The summary and `/current` right after a minute of the hot tag's sales was stored (the
 * ingester's rhythm), each request the first after its batch: what a request pays when the open
 * hours it holds (market/open-hours.ts) are no longer current. Measured after ENDPOINTS (it adds sales).
 * The clock stands still, so every batch lands in the open hours: the 30 timed requests per endpoint
 * and app (the warm-ups add none) take them from the history's 40 minutes of sales to ~70 minutes'
 * worth for the summary (the most they hold while the rollup keeps up) and on to ~100 for
 * `/current`, so requests are few here and the second row is pessimistic.
 */
function afterAMinute(perDay: number): Record<string, Endpoint> {
  const perMinute = Math.max(1, Math.round((perDay * HOT_SHARE) / 1440));
  let batch = 0;
  const before = async (p: Prepared) => {
    batch++;
    // Sale times after every stored one (the history ends at NOW − 20 min), before NOW, rising.
    const rows = Array.from({ length: perMinute }, (_, i) =>
      sale(NOW, 19 * 60_000 - (batch * perMinute + i), { tag: HOT, item_name: '[Lvl 50] Synth 0', sold_price: 1_000_000 + ((batch * 7919 + i * 104_729) % 500_000), enchantments: {} }),
    );
    await storeSales(p.app.store, NOW, rows);
  };
  return {
    [`summary, first after ${perMinute} new sales`]: { url: ENDPOINTS['summary']!, before, requests: 30, warmups: 3 },
    [`current?count=64, first after ${perMinute} new sales`]: { url: ENDPOINTS['current?count=64']!, before, requests: 30, warmups: 3 },
  };
}

function fileSize(path: string): number {
  let n = 0;
  for (const p of [path, `${path}-wal`]) if (existsSync(p)) n += statSync(p).size;
  return n;
}

type Backend = 'sqlite' | 'postgres';

async function rollupBytes(store: Store, backend: Backend): Promise<number> {
  if (backend === 'postgres') {
    const { rows } = await sql<{ n: string }>`select sum(pg_total_relation_size(c.oid)) as n from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = current_schema() and c.relkind = 'r' and c.relname like 'price_%'`.execute(store.kysely);
    return Number(rows[0]?.n ?? 0);
  }
  try {
    const { rows } = await sql<{ n: number }>`select sum(pgsize) as n from dbstat where name like 'price_%' or name like 'sqlite_autoindex_price_%'`.execute(store.kysely);
    return Number(rows[0]?.n ?? 0);
  } catch {
    return Number.NaN;
  }
}

export interface Prepared {
  days: number;
  sales: number;
  rollupCpuMs: number;
  fileBytes: number;
  rollupBytes: number;
  app: Awaited<ReturnType<typeof createTestApp>>;
  close(): Promise<void>;
}

/** The database's size (SQLite: the file and its WAL; PostgreSQL: every relation of the schema). */
async function databaseBytes(store: Store, backend: Backend, dir: string): Promise<number> {
  if (backend === 'sqlite') {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(store.kysely);
    return fileSize(join(dir, 'skymarket.db'));
  }
  const { rows } = await sql<{ n: string }>`select sum(pg_total_relation_size(c.oid)) as n from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
    where ns.nspname = current_schema() and c.relkind = 'r'`.execute(store.kysely);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Fills a store with `days` of history, rolls it up (timed), opens the app over it. `afterFill`
 * changes the stored history before the rollup and the app (e.g. gives sales item uids).
 */
export async function prepare(days: number, perDay: number, backend: Backend = 'sqlite', afterFill?: (store: Store) => Promise<void>): Promise<Prepared> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-prices-'));
  const schema = `bench_prices_${process.pid}_${days}`;
  const store = backend === 'sqlite' ? await Store.open({ dataDir: dir }) : await Store.open({ databaseUrl: POSTGRES_URL, dataDir: dir, schema });
  const sales = await storeManySales(store, { now: NOW - 20 * 60_000, days, sales: perDay * days, seed: 3 });
  await afterFill?.(store);
  const cpu0 = process.cpuUsage();
  await new PriceRollupJob(store, new ManualClock(NOW), undefined).catchUp(NOW);
  const cpu = process.cpuUsage(cpu0);
  const listings = Array.from({ length: 300 }, (_, i) => listing(NOW, { tag: HOT, item_name: '[Lvl 50] Synth 0', starting_bid: 1_000_000 + i * 997, count: 1 + (i % 5), enchantments: {} }));
  await storeGeneration(store, NOW - 60_000, listings);
  if (backend === 'postgres') await sql`analyze`.execute(store.kysely);
  const bytes = await rollupBytes(store, backend);
  const fileBytes = await databaseBytes(store, backend, dir);
  const app = await createTestApp({ store, env: { FLIPS_POLL_MS: '0' } });
  app.clock.set(NOW);
  await app.app.market.activeAuctions.ready();
  await new PriceRollupJob(store, app.clock, viewBins(app.app.market.activeAuctions)).recordLowestBins(NOW);
  // What is measured must be answers with data: every bucket of the month and every day has sales.
  const month = (await app.app.inject(ENDPOINTS['history/month']!)).json() as Array<{ sales: number }>;
  const full = (await app.app.inject(ENDPOINTS['history/full']!)).json() as Array<{ sales: number }>;
  if (month.filter((p) => p.sales > 0).length < Math.min(days, 30) || full.filter((p) => p.sales > 0).length < days) {
    throw new Error(`${HOT}: ${month.length} month points, ${full.length} days: the history is not what the bench means to measure`);
  }
  return {
    days,
    sales,
    rollupCpuMs: (cpu.user + cpu.system) / 1000,
    fileBytes,
    rollupBytes: bytes,
    app,
    async close() {
      await app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      if (backend === 'postgres') await dropBenchSchema(schema);
    },
  };
}

/** A request to measure: a URL, or a URL with each app's headers (its own tokens) and its own number of requests. */
export type Endpoint =
  | string
  | { url: string; headers?: (p: Prepared) => Record<string, string>; requests?: number; warmups?: number; /** untimed, before each request */ before?: (p: Prepared) => Promise<void> };

/**
 * Each endpoint asked of both apps in turn (A, B, A, B …), so both see the same JIT state and load.
 * Each app's clock is set back to NOW after every request (an answer that waits on the clock moves it).
 */
export async function measureSideBySide(a: Prepared, b: Prepared, requests: number, endpoints: Record<string, Endpoint> = ENDPOINTS): Promise<Record<string, { a: number[]; b: number[] }>> {
  const out: Record<string, { a: number[]; b: number[] }> = {};
  for (const [name, endpoint] of Object.entries(endpoints)) {
    const e = typeof endpoint === 'string' ? { url: endpoint } : endpoint;
    const ask = async (p: Prepared) => {
      const res = await p.app.app.inject({ method: 'GET', url: e.url, headers: e.headers?.(p) ?? {} });
      p.app.clock.set(NOW);
      return res;
    };
    const times = { a: [] as number[], b: [] as number[] };
    for (let i = 0; i < (e.warmups ?? 5); i++) {
      await ask(a);
      await ask(b);
    }
    for (let i = 0; i < (e.requests ?? requests); i++) {
      for (const [side, p] of [['a', a], ['b', b]] as const) {
        await e.before?.(p);
        const t0 = performance.now();
        const res = await ask(p);
        times[side].push(performance.now() - t0);
        if (res.statusCode !== 200) throw new Error(`${e.url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    out[name] = times;
  }
  return out;
}

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))]!;
};

/** One row per endpoint: p50 on the long history, its ratio to the short one (1: the cost does not grow with the history). */
export function ratioRows(times: Record<string, { a: number[]; b: number[] }>, short: Prepared, long: Prepared, prefix: string): BenchRow[] {
  return Object.entries(times).map(([name, t]) => {
    const s50 = pct(t.a, 0.5);
    const l50 = pct(t.b, 0.5);
    return {
      name: `${prefix}${name} p50, ${long.days} d vs ${short.days} d of history`,
      figure: l50,
      unit: 'ms',
      ratio: l50 / s50,
      baseline: `${short.days} d: ${s50.toFixed(2)} ms`,
      notes: `p99 ${pct(t.b, 0.99).toFixed(2)} / ${pct(t.a, 0.99).toFixed(2)} ms; ${long.sales.toLocaleString('en-US')} vs ${short.sales.toLocaleString('en-US')} sales`,
    };
  });
}

/** The rollup's CPU per minute of sales at `perDay` (hours of history rolled in one catch-up). */
async function maintenance(perDay: number, hours: number): Promise<{ cpuMsPerMinute: number; sales: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-prices-rate-'));
  try {
    const store = await Store.open({ dataDir: dir });
    try {
      const sales = await storeManySales(store, { now: NOW - 20 * 60_000, days: hours / 24, sales: Math.round((perDay * hours) / 24), seed: 5 });
      const cpu0 = process.cpuUsage();
      await new PriceRollupJob(store, new ManualClock(NOW), undefined).catchUp(NOW);
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
  const longDays = options.quick ? 14 : Number(process.env['BENCH_PRICES_DAYS'] ?? 90);
  const requests = options.quick ? 30 : 300;
  const short = await prepare(7, perDay);
  const long = await prepare(longDays, perDay);
  const rows: BenchRow[] = [];
  try {
    rows.push(...ratioRows(await measureSideBySide(short, long, requests), short, long, ''));
    rows.push(...ratioRows(await measureSideBySide(short, long, requests, afterAMinute(perDay)), short, long, ''));
  } finally {
    await short.close();
    await long.close();
  }
  for (const s of [short, long]) {
    rows.push({ name: `rollup catch-up CPU per minute of sales (${s.days} d at ${perDay.toLocaleString('en-US')}/day)`, figure: s.rollupCpuMs / (s.days * 1440), unit: 'ms', notes: `${(s.rollupCpuMs / 1000).toFixed(1)} s CPU for ${s.sales.toLocaleString('en-US')} sales` });
    rows.push({
      name: `disk per million sales (${s.days} d)`,
      figure: s.fileBytes / s.sales,
      unit: 'MB',
      notes: `price rollup tables ${Number.isFinite(s.rollupBytes) ? (s.rollupBytes / s.sales).toFixed(1) : '?'} MB of it (synthetic sales carry no item bytes)`,
    });
  }
  // PostgreSQL: the same comparison at a shorter long history (filling PostgreSQL is slower).
  const pgDays = options.quick ? 14 : Number(process.env['BENCH_PRICES_PG_DAYS'] ?? 30);
  if (process.env['BENCH_PRICES_POSTGRES'] !== '0' && (await postgresReachable())) {
    const a = await prepare(7, perDay, 'postgres');
    const b = await prepare(pgDays, perDay, 'postgres');
    try {
      rows.push(...ratioRows(await measureSideBySide(a, b, requests), a, b, 'PostgreSQL '));
      rows.push(...ratioRows(await measureSideBySide(a, b, requests, afterAMinute(perDay)), a, b, 'PostgreSQL '));
      rows.push({ name: `PostgreSQL rollup catch-up CPU per minute of sales (${b.days} d)`, figure: b.rollupCpuMs / (b.days * 1440), unit: 'ms', notes: `Node's CPU only (the server's is apart); ${(b.rollupCpuMs / 1000).toFixed(1)} s` });
      rows.push({ name: `PostgreSQL relations per million sales (${b.days} d)`, figure: b.fileBytes / b.sales, unit: 'MB', notes: `price rollup tables ${(b.rollupBytes / b.sales).toFixed(1)} MB of it` });
    } finally {
      await a.close();
      await b.close();
    }
  }
  const rate = await maintenance(500_000, options.quick ? 2 : 6);
  rows.push({ name: 'rollup CPU per minute of sales at 500,000 sales/day', figure: rate.cpuMsPerMinute, unit: 'ms', notes: `${rate.sales.toLocaleString('en-US')} sales rolled up` });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
