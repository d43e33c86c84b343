/**
 * The valuation (docs/valuation.md): accuracy backtested on stored sales, and speed.
 *
 * Accuracy. A SQLite store is filled from the simulator (items, bazaar, `HOURS` of sales
 * history, live generations). The test set is the sales of the history's last day; each is valued
 * only from what came before it: the comparables are the tag's sales before it (7-day window),
 * matched on the dimensions its tag's sales before the test day said matter; the active BINs are
 * the BIN auctions running at that moment; the clean base price is the cheapest clean BIN running
 * then, else the clean sales' lower quartile before it. Bazaar parts are priced from the last
 * stored snapshot (the one look-ahead: the simulator's bazaar moves a few percent a day).
 * Against the sale price: median absolute percentage error and the share within ±20 %, per
 * family, beside two baselines in the same run: the tag's median of the day before the sale, and
 * the tag's lowest BIN running at the time. The real 2022 pages (test/fixtures/auctions) have
 * listings, not sales: each BIN listing's price is the target, valued from the BIN listings that
 * started before it, its matched dimensions decided from them too (no bazaar snapshot: base prices
 * and comparables only).
 *
 * Speed. One item valued in process through the service (both estimates, the tag's sales held):
 * p50 and p99 over many listings. A 1,000-item POST /api/item/value over HTTP (loopback, one
 * client): median of several requests.
 *
 * Standalone: `node --import tsx bench/valuation.ts [--quick]`; `BENCH_VALUATION_ONLY=speed` measures the speed
 * alone (no backtests; 12 HTTP requests even with --quick), for before/after runs of a change.
 */
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { decodeAuctionItem } from '../src/domain/nbt.ts';
import { comparablesEstimate, decideDimensions, keysOf, type ComparableListing, type ComparableSale, type ItemKeys } from '../src/domain/valuation/comparables.ts';
import { partsEstimate, type BaseVariant, type PartPrice, type PartPrices } from '../src/domain/valuation/parts.ts';
import { subjectOfDecoded } from '../src/domain/valuation/subject.ts';
import { familyOf, traitsOf, type ItemFamily, type ItemTraits } from '../src/domain/valuation/traits.ts';
import { combine } from '../src/domain/valuation/value.ts';
import type { PriceSource } from '../src/domain/craft/prices.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { realAuctionPages } from '../test/helpers/fixtures.ts';
import { fillFromSimulator } from '../test/helpers/sim-market.ts';
import type { BenchOptions, BenchRow } from './lib.ts';
import { formatNumber } from './lib.ts';

const DAY = 86_400_000;
const WINDOW = 7 * DAY;

/** One auction as the backtest reads it. */
export interface Row {
  uuid: string;
  tag: string;
  family: ItemFamily;
  /** price per item: the sale's, else the starting bid's */
  unit: number;
  bin: boolean;
  start: number;
  /** when it left the auction house: its sale, else its end */
  left: number;
  sold: boolean;
  traits: ItemTraits;
  keys: ItemKeys;
}

interface TagData {
  /** sales newest first */
  sales: Row[];
  /** BIN rows cheapest first */
  bins: Row[];
}

export function index(rows: Row[]): Map<string, TagData> {
  const byTag = new Map<string, TagData>();
  for (const r of rows) {
    let d = byTag.get(r.tag);
    if (!d) byTag.set(r.tag, (d = { sales: [], bins: [] }));
    if (r.sold) d.sales.push(r);
    if (r.bin) d.bins.push(r);
  }
  for (const d of byTag.values()) {
    d.sales.sort((a, b) => b.left - a.left);
    d.bins.sort((a, b) => a.unit - b.unit);
  }
  return byTag;
}

const running = (r: Row, t: number, self: string) => r.uuid !== self && r.start <= t && r.left > t;

function isClean(t: ItemTraits, v: BaseVariant): boolean {
  if (v.petBand !== null) return t.pet !== null && t.pet.band === v.petBand && t.tier === v.tier && t.pet.heldItem === null && t.pet.skin === null;
  return !t.recombobulated && t.stars === 0 && t.masterStars === 0 && t.hotPotatoBooks === 0 && t.gems.length === 0;
}

export interface Outcome {
  family: ItemFamily;
  target: number;
  value: number | null;
  /** the value without the ceiling at the cheapest other matching BIN (domain/valuation/value.ts), to compare in one run */
  uncapped: number | null;
  lastDayMedian: number | null;
  lowestBin: number | null;
}

