import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { encodeBook, type OrderBook } from '../../../src/domain/bazaar-book.ts';
import { applyBookDelta, deltaAge, encodeBookDelta, reageBookDelta } from '../../../src/domain/bazaar-book-delta.ts';
import { CHUNK_COLUMNS, CHUNK_MS, SPLIT_BOOKS, chunkStart, decodeChunk, decodeChunkColumns, decodeChunkPrices, decodeChunkWithCarry, encodeChunk, RowColumns, type ChunkRow } from '../../../src/domain/bazaar-chunk.ts';
import { readVarint } from '../../../src/domain/bazaar-book.ts';

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
    assert.throws(() => decodeChunk(Buffer.from([3, 1, 2, 3])), /unknown bazaar chunk/);
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

/** A version 2 payload's two sections: the column bytes and the book bytes, inflated. */
function sections(payload: Buffer): { columns: Buffer; books: Buffer | null; bookOffset: number } {
  assert.equal(payload[0], 2);
  const pos = { at: 1 };
  const length = readVarint(payload, pos);
  const bookOffset = pos.at + length;
  return { columns: inflateRawSync(payload.subarray(pos.at, bookOffset)), books: bookOffset < payload.length ? inflateRawSync(payload.subarray(bookOffset)) : null, bookOffset };
}

/** The version 1 payload of the same rows: one deflate stream of the columns, then the books. */
function asVersion1(payload: Buffer, rowCount: number): Buffer {
  const { columns, books } = sections(payload);
  return Buffer.concat([Buffer.from([1]), deflateRawSync(Buffer.concat([columns, books ?? Buffer.alloc(rowCount + 1)]))]);
}

function toColumns(rows: readonly ChunkRow[]): number[][] {
  return rows.map((r) => [r.ts, ...CHUNK_COLUMNS.map((c) => r[c])]);
}

function columnsOf(out: RowColumns): number[][] {
  return Array.from({ length: out.length }, (_, i) => [out.ts[i]!, ...out.values.map((v) => v[i]!)]);
}

/** A full book of 2 × 30 levels (~200 bytes): 30 rows of them take the book section past SPLIT_BOOKS. */
const bigBook = (seed: number) =>
  encodeBook({
    buyOrders: Array.from({ length: 30 }, (_, i) => ({ pricePerUnit: 500 - i * 0.7, amount: 1000 + ((i * 7919 + seed) % 90_000), orders: 1 + ((i + seed) % 40) })),
    sellOffers: Array.from({ length: 30 }, (_, i) => ({ pricePerUnit: 501 + i * 0.9, amount: 1000 + ((i * 104_729 + seed) % 90_000), orders: 1 + ((i * 3 + seed) % 40) })),
  });

