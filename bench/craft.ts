/**
 * Crafting benchmarks on the real NEU recipe graph (test/fixtures, 8,745 items,
 * ~3,700 recipes) over a synthetic, deterministic market in which every item is priced:
 * half the items trade on the bazaar with 30-level books per side, the rest as 16 BIN
 * listings; prices follow the recipe graph (fair value = ingredients × 0.8–1.2) so buy-vs-craft
 * decisions go both ways.
 *
 * (a) whole-catalog craft profit list (pure compute, both engine passes);
 * (b) the same as the crafting view rebuilds it after a snapshot: SQLite reads of the newest
 *     snapshot (books decoded) and the cheapest BINs per tag, plus (a);
 * (c) an acquisition plan for the deepest recipe tree, quantity 1,000, with a fresh engine
 *     (no memo carried over).
 * Targets (issue 6): (b) ≤ 1 s, (c) ≤ 20 ms.
 *
 * Standalone: `node --import tsx bench/craft.ts [--quick]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ManualClock } from '../src/clock.ts';
import { encodeBook, type BookLevel } from '../src/domain/bazaar-book.ts';
import { CraftEngine } from '../src/domain/craft/engine.ts';
import { mapPriceSource, type BazaarQuote, type BinListing } from '../src/domain/craft/prices.ts';
import { craftProfits } from '../src/domain/craft/profit.ts';
import { loadNeuRepository } from '../src/gamedata/neu.ts';
import type { GameData } from '../src/gamedata/types.ts';
import { CraftMarket } from '../src/market/craft.ts';
import { Store } from '../src/store/index.ts';
import type { AuctionsTable, BazaarSnapshotsTable } from '../src/store/schema.ts';
import { neuRepo } from '../test/helpers/fixtures.ts';
import { formatNumber, median, type BenchOptions, type BenchRow } from './lib.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  h ^= h >>> 13;
  h = Math.imul(h, 0x5bd1e995);
  return ((h ^ (h >>> 15)) >>> 0) / 4294967296;
}

/** Fair value per item: crafted items cost their ingredients × 0.8–1.2, leaves 1–5,000 coins. */
function fairValues(game: GameData): Map<string, number> {
  const out = new Map<string, number>();
  const visiting = new Set<string>();
  const value = (tag: string): number => {
    const known = out.get(tag);
    if (known !== undefined) return known;
    let v = 1 + hash(tag) * 5000;
    const recipe = (game.recipes.get(tag) ?? []).find((r) => r.type !== 'npc_shop');
    if (recipe && !visiting.has(tag)) {
      visiting.add(tag);
      let sum = 0;
      for (const i of recipe.inputs) sum += value(i.tag) * i.count;
      visiting.delete(tag);
      if (sum > 0) v = (sum / recipe.count) * (0.8 + hash(`${tag}:f`) * 0.4);
    }
    out.set(tag, v);
    return v;
  };
  for (const tag of game.items.keys()) value(tag);
  return out;
}

interface Market {
  bazaar: Map<string, BazaarQuote>;
  bins: Map<string, BinListing[]>;
}

export function syntheticMarket(game: GameData): Market {
  const fair = fairValues(game);
  const bazaar = new Map<string, BazaarQuote>();
  const bins = new Map<string, BinListing[]>();
  for (const [tag, v] of fair) {
    if (hash(`${tag}:m`) < 0.5) {
      const sellOffers: BookLevel[] = [];
      const buyOrders: BookLevel[] = [];
      for (let i = 0; i < 30; i++) {
        sellOffers.push({ pricePerUnit: round1(v * (1.01 + i * 0.01)), amount: Math.round(50 + hash(`${tag}:s${i}`) * 5000), orders: 1 + i });
        buyOrders.push({ pricePerUnit: round1(v * (0.99 - i * 0.01)), amount: Math.round(50 + hash(`${tag}:b${i}`) * 5000), orders: 1 + i });
      }
      const weekly = Math.round(10_000 + hash(`${tag}:v`) * 5_000_000);
      bazaar.set(tag, { productId: tag, sellOffers, buyOrders, instaBuyWeekly: weekly, instaSellWeekly: weekly });
    } else {
      const list: BinListing[] = [];
      for (let i = 0; i < 16; i++) list.push({ uuid: `${i}${tag}`.slice(0, 32), unitPrice: Math.round(v * (1 + i * 0.03)), count: 1 });
      bins.set(tag, list);
    }
  }
  return { bazaar, bins };
}

