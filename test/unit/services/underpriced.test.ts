/**
 * The underpriced service over a fake valuation: it values a batch's new BIN listings once, keeps
 * the underpriced ranked, drops those that sold or ended, and answers the alert evaluator's
 * value source synchronously after `prepare`.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { AlertIndex } from '../../../src/domain/alerts/index.ts';
import type { DraftEvent } from '../../../src/domain/stream-events.ts';
import { UnderpricedService } from '../../../src/services/underpriced.ts';
import type { ListingValue } from '../../../src/services/valuation.ts';

/** Values per uuid (stack value, comparables); a uuid not here is no longer active. */
function fakeValuation(values: Record<string, [number | null, number]>) {
  const asked: string[] = [];
  return {
    asked,
    async valueListings(uuids: readonly string[]): Promise<Array<ListingValue | undefined>> {
      return uuids.map((uuid) => this.one(uuid));
    },
    one(uuid: string): ListingValue | undefined {
      asked.push(uuid);
      const v = values[uuid];
      if (!v) return undefined;
      if (uuid === 'broken') throw new Error('bad item');
      const [value, count] = v;
      return { uuid, price: 0, value, feeRate: 0.02, vsValueAfterFees: null, profitAfterFees: null, valued: { valuation: { comparables: { count, medianKey: `K-${uuid}` }, combined: { confidence: 0.7 } } } } as unknown as ListingValue;
    },
  };
}

const item = { itemName: 'Hyperion', count: 1, tier: 'LEGENDARY', reforge: null, itemUid: null, itemCreatedAt: null, enchantments: {}, flatNbt: {} };
const listed = (uuid: string, price: number, bin = true): DraftEvent => ({ topic: 'auction.new', time: 5_000, uuid, tag: 'HYPERION', variant: null, bin, startingBid: price, highestBid: 0, seller: 's', start: 0, end: 0, price, item }) as unknown as DraftEvent;
const generation: DraftEvent = { topic: 'generation', time: 6_000, feed: 'auctions', lastUpdated: 6_000, counts: {} };

test('values new BIN listings once per batch, ranks the underpriced, and drops those that leave', async () => {
  const valuation = fakeValuation({ cheap: [1_000_000, 10], cheaper: [2_000_000, 10], fair: [1_000_000, 10], thin: [1_000_000, 1], broken: [1, 1] });
  const service = new UnderpricedService(valuation, { minShare: 0.1, minComparables: 3 });
  const emitter = new EventEmitter<{ batch: [DraftEvent[]] }>();
  service.attach(emitter);
  const told: DraftEvent[] = [];
  service.onKept = (events) => told.push(...events);
  const batch = [listed('cheap', 500_000), listed('cheaper', 600_000), listed('fair', 950_000), listed('thin', 100_000), listed('auction', 1, false), listed('gone', 1), listed('broken', 1), generation];
  emitter.emit('batch', batch);
  // The evaluator asks for the same batch: valued once.
  await service.prepare(batch);
  await service.idle();
  // One pass over the batch failed on 'broken' and was retried one by one.
  assert.deepEqual(valuation.asked, ['cheap', 'cheaper', 'fair', 'thin', 'gone', 'broken', 'cheap', 'cheaper', 'fair', 'thin', 'gone', 'broken']);
  assert.deepEqual(service.ranked({ limit: 10 }).map((l) => [l.uuid, l.profit]), [['cheaper', 1_360_000], ['cheap', 480_000]]);
  assert.deepEqual(service.totals, { valued: 4, kept: 2, skipped: 1, failed: 1, left: 0 });
  assert.equal(service.computedAt, 6_000);
  // The kept listings as live-feed events, with the listing's facts and its value.
  assert.deepEqual(told.map((e) => e.topic === 'auction.underpriced' && [e.uuid, e.price, e.value, e.profit, e.percentBelow, e.medianKey]), [['cheap', 500_000, 1_000_000, 480_000, 49, 'K-cheap'], ['cheaper', 600_000, 2_000_000, 1_360_000, 69.4, 'K-cheaper']]);
  assert.deepEqual(service.ranked({ limit: 10, minProfit: 500_000 }).map((l) => l.uuid), ['cheaper']);
  assert.deepEqual(service.ranked({ limit: 1 }).map((l) => l.uuid), ['cheaper']);
  assert.deepEqual(service.ranked({ limit: 10, tag: 'OTHER' }), []);

  // value source: the stack value where enough comparables stand behind it
  assert.equal(service.valueOf({ uuid: 'fair' }), 1_000_000);
  assert.equal(service.valueOf({ uuid: 'thin' }), undefined);
  assert.equal(service.valueOf({ uuid: 'unknown' }), undefined);

  emitter.emit('batch', [{ topic: 'auction.sold', time: 7_000, uuid: 'cheaper', tag: 'HYPERION', variant: null, price: 600_000, bin: true, buyer: 'b', seller: 's' } as unknown as DraftEvent]);
  await service.idle();
  assert.deepEqual(service.ranked({ limit: 10 }).map((l) => l.uuid), ['cheap']);
  assert.equal(service.totals.left, 1);
  await service.stop();
});

