/** BazaarService over a fake of the bazaar's snapshots and history (BazaarStore) and the manual clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { BazaarService } from '../../../src/services/bazaar.ts';
import type { BazaarRollupTable } from '../../../src/store/schema.ts';
import { fakeBazaar, type FakeSnapshot } from '../../helpers/fake-repositories.ts';

const T0 = Date.UTC(2026, 10, 29, 12); // a 5-minute boundary
const BOOK = {
  buyOrders: [{ amount: 10, pricePerUnit: 4.5, orders: 1 }],
  sellOffers: [{ amount: 5, pricePerUnit: 5, orders: 2 }, { amount: 20, pricePerUnit: 6, orders: 1 }],
};
const SNAPSHOTS: FakeSnapshot[] = [
  { productId: 'WHEAT', ts: T0, buy: 5, sell: 4.5, book: BOOK },
  { productId: 'WHEAT', ts: T0 + 20_000, buy: 7, sell: 4 },
  { productId: 'WHEAT', ts: T0 + 300_000, buy: 6, sell: 5 },
];
/** A 5-minute row from before the kept snapshots. */
const OLD_ROW: BazaarRollupTable = { product_id: 'WHEAT', ts: T0 - 86_400_000, buy_price: 3, sell_price: 2, buy_volume: 1, sell_volume: 1, buy_moving_week: 1, sell_moving_week: 1, buy_orders: 1, sell_orders: 1, min_buy: 3, max_buy: 3, min_sell: 2, max_sell: 2, samples: 15 };

function service(now = T0 + 600_000) {
  return new BazaarService(fakeBazaar(SNAPSHOTS, [OLD_ROW]), new ManualClock(now));
}

describe('BazaarService (unit, over a fake bazaar)', () => {
  it('a snapshot at a time: the newest row at or before it, with its book decoded into the two sides', async () => {
    const answer = await service().snapshotAt('WHEAT', T0 + 10_000);
    assert.ok(!('miss' in answer));
    assert.equal(answer.source, 'rows');
    assert.equal(answer.row.buy_price, 5);
    assert.deepEqual(answer.instantBuySide, BOOK.sellOffers);
    assert.deepEqual(answer.instantSellSide, BOOK.buyOrders);
  });

  it('older than the kept snapshots: the 5-minute row, without books; never seen: unknown_product', async () => {
    const older = await service().snapshotAt('WHEAT', T0 - 3_600_000);
    assert.ok(!('miss' in older));
    assert.deepEqual([older.source, older.row.buy_price, older.instantBuySide], ['rollup', 3, null]);
    assert.deepEqual(await service().snapshotAt('WHEAT', T0 - 7 * 86_400_000), { miss: 'no_snapshot' });
    assert.deepEqual(await service().snapshotAt('NOPE', T0), { miss: 'unknown_product' });
  });

  it('the current snapshot answer is the established JSON of the newest snapshot at the clock\'s now', async () => {
    const answer = await service(T0 + 30_000).snapshotNow('WHEAT');
    assert.ok('value' in answer, 'a current answer');
    const json = JSON.parse(JSON.stringify(answer.value));
    assert.deepEqual([json.productId, json.buyPrice, json.sellPrice, json.timeStamp], ['WHEAT', 7, 4, new Date(T0 + 20_000).toISOString()]);
    assert.deepEqual(await service().snapshotNow('NOPE'), { miss: 'unknown_product' });
  });

  it('history at 5 minutes folds the snapshots into buckets (first values, extremes, samples)', async () => {
    const points = await service().history('WHEAT', '5m', T0, T0 + 600_000);
    assert.ok(Array.isArray(points));
    assert.deepEqual(
      points.map((p) => [p.ts, p.buy, p.minBuy, p.maxBuy, p.samples]),
      [
        [T0, 5, 5, 7, 2],
        [T0 + 300_000, 6, 6, 6, 1],
      ],
    );
    assert.deepEqual(await service().history('WHEAT', '5m', T0 + 3_600_000, T0 + 7_200_000), [], 'a known product, nothing in the window');
    assert.deepEqual(await service().history('NOPE', '5m', T0, T0 + 600_000), { miss: 'unknown_product' });
  });

  it('history status: how far the snapshots and each rollup reach', async () => {
    assert.deepEqual(await service().historyStatus('WHEAT'), [
      { resolution: '20s', oldest: T0, newest: T0 + 300_000, count: null },
      { resolution: '5m', oldest: OLD_ROW.ts, newest: OLD_ROW.ts, count: 1 },
    ]);
    assert.deepEqual(await service().historyStatus('NOPE'), { miss: 'unknown_product' });
  });
});
