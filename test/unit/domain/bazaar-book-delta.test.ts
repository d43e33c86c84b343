import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBook, encodeBook, isFullBook, type BookLevel, type OrderBook } from '../../../src/domain/bazaar-book.ts';
import { applyBookDelta, deltaAge, encodeBookDelta } from '../../../src/domain/bazaar-book-delta.ts';

const side = (n: number, start: number, step: number, seed: number): BookLevel[] =>
  Array.from({ length: n }, (_, i) => ({ pricePerUnit: Math.round((start + i * step) * 10) / 10, amount: 100 + ((i * 7919 + seed) % 5000), orders: 1 + ((i + seed) % 9) }));
const keyframe: OrderBook = { buyOrders: side(30, 500, -0.7, 1), sellOffers: side(30, 501.2, 0.9, 2) };

function roundTrip(base: OrderBook, book: OrderBook, age = 20_000): Buffer {
  const delta = encodeBookDelta(base, book, age);
  assert.ok(!isFullBook(delta));
  assert.equal(deltaAge(delta), age);
  assert.deepEqual(applyBookDelta(base, delta), book);
  return delta;
}

describe('order book deltas against a keyframe', () => {
  it('an unchanged book is a few bytes', () => {
    const delta = roundTrip(keyframe, structuredClone(keyframe), 0);
    assert.ok(delta.length <= 8, `${delta.length} bytes`);
  });

  it('top levels amended, one deep level changed: a small fraction of the full book', () => {
    const book = structuredClone(keyframe);
    book.buyOrders[0]!.amount += 64;
    book.sellOffers[0]!.orders += 1;
    book.sellOffers[1]!.amount = 3;
    book.buyOrders[17]!.amount -= 50;
    const delta = roundTrip(keyframe, book);
    assert.ok(delta.length * 8 < encodeBook(book).length, `${delta.length} vs ${encodeBook(book).length} bytes`);
  });

  it('an order inserted at the top shifts every index but costs one level', () => {
    const book = structuredClone(keyframe);
    book.sellOffers.unshift({ pricePerUnit: 501.1, amount: 9, orders: 1 });
    book.sellOffers.pop();
    book.buyOrders.unshift({ pricePerUnit: 500.1, amount: 7, orders: 2 });
    const delta = roundTrip(keyframe, book);
    assert.ok(delta.length < 20, `${delta.length} bytes`);
  });

  it('levels filled away, sides emptied or grown, every level replaced', () => {
    roundTrip(keyframe, { buyOrders: keyframe.buyOrders.slice(3), sellOffers: [] });
    roundTrip(keyframe, { buyOrders: [...keyframe.buyOrders.slice(0, 5), ...keyframe.buyOrders.slice(9)], sellOffers: side(60, 400, 1.3, 9) });
    roundTrip({ buyOrders: [], sellOffers: [] }, keyframe);
    roundTrip(keyframe, { buyOrders: side(30, 900, -0.3, 5), sellOffers: side(25, 901, 0.2, 6) });
  });

  it('fractional prices, unsorted levels and duplicate prices round-trip exactly', () => {
    const odd: OrderBook = {
      buyOrders: [
        { pricePerUnit: 3.14159, amount: 5, orders: 1 },
        { pricePerUnit: 500, amount: 1, orders: 1 },
        { pricePerUnit: 500, amount: 2, orders: 1 },
      ],
      sellOffers: [...keyframe.sellOffers].reverse(),
    };
    roundTrip(keyframe, odd);
    roundTrip(odd, keyframe);
  });

  it('gives up once a delta would exceed the caller\'s budget', () => {
    const rewritten = { buyOrders: side(30, 900, -0.3, 5), sellOffers: side(30, 901, 0.2, 6) };
    const budget = encodeBook(keyframe).length / 2;
    assert.equal(encodeBookDelta(keyframe, rewritten, 1, budget), undefined);
    const small = structuredClone(keyframe);
    small.buyOrders[0]!.amount = 1;
    assert.deepEqual(encodeBookDelta(keyframe, small, 1, budget), encodeBookDelta(keyframe, small, 1));
  });

  it('applying a delta to the wrong or a truncated input fails loudly', () => {
    const book = structuredClone(keyframe);
    book.buyOrders[29]!.amount = 1;
    const delta = encodeBookDelta(keyframe, book, 1);
    assert.throws(() => applyBookDelta({ buyOrders: [], sellOffers: [] }, delta), /past its keyframe/);
    assert.throws(() => applyBookDelta(keyframe, delta.subarray(0, delta.length - 1)));
    assert.throws(() => applyBookDelta(keyframe, Buffer.concat([delta, Buffer.from([0])])), /trailing/);
    assert.throws(() => decodeBook(delta), /keyframe/);
    assert.throws(() => applyBookDelta(keyframe, encodeBook(book)), /not an order book delta/);
  });
});

describe('book deltas under a size limit', () => {
  it('are given up exactly when the whole delta would exceed the limit, and are the same delta otherwise', () => {
    let seed = 3;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const side = (n: number, start: number, step: number, fractional: boolean) =>
      Array.from({ length: n }, (_, i) => ({ pricePerUnit: fractional ? start + i * step + rand() / 7 : Math.round((start + i * step) * 10) / 10, amount: Math.floor(rand() * 2 ** (1 + rand() * 30)), orders: 1 + Math.floor(rand() * 200) }));
    for (let trial = 0; trial < 300; trial++) {
      const fractional = trial % 5 === 0;
      const base = { buyOrders: side(1 + Math.floor(rand() * 30), 500, -0.7, fractional), sellOffers: side(Math.floor(rand() * 30), 501, 0.9, fractional) };
      // From unchanged through a few amended, inserted or dropped levels to a fully redrawn book.
      const redraw = trial % 3 === 0;
      const book = redraw
        ? { buyOrders: side(30, 480 + rand() * 40, -0.3, fractional), sellOffers: side(30, 520 + rand() * 40, 0.4, fractional) }
        : {
            buyOrders: base.buyOrders.filter(() => rand() > 0.1).map((l) => (rand() < 0.3 ? { ...l, amount: l.amount + 1 } : l)),
            sellOffers: [...side(Math.floor(rand() * 4), 500.5, 0.1, fractional), ...base.sellOffers.filter(() => rand() > 0.2)],
          };
      const whole = encodeBookDelta(base, book, 20_000);
      for (const limit of [0, 1, whole.length - 3, whole.length - 1, whole.length, whole.length + 1, Math.floor(whole.length / 2)]) {
        const limited = encodeBookDelta(base, book, 20_000, limit);
        if (whole.length <= limit) assert.deepEqual(limited, whole, `trial ${trial}, limit ${limit}`);
        else assert.equal(limited, undefined, `trial ${trial}, limit ${limit} < ${whole.length}`);
      }
    }
  });
});
