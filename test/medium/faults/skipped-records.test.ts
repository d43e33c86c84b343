/**
 * The skipped-record counters under the simulator's faults: with 5xx, slow responses past
 * the client timeout, truncated JSON, pages of mixed generations and 404s during swaps all
 * on, every applied auctions generation skips exactly the auctions whose NBT the simulator
 * corrupted (and stores all the others), auctions_ended skips exactly its corrupt sales,
 * and skymarket_ingest_records_total{outcome="undecodable"} adds up to the same numbers.
 * Request-level faults are retried, so they never show up as skipped records.
 * (test/medium/ingest/simulator.test.ts covers the same faults on both backends more loosely.)
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Registry } from 'prom-client';
import { ManualClock } from '../../../src/clock.ts';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import type { IngestContext } from '../../../src/ingest/context.ts';
import { EndedIngester } from '../../../src/ingest/ended.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { openTestStore } from '../../helpers/databases.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);

let sim: SimulatorHandle;
let ctx: IngestContext;
let registry: Registry;
let closeStore: () => Promise<void>;
const clock = new ManualClock(START);

before(async () => {
  sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, auctions: 1200, seed: 31, backfillMs: 0, port: 0 }, { clock, tickMs: 0 });
  const opened = await openTestStore('sqlite');
  closeStore = opened.close;
  registry = new Registry();
  // Retries well beyond the fault rates, and a timeout below the simulator's slow delay but far
  // above a normal answer's time on a busy machine (400 ms timed out healthy answers at load ~12).
  ctx = testIngestContext({ store: opened.store, clock, baseUrl: sim.url, source: 'simulator', retries: 12, timeoutMs: 1500, registry });
});
after(async () => {
  await ctx.client.close();
  await sim.close();
  await closeStore();
});

async function counter(feed: string, outcome: string): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'skymarket_ingest_records_total');
  return Number(metric?.values.find((v) => v.labels.feed === feed && v.labels.outcome === outcome)?.value ?? 0);
}

it('counts exactly the corrupt records as skipped while request faults are retried', async () => {
  sim.faults.set({ corruptNbt: 0.05, error: 0.15, truncate: 0.15, slow: 0.05, slowMs: 3000, mixed: 0.2, swap404: 0.5, swapWindowMs: 3000 });
  const auctions = new AuctionIngester(ctx);
  const ended = new EndedIngester(ctx, (uuid) => auctions.forget(uuid));
  let expectedAuctions = 0;
  let expectedSales = 0;
  let applied = 0;
  for (let minute = 0; minute < 3; minute++) {
    if (minute > 0) {
      clock.advance(60_000);
      sim.market.advanceTo(clock.now());
    }
    const generation = sim.market.generation();
    const corrupt = generation.auctions.filter((a) => sim.faults.isCorrupt(a.uuid)).length;
    assert.ok(corrupt > 0, 'the simulator corrupts some auctions');
    // A page 0 from the previous generation (mixed) reads as 'unchanged': poll again, as the poller would.
    let result = await auctions.pollOnce();
    for (let retry = 0; retry < 10 && result === 'unchanged'; retry++) result = await auctions.pollOnce();
    assert.ok(result !== 'unchanged', `generation ${minute} applied`);
    applied++;
    assert.deepEqual(result.skipped, { undecodable: corrupt }, `generation ${minute}: exactly the corrupt auctions skipped`);
    assert.equal(result.auctions, generation.auctions.length);
    expectedAuctions += corrupt;
    const stored = await ctx.store.auctions.countByState();
    assert.equal(stored.active, generation.auctions.length - corrupt, 'every other auction is active');

    if (minute > 0) {
      const corruptSales = generation.ended.filter((s) => sim.faults.isCorrupt(s.auction_id)).length;
      const sales = await ended.pollOnce();
      assert.ok(sales !== 'unchanged');
      assert.equal(sales.skipped.undecodable ?? 0, corruptSales, `minute ${minute}: exactly the corrupt sales skipped`);
      expectedSales += corruptSales;
    }
  }
  assert.equal(applied, 3);
  assert.equal(await counter('auctions', 'undecodable'), expectedAuctions, 'the auctions counter adds up');
  assert.equal(await counter('auctions_ended', 'undecodable'), expectedSales, 'the auctions_ended counter adds up');
  assert.equal(await counter('auctions', 'invalid'), 0, 'request faults never count as skipped records');
});
