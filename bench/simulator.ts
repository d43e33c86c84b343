/**
 * Simulator benchmark: build a 60,000-auction market, serve all its pages over loopback,
 * and backfill history. Run standalone: `node --import tsx bench/simulator.ts [--quick]`.
 */
import { pathToFileURL } from 'node:url';
import { ManualClock } from '../src/clock.ts';
import { Market } from '../src/simulator/market.ts';
import { startSimulatorServer } from '../src/simulator/server.ts';
import type { BenchOptions, BenchRow } from './lib.ts';
import { formatNumber } from './lib.ts';

const T0 = Date.UTC(2026, 0, 1, 12);

async function fetchAll(base: string, pages: number, concurrency: number): Promise<number> {
  let next = 0;
  let bytes = 0;
  async function worker(): Promise<void> {
    while (next < pages) {
      const p = next++;
      const res = await fetch(`${base}/v2/skyblock/auctions?page=${p}`);
      if (res.status !== 200) throw new Error(`page ${p}: HTTP ${res.status}`);
      const body = await res.arrayBuffer();
      bytes += body.byteLength;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return bytes;
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const auctions = 60_000;

  const t0 = performance.now();
  const market = new Market({ seed: 1, auctions, generationSeconds: 60, bazaarSeconds: 20 }, T0);
  market.populate();
  const buildMs = performance.now() - t0;
  rows.push({ name: 'simulator: build 60,000-auction market', figure: buildMs, unit: 'ms', notes: `${formatNumber((auctions / buildMs) * 1000)} auctions/s, RSS ${Math.round(process.memoryUsage().rss / 1e6)} MB` });

  const t1 = performance.now();
  market.advanceTo(T0 + 60_000);
  rows.push({ name: 'simulator: one generation step (60k book)', figure: performance.now() - t1, unit: 'ms' });

  const clock = new ManualClock(T0 + 60_000);
  const server = await startSimulatorServer({ market, clock });
  try {
    const pages = Math.ceil(market.generation().auctions.length / 1000);
    const c0 = performance.now();
    const bytes = await fetchAll(server.url, pages, 4);
    const coldMs = performance.now() - c0;
    rows.push({ name: `simulator: serve all ${pages} pages, first crawl (serialises)`, figure: (pages / coldMs) * 1000, unit: 'req/s', notes: `${Math.round(coldMs)} ms, ${(bytes / 1e6).toFixed(1)} MB` });
    const rounds = options.quick ? 2 : 5;
    const w0 = performance.now();
    for (let r = 0; r < rounds; r++) await fetchAll(server.url, pages, 8);
    const warmMs = performance.now() - w0;
    rows.push({
      name: `simulator: serve all ${pages} pages, cached (loopback, 8 conns)`,
      figure: ((pages * rounds) / warmMs) * 1000,
      unit: 'req/s',
      notes: `${Math.round(warmMs / rounds)} ms per crawl, ${formatNumber((bytes * rounds) / 1e6 / (warmMs / 1000))} MB/s`,
    });
  } finally {
    await server.close();
  }

  const small = new Market({ seed: 1, auctions: 2000, generationSeconds: 60, bazaarSeconds: 20 }, T0);
  const days = options.quick ? 1 : 7;
  for (const [label, opts] of [
    ['default (1 h at 20 s x 30 levels, older 5 min x 5)', {}],
    ['20 s x 1 level, whole range', { detailedMs: Number.POSITIVE_INFINITY, bookDepth: 1, auctionsEnded: false }],
  ] as const) {
    const b0 = performance.now();
    let snaps = 0;
    let sales = 0;
    for (const batch of small.backfill(T0 - days * 86_400_000, T0, opts)) {
      snaps += batch.bazaar.length;
      for (const e of batch.auctionsEnded) sales += e.auctions.length;
    }
    const ms = performance.now() - b0;
    rows.push({
      name: `simulator: backfill ${days} d, ${label}`,
      figure: (snaps / ms) * 1000,
      unit: 'snapshots/s',
      notes: `${snaps} bazaar snapshots x ${small.products.length} products, ${sales} sales, ${(ms / 1000).toFixed(1)} s`,
    });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run({ quick: process.argv.includes('--quick') });
  for (const r of rows) console.log(`${r.name.padEnd(72)} ${formatNumber(r.figure).padStart(10)} ${r.unit}${r.notes ? `  (${r.notes})` : ''}`);
}
