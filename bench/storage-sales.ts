/**
 * Storage per stored sale: fills a fresh store with sales through the ingestion code and
 * reports the bytes of the `auctions` and `bids` tables, per column and per index, divided
 * by the number of sales, on SQLite and PostgreSQL.
 *
 * Two data sets:
 * - `simulator`: the simulator's auctions_ended backfill (7 days, quick: 1 day, of a 2,000-auction
 *   market: ~58,000 sales a day) replayed by the EndedIngester, as the demo's `SIM_BACKFILL`
 *   does: sales first seen in auctions_ended.
 * - `real items`: the 2,000 real 2022 auctions of the test fixtures (test/fixtures/auctions; formerly skipped when
 *   absent) stored as listings by the auctions ingester's row builder, then sold through
 *   auctions_ended (the common life of a sale: seen listed, then sold), each auction copied
 *   under new auction uuids to reach a realistic row count. Real item bytes are larger
 *   (lore, skull textures) than the simulator's.
 *
 * Figures, per sale: "as filled" (the database files/relations as ingestion left them) and
 * "compacted" (after VACUUM on SQLite, VACUUM FULL on PostgreSQL). Column figures are the
 * stored value sizes (SQLite record bytes including each value's header entry; PostgreSQL
 * `pg_column_size`, i.e. after TOAST compression); "row overhead" is the rest of the table
 * (SQLite cell and page overhead, free space; PostgreSQL tuple headers, padding, free space).
 *
 * `npm run bench -- storage-sales`; standalone `node --import tsx bench/storage-sales.ts [--quick]`
 * prints the full breakdown as markdown.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { ManualClock } from '../src/clock.ts';
import { realAuctionPages } from '../test/helpers/fixtures.ts';
import type { IngestContext } from '../src/ingest/context.ts';
import { EndedIngester } from '../src/ingest/ended.ts';
import { ingestHistory } from '../src/ingest/history.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { prepareAuctionRecord } from '../src/ingest/prepare-auction.ts';
import { createLogger } from '../src/logger.ts';
import { Market } from '../src/simulator/market.ts';
import { Store } from '../src/store/index.ts';
import type { AuctionRowWrite, AuctionsTable, BidsTable } from '../src/store/schema.ts';
import { dropBenchSchema, formatNumber, POSTGRES_URL, postgresReachable, type BenchOptions, type BenchRow } from './lib.ts';

type Backend = 'sqlite' | 'postgres';
const END = Date.UTC(2026, 10, 22, 12, 0, 0);
const DAY = 86_400_000;

interface Opened {
  store: Store;
  file?: string;
  close(): Promise<void>;
}

async function openStore(backend: Backend): Promise<Opened> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-storage-'));
  const schema = `bench_st_${process.pid}_${Date.now()}`;
  if (backend === 'sqlite') {
    const store = await Store.open({ dataDir: dir });
    return {
      store,
      file: join(dir, 'skymarket.db'),
      async close() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const store = await Store.open({ databaseUrl: POSTGRES_URL, dataDir: dir, schema });
  return {
    store,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
      await dropBenchSchema(schema);
    },
  };
}

function context(store: Store, clock: ManualClock): IngestContext {
  return {
    client: undefined as never, // replayed payloads only: nothing is fetched
    store,
    clock,
    logger: createLogger('silent'),
    metrics: new IngestMetrics(new Registry()),
    source: 'simulator',
  };
}

/** The simulator's auctions_ended history over `days`, through the EndedIngester. */
async function fillSimulator(store: Store, days: number, auctions: number): Promise<void> {
  const clock = new ManualClock(END);
  const market = new Market({ seed: 42, auctions, generationSeconds: 60, bazaarSeconds: 20 }, END);
  market.populate();
  await ingestHistory(market.backfill(END - days * DAY, END, { bazaar: false, elections: false }), context(store, clock));
}

/** A deterministic 32-hex uuid from a seed string. */
function uuidOf(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 32);
}

/** The 2,000 distinct real auctions of the 2022 sample. */
function realAuctions(): Array<Record<string, any>> | undefined {
  const seen = new Map<string, Record<string, any>>();
  for (const page of realAuctionPages()) for (const a of page.auctions) seen.set(a.uuid, a);
  return [...seen.values()];
}