/** The item whose craft tree is deepest (ties: the first tag alphabetically). */
function deepest(game: GameData): { tag: string; depth: number } {
  const memo = new Map<string, number>();
  const depth = (tag: string, stack: Set<string>): number => {
    const known = memo.get(tag);
    if (known !== undefined) return known;
    if (stack.has(tag) || stack.size > 12) return 0;
    stack.add(tag);
    let d = 0;
    for (const r of game.recipes.get(tag) ?? []) {
      if (r.type === 'npc_shop') continue;
      for (const i of r.inputs) d = Math.max(d, 1 + depth(i.tag, stack));
    }
    stack.delete(tag);
    memo.set(tag, d);
    return d;
  };
  let best = { tag: '', depth: -1 };
  for (const tag of [...game.recipes.keys()].sort()) {
    const d = depth(tag, new Set());
    if (d > best.depth) best = { tag, depth: d };
  }
  return best;
}

async function insertSnapshot(store: Store, market: Market, ts: number, round: number): Promise<void> {
  // Every level moves by a little, so every book differs from the previous snapshot.
  const f = 1 + round * 0.001;
  const rows: BazaarSnapshotsTable[] = [...market.bazaar.values()].map((q) => {
    const moved = (levels: readonly BookLevel[]) => levels.map((l) => ({ ...l, pricePerUnit: round1(l.pricePerUnit * f) }));
    const book = { buyOrders: moved(q.buyOrders), sellOffers: moved(q.sellOffers) };
    return snapshotRow(q, ts, book);
  });
  await store.bazaar.insertSnapshot(rows, { name: 'bazaar', lastUpdated: ts, storedAt: ts, records: rows.length, source: 'simulator' });
}

function snapshotRow(q: BazaarQuote, ts: number, book: { buyOrders: BookLevel[]; sellOffers: BookLevel[] }): BazaarSnapshotsTable {
  return {
    product_id: q.productId,
    ts,
    buy_price: book.sellOffers[0]!.pricePerUnit,
    sell_price: book.buyOrders[0]!.pricePerUnit,
    buy_volume: 1000,
    sell_volume: 1000,
    buy_moving_week: q.instaBuyWeekly,
    sell_moving_week: q.instaSellWeekly,
    buy_orders: 30,
    sell_orders: 30,
    book: encodeBook(book),
  };
}

