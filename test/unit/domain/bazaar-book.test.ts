import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { decodeBook, encodeBook, sameBook, type OrderBook } from '../../../src/domain/bazaar-book.ts';

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

  it('stores whole-tenth prices (the bazaar\'s) as small deltas: about 5 bytes a level', () => {
    const tenths: OrderBook = {
      buyOrders: Array.from({ length: 30 }, (_, i) => ({ amount: 1000 + i * 3771, pricePerUnit: Math.round((1234.5 - i * 0.7) * 10) / 10, orders: 1 + (i % 7) })),
      sellOffers: Array.from({ length: 30 }, (_, i) => ({ amount: 64 * (i + 1), pricePerUnit: Math.round((1240.1 + i * 1.3) * 10) / 10, orders: 2 + i })),
    };
    const encoded = encodeBook(tenths);
    assert.deepEqual(decodeBook(encoded), tenths);
    assert.ok(encoded.length <= 4 + 60 * 6, `${encoded.length} bytes`);
    const huge: OrderBook = { buyOrders: [{ amount: 4_000_000_000, pricePerUnit: 99_999_999.9, orders: 65_535 }], sellOffers: [{ amount: 0, pricePerUnit: 0.1, orders: 0 }] };
    assert.deepEqual(decodeBook(encodeBook(huge)), huge);
  });

  it('still decodes version 1 books (deflated fixed-width levels)', () => {
    const levels = [...book.buyOrders.slice(0, 2), ...book.sellOffers.slice(0, 1)];
    const raw = Buffer.alloc(3 + levels.length * 14);
    raw.writeUInt8(1, 0);
    raw.writeUInt8(2, 1);
    raw.writeUInt8(1, 2);
    levels.forEach((l, i) => {
      raw.writeDoubleLE(l.pricePerUnit, 3 + i * 14);
      raw.writeUInt32LE(l.amount, 3 + i * 14 + 8);
      raw.writeUInt16LE(l.orders, 3 + i * 14 + 12);
    });
    assert.deepEqual(decodeBook(deflateRawSync(raw)), { buyOrders: book.buyOrders.slice(0, 2), sellOffers: book.sellOffers.slice(0, 1) });
  });

  it('rejects trailing bytes and impossible level counts', () => {
    const encoded = encodeBook(book);
    assert.throws(() => decodeBook(Buffer.concat([encoded, Buffer.from([0])])));
    assert.throws(() => decodeBook(Buffer.from([0xf6, 1, 0xff, 0x7f, 0])));
  });
});
