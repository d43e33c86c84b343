/**
 * Cold ingest against a naive floor (issue 28): our cold 60,000-auction generation (quick: 10,000)
 * against what a user would write instead, in the same run, alternated, the median of each:
 *
 *   the naive ingester: fetch every page with concurrency 8 from the simulator, JSON.parse,
 *   base64 → gunzip → prismarine-nbt of every item (simplified), every upstream field stored
 *   (the decoded NBT as JSON, the raw item bytes) in SQLite in one transaction, with the
 *   primary key and one index (tag).
 *
 * Also the floor without storage (fetch + parse + decode), and where our cold generation spends
 * its CPU: a V8 CPU profile of one more cold run, its self time grouped by phase (fetch and
 * HTTP, JSON and validation, NBT decode, our row building and diff, SQL writes, the database
 * engine, GC). `npm run bench -- ingest-floor`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import nbt from 'prismarine-nbt';
import { Registry } from 'prom-client';
import { systemClock } from '../src/clock.ts';
import { AuctionIngester } from '../src/ingest/auctions.ts';
import { HypixelClient } from '../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { createLogger } from '../src/logger.ts';
import { Store } from '../src/store/index.ts';
import { startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

interface UpstreamAuction {
  uuid: string;
  auctioneer: string;
  profile_id: string;
  coop: string[];
  start: number;
  end: number;
  item_name: string;
  item_lore: string;
  extra: string;
  category: string;
  tier: string;
  starting_bid: number;
  item_bytes: string;
  claimed: boolean;
  highest_bid_amount: number;
  bin?: boolean;
  bids: unknown[];
  last_updated?: number;
}
interface Page {
  success: boolean;
  page: number;
  totalPages: number;
  lastUpdated: number;
  auctions: UpstreamAuction[];
}

/** One page, retried twice on a network error (a kept-alive socket the server closed meanwhile). */
async function fetchPage(base: string, i: number): Promise<Page> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await (await fetch(`${base}/v2/skyblock/auctions?page=${i}`)).json()) as Page;
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}

