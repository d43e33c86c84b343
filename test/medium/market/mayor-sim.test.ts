/**
 * Mayor flips on simulator data, both backends: the replayed history carries one election per
 * past mayor term, the simulator's prices respond to the mayor in office, and every mayor flip
 * the engine lists is recomputed here from the stored rows (per-term medians of the hourly
 * price buckets) and, where the simulated mayor effect predicts a move, points the same way.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BAZAAR_BY_ID } from '../../../src/gamedata/builtin/catalog.ts';
import { FlipEngine } from '../../../src/market/flips.ts';
import { electionLeader } from '../../../src/domain/elections.ts';
import { MAYOR_PRICE_EFFECTS } from '../../../src/simulator/market.ts';
import { termEnd } from '../../../src/domain/skyblock-calendar.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { ManualClock } from '../../../src/clock.ts';
import { SIM_START, fillFromSimulator } from '../../helpers/sim-market.ts';

const HOUR = 3_600_000;
const YEAR = 2 * HOUR;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

describeEachBackend('mayor flips on simulator data', (fixture) => {
  it('history replay stores past terms; the feed is non-empty and every flip follows from the stored data', async () => {
    const { store } = fixture();
    // 75 minutes into a 2 h year (47 into the term, the booth opens at 30): the next mayor is the open election's leader.
    const sim = await fillFromSimulator(store, { clock: new ManualClock(SIM_START + 75 * 60_000), historyHours: 24, yearHours: 2, products: 120, auctions: 300, detailedMinutes: 5, generations: 2, backfill: { auctionsEnded: false, coarseStepSeconds: 600 } });
    try {
      const now = sim.clock.now();
      const elections = await store.flipInputs.elections();
      // ~12 terms in a day of 2 h years: each replayed one last seen a minute before its term ended (its lastUpdated floored to the minute).
      assert.ok(elections.length >= 11, `${elections.length} elections stored`);
      for (const e of elections.slice(0, -1)) {
        const toBoundary = termEnd(e.year, YEAR) - e.lastSeen;
        assert.ok(toBoundary > 0 && toBoundary <= 120_000, `year ${e.year} last seen ${toBoundary} ms before its end`);
      }

      const engine = new FlipEngine(store, sim.clock, undefined, { pollMs: 0, yearMs: YEAR });
      await engine.refresh();
      // Bazaar products (the mayor-sensitive input); auction items join from sales, none replayed here.
      const all = engine.auctions?.mayor ?? [];
      const buckets = await store.flipInputs.priceBuckets(now - 14 * 24 * HOUR, HOUR);
      const flips = all.filter((f) => buckets.some((b) => b.productId === f.itemTag));
      assert.ok(flips.length > 0, `bazaar mayor flips on simulator data (${all.length} in all)`);

      // Recompute from the stored rows: terms end where their mayor was last seen; the newest runs to now.
      const terms = elections.map((e, i) => ({ mayor: e.mayorName, start: i === 0 ? e.lastSeen - YEAR : elections[i - 1]!.lastSeen, end: i === elections.length - 1 ? now + 1 : e.lastSeen }));
      const latest = elections[elections.length - 1]!;
      const next = electionLeader(latest.payload) ?? latest.mayorName;
      const keyOf = new Map<string, string>();
      for (const e of elections) {
        const mayor = e.payload['mayor'] as { key: string; name: string };
        keyOf.set(mayor.name, mayor.key);
        for (const c of ((e.payload['current'] as { candidates?: Array<{ key: string; name: string }> } | undefined)?.candidates ?? [])) keyOf.set(c.name, c.key);
      }
      let predicted = 0;
      for (const f of flips) {
        assert.equal(f.currentMayor, latest.mayorName);
        assert.equal(f.nextMayor, next);
        const samples = buckets.filter((b) => b.productId === f.itemTag);
        const termMedian = (i: number) => {
          const ps = samples.filter((s) => s.bucket >= terms[i]!.start && s.bucket < terms[i]!.end).map((s) => s.price);
          return ps.length ? median(ps) : null;
        };
        const current = termMedian(terms.length - 1)!;
        const past = terms.slice(0, -1).map((t, i) => (t.mayor === next ? termMedian(i) : null)).filter((m): m is number => m !== null);
        assert.ok(past.length > 0, `${f.itemTag}: ${next} held an earlier term with prices`);
        const expected = median(past);
        assert.ok(Math.abs(f.medianPrice - current) <= 0.051 + current * 1e-9, `${f.itemTag} median ${f.medianPrice} vs ${current}`);
        assert.ok(Math.abs(f.expectedPrice - expected) <= 0.051 + expected * 1e-9, `${f.itemTag} expected ${f.expectedPrice} vs ${expected}`);
        assert.ok(Math.abs(expected - current) / current >= 0.05, `${f.itemTag} listed with a change of at least 5 %`);
        // Where the simulated perks move this product's price between the two mayors, the flip points that way.
        const group = BAZAAR_BY_ID.get(f.itemTag)?.group;
        const effect = (name: string) => (group ? (MAYOR_PRICE_EFFECTS[keyOf.get(name) ?? '']?.[group] ?? 0) : 0);
        const move = (1 + effect(next)) / (1 + effect(latest.mayorName)) - 1;
        if (Math.abs(move) >= 0.1) {
          predicted++;
          assert.equal(Math.sign(f.expectedPrice - f.medianPrice), Math.sign(move), `${f.itemTag} (${group}): ${latest.mayorName} → ${next}`);
        }
      }
      assert.notEqual(next, latest.mayorName, 'an open election with a new leader');
      assert.ok(predicted > 0, 'the mayor change moves some simulated prices');
    } finally {
      await sim.close();
    }
  });
});
