/**
 * Time-chunked bazaar storage (migration 011): compaction of closed windows into chunks
 * (idempotent, crash-safe, catching up after downtime, merging late rows), every reader giving
 * the same answers whether rows are recent, packed or both, retention across chunks, and the
 * migration of stored rows — on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { ManualClock, systemClock } from '../../../src/clock.ts';
import { decodeBook, encodeBook, type BookLevel, type OrderBook } from '../../../src/domain/bazaar-book.ts';
import { CHUNK_MS, chunkStart, decodeChunkWithCarry } from '../../../src/domain/bazaar-chunk.ts';
import { HOUR, MINUTE, RESOLUTION_MS, aggregate } from '../../../src/domain/bazaar-history.ts';
import { BazaarIngester } from '../../../src/ingest/bazaar.ts';
import { BazaarHistoryJobs } from '../../../src/jobs/bazaar-history.ts';
import { createLogger } from '../../../src/logger.ts';
import { exportJson } from '../../../src/services/bazaar-export.ts';
import { readHistory } from '../../../src/services/bazaar-history.ts';
import { Store } from '../../../src/store/index.ts';
import { describeEachBackend, IN_CI, migrateTo, openUnmigratedStore, postgresUnavailable } from '../../helpers/databases.ts';
import { insert, point, reset, rows } from '../../helpers/bazaar.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const logger = createLogger('silent');
/** A window boundary plus upstream's unaligned offset: ticks cross window boundaries mid-run. */
const T0 = chunkStart(Date.UTC(2026, 10, 20, 0, 0, 0)) + 137;
const STEP = 20_000;
const TICKS = 75; // 25 minutes: two closed windows and an open one

function levels(n: number, start: number, step: number, seed: number): BookLevel[] {
  return Array.from({ length: n }, (_, i) => ({ pricePerUnit: Math.round((start + i * step) * 10) / 10, amount: 100 + ((i * 7919 + seed) % 5000), orders: 1 + ((i + seed) % 9) }));
}

/** Tick t's book: calm for stretches (unchanged rows store no book), then moving at the top. */
function bookAt(t: number, seed: number): OrderBook {
  const book: OrderBook = { buyOrders: levels(20, 500 + seed, -0.7, seed), sellOffers: levels(20, 501.2 + seed, 0.9, seed + 1) };
  const phase = Math.floor(t / 4); // the book changes every fourth tick only
  book.buyOrders[0]!.amount += phase;
  if (phase % 3 === 2) book.sellOffers.unshift({ pricePerUnit: book.sellOffers[0]!.pricePerUnit - 0.1, amount: phase, orders: 1 });
  if (phase % 5 === 4) book.buyOrders[7 + (phase % 9)]!.orders += 1;
  return book;
}

function payload(t: number, products: string[]) {
  const out: Record<string, unknown> = {};
  products.forEach((id, i) => {
    const b = bookAt(t, i * 50);
    out[id] = {
      product_id: id,
      sell_summary: b.buyOrders,
      buy_summary: b.sellOffers,
      quick_status: { sellPrice: 1, sellVolume: 10 + t, sellMovingWeek: 100 + 3 * t, sellOrders: 3, buyPrice: 2, buyVolume: 20 + (t % 7), buyMovingWeek: 200 - t, buyOrders: 4 + i },
    };
  });
  return { success: true, lastUpdated: T0 + t * STEP, products: out };
}

function ingester(store: Store): BazaarIngester {
  return new BazaarIngester(testIngestContext({ store, clock: systemClock, source: 'simulator', logger }), { fresh: true });
}

const PRODUCTS = ['ALPHA', 'BETA'];

