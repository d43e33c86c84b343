/**
 * Ingestion from the built-in simulator over HTTP, into SQLite and PostgreSQL: a
 * living market accumulates auctions, sales and bazaar snapshots, and every
 * injected fault is survived.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Registry } from 'prom-client';
import { ManualClock } from '../../../src/clock.ts';
import { decodeBook } from '../../../src/domain/bazaar-book.ts';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import { BazaarIngester } from '../../../src/ingest/bazaar.ts';
import type { IngestContext } from '../../../src/ingest/context.ts';
import { EndedIngester } from '../../../src/ingest/ended.ts';
import { ingestHistory } from '../../../src/ingest/history.ts';
import { ResourcesIngester } from '../../../src/ingest/resources.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);

describeEachBackend('ingestion from the simulator', (fixture) => {
  const clock = new ManualClock(START);
  let sim: SimulatorHandle;
  let ctx: IngestContext;
  let registry: Registry;
  let auctions: AuctionIngester;
  let ended: EndedIngester;
  let bazaar: BazaarIngester;

  before(async () => {
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, auctions: 1500, seed: 7, backfillMs: 2 * 3_600_000, port: 0 }, { clock, tickMs: 0 });
    registry = new Registry();
    ctx = testIngestContext({ store: fixture().store, clock, baseUrl: sim.url, source: 'simulator', retries: 4, timeoutMs: 1000, registry });
    auctions = new AuctionIngester(ctx);
    ended = new EndedIngester(ctx, (uuid) => auctions.forget(uuid));
    bazaar = new BazaarIngester(ctx);
  });
  after(async () => {
    await ctx.client.close();
    await sim.close();
  });

  it('accumulates auctions, sales, bazaar snapshots, items and the election as the market lives', async () => {
    const { store } = fixture();
    const resources = new ResourcesIngester(ctx);
    assert.notEqual(await resources.pollItems(), 'unchanged');
    assert.notEqual(await resources.pollElection(), 'unchanged');
    assert.ok((await store.items.count()) > 100);
    assert.ok((await store.elections.latest())?.mayorKey);

    const first = await auctions.pollOnce();
    assert.ok(first !== 'unchanged' && first.inserted >= 1400, JSON.stringify(first));
    for (let minute = 1; minute <= 5; minute++) {
      clock.advance(60_000);
      sim.market.advanceTo(clock.now());
      const generation = await auctions.pollOnce();
      assert.notEqual(generation, 'unchanged', `generation ${minute} applied`);
      await ended.pollOnce();
      for (let i = 0; i < 3; i++) {
        await bazaar.pollOnce();
        clock.advance(0);
      }
    }
    const counts = await store.auctions.countByState();
    assert.ok(counts.active! >= 1400, JSON.stringify(counts));
    assert.ok((counts.sold ?? 0) > 0, `some auctions sold: ${JSON.stringify(counts)}`);
    assert.ok((await store.bazaar.count()) >= sim.market.products.length, 'bazaar snapshots stored');
    const health = await store.feeds.all();
    assert.deepEqual(health.map((f) => f.name).sort(), ['auctions', 'auctions_ended', 'bazaar', 'election', 'items']);
    assert.ok(health.every((f) => f.source === 'simulator'));
  });

  it('stores order books that decode back to the upstream levels, and de-duplicates unchanged ones', async () => {
    const { store } = fixture();
    const payload = sim.market.bazaar();
    const product = Object.values(payload.products)[0]!;
    const snapshot = await store.bazaar.snapshotAt(product.product_id, clock.now());
    assert.ok(snapshot?.book, 'a book is resolved for the latest snapshot');
    const book = decodeBook(snapshot.book);
    assert.equal(snapshot.buy_price, product.buy_summary[0]!.pricePerUnit, 'buyPrice = lowest sell offer');
    assert.equal(snapshot.sell_price, product.sell_summary[0]!.pricePerUnit, 'sellPrice = highest buy order');
    assert.deepEqual(book.sellOffers, product.buy_summary);
    assert.deepEqual(book.buyOrders, product.sell_summary);

    // The same books again under a new timestamp: rows are stored, books are not.
    const again = await bazaar.apply({ ...payload, lastUpdated: payload.lastUpdated + 1 });
    assert.ok(again !== 'unchanged');
    assert.equal(again.booksStored, 0);
    const resolved = await store.bazaar.snapshotAt(product.product_id, payload.lastUpdated + 1);
    assert.equal(resolved?.ts, payload.lastUpdated + 1);
    assert.deepEqual(decodeBook(resolved!.book!), book, 'an unchanged book resolves to the previous one');
  });

  it('survives every injected fault and keeps ingesting', async () => {
    const { store } = fixture();
    sim.faults.set({ error: 0.3, truncate: 0.2, corruptNbt: 0.02, mixed: 0.3, swap404: 0.5, swapWindowMs: 5000 });
    let applied = 0;
    let failed = 0;
    for (let minute = 0; minute < 4; minute++) {
      clock.advance(60_000);
      sim.market.advanceTo(clock.now());
      for (const poll of [() => auctions.pollOnce(), () => ended.pollOnce(), () => bazaar.pollOnce()]) {
        try {
          if ((await poll()) !== 'unchanged') applied++;
        } catch {
          failed++; // a poll may give up; the next one must work again
        }
      }
    }
    sim.faults.reset();
    clock.advance(60_000);
    sim.market.advanceTo(clock.now());
    assert.notEqual(await auctions.pollOnce(), 'unchanged', 'ingestion recovers once upstream behaves');
    assert.ok(applied > 0, `applied ${applied} cycles under faults (${failed} gave up)`);
    const undecodable = (await registry.getMetricsAsJSON())
      .find((m) => m.name === 'skymarket_ingest_records_total')!
      .values.filter((v) => v.labels.outcome === 'undecodable')
      .reduce((sum, v) => sum + Number(v.value), 0);
    assert.ok(undecodable > 0, 'corrupt NBT was counted and skipped');
    assert.equal((await store.feeds.get('auctions'))?.lastUpdated, sim.market.generation().lastUpdated);
  });

  it('replays backfilled history without moving the live feeds backwards', async () => {
    const { store } = fixture();
    const before = await store.feeds.get('bazaar');
    const snapshotsBefore = await store.bazaar.count();
    const result = await ingestHistory(sim.backfill({ detailedMs: 30 * 60_000 }), ctx);
    assert.ok(result.snapshots > 20, JSON.stringify(result));
    assert.ok(result.sales > 0);
    assert.ok((await store.bazaar.count()) > snapshotsBefore);
    assert.deepEqual(await store.feeds.get('bazaar'), before, 'history does not overwrite the live feed state');
    // Replayed snapshots resolve to order books of their own, from the start of the history on.
    const product = sim.market.products[0]!;
    const early = await store.bazaar.snapshotAt(product.id, START - 2 * 3_600_000 + 10 * 60_000);
    assert.ok(early, 'a snapshot from early in the replayed history');
    assert.ok(early.ts < START - 60 * 60_000);
    assert.ok(early.book, 'with an order book');
    assert.ok(decodeBook(early.book).sellOffers.length > 0);
  });
});
