import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeBook, type OrderBook } from '../../../../src/domain/bazaar-book.ts';
import { buildPriceSource } from '../../../../src/domain/craft/prices.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const book = (offer: number): OrderBook => ({ buyOrders: [{ pricePerUnit: offer - 1, amount: 10_000, orders: 1 }], sellOffers: [{ pricePerUnit: offer, amount: 10_000, orders: 1 }] });

describe('price source from stored rows', () => {
  test('decodes books, reuses a decoded book while its bytes stay the same, sorts BINs per item', () => {
    const cache = new Map();
    const bytes = encodeBook(book(5));
    const row = { productId: 'WHEAT', buyMovingWeek: 700, sellMovingWeek: 350, book: bytes };
    const first = buildPriceSource([row, { ...row, productId: 'BROKEN', book: new Uint8Array([1, 2, 3]) }], [], NOW, cache);
    assert.equal(first.bazaar('WHEAT')!.sellOffers[0]!.pricePerUnit, 5);
    assert.equal(first.bazaar('WHEAT')!.instaBuyWeekly, 700);
    assert.deepEqual(first.bazaar('BROKEN')!.sellOffers, [], 'an unreadable book has no depth');
    const cached = cache.get('WHEAT').book;
    const second = buildPriceSource([{ ...row, book: Buffer.from(bytes) }], [], NOW, cache);
    assert.equal(second.bazaar('WHEAT')!.sellOffers, cached.sellOffers, 'same bytes: not decoded again');
    const third = buildPriceSource([{ ...row, book: encodeBook(book(6)) }], [], NOW, cache);
    assert.equal(third.bazaar('WHEAT')!.sellOffers[0]!.pricePerUnit, 6);
    const bins = buildPriceSource([], [{ tag: 'X', uuid: 'a', startingBid: 640, count: 64 }, { tag: 'X', uuid: 'b', startingBid: 100, count: 1 }, { tag: 'X', uuid: 'c', startingBid: 50, count: 1 }], NOW);
    assert.deepEqual(bins.lowestBins('X')!.map((b) => [b.uuid, b.unitPrice]), [['a', 10], ['c', 50], ['b', 100]]);
  });
});
