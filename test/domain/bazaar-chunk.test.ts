import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { encodeBook, type OrderBook } from '../../src/domain/bazaar-book.ts';
import { applyBookDelta, deltaAge, encodeBookDelta, reageBookDelta } from '../../src/domain/bazaar-book-delta.ts';
import { CHUNK_MS, chunkStart, decodeChunk, decodeChunkPrices, decodeChunkWithCarry, encodeChunk, type ChunkRow } from '../../src/domain/bazaar-chunk.ts';

const T0 = Date.UTC(2026, 10, 20, 0, 0, 0) + 137;
const book: OrderBook = {
  buyOrders: [
    { pricePerUnit: 10.5, amount: 640, orders: 3 },
    { pricePerUnit: 10.4, amount: 12, orders: 1 },
  ],
  sellOffers: [{ pricePerUnit: 11, amount: 99, orders: 2 }],
};

function row(i: number, overrides: Partial<ChunkRow> = {}): ChunkRow {
  return {
    ts: T0 + i * 20_000,
    buy_price: 1000.5 + i * 0.1,
    sell_price: 990.2 - i,
    buy_volume: 1_234_567 + i * 13,
    sell_volume: 7_654_321 - i * 7,
    buy_moving_week: 98_765_432 + i * 1000,
    sell_moving_week: 87_654_321,
    buy_orders: 300 + (i % 3),
    sell_orders: 250 - (i % 5),
    book: i % 4 === 0 ? encodeBook(book) : null,
    ...overrides,
  };
}

describe('bazaar chunks (column-wise, deflated)', () => {
  it('round-trips a window of rows exactly, books as stored', () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(i));
    const payload = encodeChunk(rows);
    assert.deepEqual(decodeChunk(payload), rows);
    // Far below the ~90 bytes per row the columns take in a row of their own.
    assert.ok(payload.length / rows.length < 25, `${(payload.length / rows.length).toFixed(1)} B per row`);
  });

  it('reads times and prices alone, or everything with the carried book', () => {
    const rows = Array.from({ length: 12 }, (_, i) => row(i));
    const carried = encodeBook(book);
    const payload = encodeChunk(rows, carried);
    assert.deepEqual(
      decodeChunkPrices(payload).map((r) => [r.ts, r.buy_price, r.sell_price, r.buy_volume, r.book]),
      rows.map((r) => [r.ts, r.buy_price, r.sell_price, 0, null]),
    );
    assert.deepEqual(decodeChunkWithCarry(payload), { rows, carried });
    assert.deepEqual(decodeChunk(payload, false), rows.map((r) => ({ ...r, book: null })));
  });

  it('keeps any number exactly: fractions, huge and negative values fall back to doubles per column', () => {
    const rows = [row(0, { buy_price: 0.123456789, sell_price: -5, buy_volume: 2 ** 53 - 1, sell_volume: -17 }), row(1, { buy_price: 1e300, sell_price: 3.3, buy_volume: 0, sell_volume: 4 })];
    assert.deepEqual(decodeChunk(encodeChunk(rows)), rows);
  });

  it('an empty book list, one row, and a delta book survive', () => {
    const delta = encodeBookDelta(book, { ...book, sellOffers: [] }, 40_000);
    const rows = [row(0, { book: delta })];
    assert.deepEqual(decodeChunk(encodeChunk(rows)), rows);
  });

  it('refuses rows out of time order and unreadable payloads', () => {
    assert.throws(() => encodeChunk([row(1), row(0)]), /rising/);
    assert.throws(() => encodeChunk([row(0), row(0)]), /rising/);
    assert.throws(() => decodeChunk(Buffer.from([2, 1, 2, 3])), /unknown bazaar chunk/);
    const good = encodeChunk([row(0), row(1)]);
    assert.throws(() => decodeChunk(good.subarray(0, good.length - 3)));
    // A well-formed deflate stream of garbage: caught by the format checks, not a crash.
    assert.throws(() => decodeChunk(Buffer.concat([Buffer.from([1]), deflateRawSync(Buffer.from([5, 1, 2]))])));
  });

  it('windows start at multiples of CHUNK_MS', () => {
    assert.equal(chunkStart(T0) % CHUNK_MS, 0);
    assert.equal(chunkStart(chunkStart(T0)), chunkStart(T0));
    assert.equal(chunkStart(chunkStart(T0) + CHUNK_MS - 1), chunkStart(T0));
    assert.equal(chunkStart(chunkStart(T0) + CHUNK_MS), chunkStart(T0) + CHUNK_MS);
  });
});

describe('re-aged book deltas', () => {
  it('name the same keyframe from a later row and describe the same book', () => {
    const changed: OrderBook = { ...book, buyOrders: [{ pricePerUnit: 10.6, amount: 5, orders: 1 }, ...book.buyOrders] };
    const delta = encodeBookDelta(book, changed, 20_000);
    const later = reageBookDelta(delta, 123_456);
    assert.equal(deltaAge(later), 20_000 + 123_456);
    assert.deepEqual(applyBookDelta(book, later), changed);
    assert.throws(() => reageBookDelta(encodeBook(book), 1), /not an order book delta/);
  });
});
