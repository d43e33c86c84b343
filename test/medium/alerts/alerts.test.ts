/**
 * Alerts end to end on SQLite and PostgreSQL (issue 47): targets, alerts and listeners through the
 * API, committed changes published on the store's spine, the evaluator on the live feed's events,
 * the delivery worker posting to a Discord-shaped stub and a signature-verifying receiver on
 * loopback (through the ALERT_WEBHOOK_PRIVATE_OK seam). Then retries, a target marked failing with
 * its reason, a restart that loses nothing, and hostile input answered with problem bodies.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { AlertEvaluator } from '../../../src/jobs/alert-evaluator.ts';
import { AlertDeliveryWorker } from '../../../src/jobs/alert-delivery.ts';
import { MarketEvents } from '../../../src/market/events.ts';
import { RETRY_DELAYS_MS } from '../../../src/domain/alerts/targets.ts';
import { toRecord } from '../../../src/store/repositories/auction-queries.ts';
import type { ProductQuick } from '../../../src/domain/market-change.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { discordStub, signedReceiver, type Receiver } from '../../helpers/alert-receivers.ts';
import { waitUntil } from '../../helpers/wait.ts';
import { alertAdd, alertList, alertTargetAdd } from '../../../src/alerts-admin.ts';

describeEachBackend('alerts end to end', (fixture) => {
  let t: TestApp;
  let discord: Receiver;
  let hook: Receiver;
  let events: MarketEvents;
  let evaluator: AlertEvaluator;
  let worker: AlertDeliveryWorker;
  let auth: Record<string, string>;
  const ids: Record<string, number> = {};

  const newWorker = () =>
    new AlertDeliveryWorker({ store: t.store, clock: t.clock, logger: t.context.logger, discordHosts: [discord.origin], allowPrivate: true, pollMs: 50 });
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers = auth) =>
    t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
  const generation = async (rows: ReturnType<typeof listing>[]) => {
    t.store.changes.publish({ kind: 'auctions', lastUpdated: t.clock.now(), upserted: rows.map(toRecord), removed: [], sales: [] });
    await evaluator.idle();
  };
  const quick = (product: string, buy: number): ProductQuick => ({ product_id: product, ts: t.clock.now(), buy_price: buy, sell_price: buy - 5, buy_volume: 10, sell_volume: 10, buy_moving_week: 100, sell_moving_week: 100, buy_orders: 1, sell_orders: 1 });
  const snapshot = async (buy: number) => {
    t.store.changes.publish({ kind: 'bazaar', ts: t.clock.now(), products: [quick('ENCHANTED_DIAMOND', buy)], books: {} });
    await evaluator.idle();
  };

  const until = (condition: () => Promise<boolean>, what: string) => waitUntil(condition, 10_000, what);
  const attemptsOf = async (price: number) => ((await api('GET', '/api/notifications/deliveries')).json() as Array<{ attempts: number; targetId: number; alert: { price: number } }>).find((d) => d.alert.price === price && d.targetId === ids['hook'])?.attempts ?? 0;
  const targetOf = async (id: number) => ((await api('GET', '/api/notifications/targets')).json() as Array<Record<string, unknown>>).find((x) => x['id'] === id);

  before(async () => {
    discord = await discordStub();
    hook = await signedReceiver();
    t = await createTestApp({ store: fixture().store, env: { EXPORT_WEBHOOK_HOSTS: discord.origin, ALERT_WEBHOOK_PRIVATE_OK: 'true', ALERT_LINK_BASE: 'https://sky.example.org' } });
    auth = { authorization: `Bearer ${(await t.store.accounts.create({ tier: 'premium', now: t.clock.now() })).token}` };
    events = new MarketEvents(t.store, t.clock, { logger: t.context.logger });
    evaluator = new AlertEvaluator({ store: t.store, clock: t.clock, logger: t.context.logger, linkBase: 'https://sky.example.org', reloadMs: 0, onEnqueued: () => worker.nudge() });
    evaluator.attach(events.emitter);
    await events.start();
    worker = newWorker();
    worker.start();
    // The first generation is the events' baseline: nothing in it is new.
    await generation([listing(t.clock.now(), { tag: 'DIRT' })]);
  });
  after(async () => {
    events?.stop();
    await evaluator?.stop();
    await worker?.close();
    await t?.close();
    await discord?.close();
    await hook?.close();
  });

  it('creates targets, alerts and a listener through the established and skymarket routes', async () => {
    const d = await api('POST', '/api/notifications/targets', { type: 3, target: discord.url, when: 2, name: 'discord' });
    assert.equal(d.statusCode, 200, d.body);
    ids['discord'] = d.json().id;
    assert.equal(d.json().secret, undefined, 'a Discord target has no secret');
    const w = await api('POST', '/api/notifications/targets', { type: 1, target: hook.url, when: 2, name: 'signed' });
    assert.equal(w.statusCode, 200, w.body);
    ids['hook'] = w.json().id;
    hook.secret = w.json().secret;
    assert.ok(hook.secret && hook.secret.length >= 32);
    const listed = (await api('GET', '/api/notifications/targets')).json() as Array<Record<string, unknown>>;
    assert.deepEqual(listed.map((x) => [x['id'], x['type'], x['failing'], 'secret' in x]), [[ids['discord'], 3, false, false], [ids['hook'], 1, false, false]]);

    const a = await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'hyperion', maxPrice: 900_000, filters: { ultimate_wise: '5' } }, minIntervalSeconds: 10, targets: [ids['discord'], ids['hook']] });
    assert.equal(a.statusCode, 200, a.body);
    ids['listing'] = a.json().id;
    const b = await api('POST', '/api/notifications/alerts', { spec: { kind: 'bazaar_price', product: 'ENCHANTED_DIAMOND', side: 'buy', direction: 'above', threshold: 200 }, minIntervalSeconds: 10, targets: [ids['hook']] });
    assert.equal(b.statusCode, 200, b.body);
    const l = await api('POST', '/api/notifications/listeners', { topicId: 'TERMINATOR', price: 500_000, type: 1 | 16, filter: null });
    assert.equal(l.statusCode, 200, l.body);
    assert.deepEqual({ ...(l.json() as object), id: 0, userId: 0 }, { id: 0, topicId: 'TERMINATOR', price: 500_000, type: 17, userId: 0, filter: null });
    assert.equal((await api('GET', '/api/notifications/listeners')).json().length, 1);
    assert.equal((await api('GET', '/api/notifications/alerts')).json().length, 3);
  });

  it('delivers a matching listing to Discord (an embed) and to the signed webhook, once each', async () => {
    t.clock.advance(60_000);
    const uuid = 'f'.repeat(32);
    await generation([
      listing(t.clock.now(), { uuid, tag: 'HYPERION', starting_bid: 850_000, enchantments: { ultimate_wise: 5 } }),
      listing(t.clock.now(), { tag: 'HYPERION', starting_bid: 800_000, enchantments: { sharpness: 5 } }),
      listing(t.clock.now(), { tag: 'HYPERION', starting_bid: 950_000, enchantments: { ultimate_wise: 5 } }),
    ]);
    await waitUntil(() => discord.accepted.length >= 1 && hook.accepted.length >= 1, 10_000, 'both receivers');
    const embed = (discord.accepted[0]!.json['embeds'] as Array<Record<string, unknown>>)[0]!;
    assert.match(String(embed['title']), /850,000/);
    assert.equal(embed['url'], `https://sky.example.org/item/HYPERION?auction=${uuid}`);
    const alert = hook.accepted[0]!.json;
    assert.equal(alert['auctionUuid'], uuid);
    assert.equal(alert['price'], 850_000);
    assert.equal(hook.accepted[0]!.headers['idempotency-key'], `${ids['listing']}:listing:${uuid}`);
    assert.equal(hook.badSignatures, 0);
  });

  it('routes a listener to every ALWAYS target, and a bazaar crossing to its target', async () => {
    t.clock.advance(60_000);
    await generation([listing(t.clock.now(), { tag: 'TERMINATOR', starting_bid: 400_000 })]);
    await snapshot(190);
    t.clock.advance(60_000);
    await snapshot(210);
    await waitUntil(() => discord.accepted.length >= 2 && hook.accepted.length >= 3, 10_000, 'listener and bazaar alerts');
    assert.ok(hook.accepted.some((r) => r.json['tag'] === 'ENCHANTED_DIAMOND' && r.json['price'] === 210));
    assert.ok(discord.accepted.some((r) => String((r.json['embeds'] as Array<{ title: string }>)[0]!.title).includes('400,000')));
    // A receiver has the request before the worker has recorded its answer: wait for the record.
    const deliveries = async () => (await api('GET', '/api/notifications/deliveries')).json() as Array<{ status: string }>;
    await until(async () => (await deliveries()).every((x) => x.status === 'delivered'), 'every delivery recorded as delivered');
    assert.equal((await deliveries()).length, 5);
  });

  it('retries with backoff, then marks the target failing with the reason; a later success clears it', async () => {
    hook.failWith = 503;
    t.clock.advance(60_000);
    await generation([listing(t.clock.now(), { tag: 'HYPERION', starting_bid: 700_000, enchantments: { ultimate_wise: 5 } })]);
    await until(async () => (await attemptsOf(700_000)) === 1, 'the first attempt recorded');
    for (let attempt = 2; attempt <= RETRY_DELAYS_MS.length + 1; attempt++) {
      // Not due before its delay: the clock stops just short of it.
      t.clock.advance(RETRY_DELAYS_MS[attempt - 2]! - 1);
      // (The hook's delivery: the Discord one of the same alert may not be recorded yet when the hook's attempt is.)
      assert.equal((await t.store.alerts.due(t.clock.now(), 100)).filter((d) => d.targetId === ids['hook']).length, 0);
      t.clock.advance(1);
      worker.nudge();
      await until(async () => (await attemptsOf(700_000)) === attempt, `attempt ${attempt} recorded`);
    }
    assert.equal(hook.requests.filter((r) => r.json['price'] === 700_000).length, RETRY_DELAYS_MS.length + 1);
    const target = await targetOf(ids['hook']!);
    assert.equal(target?.['failing'], true);
    assert.equal(target?.['lastError'], 'the receiver answered 503');
    const failed = ((await api('GET', '/api/notifications/deliveries')).json() as Array<{ status: string; attempts: number }>).find((x) => x.status === 'failed');
    assert.equal(failed?.attempts, RETRY_DELAYS_MS.length + 1);
    // The Discord target got the same alert once: a failing target does not hold the others back.
    assert.ok(discord.accepted.some((r) => String((r.json['embeds'] as Array<{ title: string }>)[0]!.title).includes('700,000')));

    hook.failWith = undefined;
    assert.equal((await api('POST', '/api/notifications/targets/test', { id: ids['hook'] })).statusCode, 200);
    await waitUntil(() => hook.accepted.some((r) => r.json['test'] === true), 10_000, 'the test alert');
    await until(async () => (await targetOf(ids['hook']!))?.['failing'] === false, 'the target no longer failing');
  });

  it('a restart loses nothing: deliveries stored while no worker ran are sent by the next one, and stored once', async () => {
    hook.failWith = undefined;
    await worker.stop();
    t.clock.advance(60_000);
    const uuid = 'e'.repeat(32);
    await generation([listing(t.clock.now(), { uuid, tag: 'HYPERION', starting_bid: 600_000, enchantments: { ultimate_wise: 5 } })]);
    const pending = (await t.store.alerts.due(t.clock.now(), 100)).filter((d) => d.alertKey.endsWith(uuid));
    assert.equal(pending.length, 2, 'one per target, waiting in the outbox');
    // The same alert evaluated again (a writer that restarted mid-change) is not stored twice.
    assert.equal(await t.store.alerts.enqueue(pending.map((d) => ({ alertKey: d.alertKey, targetId: d.targetId, accountId: d.accountId, subscriptionId: d.subscriptionId, body: d.body })), t.clock.now()), 0);
    await worker.close();
    worker = newWorker();
    worker.start();
    await waitUntil(() => hook.accepted.some((r) => r.json['auctionUuid'] === uuid) && discord.accepted.some((r) => String(r.body).includes(uuid)), 10_000, 'the restarted worker');
    assert.equal(hook.duplicates, 0);
  });

  it('refuses hostile input with problem bodies', async () => {
    const problem = async (res: Awaited<ReturnType<typeof api>>, status: number, slug?: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /problem\+json/);
      if (slug) assert.equal(res.json().slug, slug);
    };
    await problem(await api('POST', '/api/notifications/targets', { type: 3, target: 'https://evil.example/api/webhooks/1/x' }), 400, 'webhook_not_allowed');
    await problem(await api('POST', '/api/notifications/targets', { type: 5, target: 'me@example.org' }), 400, 'invalid_target');
    await problem(await api('POST', '/api/notifications/targets', { type: 1, target: 'ftp://example.org/' }), 400, 'invalid_target');
    await problem(await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'X', filters: { Reforge: 'x'.repeat(5000) } } }), 400, 'too_large');
    await problem(await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'X', filters: Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`f${i}`, '1'])) } }), 400);
    await problem(await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'X', filters: { NoSuchFilter: '1' } } }), 400);
    // Underpriced alerts are accepted now that the valuation is wired (issue 43); a bad percent is still refused.
    await problem(await api('POST', '/api/notifications/alerts', { spec: { kind: 'underpriced', tag: 'HYPERION', percent: 0 } }), 400);
    await problem(await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'X' }, targets: [999_999] }), 400, 'target_not_found');
    await problem(await api('POST', '/api/notifications/listeners', { topicId: 'HYPERION', price: 1, type: 4 }), 400, 'invalid_alert');
    await problem(await api('POST', '/api/notifications/subscriptions', { sourceType: 'Subscription', sourceSubIdRegex: '(a+)+$', targets: [] }), 400, 'invalid_subscription');
    await problem(await api('DELETE', '/api/notifications/targets', { id: 999_999 }), 404, 'target_not_found');
    // A target a subscription still names is not removed (the established service refuses it alike).
    await problem(await api('DELETE', '/api/notifications/targets', { id: ids['hook'] }), 400, 'subscription_depends');
    assert.ok(((await api('GET', '/api/notifications/targets')).json() as Array<{ id: number }>).some((x) => x.id === ids['hook']));
    await problem(await api('GET', '/api/notifications/targets', undefined, {}), 401);
    // Another account sees none of this one's targets, and cannot test them.
    const other = { authorization: `Bearer ${(await t.store.accounts.create({ tier: 'free', now: t.clock.now() })).token}` };
    assert.deepEqual((await api('GET', '/api/notifications/targets', undefined, other)).json(), []);
    await problem(await api('POST', '/api/notifications/targets/test', { id: ids['hook'] }, other), 404, 'target_not_found');
    // The free tier's limit: three subscriptions.
    for (let i = 0; i < 3; i++) assert.equal((await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'DIRT' } }, other)).statusCode, 200);
    await problem(await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'DIRT' } }, other), 403, 'alert_limit');
  });

  it('routes (PublicSubscription) link subscriptions to targets', async () => {
    const r = await api('POST', '/api/notifications/subscriptions', { sourceType: 'Subscription', sourceSubIdRegex: String(ids['listing']), targets: [{ id: ids['hook'], name: 'signed', priority: 1, isDisabled: false }] });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual((await api('GET', '/api/notifications/subscriptions')).json(), [{ sourceType: 'Subscription', id: r.json().id, sourceSubIdRegex: String(ids['listing']), targets: [{ id: ids['hook'], name: 'signed', priority: 1, isDisabled: false }] }]);
    assert.equal((await api('DELETE', '/api/notifications/subscriptions', { id: r.json().id })).statusCode, 200);
    assert.deepEqual((await api('GET', '/api/notifications/subscriptions')).json(), []);
  });

  it('the CLI creates targets and alerts for an account, through the same checks', async () => {
    const { account } = await t.store.accounts.create({ tier: 'starter_premium', now: t.clock.now() });
    const config = { exportWebhookHosts: [discord.origin], alertWebhookPrivateOk: false };
    const made = await alertTargetAdd(t.store, config, String(account.id), { type: 'discord', url: discord.url }, t.clock.now());
    assert.match(made[0]!, /created target \d+/);
    await assert.rejects(alertTargetAdd(t.store, config, String(account.id), { type: 'webhook', url: 'https://10.0.0.1/hook' }, t.clock.now()), /private/);
    await alertAdd(t.store, config, String(account.id), { spec: '{"kind":"lowest_bin","tag":"HYPERION","direction":"below","threshold":500000}' }, t.clock.now());
    await assert.rejects(alertAdd(t.store, config, String(account.id), { spec: '{"kind":"listing","tag":"X","filters":{"NoSuchFilter":"1"}}' }, t.clock.now()), /NoSuchFilter/);
    assert.match((await alertTargetAdd(t.store, config, String(account.id), { type: 'in-game' }, t.clock.now()))[0]!, /created target \d+ \(in-game\)/);
    assert.match((await alertTargetAdd(t.store, config, String(account.id), { type: 'live-feed' }, t.clock.now()))[0]!, /created target \d+ \(live-feed\)/);
    await assert.rejects(alertTargetAdd(t.store, config, String(account.id), { type: 'webhook' }, t.clock.now()), /--url is required/);
    await assert.rejects(alertTargetAdd(t.store, config, String(account.id), { type: 'email', url: 'me@example.org' }, t.clock.now()), /--type must be one of/);
    const listed = await alertList(t.store, String(account.id));
    assert.equal(listed.length, 4);
    assert.match(listed[1]!, /type 6 \(in-game\)$/);
    assert.match(listed[2]!, /type 100 \(live-feed\)$/);
    assert.match(listed[3]!, /lowest_bin/);
  });
});
