/**
 * The price analysis over many sales, on both backends: read in keyset chunks, it gives exactly
 * what one computation over the same newest sales gives (chunk boundaries falling inside runs of
 * equal sale times, the 50,000-sale cap falling inside one), and it never holds the event loop
 * for long while it reads 50,000 sales.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ANALYSIS_MAX_SALES } from '../../../src/services/price-analysis.ts';
import { analyzeSales, type AnalysisSale } from '../../../src/domain/analysis.ts';
import { SOLD_LEAN_CHUNK, SOLD_RECORD_CHUNK } from '../../../src/store/repositories/auction-queries.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { sale, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const DAY = 86_400_000;
const TAG = 'ANALYSIS_ITEM';
/** sales of TAG in the last 90 days: more than the analysis reads */
const SALES = 52_000;

/** Distinct uuids whose order differs from the insertion order. */
const uuidOf = (i: number) => ((i * 2_654_435_761) >>> 0).toString(16).padStart(8, '0') + i.toString(16).padStart(24, '0');

/**
 * The sales: in runs sharing one sale time, spread evenly over 89 days; every 400th run, and the
 * one across the 50,000th sale, has 1,200 sales (longer than a chunk), the others 1 to 3.
 */
function salesOf(now: number): AuctionsTable[] {
  const runs: number[] = [];
  let capRun = false;
  for (let n = 0; n < SALES; ) {
    let run = runs.length % 400 === 0 ? 1_200 : 1 + (runs.length % 3);
    if (!capRun && n + run > ANALYSIS_MAX_SALES - 300) {
      run = 1_200;
      capRun = true;
    }
    run = Math.min(run, SALES - n);
    runs.push(run);
    n += run;
  }
  const step = Math.floor((89 * DAY) / runs.length);
  const rows: AuctionsTable[] = [];
  runs.forEach((run, g) => {
    const ago = 60_000 + g * step;
    for (let k = 0; k < run; k++) {
      const i = rows.length;
      const price = 900_000 + ((i * 7919) % 400_000) * (1 + (i % 5));
      rows.push(
        sale(now, ago, {
          uuid: uuidOf(i),
          tag: TAG,
          sold_price: price,
          highest_bid: price,
          count: 1 + (i % 4 === 0 ? 2 : 0),
          bin: i % 5 !== 0,
          seller: (i % 3_001).toString(16).padStart(32, '0'),
          start_at: i % 13 === 0 ? null : now - ago - ((i * 31) % 7_200) * 1000,
          enchantments: { sharpness: 5 + (i % 3) },
        }),
      );
    }
  });
  return rows;
}

function asSale(r: AuctionsTable): AnalysisSale {
  return { price: Number(r.sold_price), count: r.count, start: r.start_at === null ? null : Number(r.start_at), end: Number(r.sold_at), bin: Boolean(r.bin), seller: r.seller };
}

/**
 * Runs `work` and counts, per turn of the event loop (a chain of setImmediate callbacks, one per
 * turn), the sold-sales chunk queries it ran: counted rather than timed, so a loaded machine does
 * not change the answer. Also reports the longest CPU stretch between two turns, for whoever looks.
 */