/** Values `row` at `t` from the data before it. */
export function backtestOne(row: Row, t: number, data: Map<string, TagData>, dims: Map<string, ReturnType<typeof decideDimensions>>, bazaar: PriceSource | null, ctx: { stars: ReadonlyMap<string, never> | undefined }): Outcome {
  const d = data.get(row.tag)!;
  const sales: ComparableSale[] = [];
  const lastDay: number[] = [];
  for (const s of d.sales) {
    if (s.left >= t || s.uuid === row.uuid) continue;
    if (s.left < t - WINDOW) break;
    sales.push({ price: s.unit, at: s.left, keys: s.keys });
    if (s.left >= t - DAY) lastDay.push(s.unit);
  }
  const bins: ComparableListing[] = [];
  for (const b of d.bins) if (running(b, t, row.uuid)) bins.push({ uuid: b.uuid, price: b.unit, keys: b.keys });
  const lowestBinOf = (tag: string): number | undefined => {
    for (const b of data.get(tag)?.bins ?? []) if (running(b, t, row.uuid)) return b.unit;
    return undefined;
  };
  const prices: PartPrices = {
    lookup(id): PartPrice | undefined {
      const q = bazaar?.bazaar(id);
      const offer = q?.sellOffers[0]?.pricePerUnit ?? q?.buyOrders[0]?.pricePerUnit;
      if (offer !== undefined && offer > 0) return { coins: offer, source: 'bazaar' };
      const lbin = lowestBinOf(id.startsWith('RUNE_') ? id.split(':')[0]! : id);
      return lbin === undefined ? undefined : { coins: lbin, source: 'lbin' };
    },
    base(tag, v): PartPrice | undefined {
      const td = data.get(tag);
      if (!td) return undefined;
      for (const b of td.bins) if (running(b, t, row.uuid) && isClean(b.traits, v)) return { coins: b.unit, source: 'lbin' };
      const clean = sales.length === 0 ? [] : td.sales.filter((s) => s.left < t && s.left >= t - WINDOW && s.uuid !== row.uuid && isClean(s.traits, v)).map((s) => s.unit);
      if (clean.length > 0) {
        clean.sort((a, b) => a - b);
        return { coins: clean[Math.floor((clean.length - 1) / 4)]!, source: 'sales' };
      }
      const any = lowestBinOf(tag);
      return any === undefined ? undefined : { coins: any, source: 'lbin' };
    },
  };
  const comps = comparablesEstimate(row.tag, row.keys, sales, bins, { now: t, windowMs: WINDOW, dims: dims.get(row.tag) ?? { dims: [], fromSales: false } });
  const parts = partsEstimate(row.traits, { prices, ...(ctx.stars ? { stars: ctx.stars } : {}) });
  const value = combine(comps, parts, 1).value;
  const uncapped = combine({ ...comps, cheapestOtherBin: null }, parts, 1).value;
  lastDay.sort((a, b) => a - b);
  return {
    family: row.family,
    target: row.unit,
    value,
    uncapped,
    lastDayMedian: lastDay.length === 0 ? null : lastDay[lastDay.length >> 1]!,
    lowestBin: bins.reduce<number | null>((m, b) => (m === null || b.price < m ? b.price : m), null),
  };
}

interface Score {
  n: number;
  covered: number;
  mdape: number;
  within20: number;
}

/** Median APE and share within ±20 % over the outcomes; a missing estimate counts as 100 % off. */
export function score(outcomes: Outcome[], pick: (o: Outcome) => number | null): Score {
  const apes: number[] = [];
  let covered = 0;
  for (const o of outcomes) {
    const v = pick(o);
    if (v === null) {
      apes.push(1);
      continue;
    }
    covered++;
    apes.push(Math.abs(v - o.target) / o.target);
  }
  apes.sort((a, b) => a - b);
  return { n: outcomes.length, covered, mdape: apes[apes.length >> 1] ?? NaN, within20: apes.filter((a) => a <= 0.2).length / Math.max(1, apes.length) };
}

export function rowsOf(label: string, outcomes: Outcome[]): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const family of ['all', 'pet', 'armor', 'weapon', 'other'] as const) {
    const set = family === 'all' ? outcomes : outcomes.filter((o) => o.family === family);
    if (set.length === 0) continue;
    const v = score(set, (o) => o.value);
    const day = score(set, (o) => o.lastDayMedian);
    const lbin = score(set, (o) => o.lowestBin);
    const before = score(set, (o) => o.uncapped);
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    rows.push({
      name: `${label}: ${family} median APE (value)`,
      figure: v.mdape * 100,
      unit: '%',
      ratio: v.mdape / Math.min(day.mdape, lbin.mdape),
      baseline: 'the better baseline',
      notes: `n ${v.n}; without the BIN ceiling: ${pct(before.mdape)} / ${pct(before.within20)}; within ±20 %: value ${pct(v.within20)}, last-day median ${pct(day.within20)}, lowest BIN ${pct(lbin.within20)}; median APE: last-day median ${pct(day.mdape)}, lowest BIN ${pct(lbin.mdape)}; covered ${v.covered}/${day.covered}/${lbin.covered}`,
    });
  }
  return rows;
}

