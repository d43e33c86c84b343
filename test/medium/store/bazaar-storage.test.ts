/**
 * The compact bazaar layout (migration 010): books stored as deltas from keyframes by the
 * ingester and resolved by every reader, retention by age per product, and migration of rows
 * stored in the old layout — on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../../../src/clock.ts';
import { decodeBook, encodeBook, isFullBook, type BookLevel, type OrderBook } from '../../../src/domain/bazaar-book.ts';
import { BazaarIngester } from '../../../src/ingest/bazaar.ts';
import { exportJson } from '../../../src/services/bazaar-export.ts';
import { Store } from '../../../src/store/index.ts';
import { describeEachBackend, migrateTo, openUnmigratedStore, postgresUnavailable, IN_CI } from '../../helpers/databases.ts';
import { reset } from '../../helpers/bazaar.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const T0 = Date.UTC(2026, 10, 20, 0, 0, 0) + 137;
const STEP = 20_000;

function levels(n: number, start: number, step: number, seed: number): BookLevel[] {
  return Array.from({ length: n }, (_, i) => ({ pricePerUnit: Math.round((start + i * step) * 10) / 10, amount: 100 + ((i * 7919 + seed) % 5000), orders: 1 + ((i + seed) % 9) }));
}

/** Tick t's book of a product: the top levels move every tick, one deeper level every third tick. */
function bookAt(t: number, seed: number): OrderBook {
  const book: OrderBook = { buyOrders: levels(30, 500 + seed, -0.7, seed), sellOffers: levels(30, 501.2 + seed, 0.9, seed + 1) };
  book.buyOrders[0]!.amount += t;
  book.sellOffers[0]!.orders = 1 + (t % 5);
  if (t % 3 === 0) book.buyOrders[10 + (t % 15)]!.amount += 1;
  if (t % 7 === 6) book.sellOffers.unshift({ pricePerUnit: book.sellOffers[0]!.pricePerUnit - 0.1, amount: t, orders: 1 });
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
      quick_status: { sellPrice: 1, sellVolume: 10, sellMovingWeek: 100, sellOrders: 3, buyPrice: 2, buyVolume: 20, buyMovingWeek: 200, buyOrders: 4 },
    };
  });
  return { success: true, lastUpdated: T0 + t * STEP, products: out };
}

function ingester(store: Store, fresh = true): BazaarIngester {
  return new BazaarIngester(testIngestContext({ store, clock: systemClock, source: 'simulator' }), { fresh });
}

const PRODUCTS = ['ALPHA', 'BETA'];
const TICKS = 60;