test('an underpriced alert fires from the values prepared for its batch', async () => {
  const service = new UnderpricedService(fakeValuation({ cheap: [1_000_000, 10], fair: [1_000_000, 10] }), { minShare: 0.1, minComparables: 3 });
  const index = new AlertIndex();
  index.replace([{ id: 1, accountId: 7, spec: { kind: 'underpriced', tag: 'HYPERION', percent: 30, filters: {} }, minIntervalMs: 0 } as never]);
  const batch = [listed('cheap', 600_000), listed('fair', 800_000)];
  // Without the values prepared nothing is known.
  assert.deepEqual(index.evaluate(batch, { now: 1, values: service }), []);
  await service.prepare(batch);
  const drafts = index.evaluate(batch, { now: 2, values: service });
  assert.deepEqual(drafts.map((d) => [d.auctionUuid, d.reference]), [['cheap', 1_000_000]]);
});

test('batches are taken in order: a listing sold in the next batch never stays listed', async () => {
  const service = new UnderpricedService(fakeValuation({ cheap: [1_000_000, 10] }), { minShare: 0.1, minComparables: 3 });
  const emitter = new EventEmitter<{ batch: [DraftEvent[]] }>();
  service.attach(emitter);
  const sold = [{ topic: 'auction.sold', time: 7_000, uuid: 'cheap', tag: 'HYPERION', variant: null, price: 500_000, bin: true, buyer: 'b', seller: 's' } as unknown as DraftEvent];
  emitter.emit('batch', [listed('cheap', 500_000)]);
  emitter.emit('batch', sold);
  // The evaluator asking for the second batch first does not take it out of turn.
  await service.prepare(sold);
  await service.idle();
  assert.deepEqual(service.ranked({ limit: 10 }), []);
  assert.deepEqual([service.totals.kept, service.totals.left], [1, 1]);
});

test('the ranking serves only listings still active: one whose sale was never told (a hole) leaves when met', async () => {
  const active = new Set(['cheap', 'cheaper']);
  const service = new UnderpricedService(fakeValuation({ cheap: [1_000_000, 10], cheaper: [2_000_000, 10] }), { minShare: 0.1, minComparables: 3 }, (uuid) => active.has(uuid));
  await service.prepare([listed('cheap', 500_000), listed('cheaper', 600_000), generation]);
  assert.deepEqual(service.ranked({ limit: 10 }).map((l) => l.uuid), ['cheaper', 'cheap']);
  active.delete('cheaper');
  assert.deepEqual(service.ranked({ limit: 10 }).map((l) => l.uuid), ['cheap']);
  assert.deepEqual([service.size, service.totals.left], [1, 1]);
});
