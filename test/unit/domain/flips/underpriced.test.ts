/** The underpriced rule and its ranked list over hand-made listings, numbers checked by hand. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { underpricedVerdict, UnderpricedList, type ValuedListing } from '../../../../src/domain/flips/underpriced.ts';

const RULE = { minShare: 0.1, minComparables: 3 };
const listing = (uuid: string, price: number, value: number | null, more: Partial<ValuedListing> = {}): ValuedListing => ({
  uuid,
  tag: 'HYPERION',
  itemName: 'Hyperion',
  count: 1,
  price,
  value,
  confidence: 0.8,
  feeRate: 0.02,
  comparables: 10,
  medianKey: 'HYPERION',
  at: 1000,
  ...more,
});

describe('underpriced rule', () => {
  test('keeps a listing at least the share below its value after fees, with its profit', () => {
    // value 1,000,000 after 2 % fees = 980,000; 800,000 is 18.4 % below it.
    const kept = underpricedVerdict(listing('a', 800_000, 1_000_000), RULE)!;
    assert.equal(kept.valueAfterFees, 980_000);
    assert.equal(kept.profit, 180_000);
    assert.ok(Math.abs(kept.shareBelow - 180_000 / 980_000) < 1e-12);
  });

  test('the fees decide at the edge: 10 % below the value but not below the value after fees', () => {
    assert.equal(underpricedVerdict(listing('a', 900_000, 1_000_000), RULE), undefined);
    assert.ok(underpricedVerdict(listing('a', 882_000, 1_000_000), RULE));
    assert.equal(underpricedVerdict(listing('a', 882_001, 1_000_000), RULE), undefined);
  });

  test('refuses listings without a value, with too few comparables, or priced at or above the value', () => {
    assert.equal(underpricedVerdict(listing('a', 100, null), RULE), undefined);
    assert.equal(underpricedVerdict(listing('a', 100, 0), RULE), undefined);
    assert.equal(underpricedVerdict(listing('a', 100, 1_000_000, { comparables: 2 }), RULE), undefined);
    assert.equal(underpricedVerdict(listing('a', 1_200_000, 1_000_000), RULE), undefined);
    assert.equal(underpricedVerdict(listing('a', 0, 1_000_000), RULE), undefined);
  });
});

describe('underpriced list', () => {
  test('ranks by expected profit, listings leave it, and it stays within its capacity', () => {
    const list = new UnderpricedList(2);
    const small = underpricedVerdict(listing('small', 500, 1_000), RULE)!;
    const big = underpricedVerdict(listing('big', 500_000, 1_000_000), RULE)!;
    const mid = underpricedVerdict(listing('mid', 50_000, 100_000), RULE)!;
    list.add(small);
    list.add(big);
    assert.deepEqual(list.ranked().map((l) => l.uuid), ['big', 'small']);
    list.add(mid);
    // Past capacity the least profitable listing leaves.
    assert.deepEqual(list.ranked().map((l) => l.uuid), ['big', 'mid']);
    assert.equal(list.remove('big'), true);
    assert.equal(list.remove('big'), false);
    assert.deepEqual(list.ranked().map((l) => l.uuid), ['mid']);
  });
});
