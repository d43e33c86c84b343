import assert from 'node:assert/strict';
import { beforeEach, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { decodeBook, encodeBook, type OrderBook } from '../../../src/domain/bazaar-book.ts';
import { aggregate, DAY, HOUR, MINUTE, RESOLUTION_MS, type HistoryPoint, type RollupResolution } from '../../../src/domain/bazaar-history.ts';
import { BazaarHistoryJobs } from '../../../src/jobs/bazaar-history.ts';
import { Jobs } from '../../../src/jobs/index.ts';
import { createLogger } from '../../../src/logger.ts';
import type { BazaarSnapshotsTable } from '../../../src/store/schema.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { insert, point, reset, rows } from '../../helpers/bazaar.ts';

const T0 = Date.UTC(2026, 10, 10);
const logger = createLogger('silent');

/** Expected rollups of `data` for buckets in [from, to). */
function expected(data: BazaarSnapshotsTable[], res: RollupResolution, from: number, to: number): HistoryPoint[] {
  return aggregate(data.map(point), RESOLUTION_MS[res]).filter((p) => p.ts >= from && p.ts < to);
}

describeEachBackend('bazaar history jobs', (fixture) => {
  let productSeq = 0;
  const product = () => `TEST_PRODUCT_${++productSeq}`;
  beforeEach(() => reset(fixture().store));

  it('rolls 20-second snapshots up into 5-minute, 2-hour and daily buckets (first/min/max), complete buckets only', async () => {
    const { store } = fixture();
    const a = product();
    const b = product();
    const dataA = rows(a, T0 - 2 * HOUR, T0 + 24 * HOUR + 7 * MINUTE, 20_000, 3);
    const dataB = rows(b, T0 + HOUR, T0 + 3 * HOUR, 20_000, 4).filter((_, i) => i % 7 !== 0); // gaps
    await insert(store, [...dataA, ...dataB]);
    const clock = new ManualClock(T0 + 24 * HOUR + 6 * MINUTE);
    const jobs = new BazaarHistoryJobs({ store, clock, logger });
    const report = await jobs.runOnce();
    assert.equal(report.doneUntil['5m'], T0 + 24 * HOUR + 5 * MINUTE);
    assert.equal(report.doneUntil['2h'], T0 + 24 * HOUR);
    assert.equal(report.doneUntil['1d'], T0 + 24 * HOUR);
    assert.equal(report.deleted, 0);

    const repo = store.bazaarHistory;
    for (const [id, data] of [[a, dataA], [b, dataB]] as const) {
      for (const res of ['5m', '2h', '1d'] as const) {
        const to = report.doneUntil[res]!;
        const got = await repo.rollups(res, id, 0, Number.MAX_SAFE_INTEGER);
        assert.deepEqual(got, expected(data, res, 0, to), `${id} ${res}`);
      }
    }
    const days = await repo.rollups('1d', a, 0, Number.MAX_SAFE_INTEGER);
    assert.deepEqual(days.map((d) => [d.ts, d.samples]), [[T0 - DAY, 360], [T0, 4320]]);
    // The open 5-minute bucket is not rolled up yet.
    assert.equal((await repo.rollups('5m', a, T0 + 24 * HOUR + 5 * MINUTE, Number.MAX_SAFE_INTEGER)).length, 0);
  });

  it('is idempotent and catches up after downtime', async () => {
    const { store } = fixture();
    const p = product();
    const first = rows(p, T0, T0 + 3 * HOUR, 20_000, 5);
    await insert(store, first);
    const clock = new ManualClock(T0 + 3 * HOUR);
    const jobs = new BazaarHistoryJobs({ store, clock, logger });
    await jobs.runOnce();
    const before = await store.bazaarHistory.rollups('5m', p, 0, Number.MAX_SAFE_INTEGER);
    const again = await jobs.runOnce();
    assert.deepEqual(await store.bazaarHistory.rollups('5m', p, 0, Number.MAX_SAFE_INTEGER), before, 'a second run changes nothing');
    assert.equal(again.doneUntil['5m'], T0 + 3 * HOUR - 5 * MINUTE);

    // Jobs down for 30 hours while ingestion went on.
    const later = rows(p, T0 + 3 * HOUR, T0 + 33 * HOUR, 20_000, 6);
    await insert(store, later);
    clock.set(T0 + 33 * HOUR + MINUTE);
    const report = await jobs.runOnce();
    assert.equal(report.doneUntil['5m'], T0 + 33 * HOUR);
    assert.equal(report.doneUntil['2h'], T0 + 32 * HOUR);
    assert.equal(report.doneUntil['1d'], T0 + DAY);
    const all = [...first, ...later];
    for (const res of ['5m', '2h', '1d'] as const) {
      assert.deepEqual(await store.bazaarHistory.rollups(res, p, 0, Number.MAX_SAFE_INTEGER), expected(all, res, 0, report.doneUntil[res]!), res);
    }
  });

  it('skips long stretches without data and still advances to the present', async () => {
    const { store } = fixture();
    const p = product();
    const old = rows(p, T0 - 40 * DAY, T0 - 40 * DAY + HOUR, 20_000, 10);
    const recent = rows(p, T0, T0 + 2 * HOUR, 20_000, 11);
    await insert(store, [...old, ...recent]);
    const clock = new ManualClock(T0 + 2 * HOUR + MINUTE);
    // The work is counted in rollup windows (one statement each), not timed.
    const repo = store.bazaarHistory;
    const rollup = repo.rollup;
    let windows = 0;
    repo.rollup = (...args: Parameters<typeof rollup>) => {
      windows++;
      return rollup.apply(repo, args);
    };
    let report;
    try {
      report = await new BazaarHistoryJobs({ store, clock, logger }).runOnce();
    } finally {
      repo.rollup = rollup;
    }
    assert.equal(report.doneUntil['5m'], T0 + 2 * HOUR);
    assert.equal(report.doneUntil['2h'], T0 + 2 * HOUR);
    assert.equal(report.doneUntil['1d'], T0);
    assert.deepEqual(await store.bazaarHistory.rollups('5m', p, 0, Number.MAX_SAFE_INTEGER), expected([...old, ...recent], '5m', 0, T0 + 2 * HOUR));
    // The 40 empty days are skipped in one step per resolution: two windows each, one per stretch
    // of data (6 when written; walking the empty days in growing windows took 18).
    assert.ok(windows <= 9, `${windows} rollup windows`);
  });

  it('recomputes history stored behind its progress after a rewind (backfill)', async () => {
    const { store } = fixture();
    const p = product();
    const live = rows(p, T0 + 10 * HOUR, T0 + 12 * HOUR, 20_000, 7);
    await insert(store, live);
    const clock = new ManualClock(T0 + 12 * HOUR);
    const jobs = new BazaarHistoryJobs({ store, clock, logger });
    await jobs.runOnce();
    const backfill = rows(p, T0, T0 + 10 * HOUR, 20_000, 8);
    await insert(store, backfill);
    await jobs.runOnce();
    assert.equal((await store.bazaarHistory.rollups('5m', p, T0, T0 + 9 * HOUR)).length, 0, 'progress alone does not look that far back');
    await store.bazaarHistory.rewind(T0);
    const report = await jobs.runOnce();
    const all = [...backfill, ...live];
    for (const res of ['5m', '2h'] as const) {
      assert.deepEqual(await store.bazaarHistory.rollups(res, p, 0, Number.MAX_SAFE_INTEGER), expected(all, res, 0, report.doneUntil[res]!), res);
    }
  });

  it('deletes 20-second snapshots older than 14 days once rolled up, keeping 5-minute rows and order books', async () => {
    const { store } = fixture();
    const p = product();
    const now = T0 + 20 * DAY + 3 * MINUTE;
    // sparse: one snapshot a minute over 16 days
    const data = rows(p, T0 + 4 * DAY, T0 + 20 * DAY, MINUTE, 9);
    const book: OrderBook = {
      buyOrders: [{ amount: 640, pricePerUnit: 99.5, orders: 3 }],
      sellOffers: [{ amount: 10, pricePerUnit: 101.2, orders: 1 }, { amount: 7, pricePerUnit: 102, orders: 2 }],
    };
    data[0]!.book = encodeBook(book); // the only stored book: every later row has "unchanged"
    await insert(store, data);
    const jobs = new BazaarHistoryJobs({ store, clock: new ManualClock(now), logger });
    const report = await jobs.runOnce();
    const cutoff = Date.UTC(2026, 10, 16, 0, 0); // now - 14 days, on a 5-minute boundary
    assert.equal(report.deleted, data.filter((r) => r.ts < cutoff).length);
    assert.ok(report.deleted > 0);
    assert.equal(await store.bazaarHistory.oldestSnapshotOf(p), data.find((r) => r.ts >= cutoff)!.ts);
    // The deleted snapshots live on as 5-minute rows.
    assert.deepEqual(await store.bazaarHistory.rollups('5m', p, 0, cutoff), expected(data, '5m', 0, cutoff));
    // The first kept row carries the book forward.
    const snap = await store.bazaar.snapshotAt(p, now);
    assert.ok(snap?.book);
    assert.deepEqual(decodeBook(snap.book), book);
    // A second run deletes nothing more.
    assert.equal((await jobs.runOnce()).deleted, 0);
  });

  it('the scheduler runs the job at start and on its interval, and stop() waits for a run', async () => {
    const { store } = fixture();
    const p = product();
    await insert(store, rows(p, T0, T0 + HOUR, 20_000, 12));
    const clock = new ManualClock(T0 + HOUR);
    const jobs = new Jobs({ store, clock, logger, bazaarHistoryIntervalMs: 20 });
    jobs.start();
    const deadline = Date.now() + 10_000;
    while ((await store.bazaarHistory.doneUntil())['5m'] !== T0 + HOUR - 5 * MINUTE && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await store.bazaarHistory.doneUntil())['5m'], T0 + HOUR - 5 * MINUTE, 'first run at start');
    clock.set(T0 + HOUR + 5 * MINUTE);
    while ((await store.bazaarHistory.doneUntil())['5m'] !== T0 + HOUR && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await store.bazaarHistory.doneUntil())['5m'], T0 + HOUR, 'a later run on the interval');
    await jobs.stop();
  });
});