export async function fetchPages(base: string): Promise<Page[]> {
  const first = await fetchPage(base, 0);
  const pages: Page[] = [first];
  let next = 1;
  const worker = async () => {
    while (next < first.totalPages) {
      const i = next++;
      pages[i] = await fetchPage(base, i);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return pages;
}

function decode(itemBytes: string): { tag: string | null; uid: string | null; nbt: unknown } {
  const raw = gunzipSync(Buffer.from(itemBytes, 'base64'));
  const parsed = nbt.parseUncompressed(raw, 'big');
  const simple = nbt.simplify(parsed) as { i?: Array<{ tag?: { ExtraAttributes?: { id?: string; uuid?: string } } }> };
  const extra = simple.i?.[0]?.tag?.ExtraAttributes;
  return { tag: extra?.id ?? null, uid: extra?.uuid ?? null, nbt: simple };
}

/**
 * The naive but complete ingester; without `dir` it stops after decoding. `ourIndexes`: the same
 * with the secondary indexes skymarket keeps on active listings (tag and price, end, seller, item
 * uid) instead of the one on tag. Returns the auctions handled.
 */
export async function naive(base: string, dir: string | undefined, ourIndexes = false): Promise<number> {
  const pages = await fetchPages(base);
  const rows: unknown[][] = [];
  for (const page of pages) {
    for (const a of page.auctions) {
      const { tag, uid, nbt: item } = decode(a.item_bytes);
      rows.push([
        a.uuid, a.auctioneer, a.profile_id, JSON.stringify(a.coop), a.start, a.end, a.item_name, a.item_lore, a.extra, a.category, a.tier,
        a.starting_bid, Buffer.from(a.item_bytes, 'base64'), a.claimed ? 1 : 0, a.highest_bid_amount, a.bin ? 1 : 0, JSON.stringify(a.bids),
        a.last_updated ?? a.start, tag, uid, JSON.stringify(item),
      ]);
    }
  }
  if (dir === undefined) return rows.length;
  const db = new Database(join(dir, 'naive.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.exec(`create table auctions (uuid text primary key, auctioneer text, profile_id text, coop text, start integer, "end" integer,
      item_name text, item_lore text, extra text, category text, tier text, starting_bid integer, item_bytes blob, claimed integer,
      highest_bid_amount integer, bin integer, bids text, last_updated integer, tag text, uid text, nbt text)`);
    if (ourIndexes) {
      db.exec('create index auctions_tag_price on auctions (tag, starting_bid)');
      db.exec('create index auctions_end on auctions ("end")');
      db.exec('create index auctions_seller on auctions (auctioneer)');
      db.exec('create index auctions_uid on auctions (uid)');
    } else {
      db.exec('create index auctions_tag on auctions (tag)');
    }
    const insert = db.prepare(`insert into auctions values (${Array(21).fill('?').join(', ')})`);
    db.transaction(() => {
      for (const r of rows) insert.run(r);
    })();
  } finally {
    db.close();
  }
  return rows.length;
}

async function ours(base: string, dir: string): Promise<number> {
  const store = await Store.open({ dataDir: dir });
  const client = new HypixelClient({ baseUrl: base, timeoutMs: 60_000, concurrency: 8 });
  try {
    const ingester = new AuctionIngester({ client, store, clock: systemClock, logger: createLogger('silent'), metrics: new IngestMetrics(new Registry()), source: 'simulator' });
    const result = await ingester.pollOnce();
    if (result === 'unchanged') throw new Error('no generation');
    return result.auctions;
  } finally {
    await client.close();
    await store.close();
  }
}

export async function timed(fn: (dir: string) => Promise<number>): Promise<{ ms: number; cpuMs: number; n: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-floor-'));
  try {
    const c = process.cpuUsage();
    const t = performance.now();
    const n = await fn(dir);
    const used = process.cpuUsage(c);
    return { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000, n };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type ProfileNode = { id: number; callFrame: { url: string; functionName: string }; children?: number[] };

/**
 * Self time of a CPU profile grouped by phase: each sample goes to the nearest frame on its stack
 * that is ours or a package's (native calls such as SQLite statements, JSON.parse or zlib count
 * for the code that called them).
 */
function phases(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const phaseOf = new Map<number, string>();
  const classify = (id: number): string => {
    const own = byId.get(id)!.callFrame.functionName;
    if (own === '(idle)') return 'idle (waiting for pages or the disk)';
    if (own === '(garbage collector)') return 'garbage collection';
    if (own === '(program)') return 'V8 (program)';
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { url, functionName } = byId.get(at)!.callFrame;
      if (url.includes('prismarine-nbt') || url.includes('protodef') || url.includes('/src/domain/nbt')) return 'NBT decode (gunzip, parse, flatten)';
      if (url.includes('better-sqlite3') || url.includes('kysely') || url.includes('/src/store/')) return 'storage (SQL, SQLite, indexes)';
      if (url.includes('undici') || url.includes('hypixel-client')) return 'fetch / HTTP';
      if (url.includes('page-scan') || url.includes('upstream.ts') || url.includes('typebox')) return 'page scan, JSON parse, validation';
      if (url.includes('/src/ingest/records') || url.includes('prepare-auction')) return 'row building (records)';
      if (url.includes('/src/ingest/')) return `ingest (${functionName || 'anonymous'})`;
      if (url.includes('/src/')) return 'other src/';
    }
    return 'node core (not under our code)';
  };
  const out = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const id = samples[i]!;
    let phase = phaseOf.get(id);
    if (phase === undefined) phaseOf.set(id, (phase = classify(id)));
    out.set(phase, (out.get(phase) ?? 0) + (deltas[i] ?? 0) / 1000);
  }
  return out;
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const auctions = options.quick ? 10_000 : 60_000;
  const rounds = options.quick ? 1 : 3;
  const sim = await startServer('simulator', [], { SIM_AUCTIONS: String(auctions), SIM_GENERATION_SECONDS: '3600', SIM_SEED: '42' });
  const rows: BenchRow[] = [];
  try {
    // Warm the simulator's page cache: its serialisation is not ours to measure.
    await fetchPages(sim.url);
    type Timed = Awaited<ReturnType<typeof timed>>;
    const results = { ours: [] as Timed[], naive: [] as Timed[], decodeOnly: [] as Timed[], naiveOurIndexes: [] as Timed[] };
    for (let i = 0; i < rounds; i++) {
      results.naive.push(await timed((dir) => naive(sim.url, dir)));
      results.ours.push(await timed((dir) => ours(sim.url, dir)));
      results.decodeOnly.push(await timed(() => naive(sim.url, undefined)));
      results.naiveOurIndexes.push(await timed((dir) => naive(sim.url, dir, true)));
    }
    const median = (xs: Array<{ ms: number; cpuMs: number; n: number }>) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!;
    const o = median(results.ours);
    const n = median(results.naive);
    const d = median(results.decodeOnly);
    const x = median(results.naiveOurIndexes);
    rows.push(
      { name: `naive complete ingester (fetch ×8, JSON.parse, prismarine-nbt, every field, SQLite one transaction, PK + 1 index), ${n.n.toLocaleString('en-US')} auctions`, figure: Math.round(n.ms), unit: 'ms', notes: `CPU ${Math.round(n.cpuMs)} ms; median of ${rounds}` },
      { name: 'naive: fetch + parse + decode, no storage', figure: Math.round(d.ms), unit: 'ms', ratio: d.ms / n.ms, baseline: 'naive complete ingester', notes: `CPU ${Math.round(d.cpuMs)} ms` },
      { name: 'naive with our secondary indexes (tag+price, end, seller, item uid) instead of one', figure: Math.round(x.ms), unit: 'ms', ratio: x.ms / n.ms, baseline: 'naive complete ingester', notes: `CPU ${Math.round(x.cpuMs)} ms` },
      { name: `skymarket cold generation, SQLite, ${o.n.toLocaleString('en-US')} auctions`, figure: Math.round(o.ms), unit: 'ms', ratio: o.ms / n.ms, baseline: 'naive complete ingester (wall)', notes: `CPU ${Math.round(o.cpuMs)} ms (${(o.cpuMs / n.cpuMs).toFixed(2)}× the naive CPU); rounds ${results.ours.map((r) => Math.round(r.ms)).join(', ')} ms vs naive ${results.naive.map((r) => Math.round(r.ms)).join(', ')} ms` },
    );

    // Where our cold generation's time goes: one more run under the CPU profiler.
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    const profiled = await timed((dir) => ours(sim.url, dir));
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const byPhase = [...phases(profile as Parameters<typeof phases>[0])].sort((a, b) => b[1] - a[1]);
    const total = byPhase.reduce((s, [, ms]) => s + ms, 0);
    rows.push({
      name: 'skymarket cold generation, profile (self time by phase, main thread)',
      figure: Math.round(profiled.ms),
      unit: 'ms wall (profiled)',
      notes: byPhase.map(([phase, ms]) => `${phase} ${Math.round(ms)} ms (${Math.round((ms / total) * 100)} %)`).join('; '),
    });
  } finally {
    await sim.stop();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