describe('bazaar chunk versions', () => {
  it('version 2 keeps large books apart: readers without books never inflate them', () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(i, { book: bigBook(i) }));
    const payload = encodeChunk(rows, encodeBook(book));
    const { books, bookOffset } = sections(payload);
    assert.ok(books && books.length > SPLIT_BOOKS);
    // Garbage where the books are: only a reader of books notices.
    const broken = Buffer.concat([payload.subarray(0, bookOffset), Buffer.from([0xff, 0xff, 0xff])]);
    assert.deepEqual(decodeChunk(broken, false), rows.map((r) => ({ ...r, book: null })));
    assert.deepEqual(decodeChunkPrices(broken).map((r) => r.buy_price), rows.map((r) => r.buy_price));
    const out = new RowColumns(4);
    decodeChunkColumns(broken, out);
    assert.deepEqual(columnsOf(out), toColumns(rows));
    assert.throws(() => decodeChunk(broken));
    assert.deepEqual(decodeChunkWithCarry(payload), { rows, carried: encodeBook(book) });
  });

  it('small book sections share the columns\' stream (version 1): a second stream would cost more than it saves', () => {
    const calm = Array.from({ length: 30 }, (_, i) => row(i));
    const none = calm.map((r) => ({ ...r, book: null }));
    for (const rows of [calm, none]) {
      const payload = encodeChunk(rows);
      assert.equal(payload[0], 1);
      assert.deepEqual(decodeChunkWithCarry(payload), { rows, carried: null });
      const out = new RowColumns();
      decodeChunkColumns(payload, out);
      assert.deepEqual(columnsOf(out), toColumns(rows));
    }
    // The boundary: one row's book plus the empty carried book, SPLIT_BOOKS bytes or one more.
    for (const [length, version] of [[SPLIT_BOOKS - 3, 1], [SPLIT_BOOKS - 2, 2]] as const) {
      const rows = [row(0, { book: Buffer.alloc(length, 7) })];
      const payload = encodeChunk(rows);
      assert.equal(payload[0], version, `a ${length}-byte book`);
      assert.deepEqual(decodeChunk(payload), rows);
    }
  });

  it('version 1 chunks with large books (packed before version 2) still read the same, with and without books', () => {
    const rows = Array.from({ length: 17 }, (_, i) => row(i, { book: i % 2 ? bigBook(i) : null }));
    const carried = encodeBook(book);
    const v1 = asVersion1(encodeChunk(rows, carried), rows.length);
    assert.equal(v1[0], 1);
    assert.deepEqual(decodeChunkWithCarry(v1), { rows, carried });
    assert.deepEqual(decodeChunk(v1, false), rows.map((r) => ({ ...r, book: null })));
    const out = new RowColumns();
    decodeChunkColumns(v1, out);
    assert.deepEqual(columnsOf(out), toColumns(rows));
  });

  it('trailing bytes after the columns are refused', () => {
    const payload = encodeChunk([row(0, { book: bigBook(1) }), row(1, { book: bigBook(2) }), row(2, { book: Buffer.alloc(2000, 1) })]);
    const { columns, bookOffset } = sections(payload);
    const packed = deflateRawSync(Buffer.concat([columns, Buffer.from([0])]));
    const bad = Buffer.concat([Buffer.from([2, packed.length]), packed, payload.subarray(bookOffset)]);
    assert.throws(() => decodeChunk(bad), /trailing/);
    assert.throws(() => decodeChunkColumns(bad, new RowColumns()), /trailing/);
  });
});

describe('chunk rows as columns', () => {
  it('appends the rows with from <= ts < to after the rows already held, growing as needed', () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(i, { buy_price: i % 2 ? 0.123 : 1e300, sell_orders: 3 - i }));
    const payload = encodeChunk(rows);
    const out = new RowColumns(2);
    decodeChunkColumns(payload, out);
    assert.deepEqual(columnsOf(out), toColumns(rows));
    // Bounds: inclusive from, exclusive to; a prefix and a suffix are left out.
    decodeChunkColumns(payload, out, rows[3]!.ts, rows[20]!.ts);
    assert.deepEqual(columnsOf(out), toColumns([...rows, ...rows.slice(3, 20)]));
    decodeChunkColumns(payload, out, rows[29]!.ts + 1);
    decodeChunkColumns(payload, out, -Infinity, rows[0]!.ts);
    assert.equal(out.length, 47);
    out.clear();
    decodeChunkColumns(payload, out, rows[29]!.ts, Infinity);
    assert.deepEqual(columnsOf(out), toColumns(rows.slice(29)));
  });

  it('merges rows in time order; a row already held wins over one with the same time', () => {
    const held = [row(0), row(2), row(4), row(6)];
    const out = new RowColumns(1);
    out.merge([row(-5)], 0);
    const before = out.length;
    out.merge(held, before);
    assert.deepEqual(columnsOf(out), toColumns([row(-5), ...held]));
    // Interleaved, with duplicates of held rows (other values: they must lose).
    out.merge([row(1), row(2, { buy_price: 7 }), row(5), row(6, { sell_price: 9 }), row(7), row(8)], before);
    assert.deepEqual(columnsOf(out), toColumns([row(-5), row(0), row(1), row(2), row(4), row(5), row(6), row(7), row(8)]));
    out.truncate(3);
    assert.deepEqual(columnsOf(out), toColumns([row(-5), row(0), row(1)]));
    out.merge([row(9)], 3);
    assert.deepEqual(columnsOf(out), toColumns([row(-5), row(0), row(1), row(9)]));
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
