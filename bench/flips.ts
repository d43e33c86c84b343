/**
 * Flip recomputation after a bazaar snapshot of 1,500 products (target ≤ 200 ms).
 * The simulator's ~410 products are cloned under new ids (book pairs and shards keep their
 * shape) to 1,500; 30 minutes of 20-second snapshots are ingested into SQLite as history,
 * then each round ingests one more snapshot (not timed) and times the engine's refresh:
 * read the feed state, load the new rows, decode changed books, recompute every
 * bazaar-driven flip. Run standalone: `node --import tsx bench/flips.ts [--quick]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { ManualClock } from '../src/clock.ts';
import { BazaarIngester } from '../src/ingest/bazaar.ts';
import type { IngestContext } from '../src/ingest/context.ts';
import { HypixelClient } from '../src/ingest/hypixel-client.ts';
import { IngestMetrics } from '../src/ingest/metrics.ts';
import { createLogger } from '../src/logger.ts';
import { FlipEngine } from '../src/market/flips.ts';
import { BAZAAR_PRODUCTS } from '../src/gamedata/builtin/catalog.ts';
import { Market } from '../src/simulator/market.ts';
import type { BazaarProduct, BazaarResponse } from '../src/simulator/wire.ts';
import { Store } from '../src/store/index.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const STEP = 20_000;
const TARGET_PRODUCTS = 1500;

/** A clone id that keeps the structure the flip models look at. */
function cloneId(id: string, k: number): string {
  if (k === 0) return id;
  const book = /^ENCHANTMENT_(.+)_(\d+)$/.exec(id);
  if (book) return `ENCHANTMENT_K${k}${book[1]}_${book[2]}`;
  return `${id}_K${k}`;
}

function widen(res: BazaarResponse, copies: number, limit: number): BazaarResponse {
  const products: Record<string, BazaarProduct> = {};
  let n = 0;
  for (let k = 0; k < copies && n < limit; k++) {
    for (const p of Object.values(res.products)) {
      if (n >= limit) break;
      const id = cloneId(p.product_id, k);
      // Scale clones a little so they are not identical rows.
      const f = 1 + k * 0.013;
      products[id] = {
        product_id: id,
        sell_summary: p.sell_summary.map((l) => ({ ...l, pricePerUnit: Math.round(l.pricePerUnit * f * 10) / 10 })),
        buy_summary: p.buy_summary.map((l) => ({ ...l, pricePerUnit: Math.round(l.pricePerUnit * f * 10) / 10 })),
        quick_status: { ...p.quick_status, productId: id, buyPrice: p.quick_status.buyPrice * f, sellPrice: p.quick_status.sellPrice * f },
      };
      n++;
    }
  }
  return { ...res, products };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-flips-'));
  const store = await Store.open({ dataDir: dir });
  const clock = new ManualClock(T0);
  const ctx: IngestContext = {
    client: new HypixelClient({ baseUrl: 'http://127.0.0.1:9', retries: 0, timeoutMs: 100 }),
    store,
    clock,
    logger: createLogger('silent'),
    metrics: new IngestMetrics(new Registry()),
    source: 'simulator',
    sleep: async () => {},
  };
  try {
    const market = new Market({ seed: 3, auctions: 100, generationSeconds: 60, bazaarSeconds: 20 }, T0);
    const copies = Math.ceil(TARGET_PRODUCTS / market.products.length);
    // Catalog with NPC prices for every clone.
    const items = [];
    for (let k = 0; k < copies; k++) for (const p of BAZAAR_PRODUCTS) items.push({ tag: cloneId(p.id, k), name: p.name, tier: p.tier, category: null, npcSellPrice: p.npcSellPrice || null });
    await store.items.upsertMany(items, T0);

    const ingester = new BazaarIngester(ctx);
    const historySnapshots = options.quick ? 20 : 90;
    const start = T0 - historySnapshots * STEP;
    for (let i = 0; i < historySnapshots; i++) await ingester.apply(widen(market.bazaarAt(start + i * STEP), copies, TARGET_PRODUCTS));

    const engine = new FlipEngine(store, clock, undefined, { pollMs: 0 });
    clock.set(T0);
    await engine.refresh();
    if (engine.products !== TARGET_PRODUCTS) throw new Error(`expected ${TARGET_PRODUCTS} products, got ${engine.products}`);

    const rounds = options.quick ? 5 : 30;
    const refreshMs: number[] = [];
    const refreshCpuMs: number[] = [];
    const computeMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const ts = T0 + (i + 1) * STEP;
      clock.set(ts);
      await ingester.apply(widen(market.bazaarAt(ts), copies, TARGET_PRODUCTS));
      const cpu = process.cpuUsage();
      const t = performance.now();
      await engine.refresh();
      refreshMs.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      refreshCpuMs.push((used.user + used.system) / 1000);
      computeMs.push(engine.lastBazaarMs);
      if (engine.bazaar?.snapshotAt !== ts) throw new Error('the refresh did not pick up the new snapshot');
    }
    refreshMs.sort((a, b) => a - b);
    refreshCpuMs.sort((a, b) => a - b);
    computeMs.sort((a, b) => a - b);
    const r = engine.bazaar!;
    const counts = `spread ${r.spread.length}, demand ${r.demand.length}, books ${r.books.length}, npc ${r.npc.length}/${r.reverseNpc.length}, fusion ${r.fusion.length}/${r.multistep.length}, copper ${r.copper.length}`;
    return [
      {
        name: `flips: full bazaar recomputation after a ${TARGET_PRODUCTS.toLocaleString('en-US')}-product snapshot (load + decode + all models, SQLite)`,
        figure: percentile(refreshMs, 0.5),
        unit: 'ms',
        notes: `median of ${rounds}; p95 ${percentile(refreshMs, 0.95).toFixed(1)} ms, max ${refreshMs[refreshMs.length - 1]!.toFixed(1)} ms; target ≤ 200 ms`,
      },
      {
        name: 'flips: same, CPU time of the process (less sensitive to a busy machine)',
        figure: percentile(refreshCpuMs, 0.5),
        unit: 'ms',
        notes: `p95 ${percentile(refreshCpuMs, 0.95).toFixed(1)} ms`,
      },
      {
        name: 'flips: models only (in-memory inputs)',
        figure: percentile(computeMs, 0.5),
        unit: 'ms',
        notes: `p95 ${percentile(computeMs, 0.95).toFixed(1)} ms; ${counts}`,
      },
    ];
  } finally {
    await ctx.client.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const row of await run({ quick: process.argv.includes('--quick') })) console.log(`${row.name}: ${row.figure.toFixed(1)} ${row.unit} (${row.notes ?? ''})`);
}
