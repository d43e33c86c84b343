/**
 * Underpriced listings (docs/flips.md): what valuing a generation's new BIN listings costs.
 * A SQLite store is filled from the simulator; the market's active BIN listings are told to a
 * fresh underpriced service as one generation's `auction.new` events (at their own prices), in
 * generations of 200 and of 1,000 listings. Per generation: process CPU and wall time of
 * `prepare(batch)`, and the time from the generation's arrival to its last listing being ranked
 * (the arrival-to-list latency's upper bound; the max over the generations). Baseline in the same
 * run: the same listings valued one by one through `ValuationService.valueListing` (the price
 * source read per listing); the service values a generation in one `valueListings` pass.
 *
 * Second part, the live path and what its flags are worth (`precision`, docs/valuation.md "How good
 * the underpriced flags are"): the simulator's market runs for a simulated span (a generation a
 * minute) through the real ingestion, the spine, the market's events and the underpriced service
 * (in process, SQLite). Every `auction.underpriced` event on the live feed's hub is recorded with
 * the time from its listing's commit (the store's change) to the hub taking it (p50/p99), and each
 * flagged listing is judged against the simulator's own fair value of its copy and against the
 * later sales of comparable copies (same tag, same fair value: the same simulator variant); the
 * same measures for a random unflagged new BIN of the same tag per flagged one are the baseline.
 *
 * Standalone: `node --import tsx bench/underpriced.ts [--quick] [--precision-only]`
 */
import { pathToFileURL } from 'node:url';
import type { DraftEvent } from '../src/domain/stream-events.ts';
import { auctionFeeRate } from '../src/domain/flips/common.ts';
import { UnderpricedService } from '../src/services/underpriced.ts';
import { Store } from '../src/store/index.ts';
import { tempDir } from '../test/helpers/temp-dir.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { fillFromSimulator } from '../test/helpers/sim-market.ts';
import type { BenchOptions, BenchRow } from './lib.ts';
import { formatNumber } from './lib.ts';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  return [...(await cost(options)), ...(await precision(options))];
}

async function cost(options: BenchOptions): Promise<BenchRow[]> {
  const t = await createTestApp({ env: { FLIPS_POLL_MS: '0' } });
  const out: BenchRow[] = [];
  try {
    const sim = await fillFromSimulator(t.store, { auctions: options.quick ? 1_500 : 3_000, historyHours: options.quick ? 12 : 24, detailedMinutes: 10, generations: 3 });
    t.clock.set(sim.clock.now());
    await t.app.ready();
    const { valuation, underpriced } = t.app.services;
    const bins = [...t.app.market.activeAuctions.listings()].filter((l) => l.bin);
    const eventOf = (l: (typeof bins)[number]): DraftEvent =>
      ({ topic: 'auction.new', time: t.clock.now(), uuid: l.uuid, tag: l.tag, variant: null, bin: true, startingBid: l.startingBid, highestBid: 0, seller: '', start: 0, end: 0, price: l.startingBid, item: { itemName: l.itemName, count: l.count, tier: null, reforge: null, itemUid: null, itemCreatedAt: null, enchantments: {}, flatNbt: {} } }) as unknown as DraftEvent;
    // Warm-up: every tag's sales held once, as in a running process.
    for (const l of bins) await valuation.valueListing(l.uuid);
    for (const size of [200, 1_000]) {
      const rounds = options.quick ? 3 : 8;
      const cpu: number[] = [];
      const wall: number[] = [];
      const floorCpu: number[] = [];
      let kept = 0;
      for (let r = 0; r < rounds; r++) {
        const batch = Array.from({ length: size }, (_, i) => eventOf(bins[(r * size + i) % bins.length]!));
        const service = new UnderpricedService(valuation, underpriced.rule);
        const c0 = process.cpuUsage();
        const w0 = performance.now();
        await service.prepare(batch);
        wall.push(performance.now() - w0);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
        kept += service.size;
        const f0 = process.cpuUsage();
        for (const e of batch) await valuation.valueListing((e as { uuid: string }).uuid);
        const f = process.cpuUsage(f0);
        floorCpu.push((f.user + f.system) / 1000);
      }
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
      const max = (xs: number[]) => Math.max(...xs);
      out.push({
        name: `underpriced: one generation of ${size} new BINs valued and ranked, median CPU`,
        figure: med(cpu),
        unit: 'ms',
        ratio: med(cpu) / med(floorCpu),
        baseline: 'valueListing one by one',
        notes: `wall median ${med(wall).toFixed(0)} ms, max ${max(wall).toFixed(0)} ms (arrival to last listing ranked, ${rounds} generations); ${(kept / rounds).toFixed(0)} kept per generation; ${bins.length} active BINs; target ≤ 50 ms CPU per generation, p99 ≤ 1 s to the list`,
      });
    }
    await sim.close();
  } finally {
    await t.close();
  }
  return out;
}