/**
 * Real auctions, `copies` times each under new auction uuids (and item uuids left as they are):
 * stored as listings by the auctions ingester's record preparation, then sold through
 * auctions_ended with the real item bytes.
 */
async function fillReal(store: Store, auctions: Array<Record<string, any>>, copies: number): Promise<void> {
  const clock = new ManualClock(END);
  const ended = new EndedIngester(context(store, clock));
  const shift = END - 7 * DAY - Math.min(...auctions.map((a) => a['start'] as number));
  for (let c = 0; c < copies; c++) {
    const listings: AuctionRowWrite[] = [];
    const bids: BidsTable[] = [];
    const sales: unknown[] = [];
    for (const a of auctions) {
      const uuid = uuidOf(`${a['uuid']}:${c}`);
      const offset = shift + Math.floor((c / copies) * 6 * DAY);
      const raw = {
        ...a,
        uuid,
        start: a['start'] + offset,
        end: a['end'] + offset,
        last_updated: a['start'] + offset,
        bids: (a['bids'] as Array<Record<string, any>>).map((b): Record<string, any> => ({ ...b, auction_id: uuid, timestamp: b['timestamp'] + offset })),
      };
      const prepared = prepareAuctionRecord(JSON.stringify(raw));
      if (prepared.kind !== 'ok') continue;
      listings.push(prepared.row);
      bids.push(...prepared.bids);
      const last = raw.bids.at(-1);
      sales.push({
        auction_id: uuid,
        seller: a['auctioneer'],
        seller_profile: a['profile_id'],
        buyer: last?.['bidder'] ?? uuidOf(`buyer:${uuid}`),
        buyer_profile: last?.['profile_id'] ?? uuidOf(`buyer-profile:${uuid}`),
        timestamp: Math.min(raw.end, raw.start + 3_600_000),
        price: last?.['amount'] ?? a['starting_bid'],
        bin: a['bin'] === true,
        item_bytes: a['item_bytes'],
      });
    }
    const lastUpdated = END - 7 * DAY + (c + 1) * 60_000;
    await store.auctions.applyGeneration({
      listings,
      bids,
      departed: [],
      feed: { name: 'auctions', lastUpdated, storedAt: lastUpdated, records: listings.length, source: 'simulator' },
    });
    clock.set(lastUpdated + 30_000);
    await ended.apply({ success: true, lastUpdated: lastUpdated + 30_000, auctions: sales });
  }
}

export interface Part {
  name: string;
  kind: 'column' | 'overhead' | 'index' | 'toast';
  table: 'auctions' | 'bids';
  bytes: number;
}

export interface Measurement {
  backend: Backend;
  dataset: string;
  sales: number;
  rows: { auctions: number; bids: number };
  parts: Part[];
  /** table + toast + indexes of auctions and bids, as filled / compacted, bytes */
  filled: number;
  compacted: number;
  /** SQLite: the database file after VACUUM (all tables) */
  file?: number;
}