describeEachBackend('compact bazaar storage', (fixture) => {
  it('the ingester stores small deltas from keyframes and every reader gets the exact book back', async () => {
    const { store } = fixture();
    await reset(store);
    const ing = ingester(store);
    for (let t = 0; t < TICKS; t++) await ing.apply(payload(t, PRODUCTS));

    const stored = await store.kysely.selectFrom('bazaar_recent_rows').select(['book', 'ts']).execute();
    assert.equal(stored.length, TICKS * PRODUCTS.length);
    assert.ok(stored.every((r) => r.book), 'every book changed');
    const fullRows = stored.filter((r) => isFullBook(r.book!));
    assert.deepEqual(fullRows.map((r) => Number(r.ts)), [T0, T0], 'only the first book of each product is stored in full');
    const full = encodeBook(bookAt(1, 0)).length;
    const mean = stored.reduce((n, r) => n + r.book!.length, 0) / stored.length;
    assert.ok(mean * 4 < full, `mean delta ${mean.toFixed(1)} B vs ${full} B full`);
    const keyframes = await store.kysely.selectFrom('bazaar_book_keyframes').select(['product', 'ts']).execute();
    assert.deepEqual(keyframes.map((k) => Number(k.ts)), [T0, T0], 'the first books became keyframes when the first deltas were stored');

    for (const t of [0, 1, 13, 29, TICKS - 1]) {
      for (const [i, id] of PRODUCTS.entries()) {
        const snap = await store.bazaar.snapshotAt(id, T0 + t * STEP + 5);
        assert.deepEqual(decodeBook(snap!.book!), bookAt(t, i * 50), `${id} at tick ${t}`);
      }
    }
    const latest = await store.bazaar.latestBooks();
    assert.deepEqual(decodeBook(latest.get('BETA')!), bookAt(TICKS - 1, 50));
    const recent = await store.flipInputs.snapshotsAfter(T0 + (TICKS - 3) * STEP);
    recent.sort((x, y) => x.ts - y.ts || x.productId.localeCompare(y.productId));
    assert.deepEqual(recent.map((r) => decodeBook(r.book!)), [bookAt(TICKS - 2, 0), bookAt(TICKS - 2, 50), bookAt(TICKS - 1, 0), bookAt(TICKS - 1, 50)], 'flip inputs resolve deltas');
    assert.equal(await store.flipInputs.latestSnapshotTs(), T0 + (TICKS - 1) * STEP);
    const prices = await store.marketPrices.latestBazaar();
    assert.deepEqual(decodeBook(prices.find((p) => p.productId === 'ALPHA')!.book!), bookAt(TICKS - 1, 0));

    // The export with full books resolves every row's delta.
    let json = '';
    for await (const chunk of exportJson(store, { productId: 'ALPHA', start: T0 - 1, end: T0 + TICKS * STEP, now: T0 + TICKS * STEP, fullOrderBook: true, pageSize: 7 })) json += chunk.toString();
    const rows = JSON.parse(json) as Array<{ sellOrders: Array<{ amount: number; pricePerUnit: number; orders: number }> }>;
    assert.equal(rows.length, TICKS);
    rows.forEach((r, t) => assert.deepEqual(r.sellOrders.map((l) => [l.amount, l.pricePerUnit, l.orders]), bookAt(t, 0).buyOrders.map((l) => [l.amount, l.pricePerUnit, l.orders]), `export row ${t}`));
  });

  it('a restarted ingester starts from the stored books and writes a new keyframe before deltas', async () => {
    const { store } = fixture();
    await reset(store);
    await store.kysely.deleteFrom('feeds').execute(); // the restarted ingester resumes after the stored feed time
    await ingester(store).apply(payload(0, PRODUCTS));
    const again = ingester(store, false);
    await again.apply(payload(1, PRODUCTS));
    await again.apply(payload(2, PRODUCTS));
    for (const t of [0, 1, 2]) assert.deepEqual(decodeBook((await store.bazaar.snapshotAt('ALPHA', T0 + t * STEP))!.book!), bookAt(t, 0));
  });

  it('retention deletes by age per product, keeps the keyframe later deltas need and carries the book forward', async () => {
    const { store } = fixture();
    await reset(store);
    const ing = ingester(store);
    for (let t = 0; t < TICKS; t++) await ing.apply(payload(t, t % 2 === 0 ? PRODUCTS : ['ALPHA']));
    const cutoff = T0 + 40 * STEP - 137; // BETA has no row at tick 40: its first kept row's book is carried forward
    const deleted = await store.bazaarHistory.deleteSnapshotsBefore(cutoff, 7);
    assert.equal(deleted, 40 + 20);
    assert.equal(await store.bazaarHistory.oldestSnapshot(), T0 + 40 * STEP);
    const left = await store.kysely.selectFrom('bazaar_recent_rows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 20 + 10);
    for (const t of [40, 41, 47, TICKS - 1]) {
      assert.deepEqual(decodeBook((await store.bazaar.snapshotAt('ALPHA', T0 + t * STEP))!.book!), bookAt(t, 0), `ALPHA at ${t}`);
      const beta = t % 2 === 0 ? t : t - 1;
      assert.deepEqual(decodeBook((await store.bazaar.snapshotAt('BETA', T0 + t * STEP))!.book!), bookAt(beta, 50), `BETA at ${t}`);
    }
    const frames = await store.kysely.selectFrom('bazaar_book_keyframes').select(['ts']).where('ts', '<=', cutoff).execute();
    assert.ok(frames.length <= PRODUCTS.length, 'at most one keyframe per product before the cutoff');
    assert.equal(await store.bazaarHistory.deleteSnapshotsBefore(cutoff), 0, 'a second run finds nothing');
  });
});

/** Stores opened at migration 009 (the old layout), filled, then migrated. */
for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' && postgresUnavailable && !IN_CI ? `PostgreSQL unreachable (${postgresUnavailable})` : false;
  describe(`migration 010 moves stored snapshots [${backend}]`, { skip }, () => {
    it('rows, books and history reads survive the move to numbered products', async () => {
      const { store, migrator, close } = await openUnmigratedStore(backend, 'm010');
      try {
        const to9 = await migrateTo(migrator, '009-upload-kind-index');
        assert.equal(to9.error, undefined);
        const book = bookAt(3, 0);
        const old = [
          ['OLD_A', T0, encodeBook(book)],
          ['OLD_A', T0 + STEP, null],
          ['OLD_B', T0, encodeBook(bookAt(4, 50))],
          ['OLD_A', T0 + 2 * STEP, encodeBook(bookAt(5, 0))],
        ] as const;
        for (const [id, ts, b] of old) {
          await sql`insert into bazaar_snapshots (product_id, ts, buy_price, sell_price, buy_volume, sell_volume, buy_moving_week, sell_moving_week, buy_orders, sell_orders, book)
            values (${id}, ${ts}, 10.5, 9.5, 100, 90, 7000, 6000, 5, 4, ${b})`.execute(store.kysely);
        }
        await store.migrate();
        assert.equal(await store.bazaar.count(), 4);
        const products = await store.kysely.selectFrom('bazaar_products').select('product_id').orderBy('product_id').execute();
        assert.deepEqual(products.map((p) => p.product_id), ['OLD_A', 'OLD_B']);
        assert.deepEqual(decodeBook((await store.bazaar.snapshotAt('OLD_A', T0 + STEP))!.book!), book, 'an unchanged book still resolves to the previous one');
        assert.deepEqual(decodeBook((await store.bazaar.snapshotAt('OLD_A', T0 + 3 * STEP))!.book!), bookAt(5, 0));
        const points = await store.bazaarHistory.snapshots('OLD_A', T0, T0 + 3 * STEP);
        assert.deepEqual(points.map((p) => [p.ts, p.buy, p.sell, p.buyVolume, p.sellMovingWeek]), [0, 1, 2].map((i) => [T0 + i * STEP, 10.5, 9.5, 100, 6000]));
        const view = await store.kysely.selectFrom('bazaar_snapshots').select(['product_id', 'ts']).where('product_id', '=', 'OLD_B').execute();
        assert.deepEqual(view.map((r) => [r.product_id, Number(r.ts)]), [['OLD_B', T0]]);
        // New snapshots of an old product continue under its number.
        await ingester(store, false).apply(payload(9, ['OLD_A']));
        assert.deepEqual(decodeBook((await store.bazaar.snapshotAt('OLD_A', T0 + 9 * STEP))!.book!), bookAt(9, 0));
        // Down again: the old table comes back with every row (books as stored).
        assert.equal((await migrateTo(migrator, '009-upload-kind-index')).error, undefined);
        const back = await sql<{ product_id: string; ts: number; book: Uint8Array | null }>`select product_id, ts, book from bazaar_snapshots order by product_id, ts`.execute(store.kysely);
        assert.deepEqual(back.rows.map((r) => [r.product_id, Number(r.ts)]), [...old.filter(([id]) => id === 'OLD_A').map(([id, ts]) => [id, ts]), ['OLD_A', T0 + 9 * STEP], ['OLD_B', T0]]);
        assert.deepEqual(decodeBook(back.rows[0]!.book!), book);
      } finally {
        await close();
      }
    });
  });
}