async function chunksPerTurn<T>(t: TestApp, work: () => Promise<T>): Promise<{ result: T; chunks: number; mostInOneTurn: number; turns: number; cpuMs: number }> {
  let turn = 0;
  let running = true;
  let cpuMs = 0;
  let lastCpu = process.cpuUsage();
  const spin = () => {
    const cpu = process.cpuUsage(lastCpu);
    cpuMs = Math.max(cpuMs, (cpu.user + cpu.system) / 1000);
    lastCpu = process.cpuUsage();
    turn++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  const queries = t.store.auctionQueries;
  const perTurn = new Map<number, number>();
  const soldLean = queries.soldLean;
  queries.soldLean = function (this: typeof queries, ...args: Parameters<typeof soldLean>) {
    perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    return soldLean.apply(this, args);
  };
  try {
    const result = await work();
    const counts = [...perTurn.values()];
    return { result, chunks: counts.reduce((a, b) => a + b, 0), mostInOneTurn: Math.max(0, ...counts), turns: turn, cpuMs };
  } finally {
    queries.soldLean = soldLean;
    running = false;
  }
}

describeEachBackend('price analysis over many sales', (fixture) => {
  let t: TestApp;
  let now: number;
  let premium: string;
  let rows: AuctionsTable[];
  /** TAG's sales, newest first then by uuid: the order the analysis reads them in */
  let ordered: AuctionsTable[];

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    now = t.clock.now();
    premium = (await t.store.accounts.create({ tier: 'premium', now })).token;
    rows = salesOf(now);
    // Other items' sales around the same times, and TAG's sales outside the window.
    const noise = Array.from({ length: 2_000 }, (_, i) => sale(now, (i + 1) * 3_600_000, { uuid: uuidOf(SALES + i), tag: i % 2 ? 'OTHER_ITEM' : TAG, ...(i % 2 ? {} : { sold_at: now - 120 * DAY - i }) }));
    for (let i = 0; i < rows.length; i += 10_000) await storeSales(t.store, now, rows.slice(i, i + 10_000));
    await storeSales(t.store, now, noise);
    // What ingestion does after a bulk load (PostgreSQL): without statistics each chunk's query walks every sale of the tag.
    await t.store.statistics.refresh({ outdated: true });
    ordered = [...rows].sort((a, b) => Number(b.sold_at) - Number(a.sold_at) || (a.uuid < b.uuid ? -1 : 1));
  });
  after(() => t.close());

  const analysis = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/item/price/${TAG}/analysis?${query}`, headers: { authorization: `Bearer ${premium}` } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as ReturnType<typeof analyzeSales>;
  };
  const newest = (days: number) => ordered.filter((r) => Number(r.sold_at) >= now - days * DAY).slice(0, ANALYSIS_MAX_SALES);

  it('the data crosses chunk and cap boundaries inside runs of equal sale times', () => {
    const within90 = ordered.filter((r) => Number(r.sold_at) >= now - 90 * DAY);
    assert.ok(within90.length > ANALYSIS_MAX_SALES, 'more sales than the analysis reads');
    const capped = within90[ANALYSIS_MAX_SALES - 1]!;
    assert.equal(Number(within90[ANALYSIS_MAX_SALES]!.sold_at), Number(capped.sold_at), 'the cap falls inside a run of equal sale times');
    for (const chunk of [SOLD_LEAN_CHUNK, SOLD_RECORD_CHUNK]) {
      const inside = within90.slice(0, ANALYSIS_MAX_SALES).some((r, i) => i % chunk === chunk - 1 && within90[i + 1] && Number(within90[i + 1]!.sold_at) === Number(r.sold_at));
      assert.ok(inside, `some ${chunk}-row chunk boundary falls inside a run`);
    }
  });

  for (const days of [7, 30, 90]) {
    it(`over ${days} days equals one computation over the same newest sales`, async () => {
      const expected = analyzeSales(newest(days).map(asSale), days);
      assert.ok(expected.totalSales > (days === 7 ? 3_000 : 15_000), `${expected.totalSales} sales`);
      assert.deepStrictEqual(await analysis(`days=${days}`), expected);
    });
  }

  it('with filters (full records, smaller chunks): the matching sales among the newest 50,000', async () => {
    const expected = analyzeSales(newest(90).filter((r) => r.bin).map(asSale), 90);
    assert.ok(expected.totalSales > 30_000);
    assert.deepStrictEqual(await analysis('days=90&Bin=true'), expected);
    const sharp = analyzeSales(
      newest(30)
        .filter((r) => (r.enchantments as Record<string, number>).sharpness === 7)
        .map(asSale),
      30,
    );
    assert.deepStrictEqual(await analysis('days=30&sharpness=7'), sharp);
  });

  it('50,000 sales are analysed without holding the event loop: other callbacks run between chunks', async (ctx) => {
    // The fixture's arrays are not needed any more.
    rows = [];
    ordered = [];
    const run = await chunksPerTurn(t, () => analysis('days=90'));
    assert.equal(run.result.totalSales, ANALYSIS_MAX_SALES);
    ctx.diagnostic(`${run.chunks} chunk queries over ${run.turns} turns of the event loop; longest CPU stretch between two turns ${run.cpuMs.toFixed(1)} ms`);
    // Before keyset chunks and yielding, the whole read and analysis was one synchronous stretch
    // (687 ms of CPU for 50,000 sales on SQLite). Now the sales are read a chunk at a time, and
    // other callbacks run between two chunks: no turn of the loop runs more than one chunk's query.
    assert.equal(run.chunks, Math.ceil(ANALYSIS_MAX_SALES / SOLD_LEAN_CHUNK));
    assert.equal(run.mostInOneTurn, 1, 'one chunk query per turn of the event loop');
  });
});
