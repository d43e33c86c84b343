/** The auction read queries and export jobs on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../helpers/databases.ts';
import { hex32, listing, sale, storeGeneration, storeSales } from '../helpers/auctions.ts';
import { saleRow } from '../../src/ingest/records.ts';
import type { DecodedItem } from '../../src/domain/nbt.ts';

/** The decoded-item fields saleRow reads. */
const decodedStub = { tag: 'HYPERION', count: 1, itemUuid: null, uid: null, enchantments: {}, reforge: null, flatNbt: {}, createdAt: null, lore: [] } as unknown as DecodedItem;

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const DAY = 86_400_000;

describeEachBackend('auction queries', (fixture) => {
  it('active listings, detail with bids, sold history, item-uid sales, medians and counts', async () => {
    const { store } = fixture();
    const q = store.auctionQueries;
    const active = listing(NOW, { enchantments: { sharpness: 6 }, flat_nbt: { upgrade_level: '5' }, coop: JSON.stringify(['a', 'b']) });
    await storeGeneration(store, NOW, [active], [{ auction_uuid: active.uuid, amount: 10, bidder: 'x', profile_id: null, placed_at: NOW - 5 }]);
    const uid = hex32().slice(-12);
    await storeSales(store, NOW, [
      sale(NOW, DAY, { sold_price: 300, item_uid: uid, count: 3 }),
      sale(NOW, 2 * DAY, { sold_price: 100, item_uid: uid }),
      sale(NOW, 3 * DAY, { sold_price: 200 }),
      sale(NOW, 10 * DAY, { sold_price: 400, tag: 'OTHER' }),
    ]);

    const listings = await q.activeListings();
    assert.equal(listings.length, 1);
    assert.deepEqual(listings[0]!.enchantments, { sharpness: 6 });
    assert.deepEqual(listings[0]!.flatNbt, { upgrade_level: '5' });
    assert.deepEqual(listings[0]!.coop, ['a', 'b']);
    assert.equal(typeof listings[0]!.startingBid, 'number');
    assert.equal(listings[0]!.bin, true);

    const detail = await q.detail(active.uuid);
    assert.deepEqual(detail?.bids.map((b) => b.amount), [10]);
    assert.equal(await q.detail(hex32()), undefined);
    assert.deepEqual((await q.bidsFor([active.uuid])).get(active.uuid)?.map((b) => b.bidder), ['x']);

    const sold = await q.sold({ tag: 'HYPERION', since: NOW - 7 * DAY, limit: 10 });
    assert.deepEqual(sold.map((s) => s.soldPrice), [300, 100, 200], 'newest first');
    assert.deepEqual((await q.sold({ tag: 'HYPERION', since: NOW - 7 * DAY, until: NOW - DAY - 1, limit: 1, offset: 1 })).map((s) => s.soldPrice), [200]);

    const byUid = await q.salesByItemUid([uid]);
    assert.deepEqual(byUid.map((s) => [s.price, s.itemUid, s.tag]), [
      [300, uid, 'HYPERION'],
      [100, uid, 'HYPERION'],
    ]);
    assert.deepEqual(await q.salesByItemUid([]), []);

    assert.deepEqual(Object.fromEntries(await q.saleCounts(NOW - 7 * DAY)), { HYPERION: 3 });
    // unit prices 100 (300/3), 100, 200 → upper median 100
    assert.deepEqual(Object.fromEntries(await q.medianPrices(['HYPERION', 'OTHER'], NOW - 7 * DAY)), { HYPERION: 100 });
    assert.deepEqual(
      (await q.salePricesBetween(NOW - 2 * DAY - 1, NOW, 'HYPERION')).map((s) => s.unitPrice).sort(),
      [100, 100],
    );
    assert.equal(await q.tagExists('OTHER'), true);
    assert.equal(await q.tagExists('NOPE'), false);
  });

  it("a sale from auctions_ended: its winning bid is read from the auction row, not stored as a bid", async () => {
    const { store } = fixture();
    const withBids = listing(NOW, { bin: false, starting_bid: 10 });
    const bin = listing(NOW);
    await storeGeneration(store, NOW, [withBids, bin], [
      { auction_uuid: withBids.uuid, amount: 50, bidder: 'd'.repeat(32), profile_id: null, placed_at: NOW - 9 },
      { auction_uuid: withBids.uuid, amount: 70, bidder: 'e'.repeat(32), profile_id: 'p'.repeat(32), placed_at: NOW - 5 },
    ]);
    const sales = [
      { auction_id: bin.uuid, seller: bin.seller, seller_profile: null, buyer: 'b'.repeat(32), buyer_profile: 'q'.repeat(32), timestamp: NOW + 1, price: 1_000_000, bin: true, item_bytes: 'H4sIAAAAAAAA/wMAAAAAAAAAAAA=' },
      { auction_id: withBids.uuid, seller: withBids.seller, buyer: 'e'.repeat(32), timestamp: NOW + 2, price: 70, bin: false, item_bytes: 'H4sIAAAAAAAA/wMAAAAAAAAAAAA=' },
    ];
    const rows = sales.map((s) => ({ ...saleRow(s, { ...decodedStub, name: 'x' }), tag: 'HYPERION' }));
    await store.auctions.recordSales(rows, [], { name: 'auctions_ended', lastUpdated: NOW + 3, storedAt: NOW + 3, records: 2, source: 'upstream' });
    assert.deepEqual((await store.auctionQueries.detail(bin.uuid))!.bids, [{ auction_uuid: bin.uuid, amount: 1_000_000, bidder: 'b'.repeat(32), profile_id: 'q'.repeat(32), placed_at: NOW + 1 }]);
    // The auction's own bid at the sale price stands (as the sale bid's ON CONFLICT DO NOTHING left it).
    assert.deepEqual((await store.auctionQueries.detail(withBids.uuid))!.bids.map((b) => [b.amount, b.bidder, b.placed_at]), [
      [50, 'd'.repeat(32), NOW - 9],
      [70, 'e'.repeat(32), NOW - 5],
    ]);
    assert.deepEqual((await store.auctionQueries.bidsFor([bin.uuid])).get(bin.uuid)?.map((b) => b.profile_id), ['q'.repeat(32)]);
    const stored = await store.kysely.selectFrom('bids').select('auction_uuid').where('auction_uuid', '=', bin.uuid).execute();
    assert.equal(stored.length, 0, 'no bid row repeats the sale');
  });

  it('export jobs: create, count queued, claim once, finish', async () => {
    const { store } = fixture();
    const jobs = store.exportJobs;
    const base = { accountId: 7, itemTag: 'HYPERION', flags: 'None', filters: { EndAfter: '1', EndBefore: '2' }, columns: ['uuid'], webhookUrl: 'https://discord.com/x' };
    const a = await jobs.create({ ...base, requestedAt: NOW });
    const b = await jobs.create({ ...base, requestedAt: NOW + 1 });
    assert.equal(a.status, 'Pending');
    assert.deepEqual(a.filters, base.filters);
    assert.equal(await jobs.countQueued(7), 2);
    const [c1, c2] = await Promise.all([jobs.claimNext(NOW), jobs.claimNext(NOW)]);
    assert.notEqual(c1?.id, c2?.id, 'two claims never get the same job');
    assert.deepEqual([c1, c2].map((c) => c?.status), ['InProgress', 'InProgress']);
    assert.equal(await jobs.claimNext(NOW), undefined);
    await jobs.finish(a.id, { status: 'Done', at: NOW + 5, rowCount: 3 });
    await jobs.finish(b.id, { status: 'Failed', at: NOW + 5, error: 'boom' });
    assert.equal(await jobs.countQueued(7), 0);
    const list = await jobs.forAccount(7);
    assert.deepEqual(list.map((j) => [j.id, j.status, j.rowCount, j.error]), [
      [b.id, 'Failed', null, 'boom'],
      [a.id, 'Done', 3, null],
    ]);
  });
});
