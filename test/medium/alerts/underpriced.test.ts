/**
 * An underpriced alert delivered end to end on SQLite and PostgreSQL (issue 43): a simulator-seeded
 * market, an underpriced subscription made through the API (no longer refused), the alert
 * evaluator reading the underpriced service's values (which it prepares for each batch), the
 * delivery worker posting to a signature-verifying receiver on loopback. A listing of the tag
 * asking half its value (the price set in the event; the value the real valuation's) alerts once;
 * one asking more than its value does not.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { ALERT_KINDS } from '../../../src/domain/alerts/spec.ts';
import type { DraftEvent } from '../../../src/domain/stream-events.ts';
import type { UpstreamAuction } from '../../../src/ingest/upstream.ts';
import { AlertDeliveryWorker } from '../../../src/jobs/alert-delivery.ts';
import { AlertEvaluator } from '../../../src/jobs/alert-evaluator.ts';
import { signedReceiver, type Receiver } from '../../helpers/alert-receivers.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import type { SimMarket } from '../../helpers/sim-market.ts';
import { fillValuedMarket } from '../../helpers/valued-market.ts';
import { waitUntil } from '../../helpers/wait.ts';

describeEachBackend('underpriced alerts', (fixture) => {
  let t: TestApp;
  let sim: SimMarket;
  let hook: Receiver;
  let evaluator: AlertEvaluator;
  let worker: AlertDeliveryWorker;
  let page: UpstreamAuction[];
  /** what the first test set up, for the split-deployment one */
  let made: { dear: { a: UpstreamAuction; value: number }; event: (x: { a: UpstreamAuction }, price: number) => DraftEvent } | undefined;

  before(async () => {
    hook = await signedReceiver();
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0', ALERT_WEBHOOK_PRIVATE_OK: 'true' } });
    ({ sim, page } = await fillValuedMarket(t));
    await t.app.ready();
    evaluator = new AlertEvaluator({ store: t.store, clock: t.clock, logger: t.context.logger, linkBase: '', reloadMs: 0, values: t.app.services.underpriced, onEnqueued: () => worker.nudge() });
    worker = new AlertDeliveryWorker({ store: t.store, clock: t.clock, logger: t.context.logger, discordHosts: [], allowPrivate: true, pollMs: 50 });
    worker.start();
  });
  after(async () => {
    await evaluator?.stop();
    await worker?.close();
    await sim?.close();
    await t?.close();
    await hook?.close();
  });

  it('delivers an alert for the listing at half its value, none for the one above it', async () => {
    const services = t.app.services;
    // Two BIN listings of one tag whose values rest on enough comparables.
    const byTag = new Map<string, Array<{ a: UpstreamAuction; value: number }>>();
    let pair: Array<{ a: UpstreamAuction; value: number }> | undefined;
    for (const a of page) {
      if (!a.bin || pair) continue;
      const lv = await services.valuation.valueListing(a.uuid);
      if (!lv?.value || lv.valued.valuation.comparables.count < services.underpriced.rule.minComparables) continue;
      const tag = lv.valued.valuation.tag;
      const found = [...(byTag.get(tag) ?? []), { a, value: lv.value }];
      byTag.set(tag, found);
      if (found.length === 2) pair = found;
    }
    assert.ok(pair, 'two listings of one tag have a value on enough comparables');
    const [cheap, dear] = pair as [{ a: UpstreamAuction; value: number }, { a: UpstreamAuction; value: number }];
    const tag = (await services.valuation.valueListing(cheap.a.uuid))!.valued.valuation.tag;

    const auth = { authorization: `Bearer ${(await t.store.accounts.create({ tier: 'premium', now: t.clock.now() })).token}` };
    const target = await t.app.inject({ method: 'POST', url: '/api/notifications/targets', headers: auth, payload: { type: 1, target: hook.url, when: 2, name: 'signed' } });
    assert.equal(target.statusCode, 200, target.body);
    hook.secret = target.json().secret;
    const sub = await t.app.inject({ method: 'POST', url: '/api/notifications/alerts', headers: auth, payload: { spec: { kind: 'underpriced', tag, percent: 30 }, targets: [target.json().id] } });
    assert.equal(sub.statusCode, 200, sub.body);

    const event = (x: { a: UpstreamAuction }, price: number): DraftEvent =>
      ({ topic: 'auction.new', time: t.clock.now(), uuid: x.a.uuid, tag, variant: null, bin: true, startingBid: price, highestBid: 0, seller: x.a.auctioneer, start: x.a.start, end: x.a.end, price, item: { itemName: x.a.item_name, count: 1, tier: null, reforge: null, itemUid: null, itemCreatedAt: null, enchantments: {}, flatNbt: {} } }) as unknown as DraftEvent;
    const cheapPrice = Math.floor(cheap.value / 2);
    const drafts = await evaluator.handle([event(cheap, cheapPrice), event(dear, Math.ceil(dear.value * 1.2))]);
    assert.deepEqual(drafts.map((d) => [d.kind, d.auctionUuid, d.price]), [['underpriced', cheap.a.uuid, cheapPrice]]);

    await waitUntil(() => hook.accepted.length >= 1, 10_000, 'the receiver');
    const alert = hook.accepted[0]!.json;
    assert.equal(alert['auctionUuid'], cheap.a.uuid);
    assert.equal(alert['price'], cheapPrice);
    assert.equal(alert['reference'], cheap.value);
    assert.equal(hook.accepted[0]!.headers['idempotency-key'], `${sub.json().id}:underpriced:${cheap.a.uuid}`);
    assert.equal(hook.badSignatures, 0);
    made = { dear, event };
  });

  it("split deployment: the writer's evaluator leaves underpriced subscriptions to the api replicas, whose same alert is stored once", async () => {
    assert.ok(made, 'the first test set up the subscription');
    const { dear, event } = made;
    const base = { store: t.store, clock: t.clock, logger: t.context.logger, linkBase: '', reloadMs: 0 };
    // As runtime.ts composes them: role ingest has no valuation; each api replica evaluates the underpriced kind only.
    const writer = new AlertEvaluator({ ...base, kinds: new Set(ALERT_KINDS.filter((k) => k !== 'underpriced')) });
    const replicas = [0, 1].map(() => new AlertEvaluator({ ...base, values: t.app.services.underpriced, kinds: new Set(['underpriced'] as const) }));
    const batch = [event(dear, Math.floor(dear.value / 2))];
    assert.deepEqual(await writer.handle(batch), []);
    assert.equal(writer.index.size, 0, 'the writer holds no underpriced subscription');
    const found = await Promise.all(replicas.map((r) => r.handle(batch)));
    for (const drafts of found) assert.deepEqual(drafts.map((d) => [d.kind, d.auctionUuid]), [['underpriced', dear.a.uuid]]);
    assert.equal(replicas[0]!.totals.stored + replicas[1]!.totals.stored, 1, 'one delivery for the one target');
    await waitUntil(() => hook.accepted.some((r) => r.json['auctionUuid'] === dear.a.uuid), 10_000, 'the receiver');
    assert.equal(hook.accepted.filter((r) => r.json['auctionUuid'] === dear.a.uuid).length, 1);
  });
});
