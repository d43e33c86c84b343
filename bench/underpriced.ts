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
 * Standalone: `node --import tsx bench/underpriced.ts [--quick]`
 */
import { pathToFileURL } from 'node:url';
import type { DraftEvent } from '../src/domain/stream-events.ts';
import { UnderpricedService } from '../src/services/underpriced.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { fillFromSimulator } from '../test/helpers/sim-market.ts';
import type { BenchOptions, BenchRow } from './lib.ts';
import { formatNumber } from './lib.ts';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await run({ quick: process.argv.includes('--quick') });
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : `  ${r.ratio.toFixed(2)}x vs ${r.baseline}`;
    console.log(`${r.name.padEnd(60)} ${formatNumber(r.figure).padStart(9)} ${r.unit}${ratio}${r.notes ? `  (${r.notes})` : ''}`);
  }
}
