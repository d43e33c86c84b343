import assert from 'node:assert/strict';
import { it } from 'node:test';
import { decodeBook, encodeBook } from '../../../src/domain/bazaar-book.ts';
import type { AuctionsTable, BazaarSnapshotsTable } from '../../../src/store/schema.ts';
import { listing } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

const auction = (uuid: string, tag: string, price: number, extra: Partial<AuctionsTable> = {}) => listing(NOW, { uuid, tag, item_name: tag, starting_bid: price, ...extra });

function snapshot(product: string, ts: number, book: Uint8Array | null): BazaarSnapshotsTable {
  return { product_id: product, ts, buy_price: 2, sell_price: 1, buy_volume: 10, sell_volume: 10, buy_moving_week: 7000, sell_moving_week: 3500, buy_orders: 1, sell_orders: 1, book };
}

describeEachBackend('market prices for crafting', (fixture) => {
  it('cheapest active BINs per tag, per unit, bounded per tag', async () => {
    const { store } = fixture();
    const listings = [
      auction('a1', 'SWORD', 300),
      auction('a2', 'SWORD', 100),
      auction('a3', 'SWORD', 200),
      auction('a4', 'SWORD', 50, { bin: false }),
      auction('a5', 'SWORD', 10, { end_at: NOW - 1 }),
      auction('a6', 'SWORD', 20, { state: 'sold' }),
      auction('b1', 'STACK', 640, { count: 64 }),
      auction('b2', 'STACK', 100, { count: 5 }),
    ];
    await store.auctions.applyGeneration({ listings, bids: [], departed: [], feed: { name: 'auctions', lastUpdated: NOW, storedAt: NOW, records: listings.length, source: 'simulator' } });
    const rows = await store.marketPrices.lowestBins(NOW, 2);
    assert.deepEqual(
      rows.map((r) => [r.tag, r.uuid, r.startingBid, r.count]),
      [['STACK', 'b2', 100, 5], ['STACK', 'b1', 640, 64], ['SWORD', 'a2', 100, 1], ['SWORD', 'a3', 200, 1]],
    );
  });

  it('the newest bazaar snapshot with each product\'s current book', async () => {
    const { store } = fixture();
    const book = { buyOrders: [{ pricePerUnit: 1, amount: 10, orders: 1 }], sellOffers: [{ pricePerUnit: 2, amount: 5, orders: 1 }] };
    const feed = (ts: number) => ({ name: 'bazaar' as const, lastUpdated: ts, storedAt: ts, records: 2, source: 'simulator' as const });
    await store.bazaar.insertSnapshot([snapshot('A', NOW, encodeBook(book)), snapshot('B', NOW, encodeBook(book))], feed(NOW));
    // B's book did not change in the next snapshot, so it is stored as null.
    const changed = { ...book, sellOffers: [{ pricePerUnit: 3, amount: 5, orders: 1 }] };
    await store.bazaar.insertSnapshot([snapshot('A', NOW + 20_000, encodeBook(changed)), snapshot('B', NOW + 20_000, null)], feed(NOW + 20_000));
    const rows = await store.marketPrices.latestBazaar();
    assert.equal(rows.length, 2);
    const a = rows.find((r) => r.productId === 'A')!;
    const b = rows.find((r) => r.productId === 'B')!;
    assert.equal(a.ts, NOW + 20_000);
    assert.equal(decodeBook(a.book!).sellOffers[0]!.pricePerUnit, 3);
    assert.equal(decodeBook(b.book!).sellOffers[0]!.pricePerUnit, 2);
    assert.equal(b.buyMovingWeek, 7000);
    assert.equal(b.sellMovingWeek, 3500);
  });
});