/** What every reader of snapshot rows answers, as plain data. */
async function readAll(store: Store): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  out.count = await store.bazaar.count();
  out.newest = await store.bazaar.newestTs();
  out.oldest = await store.bazaarHistory.oldestSnapshot();
  for (const id of PRODUCTS) {
    out[`${id} oldest`] = await store.bazaarHistory.oldestSnapshotOf(id);
    out[`${id} exists`] = await store.bazaarHistory.productExists(id);
    out[`${id} 20s`] = await store.bazaarHistory.snapshots(id, T0 - STEP, T0 + TICKS * STEP);
    out[`${id} 20s across a boundary`] = await store.bazaarHistory.snapshots(id, T0 + 25 * STEP, T0 + 35 * STEP);
    out[`${id} hour`] = await readHistory(store, id, '20s', T0, T0 + HOUR);
    for (const t of [-1, 0, 1, 29, 30, 31, 44, 60, TICKS - 1, TICKS + 5]) {
      const snap = await store.bazaar.snapshotAt(id, T0 + t * STEP + 5);
      out[`${id} snapshot ${t}`] = snap && { ...snap, book: snap.book && decodeBook(snap.book) };
    }
    for (const t of [0, 30, 61]) out[`${id} book ${t}`] = await store.bazaarHistory.bookAt(id, T0 + t * STEP);
    for (const fullOrderBook of [false, true]) {
      let json = '';
      for await (const chunk of exportJson(store, { productId: id, start: T0 - 1, end: T0 + TICKS * STEP, now: T0 + TICKS * STEP, fullOrderBook, pageSize: 7, pageChunks: 1 })) json += chunk.toString();
      out[`${id} export ${fullOrderBook}`] = JSON.parse(json);
    }
  }
  const latest = await store.bazaar.latestBooks();
  out.latestBooks = [...latest].sort().map(([id, b]) => [id, decodeBook(b)]);
  out.snapshotsAfter = (await store.flipInputs.snapshotsAfter(T0 + 20 * STEP)).map((r) => ({ ...r, book: r.book && decodeBook(r.book) }));
  out.counters = await store.flipInputs.countersSince(T0 + 10 * STEP);
  out.buckets = (await store.flipInputs.priceBuckets(T0 - HOUR, 5 * MINUTE)).sort((a, b) => a.bucket - b.bucket || a.productId.localeCompare(b.productId));
  out.latestBazaar = (await store.marketPrices.latestBazaar()).map((r) => ({ ...r, book: r.book && decodeBook(r.book) })).sort((a, b) => a.productId.localeCompare(b.productId));
  return out;
}

async function chunkRows(store: Store): Promise<Array<{ product: number; start: number; first: number; last: number; rows: number }>> {
  const found = await store.kysely.selectFrom('bazaar_snapshot_chunks').select(['product', 'start', 'first_ts', 'last_ts', 'row_count']).orderBy('product').orderBy('start').execute();
  return found.map((c) => ({ product: Number(c.product), start: Number(c.start), first: Number(c.first_ts), last: Number(c.last_ts), rows: Number(c.row_count) }));
}