async function columnsOf(store: Store, table: string): Promise<Array<{ name: string }>> {
  if (store.dialect === 'sqlite') {
    return (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(store.kysely)).rows;
  }
  return (
    await sql<{ name: string }>`select column_name as name from information_schema.columns
      where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(store.kysely)
  ).rows;
}

/** Stored bytes of each column of `table` (value plus its record-header entry on SQLite). */
async function columnBytes(store: Store, table: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const { name } of await columnsOf(store, table)) {
    const c = sql.ref(name);
    const expr =
      store.dialect === 'sqlite'
        ? sql`sum(case typeof(${c})
            when 'null' then 1
            when 'integer' then 1 + case when ${c} in (0, 1) then 0 when ${c} between -128 and 127 then 1 when ${c} between -32768 and 32767 then 2
              when ${c} between -8388608 and 8388607 then 3 when ${c} between -2147483648 and 2147483647 then 4
              when ${c} between -140737488355328 and 140737488355327 then 6 else 8 end
            when 'real' then 9
            else length(cast(${c} as blob)) + case when length(cast(${c} as blob)) * 2 + 13 < 128 then 1 when length(cast(${c} as blob)) * 2 + 13 < 16384 then 2 else 3 end
          end)`
        : sql`sum(coalesce(pg_column_size(${c}), 0))`;
    const row = (await sql<{ n: number | string | null }>`select ${expr} as n from ${sql.table(table)}`.execute(store.kysely)).rows[0];
    out.set(name, Number(row?.n ?? 0));
  }
  return out;
}

/** Bytes of each table and index of `tables`: SQLite from dbstat, PostgreSQL from the catalog. */
async function relationBytes(store: Store, tables: readonly string[]): Promise<Array<{ name: string; table: string; kind: 'table' | 'index' | 'toast'; bytes: number }>> {
  if (store.dialect === 'sqlite') {
    const rows = (
      await sql<{ name: string; tbl: string; type: string; bytes: number }>`select m.name, m.tbl_name as tbl, m.type, sum(d.pgsize) as bytes
        from dbstat d join sqlite_schema m on m.name = d.name
        where m.tbl_name in (${sql.join([...tables])}) group by m.name`.execute(store.kysely)
    ).rows;
    return rows.map((r) => ({ name: r.name, table: r.tbl, kind: r.type === 'index' ? 'index' : 'table', bytes: Number(r.bytes) }));
  }
  const rows = (
    await sql<{ name: string; tbl: string; kind: string; bytes: number | string }>`
      select c.relname as name, c.relname as tbl, 'table' as kind, pg_relation_size(c.oid) as bytes
        from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relname in (${sql.join([...tables])})
      union all
      select c.relname, c.relname, 'toast', coalesce(pg_total_relation_size(c.reltoastrelid), 0)
        from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relname in (${sql.join([...tables])})
      union all
      select i.relname, t.relname, 'index', pg_relation_size(i.oid)
        from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
        where t.relnamespace = current_schema()::regnamespace and t.relname in (${sql.join([...tables])})`.execute(store.kysely)
  ).rows;
  return rows.map((r) => ({ name: r.name, table: r.tbl, kind: r.kind as 'table' | 'index' | 'toast', bytes: Number(r.bytes) }));
}

async function totalBytes(store: Store): Promise<number> {
  return (await relationBytes(store, ['auctions', 'bids'])).reduce((s, r) => s + r.bytes, 0);
}

async function compact(store: Store): Promise<void> {
  if (store.dialect === 'sqlite') await sql`vacuum`.execute(store.kysely);
  else await sql`vacuum full auctions, bids`.execute(store.kysely);
  if (store.dialect === 'postgres') await sql`analyze auctions, bids`.execute(store.kysely);
}

export async function measure(opened: Opened, dataset: string): Promise<Measurement> {
  const { store } = opened;
  const count = async (q: ReturnType<typeof sql<{ n: number | string }>>) => Number((await q.execute(store.kysely)).rows[0]?.n ?? 0);
  const sales = await count(sql<{ n: number }>`select count(*) as n from auctions where state = 'sold'`);
  const rows = {
    auctions: await count(sql<{ n: number }>`select count(*) as n from auctions`),
    bids: await count(sql<{ n: number }>`select count(*) as n from bids`),
  };
  if (store.dialect === 'postgres') await sql`vacuum analyze auctions, bids`.execute(store.kysely);
  const filled = await totalBytes(store);
  await compact(store);
  const relations = await relationBytes(store, ['auctions', 'bids']);
  const compacted = relations.reduce((s, r) => s + r.bytes, 0);
  const parts: Part[] = [];
  for (const table of ['auctions', 'bids'] as const) {
    const columns = await columnBytes(store, table);
    const tableBytes = relations.filter((r) => r.table === table && r.kind === 'table').reduce((s, r) => s + r.bytes, 0);
    let sum = 0;
    for (const [name, bytes] of columns) {
      parts.push({ name, kind: 'column', table, bytes });
      sum += bytes;
    }
    // PostgreSQL: pg_column_size counts a value moved to TOAST (compressed or not) in its column,
    // so the overhead is the table and its TOAST relation together less the columns.
    const toast = relations.filter((r) => r.table === table && r.kind === 'toast').reduce((s, r) => s + r.bytes, 0);
    parts.push({ name: 'row overhead', kind: 'overhead', table, bytes: tableBytes + toast - sum });
    if (toast > 0) parts.push({ name: 'of which in TOAST (values and overhead)', kind: 'toast', table, bytes: toast });
    for (const r of relations.filter((x) => x.table === table && x.kind === 'index')) parts.push({ name: r.name, kind: 'index', table, bytes: r.bytes });
  }
  const out: Measurement = { backend: store.dialect, dataset, sales, rows, parts, filled, compacted };
  if (opened.file) out.file = statSync(opened.file).size;
  return out;
}

export function breakdown(m: Measurement): string {
  const per = (b: number) => b / Math.max(1, m.sales);
  const lines = [
    `#### ${m.dataset}, ${m.backend}: ${m.sales.toLocaleString('en-US')} sales (${m.rows.auctions.toLocaleString('en-US')} auction rows, ${m.rows.bids.toLocaleString('en-US')} bids)`,
    '',
    `as filled ${formatNumber(per(m.filled))} B per sale, compacted ${formatNumber(per(m.compacted))} B${m.file !== undefined ? `; SQLite file after VACUUM ${formatNumber(per(m.file))} B` : ''}`,
    '',
    '| table | part | bytes per sale (compacted) |',
    '|---|---|---|',
  ];
  for (const p of m.parts) lines.push(`| ${p.table} | ${p.kind === 'index' ? `index ${p.name}` : p.kind === 'toast' ? `(${p.name})` : p.name} | ${formatNumber(per(p.bytes))} |`);
  return lines.join('\n');
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  // The simulator sells ~2 % of its book per minute: 2,000 auctions ≈ 58,000 sales a day.
  const days = options.quick ? 1 : 7;
  const copies = options.quick ? 5 : 25;
  const simAuctions = 2_000;
  const real = realAuctions();
  const backends: Backend[] = ['sqlite'];
  if (await postgresReachable()) backends.push('postgres');
  else process.stderr.write(`  PostgreSQL unreachable at ${POSTGRES_URL}: its rows are skipped\n`);
  const rows: BenchRow[] = [];
  const datasets: Array<{ name: string; fill(store: Store): Promise<void> }> = [
    { name: `simulator auctions_ended backfill, ${days} d at ${simAuctions.toLocaleString('en-US')} auctions`, fill: (s) => fillSimulator(s, days, simAuctions) },
  ];
  if (real) datasets.push({ name: `real 2022 items listed then sold (${real.length.toLocaleString('en-US')} auctions × ${copies})`, fill: (s) => fillReal(s, real, copies) });
  else process.stderr.write('  test/fixtures/auctions absent: the real-items data set is skipped\n');
  for (const dataset of datasets) {
    for (const backend of backends) {
      const opened = await openStore(backend);
      try {
        const t0 = performance.now();
        const cpu0 = process.cpuUsage();
        await dataset.fill(opened.store);
        const cpu = process.cpuUsage(cpu0);
        const fillMs = performance.now() - t0;
        const m = await measure(opened, dataset.name);
        const cpuPerSale = (cpu.user + cpu.system) / Math.max(1, m.sales);
        process.stderr.write(`\n${breakdown(m)}\n(filled in ${Math.round(fillMs)} ms; ${cpuPerSale.toFixed(0)} µs of this process's CPU per sale)\n\n`);
        const per = (b: number) => b / Math.max(1, m.sales);
        const top = m.parts
          .filter((p) => p.bytes > 0 && p.kind !== 'toast')
          .sort((a, b) => b.bytes - a.bytes)
          .slice(0, 6)
          .map((p) => `${p.table === 'bids' ? 'bids.' : ''}${p.name} ${Math.round(per(p.bytes))}`)
          .join(', ');
        rows.push({
          name: `bytes per sale, ${dataset.name}, ${backend}`,
          figure: per(m.compacted),
          unit: 'B',
          notes: `compacted (as filled ${Math.round(per(m.filled))} B); ${m.sales.toLocaleString('en-US')} sales; largest: ${top}`,
        });
        rows.push({
          name: `ingest CPU per sale, ${dataset.name}, ${backend}`,
          figure: cpuPerSale,
          unit: 'µs',
          notes: `this process only (the database server's CPU not counted); fill ${Math.round(fillMs).toLocaleString('en-US')} ms wall`,
        });
      } finally {
        await opened.close();
      }
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const row of await run({ quick: process.argv.includes('--quick') })) console.log(`${row.name}: ${formatNumber(row.figure)} ${row.unit} (${row.notes})`);
}
