/**
 * The live-feed (LIVE_FEED, skymarket's target 100) and mod-channel (IN_GAME, 6) alert targets on
 * SQLite and PostgreSQL (issue 47): targets created with the names the established client sends,
 * a subscription, a committed change on the store's spine, the evaluator and the delivery worker;
 * the alert arrives on the account's `alert` topic (SSE, resumable with Last-Event-ID, invisible
 * to other accounts and to "all topics") and as `writeToChat` on the account's mod session. An
 * alert for an account with no mod session waits in the outbox, across a restart of the app, and
 * goes out when a session connects; after IN_GAME_HOLD_MS it fails with the reason.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { AlertEvaluator } from '../../../src/jobs/alert-evaluator.ts';
import { AlertDeliveryWorker } from '../../../src/jobs/alert-delivery.ts';
import { MarketEvents } from '../../../src/market/events.ts';
import { IN_GAME_HOLD_MS } from '../../../src/domain/alerts/targets.ts';
import { toRecord } from '../../../src/store/repositories/auction-queries.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { ModClient, type Reply } from '../mod/helpers.ts';
import { openSse, type FeedEvent, type SseClient } from '../stream/clients.ts';
import { waitUntil } from '../../helpers/wait.ts';

describeEachBackend('alert targets: the live feed and the mod channel', (fixture) => {
  let t: TestApp;
  let base: string;
  let events: MarketEvents;
  let evaluator: AlertEvaluator;
  let worker: AlertDeliveryWorker;
  let token: string;
  let otherToken: string;
  let auth: Record<string, string>;
  const ids: Record<string, number> = {};
  const open: Array<{ close(): void }> = [];
  let firstAlertEventId = '';

  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, headers = auth) =>
    t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });
  const generation = async (rows: ReturnType<typeof listing>[]) => {
    t.store.changes.publish({ kind: 'auctions', lastUpdated: t.clock.now(), upserted: rows.map(toRecord), removed: [], sales: [] });
    await evaluator.idle();
  };
  const hyperion = (uuid: string, price: number) => listing(t.clock.now(), { uuid, tag: 'HYPERION', starting_bid: price });
  const deliveries = async () => (await api('GET', '/api/notifications/deliveries')).json() as Array<{ status: string; targetId: number; lastError: string | null; alert: { auctionUuid: string | null; test?: boolean } }>;
  const deliveryOf = async (uuid: string, targetId: number) => (await deliveries()).find((d) => d.alert.auctionUuid === uuid && d.targetId === targetId);
  const until = (condition: () => Promise<boolean>, what: string) => waitUntil(condition, 10_000, what);
  const sse = async (query: string, headers: Record<string, string> = {}) => {
    const c = await openSse(`${base}/api/stream${query}`, headers);
    open.push(c);
    return c;
  };
  const mod = async (tok: string) => {
    const c = await ModClient.connect(`${base.replace('http', 'ws')}/modsocket`, { authorization: `Bearer ${tok}` });
    open.push(c);
    await c.next((m) => m.type === 'welcome');
    return c;
  };
  const alertsOn = (c: SseClient) => c.events.filter((e) => e.topic === 'alert');
  const chatFor = (uuid: string) => (m: Reply) => m.type === 'writeToChat' && (m['alert'] as { auctionUuid?: string } | undefined)?.auctionUuid === uuid;

  /** Builds the app and the alert pipeline; a restart's clock goes on from where the last one stood. */
  async function start(now?: number, startWorker = true): Promise<void> {
    t = await createTestApp({ store: fixture().store });
    if (now !== undefined) t.clock.set(now);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    events = new MarketEvents(t.store, t.clock, { logger: t.context.logger });
    evaluator = new AlertEvaluator({ store: t.store, clock: t.clock, logger: t.context.logger, linkBase: '', reloadMs: 0, onEnqueued: () => worker.nudge() });
    evaluator.attach(events.emitter);
    await events.start();
    const hub = t.context.streamHub!;
    worker = new AlertDeliveryWorker({ store: t.store, clock: t.clock, logger: t.context.logger, discordHosts: [], pollMs: 50, publish: (e) => hub.publish(e) });
    if (startWorker) worker.start();
    // The first generation is the events' baseline: nothing in it is new.
    if (now !== undefined) await generation([listing(t.clock.now(), { tag: 'DIRT' })]);
  }
  async function stop(): Promise<void> {
    for (const c of open.splice(0)) c.close();
    events?.stop();
    await evaluator?.stop();
    await worker?.close();
    await t?.close();
  }

  before(async () => {
    await start();
    // Held for the whole file: the fixture's store outlives the apps built on it.
    token = (await t.store.accounts.create({ tier: 'premium', now: t.clock.now() })).token;
    otherToken = (await t.store.accounts.create({ tier: 'premium', now: t.clock.now() })).token;
    auth = { authorization: `Bearer ${token}` };
    // The first generation is the events' baseline: nothing in it is new.
    await generation([listing(t.clock.now(), { tag: 'DIRT' })]);
  });
  after(stop);

  it('creates IN_GAME and LIVE_FEED targets from the names the established client sends; their target is null', async () => {
    const inGame = await api('POST', '/api/notifications/targets', { id: undefined, type: 'InGame', when: 'ALWAYS', target: null, name: 'in game', useCount: 0 });
    assert.equal(inGame.statusCode, 200, inGame.body);
    ids['inGame'] = inGame.json().id;
    const live = await api('POST', '/api/notifications/targets', { type: 100, target: 'ignored', when: 2, name: 'live feed' });
    assert.equal(live.statusCode, 200, live.body);
    ids['live'] = live.json().id;
    const listed = (await api('GET', '/api/notifications/targets')).json() as Array<Record<string, unknown>>;
    assert.deepEqual(
      listed.map((x) => [x['id'], x['type'], x['when'], x['target']]),
      [
        [ids['inGame'], 6, 2, null],
        [ids['live'], 100, 2, null],
      ],
    );
    const bad = await api('POST', '/api/notifications/targets', { type: 'CARRIER_PIGEON', target: null });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.equal(bad.json().slug, 'invalid_target');
    const badWhen = await api('POST', '/api/notifications/targets', { type: 'InGame', when: 'SOMETIMES' });
    assert.equal(badWhen.statusCode, 400, badWhen.body);
    const a = await api('POST', '/api/notifications/alerts', { spec: { kind: 'listing', tag: 'HYPERION', maxPrice: 900_000 }, minIntervalSeconds: 10, targets: [ids['inGame'], ids['live']] });
    assert.equal(a.statusCode, 200, a.body);
  });

  it('the alert topic needs an account token and reaches only its own account', async () => {
    const anonymous = await sse('?topics=alert');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.problem?.['slug'], 'token_required');
  });

  it('an alert goes on the account’s feed topic and to its mod session as writeToChat, once each', async () => {
    const mine = await sse('?topics=alert', auth);
    const theirs = await sse('?topics=alert', { authorization: `Bearer ${otherToken}` });
    const everything = await sse('', auth);
    const session = await mod(token);
    const otherSession = await mod(otherToken);
    t.clock.advance(60_000);
    const uuid = 'a'.repeat(32);
    await generation([hyperion(uuid, 850_000)]);
    await mine.waitFor((e) => alertsOn({ events: e } as SseClient).length >= 1, 10_000, 'the alert on the feed');
    const event = alertsOn(mine)[0]! as FeedEvent & { accountId: number; alert: Record<string, unknown> };
    assert.equal(event.alert['auctionUuid'], uuid);
    assert.equal(event.alert['price'], 850_000);
    assert.match(String(event.id), /^\d+-\d+-\d+$/);
    const chat = await session.next(chatFor(uuid), 10_000);
    assert.equal((chat['alert'] as { id: string }).id, event.alert['id'], 'one idempotency key in both channels');
    assert.match(String(chat.data.text), /Hyperion|HYPERION/);
    assert.equal(chat.data.onClick, `/viewauction ${uuid}`);
    await until(async () => (await deliveryOf(uuid, ids['inGame']!))?.status === 'delivered' && (await deliveryOf(uuid, ids['live']!))?.status === 'delivered', 'both deliveries recorded');
    // Everything else that followed reached the "all topics" connection; the alert did not, nor the other account.
    await everything.waitFor((e) => e.some((x) => x.topic === 'auction.new' && x['uuid'] === uuid), 10_000, 'the listing on the public feed');
    assert.equal(alertsOn(everything).length, 0);
    assert.equal(alertsOn(theirs).length, 0);
    assert.equal(otherSession.messages.filter((m) => m.type === 'writeToChat').length, 0);
    assert.equal(session.messages.filter(chatFor(uuid)).length, 0, 'sent once');
    firstAlertEventId = String(event.id);
    mine.close();
  });

  it('a client that reconnects with Last-Event-ID gets the alerts it missed', async () => {
    const lastSeen = firstAlertEventId;
    t.clock.advance(60_000);
    const uuid = 'b'.repeat(32);
    await generation([hyperion(uuid, 840_000)]);
    await until(async () => (await deliveryOf(uuid, ids['live']!))?.status === 'delivered', 'the missed alert published');
    const again = await sse('?topics=alert', { ...auth, 'last-event-id': lastSeen });
    await again.waitFor((e) => e.some((x) => x.topic === 'alert' && (x['alert'] as { auctionUuid: string }).auctionUuid === uuid), 10_000, 'the missed alert');
    assert.equal(alertsOn(again).length, 1, 'only what came after the id');
  });

  it('holds an in-game alert while no session is connected, across a restart, and sends it when one connects', async () => {
    for (const c of open.splice(0)) c.close();
    // No delivery worker either (the jobs leader is down): the live-feed delivery waits too.
    await worker.stop();
    t.clock.advance(60_000);
    const uuid = 'c'.repeat(32);
    await generation([hyperion(uuid, 830_000)]);
    assert.equal((await deliveryOf(uuid, ids['live']!))?.status, 'pending');
    assert.equal((await deliveryOf(uuid, ids['inGame']!))?.status, 'pending');
    // The jobs leader leaves the in-game one to the mod channel.
    assert.deepEqual((await t.store.alerts.due(t.clock.now(), 100, [6])).map((d) => d.targetId), [ids['live']]);
    const now = t.clock.now();
    await stop();
    // One process: the restarted feed starts empty (an id from before is a gap), so the client connects first.
    await start(now, false);
    const feed = await sse('?topics=alert', auth);
    worker.start();
    const session = await mod(token);
    const chat = await session.next(chatFor(uuid), 10_000);
    assert.equal((chat['alert'] as { price: number }).price, 830_000);
    await feed.waitFor((e) => e.some((x) => x.topic === 'alert' && (x['alert'] as { auctionUuid: string }).auctionUuid === uuid), 10_000, 'the held live-feed alert after the restart');
    await until(async () => (await deliveryOf(uuid, ids['inGame']!))?.status === 'delivered' && (await deliveryOf(uuid, ids['live']!))?.status === 'delivered', 'both marked delivered');
  });

  it('a test alert reaches the mod session; an alert held past 24 hours fails with the reason, the target stays healthy', async () => {
    const session = await mod(token);
    assert.equal((await api('POST', '/api/notifications/targets/test', { id: ids['inGame'] })).statusCode, 200);
    const test = await session.next((m) => m.type === 'writeToChat' && (m['alert'] as { test?: boolean }).test === true, 10_000);
    assert.match(String(test.data.text), /Test alert/);
    session.close();
    await session.waitClose();
    t.clock.advance(60_000);
    const uuid = 'd'.repeat(32);
    await generation([hyperion(uuid, 820_000)]);
    await until(async () => (await deliveryOf(uuid, ids['inGame']!))?.status === 'pending', 'the held delivery');
    t.clock.advance(IN_GAME_HOLD_MS + 60_000);
    assert.equal(await worker.expireHeld(), 1);
    const failed = await deliveryOf(uuid, ids['inGame']!);
    assert.equal(failed?.status, 'failed');
    assert.match(String(failed?.lastError), /no mod session/);
    const target = ((await api('GET', '/api/notifications/targets')).json() as Array<Record<string, unknown>>).find((x) => x['id'] === ids['inGame']);
    assert.equal(target?.['failing'], false);
  });
});
