import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { check, isProduct } from '../../../src/ingest/upstream.ts';

const valid = () => ({
  product_id: 'ENCHANTED_GOLD',
  sell_summary: [
    { amount: 640, pricePerUnit: 10.5, orders: 3 },
    { amount: 0, pricePerUnit: 0, orders: 0 },
  ],
  buy_summary: [{ amount: 99, pricePerUnit: 11.2, orders: 2 }],
  quick_status: { productId: 'ENCHANTED_GOLD', sellPrice: 10.4, sellVolume: 1e6, sellMovingWeek: 5e7, sellOrders: 30, buyPrice: 11.3, buyVolume: 2e6, buyMovingWeek: 6e7, buyOrders: 40 },
});

/** One change at a time to a valid product: some keep it valid, most break one rule. */
const mutations: Array<[string, (p: any) => void]> = [
  ['as is', () => {}],
  ['extra fields', (p) => ((p.extra = 1), (p.sell_summary[0].note = 'x'))],
  ['no levels', (p) => ((p.sell_summary = []), (p.buy_summary = []))],
  ['100-character id', (p) => (p.product_id = 'A'.repeat(100))],
  ['100 astral code points (200 units)', (p) => (p.product_id = '😀'.repeat(100))],
  ['101 characters', (p) => (p.product_id = 'A'.repeat(101))],
  ['empty id', (p) => (p.product_id = '')],
  ['numeric id', (p) => (p.product_id = 5)],
  ['missing id', (p) => delete p.product_id],
  ['summary not an array', (p) => (p.sell_summary = { 0: p.sell_summary[0] })],
  ['missing summary', (p) => delete p.buy_summary],
  ['level null', (p) => (p.buy_summary[0] = null)],
  ['level an array', (p) => (p.buy_summary[0] = [1, 2, 3])],
  ['sparse levels', (p) => (p.sell_summary = [p.sell_summary[0], , p.sell_summary[1]])], // eslint-disable-line no-sparse-arrays
  ['negative amount', (p) => (p.sell_summary[1].amount = -1)],
  ['negative zero', (p) => (p.sell_summary[1].amount = -0)],
  ['negative orders', (p) => (p.buy_summary[0].orders = -2)],
  ['negative price', (p) => (p.sell_summary[0].pricePerUnit = -0.1)],
  ['infinite amount', (p) => (p.sell_summary[1].amount = Infinity)],
  ['NaN price', (p) => (p.buy_summary[0].pricePerUnit = NaN)],
  ['infinite orders', (p) => (p.buy_summary[0].orders = Infinity)],
  ['string amount', (p) => (p.sell_summary[0].amount = '640')],
  ['missing orders', (p) => delete p.sell_summary[0].orders],
  ['orders undefined', (p) => (p.sell_summary[0].orders = undefined)],
  ['inherited amount', (p) => (p.sell_summary[0] = Object.assign(Object.create({ amount: 5 }), { pricePerUnit: 1, orders: 1 }))],
  ['quick status null', (p) => (p.quick_status = null)],
  ['quick status negative', (p) => (p.quick_status.sellPrice = -3)],
  ['quick status NaN', (p) => (p.quick_status.buyOrders = NaN)],
  ['quick status missing field', (p) => delete p.quick_status.buyMovingWeek],
  ['quick status string', (p) => (p.quick_status.sellVolume = '1')],
  ['not an object', (p) => Object.setPrototypeOf(p, Array.prototype)],
];

describe('upstream product check', () => {
  it('answers exactly as the TypeBox schema, valid or not', () => {
    let accepted = 0;
    for (const [name, mutate] of mutations) {
      const product = valid();
      mutate(product);
      const expected = check.product.Check(product);
      assert.equal(isProduct(product), expected, name);
      if (expected) accepted++;
    }
    assert.ok(accepted >= 5 && accepted < mutations.length - 10, `${accepted} valid variants`);
    for (const v of [null, undefined, 1, 'x', [], [valid()]]) assert.equal(isProduct(v), false);
  });
});