function rowOf(r: { uuid: string; tag: string; category: string | null; tier: string | null; count: number; bin: boolean | number; start_at: number | null; end_at: number; sold_at: number | null; sold_price: number | null; starting_bid: number; state: string; enchantments: unknown; flat_nbt: unknown }): Row | null {
  const parse = <T>(v: unknown, empty: T): T => (typeof v === 'string' ? (JSON.parse(v) as T) : ((v as T) ?? empty));
  const sold = r.state === 'sold' && r.sold_price !== null;
  const count = Math.max(1, Number(r.count));
  const unit = (sold ? Number(r.sold_price) : Number(r.starting_bid)) / count;
  if (!(unit > 0)) return null;
  const traits = traitsOf({ tag: r.tag, tier: r.tier, count, enchantments: parse(r.enchantments, {}), flatNbt: parse(r.flat_nbt, {}) }, r.category);
  const left = sold ? Number(r.sold_at) : Number(r.end_at);
  return { uuid: r.uuid, tag: r.tag, family: familyOf(r.tag, r.category), unit, bin: Boolean(r.bin), start: Number(r.start_at ?? left), left, sold, traits, keys: keysOf(traits) };
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const HOURS = options.quick ? 30 : 48;
  const t = await createTestApp({ env: { FLIPS_POLL_MS: '0' } });
  const out: BenchRow[] = [];
  try {
    const sim = await fillFromSimulator(t.store, { auctions: options.quick ? 1_500 : 3_000, historyHours: HOURS, detailedMinutes: 10, generations: 3 });
    t.clock.set(sim.clock.now());
    await t.app.ready();
    const market = t.app.market;
    const speedOnly = process.env['BENCH_VALUATION_ONLY'] === 'speed';
    let backtestRow: BenchRow | null = null;
    if (!speedOnly) {
      const bazaar = (await market.craft.current()).prices;
      const stored = await t.store.kysely
        .selectFrom('auctions')
        .select(['uuid', 'tag', 'category', 'tier', 'count', 'bin', 'start_at', 'end_at', 'sold_at', 'sold_price', 'starting_bid', 'state', 'enchantments', 'flat_nbt'])
        .execute();
      const rows = stored.map(rowOf).filter((r): r is Row => r !== null);
      const data = index(rows);
      let end = 0;
      for (const r of rows) if (r.sold && r.left > end) end = r.left;
      const cutoff = end - DAY;
      const dims = new Map<string, ReturnType<typeof decideDimensions>>();
      for (const [tag, d] of data) {
        const before = d.sales.filter((s) => s.left < cutoff && s.left >= cutoff - WINDOW).map((s) => ({ price: s.unit, at: s.left, keys: s.keys }));
        dims.set(tag, decideDimensions(before, familyOf(tag)));
      }
      let test = rows.filter((r) => r.sold && r.left >= cutoff);
      const cap = options.quick ? 1_500 : 6_000;
      if (test.length > cap) test = test.filter((_, i) => i % Math.ceil(test.length / cap) === 0);
      const started = performance.now();
      const outcomes = test.map((r) => backtestOne(r, r.left, data, dims, bazaar, { stars: market.upgradeCosts.stars as ReadonlyMap<string, never> }));
      const backtestMs = performance.now() - started;
      out.push(...rowsOf(`simulator (${HOURS} h, last day's sales)`, outcomes));

      // The real 2022 listings: price of each BIN listing, valued from the listings started before it.
      const byUuid = new Map<string, Row>();
      for (const page of realAuctionPages()) {
        for (const a of page.auctions) {
          if (byUuid.has(a.uuid)) continue;
          try {
            const item = subjectOfDecoded(decodeAuctionItem(a.item_bytes as string));
            const traits = traitsOf({ ...item, tier: (a.tier as string) ?? item.tier }, a.category as string);
            const unit = Number(a.starting_bid) / Math.max(1, item.count);
            if (!(unit > 0)) continue;
            byUuid.set(a.uuid, { uuid: a.uuid, tag: item.tag, family: familyOf(item.tag, a.category as string), unit, bin: Boolean(a.bin), start: a.start, left: a.end, sold: true, traits, keys: keysOf(traits) });
          } catch {
            // an undecodable item is skipped
          }
        }
      }
      const real = [...byUuid.values()];
      // BIN listings play the sales (at their start), and the BINs running at each listing's start.
      // An auction's starting bid is no price (bids start low), so only BIN listings are read: the
      // value and both baselines see the same listings.
      const realData = index(real.filter((r) => r.bin).map((r) => ({ ...r, left: r.start })));
      for (const d of realData.values()) d.bins = real.filter((r) => r.bin && r.tag === d.sales[0]?.tag).sort((a, b) => a.unit - b.unit);
      // The dimensions each listing is matched on are decided from its tag's listings before it (no look-ahead).
      const realOutcomes = real
        .filter((r) => r.bin)
        .map((r) => {
          const before = (realData.get(r.tag)?.sales ?? []).filter((s) => s.left < r.start && s.left >= r.start - WINDOW && s.uuid !== r.uuid).map((s) => ({ price: s.unit, at: s.left, keys: s.keys }));
          const dims = new Map([[r.tag, decideDimensions(before, r.family)]]);
          return backtestOne({ ...r, left: r.start }, r.start, realData, dims, null, { stars: market.upgradeCosts.stars as ReadonlyMap<string, never> });
        });
      out.push(...rowsOf('real 2022 BIN listings (listing price)', realOutcomes));
      backtestRow = { name: 'backtest: valuations from history (pure, per sale)', figure: backtestMs / Math.max(1, outcomes.length), unit: 'ms', notes: `${outcomes.length} simulator sales, ${rows.length} stored auctions` };
    }

    // Speed in process: one item through the service, the tag's sales held.
    const service = t.app.services.valuation;
    const listings = [...market.activeAuctions.listings()].slice(0, options.quick ? 300 : 1_000);
    for (const l of listings) await service.valueItem(l, l.category);
    const times: number[] = [];
    const rounds = options.quick ? 2 : 5;
    const cpu0 = process.cpuUsage();
    for (let round = 0; round < rounds; round++) {
      for (const l of listings) {
        const s = performance.now();
        await service.valueItem(l, l.category);
        times.push(performance.now() - s);
      }
    }
    const cpu = process.cpuUsage(cpu0);
    times.sort((a, b) => a - b);
    const p = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]!;
    out.push({
      name: 'one item valued in process (service, both estimates) p50 wall',
      figure: p(0.5),
      unit: 'ms',
      notes: `CPU ${((cpu.user + cpu.system) / 1000 / times.length).toFixed(3)} ms per item (mean); p99 wall ${p(0.99).toFixed(3)} ms; ${times.length} valuations of ${listings.length} listings, their tags' sales held; target ≤ 0.5 ms`,
    });

    // 1,000 items over HTTP.
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const page0 = (await (await fetch(`${sim.sim.url}/v2/skyblock/auctions?page=0`)).json()) as { auctions: Array<{ item_bytes: string }> };
    const items: string[] = [];
    while (items.length < 1_000) for (const a of page0.auctions) if (items.length < 1_000) items.push(a.item_bytes);
    const body = JSON.stringify({ items });
    const httpTimes: number[] = [];
    const httpCpu: number[] = [];
    for (let i = 0; i < (options.quick && !speedOnly ? 4 : 12); i++) {
      const s = performance.now();
      const c0 = process.cpuUsage();
      const res = await fetch(`${address}/api/item/value`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`POST /api/item/value: ${res.status}`);
      const c = process.cpuUsage(c0);
      if (i > 0) {
        httpTimes.push(performance.now() - s);
        httpCpu.push((c.user + c.system) / 1000);
      }
    }
    httpTimes.sort((a, b) => a - b);
    httpCpu.sort((a, b) => a - b);
    out.push({
      name: '1,000-item POST /api/item/value over HTTP (median CPU, server and client in one process)',
      figure: httpCpu[httpCpu.length >> 1]!,
      unit: 'ms',
      notes: `wall median ${httpTimes[httpTimes.length >> 1]!.toFixed(0)} ms (best ${httpTimes[0]!.toFixed(0)} ms) at load average ${loadavg()[0]!.toFixed(0)} on ${cpus().length} cores; ${(body.length / 1024).toFixed(0)} KB of base64 NBT, ${new Set(items).size} distinct items; ${httpTimes.length} requests after one warm-up; target ≤ 100 ms`,
    });
    if (backtestRow) out.push(backtestRow);
    await sim.close();
  } finally {
    await t.close();
  }
  return out;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await run({ quick: process.argv.includes('--quick') });
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : `  ${r.ratio.toFixed(2)}x vs ${r.baseline}`;
    console.log(`${r.name.padEnd(60)} ${formatNumber(r.figure).padStart(9)} ${r.unit}${ratio}${r.notes ? `  (${r.notes})` : ''}`);
  }
}