async function recentCount(store: Store): Promise<number> {
  return Number((await store.kysely.selectFrom('bazaar_recent_rows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
}

describeEachBackend('time-chunked bazaar storage', (fixture) => {
  it('every reader answers the same with rows recent, partly packed and fully packed', async () => {
    const { store } = fixture();
    await reset(store);
    const ing = ingester(store);
    for (let t = 0; t < TICKS; t++) await ing.apply(payload(t, PRODUCTS));
    const before = await readAll(store);
    assert.equal(before.count, TICKS * PRODUCTS.length);

    // Only the first window is closed at this time: the second stays recent.
    const w0 = chunkStart(T0);
    assert.equal(await store.bazaarHistory.compact(w0 + CHUNK_MS + CHUNK_MS - 1), 30 * PRODUCTS.length);
    assert.deepEqual((await chunkRows(store)).map((c) => [c.start, c.first, c.last, c.rows]), PRODUCTS.map(() => [w0, T0, T0 + 29 * STEP, 30]));
    assert.deepEqual(await readAll(store), before, 'first window packed');

    assert.equal(await store.bazaarHistory.compact(T0 + TICKS * STEP), 30 * PRODUCTS.length, 'the second window, not the open third');
    assert.equal(await recentCount(store), (TICKS - 60) * PRODUCTS.length);
    assert.deepEqual(await readAll(store), before, 'two windows packed');

    // Every chunk has the book in effect at its first row (stored there, or carried): the book at any time is one chunk away.
    const stored = await store.kysely.selectFrom('bazaar_snapshot_chunks').select('payload').execute();
    for (const c of stored) {
      const chunk = decodeChunkWithCarry(c.payload);
      assert.ok(chunk.rows[0]!.book ?? chunk.carried, 'a book at the first row');
    }
    assert.ok(stored.some((c) => decodeChunkWithCarry(c.payload).carried), 'some window starts with an unchanged book');

    // New snapshots keep going to the recent rows; the next run packs the third window.
    for (let t = TICKS; t < 95; t++) await ing.apply(payload(t, PRODUCTS));
    assert.equal(await store.bazaarHistory.compact(T0 + 95 * STEP), 30 * PRODUCTS.length);
    const snap = await store.bazaar.snapshotAt('BETA', T0 + 94 * STEP);
    assert.deepEqual(decodeBook(snap!.book!), bookAt(94, 50));
  });

  it("a product's latest buy price (enchantment book values) is found in packed rows too", async () => {
    const { store } = fixture();
    await reset(store);
    const w = chunkStart(T0) + 5 * CHUNK_MS;
    const at = (id: string, ts: number, price: number) => ({ ...rows(id, 0, 200, STEP)[0]!, ts, buy_price: price });
    // A book delisted long ago (only packed rows) and one still listed (recent rows newer than its chunk).
    await insert(store, [at('ENCHANTMENT_OLD_1', w, 11), at('ENCHANTMENT_OLD_1', w + STEP, 12), at('ENCHANTMENT_NEW_1', w, 21)]);
    assert.equal(await store.bazaarHistory.compact(w + CHUNK_MS), 3);
    await insert(store, [at('ENCHANTMENT_NEW_1', w + CHUNK_MS + STEP, 22)]);
    assert.equal(await recentCount(store), 1);
    const prices = await store.bazaar.latestBuyPrices(['ENCHANTMENT_OLD_1', 'ENCHANTMENT_NEW_1', 'ENCHANTMENT_NONE_1', 'ENCHANTMENT_OLD_1']);
    assert.deepEqual([...prices].sort(), [['ENCHANTMENT_NEW_1', 22], ['ENCHANTMENT_OLD_1', 12]]);
  });

  it('compaction is idempotent, packs only closed windows and honours window boundaries', async () => {
    const { store } = fixture();
    await reset(store);
    const w = chunkStart(T0) + 3 * CHUNK_MS;
    const at = (ts: number, price: number) => ({ ...rows('EDGE', 0, 200, STEP)[0]!, ts, buy_price: price });
    // The first and last millisecond of one window, the first of the next.
    await insert(store, [at(w, 1), at(w + CHUNK_MS - 1, 2), at(w + CHUNK_MS, 3)]);
    assert.equal(await store.bazaarHistory.compact(w + CHUNK_MS - 1), 0, 'the window has not ended');
    assert.equal(await store.bazaarHistory.compact(w + CHUNK_MS), 2);
    const first = await chunkRows(store);
    assert.deepEqual(first.map((c) => [c.start, c.first, c.last, c.rows]), [[w, w, w + CHUNK_MS - 1, 2]]);
    assert.equal(await store.bazaarHistory.compact(w + CHUNK_MS), 0, 'a second run finds nothing to pack');
    assert.deepEqual(await chunkRows(store), first);
    assert.equal(await recentCount(store), 1);
    const points = await store.bazaarHistory.snapshots('EDGE', w, w + 2 * CHUNK_MS);
    assert.deepEqual(points.map((p) => [p.ts, p.buy]), [[w, 1], [w + CHUNK_MS - 1, 2], [w + CHUNK_MS, 3]]);
  });

  it('a snapshot stored after its window was packed is read at once and merged by the next run; a second copy stays one row', async () => {
    const { store } = fixture();
    await reset(store);
    const data = rows('LATE', T0, T0 + 2 * CHUNK_MS, STEP, 9);
    const late = data.splice(5, 1)[0]!;
    await insert(store, data);
    await store.bazaarHistory.compact(chunkStart(T0) + 3 * CHUNK_MS);
    assert.equal(await recentCount(store), 0);
    await insert(store, [late, { ...data[3]!, buy_price: 12345 }]); // the missing row, and a second copy of a packed one
    const expected = [...data.slice(0, 5), late, ...data.slice(5)].map(point);
    assert.deepEqual(await store.bazaarHistory.snapshots('LATE', T0, T0 + 2 * CHUNK_MS), expected, 'the packed copy wins');
    assert.equal(await store.bazaarHistory.compact(chunkStart(T0) + 3 * CHUNK_MS), 2);
    assert.equal(await recentCount(store), 0);
    assert.deepEqual(await store.bazaarHistory.snapshots('LATE', T0, T0 + 2 * CHUNK_MS), expected);
    assert.equal(await store.bazaar.count(), expected.length);
  });

  it('a failed compaction leaves the rows where they were', async () => {
    const { store } = fixture();
    await reset(store);
    const data = rows('BROKEN', T0, T0 + CHUNK_MS, STEP, 4);
    await insert(store, data);
    const product = (await store.bazaar.books.numberOf('BROKEN'))!;
    // An unreadable chunk already stored for the window: merging into it throws mid-transaction.
    await store.kysely.insertInto('bazaar_snapshot_chunks').values({ product, start: chunkStart(T0), first_ts: T0, last_ts: T0, row_count: 1, payload: Buffer.from([1, 2, 3]) }).execute();
    await assert.rejects(store.bazaarHistory.compact(T0 + 2 * CHUNK_MS));
    assert.equal(await recentCount(store), data.length);
    await store.kysely.deleteFrom('bazaar_snapshot_chunks').execute();
    assert.equal(await store.bazaarHistory.compact(T0 + 2 * CHUNK_MS), data.length);
    assert.deepEqual(await store.bazaarHistory.snapshots('BROKEN', T0, T0 + CHUNK_MS), data.map(point));
  });

  it('the history job catches up after downtime: rollups from packed rows equal rollups from the snapshots', async () => {
    const { store } = fixture();
    await reset(store);
    const base = chunkStart(T0);
    const a = rows('CATCH_A', base, base + 3 * HOUR, STEP, 11);
    const b = rows('CATCH_B', base + HOUR, base + 2 * HOUR, STEP, 12).filter((_, i) => i % 5 !== 0);
    await insert(store, [...a, ...b]);
    const clock = new ManualClock(base + 3 * HOUR + 2 * MINUTE);
    const report = await new BazaarHistoryJobs({ store, clock, logger }).runOnce();
    assert.equal(report.packed, a.length + b.length, 'every window that ended before now − grace');
    for (const [id, data] of [['CATCH_A', a], ['CATCH_B', b]] as const) {
      const five = await store.bazaarHistory.rollups('5m', id, 0, Number.MAX_SAFE_INTEGER);
      assert.deepEqual(five, aggregate(data.map(point), RESOLUTION_MS['5m']).filter((p) => p.ts < report.doneUntil['5m']!), id);
    }
    // Rolled up again over packed rows (a rewind): the same rows.
    const before = await store.bazaarHistory.rollups('5m', 'CATCH_A', 0, Number.MAX_SAFE_INTEGER);
    await store.bazaarHistory.rewind(base);
    await new BazaarHistoryJobs({ store, clock, logger }).runOnce();
    assert.deepEqual(await store.bazaarHistory.rollups('5m', 'CATCH_A', 0, Number.MAX_SAFE_INTEGER), before);
  });

  it('retention deletes packed rows by age, trims the chunk the cutoff falls in and carries the book forward', async () => {
    const { store } = fixture();
    await reset(store);
    const ing = ingester(store);
    for (let t = 0; t < TICKS; t++) await ing.apply(payload(t, PRODUCTS));
    await store.bazaarHistory.compact(T0 + TICKS * STEP);
    const cutoff = T0 + 40 * STEP - 137; // inside the second window, on a row with no stored book
    const deleted = await store.bazaarHistory.deleteSnapshotsBefore(cutoff, 7);
    assert.equal(deleted, 40 * PRODUCTS.length);
    assert.equal(await store.bazaarHistory.oldestSnapshot(), T0 + 40 * STEP);
    assert.equal(await store.bazaar.count(), (TICKS - 40) * PRODUCTS.length);
    for (const t of [40, 41, 59, 60, TICKS - 1]) {
      for (const [i, id] of PRODUCTS.entries()) assert.deepEqual(decodeBook((await store.bazaar.snapshotAt(id, T0 + t * STEP))!.book!), bookAt(t, i * 50), `${id} at ${t}`);
    }
    assert.equal(await store.bazaar.snapshotAt('ALPHA', cutoff - 1), undefined);
    assert.equal(await store.bazaarHistory.deleteSnapshotsBefore(cutoff), 0, 'a second run finds nothing');
  });
});

/** Stores opened at migration 010 (one row per snapshot), filled, then migrated. */
for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' && postgresUnavailable && !IN_CI ? `PostgreSQL unreachable (${postgresUnavailable})` : false;
  describe(`migration 011 moves stored snapshots [${backend}]`, { skip }, () => {
    it('rows keep reading the same through the move, the first compaction and the way back', async () => {
      const { store, migrator, close } = await openUnmigratedStore(backend, 'm011');
      try {
        assert.equal((await migrateTo(migrator, '010-bazaar-compact')).error, undefined);
        await sql`insert into bazaar_products (product_id) values ('OLD_A'), ('OLD_B')`.execute(store.kysely);
        const ids = Object.fromEntries((await sql<{ id: number; product_id: string }>`select id, product_id from bazaar_products`.execute(store.kysely)).rows.map((r) => [r.product_id, Number(r.id)]));
        const old: Array<[string, number, Uint8Array | null]> = [];
        for (let t = 0; t < 40; t++) old.push(['OLD_A', T0 + t * STEP, t % 10 === 0 ? encodeBook(bookAt(t, 0)) : null]);
        old.push(['OLD_B', T0 + 3 * STEP, encodeBook(bookAt(3, 50))]);
        for (const [id, ts, book] of old) {
          await sql`insert into bazaar_snapshot_rows (ts, buy_price, sell_price, buy_volume, sell_volume, buy_moving_week, sell_moving_week, product, buy_orders, sell_orders, book)
            values (${ts}, ${10.5 + ts / 1e12}, 9.5, 100, 90, 7000, 6000, ${ids[id]!}, 5, 4, ${book})`.execute(store.kysely);
        }
        const read = async () => ({
          points: await store.bazaarHistory.snapshots('OLD_A', T0, T0 + 40 * STEP),
          books: await Promise.all([0, 5, 10, 25, 39].map(async (t) => decodeBook((await store.bazaar.snapshotAt('OLD_A', T0 + t * STEP))!.book!))),
          b: await store.bazaar.snapshotAt('OLD_B', T0 + HOUR),
          count: await store.bazaar.count(),
        });
        await store.migrate();
        const moved = await read();
        assert.equal(moved.count, 41);
        assert.deepEqual(moved.books, [0, 0, 10, 20, 30].map((t) => bookAt(t, 0)));
        assert.equal(await recentCount(store), 41, 'the rows wait in the recent rows for the first compaction');
        assert.deepEqual((await store.kysely.selectFrom('bazaar_snapshots').select('product_id').where('ts', '=', T0 + 3 * STEP).orderBy('product_id').execute()).map((r) => r.product_id), ['OLD_A', 'OLD_B']);

        assert.equal(await store.bazaarHistory.compact(T0 + 2 * CHUNK_MS), 41);
        assert.deepEqual(await read(), moved, 'packed');

        // Down again: migration 010's table comes back with every row, packed ones included.
        assert.equal((await migrateTo(migrator, '010-bazaar-compact')).error, undefined);
        const back = await sql<{ product: number; ts: number; book: Uint8Array | null }>`select product, ts, book from bazaar_snapshot_rows order by product, ts`.execute(store.kysely);
        assert.equal(back.rows.length, 41);
        const a = back.rows.filter((r) => Number(r.product) === ids.OLD_A);
        assert.deepEqual(a.map((r) => Number(r.ts)), old.filter(([id]) => id === 'OLD_A').map(([, ts]) => ts));
        assert.deepEqual(decodeBook(a[10]!.book!), bookAt(10, 0));
      } finally {
        await close();
      }
    });
  });
}
