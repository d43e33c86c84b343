import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBook, encodeBook, sameBook, type OrderBook } from '../../src/domain/bazaar-book.ts';

const book: OrderBook = {
  buyOrders: Array.from({ length: 30 }, (_, i) => ({ amount: 1000 + i * 37, pricePerUnit: 5.3 - i * 0.1, orders: 1 + (i % 7) })),
  sellOffers: Array.from({ length: 30 }, (_, i) => ({ amount: 640 * (i + 1), pricePerUnit: 5.4 + i * 0.1, orders: 2 + i })),
};

describe('order book encoding', () => {
  it('round-trips both sides exactly, including fractional prices', () => {
    const decoded = decodeBook(encodeBook(book));
    assert.deepEqual(decoded, book);
  });

  it('is compact: 60 levels in well under their JSON size', () => {
    const encoded = encodeBook(book);
    assert.ok(encoded.length < 3 + 60 * 14, `${encoded.length} bytes`);
    assert.ok(encoded.length < JSON.stringify(book).length / 3);
  });

  it('round-trips empty and one-sided books', () => {
    for (const b of [{ buyOrders: [], sellOffers: [] }, { buyOrders: book.buyOrders.slice(0, 1), sellOffers: [] }]) {
      assert.deepEqual(decodeBook(encodeBook(b)), b);
    }
  });

  it('rejects corrupt data instead of returning garbage', () => {
    const encoded = encodeBook(book);
    assert.throws(() => decodeBook(encoded.subarray(0, encoded.length - 5)));
    assert.throws(() => decodeBook(Buffer.from('not deflate')));
  });

  it('compares books level by level', () => {
    assert.ok(sameBook(book, structuredClone(book)));
    const changed = structuredClone(book);
    changed.sellOffers[29]!.orders++;
    assert.ok(!sameBook(book, changed));
    assert.ok(!sameBook(book, { ...book, buyOrders: book.buyOrders.slice(1) }));
  });
});