export async function storeWith(market: Market, dir: string): Promise<Store> {
  const store = await Store.open({ dataDir: dir });
  const rows: BazaarSnapshotsTable[] = [...market.bazaar.values()].map((q) => ({
    product_id: q.productId,
    ts: NOW,
    buy_price: q.sellOffers[0]!.pricePerUnit,
    sell_price: q.buyOrders[0]!.pricePerUnit,
    buy_volume: 1000,
    sell_volume: 1000,
    buy_moving_week: q.instaBuyWeekly,
    sell_moving_week: q.instaSellWeekly,
    buy_orders: 30,
    sell_orders: 30,
    book: encodeBook({ buyOrders: [...q.buyOrders], sellOffers: [...q.sellOffers] }),
  }));
  await store.bazaar.insertSnapshot(rows, { name: 'bazaar', lastUpdated: NOW, storedAt: NOW, records: rows.length, source: 'simulator' });
  const listings: AuctionsTable[] = [];
  let n = 0;
  for (const [tag, list] of market.bins) {
    for (const b of list) {
      listings.push({
        uuid: (n++).toString(16).padStart(32, '0'), tag, item_name: tag, count: 1, seller: '0'.repeat(32), profile_id: null, coop: null,
        start_at: NOW - 60_000, end_at: NOW + 3_600_000, starting_bid: b.unitPrice, highest_bid: 0, bin: true, tier: null, category: null,
        reforge: null, item_uid: null, item_created_at: null, enchantments: null, flat_nbt: null, item_bytes: new Uint8Array(),
        state: 'active', last_updated: NOW, sold_price: null, buyer: null, sold_at: null, buyer_profile: null,
      });
    }
  }
  await store.auctions.applyGeneration({ listings, bids: [], departed: [], feed: { name: 'auctions', lastUpdated: NOW, storedAt: NOW, records: listings.length, source: 'simulator' } });
  return store;
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const game = loadNeuRepository(neuRepo());
  const market = syntheticMarket(game);
  const prices = mapPriceSource(market.bazaar, market.bins, { asOf: NOW });
  let recipes = 0;
  for (const l of game.recipes.values()) recipes += l.length;

  // (a) pure compute
  const rounds = options.quick ? 3 : 9;
  const compute: number[] = [];
  let profitable = 0;
  for (let i = 0; i < rounds + 1; i++) {
    const t0 = performance.now();
    profitable = craftProfits(game, prices).length;
    if (i > 0) compute.push(performance.now() - t0); // the first pass warms up V8
  }

  // (b) the crafting view's rebuild from SQLite after each new bazaar snapshot in which every book changed
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-bench-craft-'));
  const store = await storeWith(market, dir);
  const rebuild: number[] = [];
  const reads: number[] = [];
  let cold = 0;
  try {
    const view = new CraftMarket({ store, game, clock: new ManualClock(NOW) });
    const t0 = performance.now();
    await view.current();
    cold = performance.now() - t0;
    for (let i = 1; i <= rounds; i++) {
      await insertSnapshot(store, market, NOW + i * 20_000, i);
      const t1 = performance.now();
      const state = await view.current();
      rebuild.push(performance.now() - t1);
      reads.push(state.readMs);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }

  // (c) acquisition plan for the deepest tree, quantity 1,000
  const deep = deepest(game);
  const planTimes: number[] = [];
  let plan = new CraftEngine(game, prices).plan(deep.tag, 1000, true);
  for (let i = 0; i < (options.quick ? 20 : 200); i++) {
    const t0 = performance.now();
    plan = new CraftEngine(game, prices).plan(deep.tag, 1000, true);
    planTimes.push(performance.now() - t0);
  }
  const nodes = (p: typeof plan): number => 1 + p.ingredients.reduce((s, i) => s + nodes(i), 0);

  const market_ = `${market.bazaar.size} bazaar books (30 levels/side), ${[...market.bins.values()].reduce((s, l) => s + l.length, 0)} BINs`;
  return [
    { name: 'craft profit list, whole NEU catalog (compute only)', figure: median(compute), unit: 'ms', notes: `${recipes} recipes, ${market_}, ${profitable} profitable, median of ${rounds}` },
    { name: 'craft view rebuild after a bazaar snapshot (SQLite read + book decode + profit list)', figure: median(rebuild), unit: 'ms', notes: `target ≤ 1,000 ms; every book changed; of which read + decode ${formatNumber(median(reads))} ms; max ${formatNumber(Math.max(...rebuild))} ms` },
    { name: 'craft view cold build (also reads the cheapest BINs per tag)', figure: cold, unit: 'ms', notes: 'once per auctions generation (60 s)' },
    { name: `acquisition plan ${deep.tag} ×1,000 (tree depth ${deep.depth})`, figure: median(planTimes), unit: 'ms', notes: `target ≤ 20 ms; p99 ${formatNumber(planTimes.sort((a, b) => a - b)[Math.floor(planTimes.length * 0.99)]!)} ms; ${nodes(plan)} plan nodes` },
  ];
}

function round1(n: number): number {
  return Math.max(0.1, Math.round(n * 10) / 10);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  for (const r of await run({ quick: process.argv.includes('--quick') })) {
    console.log(`${r.name.padEnd(80)} ${formatNumber(r.figure).padStart(9)} ${r.unit}${r.notes ? `  (${r.notes})` : ''}`);
  }
  console.log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