interface Flagged {
  uuid: string;
  tag: string;
  price: number;
  valueAfterFees: number;
  at: number;
}

interface Outcome {
  /** buying at the price and reselling at the simulator's fair value of the copy nets a profit after fees */
  belowFair: boolean;
  /** a later sale of a comparable copy (same tag, same fair value) netted more than the price after its fees; undefined: none sold later */
  resoldAbove: boolean | undefined;
}

/** The live path over a simulated span: the flags' arrival-to-feed latency and how many were right. */
export async function precision(options: BenchOptions): Promise<BenchRow[]> {
  const dir = tempDir('bench-underpriced');
  const store = await Store.open({ dataDir: dir.path });
  // The commit of each listing: taken by the first subscriber of the store's changes, before the market's events.
  const committedAt = new Map<string, number>();
  store.changes.subscribe(store.changes.last, (e) => {
    if (e.type !== 'change' || e.change.kind !== 'auctions') return;
    const now = performance.now();
    for (const l of e.change.upserted) if (!committedAt.has(l.uuid)) committedAt.set(l.uuid, now);
  });
  const t = await createTestApp({ store, env: { FLIPS_POLL_MS: '0' } });
  const generations = options.quick ? 60 : 180;
  try {
    const sim = await fillFromSimulator(t.store, { seed: 43, auctions: options.quick ? 1_500 : 3_000, historyHours: options.quick ? 12 : 24, detailedMinutes: 10, generations: 1 });
    t.clock.set(sim.clock.now());
    const hub = t.context.streamHub!;
    const { underpriced } = t.app.services;
    const flagged = new Map<string, Flagged>();
    const fresh = new Map<string, { uuid: string; tag: string; price: number; at: number }>();
    const sales: Array<{ uuid: string; tag: string; price: number; at: number }> = [];
    const latency: number[] = [];
    /** commit → its valuation pass started (the queue: earlier batches, the other followers of the change) */
    const waited: number[] = [];
    /** the valuation pass of the flagged listing's batch */
    const valuing: number[] = [];
    const fair = new Map<string, number>();
    const startedAt = t.clock.now();
    hub.batches.on('batch', (batch) => {
      const now = performance.now();
      for (const re of batch.events) {
        const e = re.event();
        if (e.topic === 'auction.underpriced') {
          const c = committedAt.get(e.uuid);
          const pass = passes.get(e.uuid);
          if (c !== undefined) latency.push(now - c);
          if (c !== undefined && pass) {
            waited.push(pass.start - c);
            valuing.push(pass.end - pass.start);
          }
          flagged.set(e.uuid, { uuid: e.uuid, tag: e.tag, price: e.price, valueAfterFees: e.valueAfterFees, at: e.time });
        } else if (e.topic === 'auction.new' && e.bin && e.time >= startedAt) fresh.set(e.uuid, { uuid: e.uuid, tag: e.tag, price: e.price, at: e.time });
        else if (e.topic === 'auction.sold' && e.tag !== null && e.bin) sales.push({ uuid: e.uuid, tag: e.tag, price: e.price, at: e.soldAt });
      }
    });
    // Where the latency goes: each valuation pass's start and end (the service's own `valueListings`, timed in place).
    const { valuation } = t.app.services;
    const valueListings = valuation.valueListings.bind(valuation);
    const passes = new Map<string, { start: number; end: number }>();
    valuation.valueListings = async (uuids) => {
      const start = performance.now();
      const out = await valueListings(uuids);
      const end = performance.now();
      for (const u of uuids) passes.set(u, { start, end });
      return out;
    };
    const cpu0 = process.cpuUsage();
    for (let g = 0; g < generations; g++) {
      sim.clock.advance(60_000);
      t.clock.set(sim.clock.now());
      sim.sim.market.advanceTo(sim.clock.now());
      // Every active copy's fair value, before it can sell (a sale is judged by the copy it was).
      for (const [uuid, value] of sim.sim.market.fairValues()) fair.set(uuid, value);
      await sim.auctions.pollOnce();
      await sim.ended.pollOnce();
      if (g % 5 === 0) await sim.bazaar.pollOnce();
      await underpriced.idle();
    }
    const cpu = process.cpuUsage(cpu0);
    await sim.close();

    // Later sales by (tag, fair value): the comparable copies of a listing.
    const byVariant = new Map<string, Array<{ uuid: string; price: number; at: number }>>();
    for (const s of sales) {
      const v = fair.get(s.uuid);
      if (v === undefined) continue;
      const key = `${s.tag}|${v}`;
      let list = byVariant.get(key);
      if (!list) byVariant.set(key, (list = []));
      list.push(s);
    }
    const judge = (l: { uuid: string; tag: string; price: number; at: number }): Outcome | undefined => {
      const v = fair.get(l.uuid);
      if (v === undefined) return undefined;
      const later = (byVariant.get(`${l.tag}|${v}`) ?? []).filter((s) => s.uuid !== l.uuid && s.at > l.at);
      return {
        belowFair: l.price < v * (1 - auctionFeeRate(v)),
        resoldAbove: later.length === 0 ? undefined : later.some((s) => s.price * (1 - auctionFeeRate(s.price)) > l.price),
      };
    };
    // The baseline: per flagged listing, one unflagged new BIN of the same tag, drawn with a fixed seed.
    const unflaggedByTag = new Map<string, Array<{ uuid: string; tag: string; price: number; at: number }>>();
    for (const l of fresh.values()) {
      if (flagged.has(l.uuid)) continue;
      let list = unflaggedByTag.get(l.tag);
      if (!list) unflaggedByTag.set(l.tag, (list = []));
      list.push(l);
    }
    let seed = 43;
    const draw = (n: number) => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed % n;
    };
    const flaggedOutcomes: Outcome[] = [];
    const baseOutcomes: Outcome[] = [];
    for (const f of flagged.values()) {
      const o = judge(f);
      if (o) flaggedOutcomes.push(o);
      const pool = unflaggedByTag.get(f.tag);
      if (pool && pool.length > 0) {
        const b = judge(pool[draw(pool.length)]!);
        if (b) baseOutcomes.push(b);
      }
    }
    const share = (xs: Outcome[], pick: (o: Outcome) => boolean | undefined) => {
      const known = xs.map(pick).filter((x) => x !== undefined);
      return { share: known.length === 0 ? 0 : known.filter(Boolean).length / known.length, n: known.length };
    };
    const fl = { fair: share(flaggedOutcomes, (o) => o.belowFair), resold: share(flaggedOutcomes, (o) => o.resoldAbove) };
    const bl = { fair: share(baseOutcomes, (o) => o.belowFair), resold: share(baseOutcomes, (o) => o.resoldAbove) };
    // Recall: of the new BINs the rule should keep by the simulator's truth (priced at least the rule's share
    // below the fair value after fees), the share flagged.
    const { minShare } = underpriced.rule;
    let truly = 0;
    let caught = 0;
    for (const l of fresh.values()) {
      const v = fair.get(l.uuid);
      if (v === undefined || !(l.price <= v * (1 - auctionFeeRate(v)) * (1 - minShare))) continue;
      truly++;
      if (flagged.has(l.uuid)) caught++;
    }
    // Whether later sales can tell anything the fair value does not: the sale / fair value ratio of successive
    // sales of one variant (i.i.d. draws around a fixed value correlate ~0; a moving market would not).
    const pairs: Array<[number, number]> = [];
    const ratios: number[] = [];
    for (const [key, list] of byVariant) {
      const v = Number(key.slice(key.lastIndexOf('|') + 1));
      list.sort((a, b) => a.at - b.at);
      for (let i = 0; i < list.length; i++) {
        ratios.push(list[i]!.price / v);
        if (i > 0) pairs.push([list[i - 1]!.price / v, list[i]!.price / v]);
      }
    }
    const corr = (() => {
      const n = pairs.length;
      if (n < 3) return Number.NaN;
      const mx = pairs.reduce((a, p) => a + p[0], 0) / n;
      const my = pairs.reduce((a, p) => a + p[1], 0) / n;
      let sxy = 0;
      let sxx = 0;
      let syy = 0;
      for (const [x, y] of pairs) {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) ** 2;
        syy += (y - my) ** 2;
      }
      return sxy / Math.sqrt(sxx * syy);
    })();
    ratios.sort((a, b) => a - b);
    const ratioAt = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))] ?? Number.NaN;
    const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? Number.NaN;
    latency.sort((a, b) => a - b);
    const pct = (q: number) => quantile(latency, q);
    const span = `${generations} generations (${generations} simulated minutes) of ${options.quick ? '1,500' : '3,000'} simulated auctions, ${fresh.size} new BINs, ${flagged.size} flagged, ${sales.length} BIN sales; CPU ${((cpu.user + cpu.system) / 1000 / generations).toFixed(0)} ms per generation`;
    const pctText = (x: number) => `${(x * 100).toFixed(1)} %`;
    return [
      {
        name: 'underpriced: flagged listings later resold above price + fees (comparable copy)',
        figure: fl.resold.share * 100,
        unit: '%',
        ratio: bl.resold.share === 0 ? undefined : fl.resold.share / bl.resold.share,
        baseline: 'random unflagged new BINs of the same tags',
        notes: `${fl.resold.n} flagged with a later comparable sale; baseline ${pctText(bl.resold.share)} of ${bl.resold.n}; sale / fair value of the sales: p10 ${ratioAt(0.1).toFixed(2)}, median ${ratioAt(0.5).toFixed(2)}, p90 ${ratioAt(0.9).toFixed(2)}, successive sales of a variant correlate ${corr.toFixed(2)} (${pairs.length} pairs); ${span}`,
      },
      {
        name: "underpriced: flagged listings below the simulator's fair value after fees (precision)",
        figure: fl.fair.share * 100,
        unit: '%',
        ratio: bl.fair.share === 0 ? undefined : fl.fair.share / bl.fair.share,
        baseline: 'random unflagged new BINs of the same tags',
        notes: `${fl.fair.n} flagged; baseline ${pctText(bl.fair.share)} of ${bl.fair.n}; recall: ${caught} of ${truly} new BINs at least ${(minShare * 100).toFixed(0)} % below the fair value after fees flagged (${pctText(truly === 0 ? 0 : caught / truly)}); ${span}`,
      },
      {
        name: 'underpriced: listing committed to auction.underpriced on the live feed, p99',
        figure: pct(0.99),
        unit: 'ms',
        notes: `p50 ${pct(0.5).toFixed(0)} ms, max ${(latency.at(-1) ?? Number.NaN).toFixed(0)} ms over ${latency.length} events; of which commit → its valuation pass started p50 ${quantile(waited, 0.5).toFixed(0)} / p99 ${quantile(waited, 0.99).toFixed(0)} ms, the pass p50 ${quantile(valuing, 0.5).toFixed(0)} / p99 ${quantile(valuing, 0.99).toFixed(0)} ms; target p99 ≤ 1 s; ${span}`,
      },
    ];
  } finally {
    await t.close();
    await store.close();
    dir.remove();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  const rows = process.argv.includes('--precision-only') ? await precision({ quick }) : await run({ quick });
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : `  ${r.ratio.toFixed(2)}x vs ${r.baseline}`;
    console.log(`${r.name.padEnd(60)} ${formatNumber(r.figure).padStart(9)} ${r.unit}${ratio}${r.notes ? `  (${r.notes})` : ''}`);
  }
}
