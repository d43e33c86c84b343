import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Market } from '../../../src/simulator/market.ts';
import { T0 } from '../../helpers/simulator-items.ts';

// The simulator's backfilled history (market.test.ts covers the live market); a file of its own so each stays quick.
const opts = { seed: 7, auctions: 600, generationSeconds: 60, bazaarSeconds: 20 };

test('backfill: time-ordered batches, upstream shapes, bounded batch size', () => {
  const m = new Market(opts, T0);
  const from = T0 - 6 * 3_600_000;
  let lastBz = -Infinity;
  let lastEnded = -Infinity;
  let lastBatchEnd = from;
  let snaps = 0;
  let windows = 0;
  let maxBatch = 0;
  for (const b of m.backfill(from, T0, { detailedMs: 20 * 60_000 })) {
    assert.equal(b.fromMs, lastBatchEnd);
    lastBatchEnd = b.toMs;
    maxBatch = Math.max(maxBatch, b.bazaar.length + b.auctionsEnded.length);
    for (const s of b.bazaar) {
      assert.ok(s.lastUpdated > lastBz && s.lastUpdated >= b.fromMs && s.lastUpdated < b.toMs);
      lastBz = s.lastUpdated;
      const detailed = s.lastUpdated >= T0 - 20 * 60_000;
      const wheat = s.products.ENCHANTED_WHEAT!;
      assert.ok(wheat.sell_summary.length <= (detailed ? 30 : 5));
      snaps++;
    }
    for (const e of b.auctionsEnded) {
      assert.ok(e.lastUpdated > lastEnded && e.lastUpdated <= b.toMs);
      lastEnded = e.lastUpdated;
      for (const s of e.auctions) {
        assert.ok(s.timestamp > e.lastUpdated - 60_000 && s.timestamp <= e.lastUpdated);
        assert.match(s.auction_id, /^[0-9a-f]{32}$/);
        assert.equal(typeof s.item_bytes, 'string');
      }
      windows++;
    }
  }
  assert.equal(lastBatchEnd, T0);
  assert.equal(snaps, 68 + 60, '5-minute snapshots for 5 h 40 min, then 20-second ones for 20 min');
  assert.equal(windows, 360);
  assert.ok(maxBatch <= 10, `batches stay small (${maxBatch})`);
  // Detailed and coarse snapshots of one instant agree on quick_status.
  const deep = m.bazaarAt(T0 - 7_200_000, 30).products.ENCHANTED_WHEAT!.quick_status;
  const shallow = m.bazaarAt(T0 - 7_200_000, 1).products.ENCHANTED_WHEAT!.quick_status;
  assert.deepEqual(shallow, deep);
});

test('backfill: every sale carries the start of its listing, by the live market model', () => {
  const m = new Market(opts, T0);
  const bidAuctions: number[] = [];
  const binMinutes: number[] = [];
  for (const b of m.backfill(T0 - 3_600_000, T0, { bazaar: false, elections: false })) {
    for (const e of b.auctionsEnded) {
      for (const s of e.auctions) {
        assert.equal(typeof s.start, 'number');
        const listed = s.timestamp - s.start!;
        assert.ok(listed >= 1_000 && listed <= 14 * 86_400_000, `listed ${listed} ms`);
        (s.bin ? binMinutes : bidAuctions).push(listed / 60_000);
      }
    }
  }
  // Auctions with bids sell when their listing ends (one of the listing durations); BINs whenever a buyer comes.
  for (const minutes of bidAuctions) assert.ok([60, 360, 720, 1440, 2880, 20160].includes(minutes), `${minutes} minutes`);
  assert.ok(new Set(binMinutes.map(Math.round)).size > 20, 'BIN sell times vary');
});

test('backfill of 2 days is generated lazily: no work ahead of the batches consumed', () => {
  // Counted rather than sampled from the heap: whatever the range, the generator has built only the
  // snapshots and sale windows of the batches handed out so far, and each batch is small (the test above
  // bounds it), so memory follows what the consumer keeps, not the length of the history.
  const m = new Market(opts, T0);
  const built = { bazaar: 0, ended: 0 };
  const internals = m as unknown as { bazaarAt: Market['bazaarAt']; endedWindow: (...args: unknown[]) => unknown };
  const bazaarAt = internals.bazaarAt.bind(m);
  const endedWindow = internals.endedWindow.bind(m);
  internals.bazaarAt = (...args) => (built.bazaar++, bazaarAt(...args));
  internals.endedWindow = (...args) => (built.ended++, endedWindow(...args));
  const gen = m.backfill(T0 - 2 * 86_400_000, T0, { detailedMs: 2 * 3_600_000 });
  assert.deepEqual(built, { bazaar: 0, ended: 0 }, 'nothing is built before the first batch is asked for');
  const handed = { bazaar: 0, ended: 0 };
  for (let i = 0; i < 30; i++) {
    const b = gen.next().value!;
    handed.bazaar += b.bazaar.length;
    handed.ended += b.auctionsEnded.length;
    assert.deepEqual(built, handed, `after batch ${i + 1}: built exactly what was handed out`);
  }
  assert.ok(handed.bazaar > 0 && handed.ended > 0);
  gen.return(undefined);
  assert.equal(built.bazaar, handed.bazaar, 'stopping early builds nothing more');
});

test('backfill volume: SIM_SALES_PER_DAY sets the sold auctions per day (realistic ~500,000), else 2 % of the book per minute', () => {
  // A quarter of an hour: the rate is what is checked, and generating a realistic hour's ~21,000 sales costs seconds.
  const minutes = 15;
  const count = (m: Market) => {
    let n = 0;
    for (const b of m.backfill(T0 - minutes * 60_000, T0, { bazaar: false, elections: false })) for (const e of b.auctionsEnded) n += e.auctions.length;
    return n;
  };
  const realistic = count(new Market({ ...opts, salesPerDay: 500_000 }, T0));
  // A quarter of an hour of a 500,000-a-day market, within the ±30 % slow noise of the simulated day.
  const expected = (500_000 / 1440) * minutes;
  assert.ok(realistic > expected * 0.65 && realistic < expected * 1.35, `${realistic} sales in ${minutes} minutes`);
  const byBook = count(new Market(opts, T0));
  assert.ok(byBook > opts.auctions * 0.02 * minutes * 0.65 && byBook < opts.auctions * 0.02 * minutes * 1.35, `${byBook} sales in ${minutes} minutes`);
});
