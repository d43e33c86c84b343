/** The auction read queries on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';
import { activeListings, hex32, listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { cursorOf, type AuctionRecord } from '../../../src/store/repositories/auction-queries.ts';
import { saleRow } from '../../../src/ingest/records.ts';
import type { DecodedItem } from '../../../src/domain/nbt.ts';

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

    const listings = await activeListings(q);
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
    const second = await q.sold({ tag: 'HYPERION', since: NOW - 7 * DAY, until: NOW - DAY - 1, limit: 1 });
    assert.deepEqual(second.map((s) => s.soldPrice), [100]);
    assert.deepEqual((await q.sold({ tag: 'HYPERION', since: NOW - 7 * DAY, until: NOW - DAY - 1, limit: 1, after: cursorOf(second[0]!) })).map((s) => s.soldPrice), [200]);

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

  it('sold reads by keyset: chunks and pages walk the order (newest first, then uuid) exactly, across runs of equal sale times', async () => {
    const { store } = fixture();
    const q = store.auctionQueries;
    // 700 sales of KEYSET_ITEM in runs of 1 to 300 sharing one sale time (chunk boundaries fall inside runs), and noise.
    const rows = [];
    let at = 1;
    for (let i = 0; i < 700; at++) {
      const run = at % 3 === 0 ? 300 : 1 + (at % 7);
      for (let k = 0; k < run && i < 700; k++, i++) rows.push(sale(NOW, at * 60_000, { tag: 'KEYSET_ITEM', sold_price: 1000 + i }));
    }
    rows.push(sale(NOW, 30_000, { tag: 'OTHER_ITEM' }), sale(NOW, 10 * DAY, { tag: 'KEYSET_ITEM' }));
    await storeSales(store, NOW, rows);
    const since = NOW - 7 * DAY;
    const expected = rows
      .filter((r) => r.tag === 'KEYSET_ITEM' && r.sold_at! >= since)
      .sort((a, b) => b.sold_at! - a.sold_at! || (a.uuid < b.uuid ? -1 : 1))
      .map((r) => r.uuid);
    assert.equal(expected.length, 700);
    assert.deepEqual((await q.sold({ tag: 'KEYSET_ITEM', since, limit: 1000 })).map((r) => r.uuid), expected, 'one query');

    for (const chunk of [1, 7, 250, 299, 300, 301, 699, 700, 701]) {
      const chunks: AuctionRecord[][] = [];
      for await (const c of q.soldChunks({ tag: 'KEYSET_ITEM', since }, { chunk })) chunks.push(c);
      assert.deepEqual(chunks.flat().map((r) => r.uuid), expected, `records in chunks of ${chunk}`);
      assert.ok(chunks.every((c) => c.length <= chunk));
      const lean = [];
      for await (const c of q.soldLeanChunks('KEYSET_ITEM', since, { chunk })) lean.push(...c);
      assert.deepEqual(lean.map((r) => r.uuid), expected, `lean rows in chunks of ${chunk}`);
    }
    const capped = [];
    for await (const c of q.soldLeanChunks('KEYSET_ITEM', since, { chunk: 250, max: 333 })) capped.push(...c);
    assert.deepEqual(capped.map((r) => r.uuid), expected.slice(0, 333), 'max bounds the rows read');

    for (const [skip, take] of [[0, 10], [5, 300], [299, 2], [650, 100], [700, 5], [2500, 10]] as const) {
      assert.deepEqual((await q.soldPage({ tag: 'KEYSET_ITEM', since }, skip, take)).map((r) => r.uuid), expected.slice(skip, skip + take), `page ${skip}+${take}`);
    }
    const mid = (await q.sold({ tag: 'KEYSET_ITEM', since, limit: 1000 }))[400]!;
    assert.deepEqual((await q.soldKeys({ tag: 'KEYSET_ITEM', since, limit: 3, after: cursorOf(mid) })).map((k) => k.uuid), expected.slice(401, 404));
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

  it('active listings in keyset chunks: every listing once, across chunk edges that share an end time', async () => {
    const { store } = fixture();
    // 23 listings over 4 end times: chunks of 5 cut through runs of equal end_at.
    const listings = Array.from({ length: 23 }, (_, i) => listing(NOW, { end_at: NOW + 60_000 * (i % 4) }));
    const before = (await activeListings(store.auctionQueries)).map((r) => r.uuid);
    await storeGeneration(store, NOW, listings);
    await storeSales(store, NOW, [sale(NOW, DAY)]);
    const chunks: AuctionRecord[][] = [];
    for await (const chunk of store.auctionQueries.activeListingChunks(5)) chunks.push(chunk);
    const total = before.length + 23;
    assert.deepEqual(chunks.map((c) => c.length), Array.from({ length: Math.ceil(total / 5) }, (_, i) => Math.min(5, total - 5 * i)));
    const seen = chunks.flat().map((r) => r.uuid);
    assert.equal(new Set(seen).size, total, 'no listing twice');
    assert.deepEqual([...seen].sort(), [...before, ...listings.map((l) => l.uuid)].sort(), 'every active listing, no sale');
    const order = chunks.flat().map((r) => [r.end, r.uuid] as const);
    for (let i = 1; i < order.length; i++) assert.ok(order[i - 1]![0] < order[i]![0] || (order[i - 1]![0] === order[i]![0] && order[i - 1]![1] < order[i]![1]), 'by end time, then uuid');
  });
});
