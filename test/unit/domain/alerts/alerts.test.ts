/**
 * domain/alerts: specs refused or accepted, the index's matches for every kind (and what it does
 * not look at), the per-subscription rate limit, established listeners read as specs, blocked
 * addresses, target checks and the webhook signature a receiver verifies.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { isBlockedAddress } from '../../../../src/domain/alerts/addresses.ts';
import { listenerSpec } from '../../../../src/domain/alerts/established.ts';
import { AlertIndex, type EvaluationCounts } from '../../../../src/domain/alerts/index.ts';
import { HourlyMedians } from '../../../../src/domain/alerts/medians.ts';
import { AlertSpecError, parseAlertSpec, parseIntervalMs, type AlertSpec, type AlertSubscription } from '../../../../src/domain/alerts/spec.ts';
import { alertBody, discordMessage, nextAttemptAt, RETRY_DELAYS_MS, signature, targetProblem, TARGET_TYPES, verifySignature } from '../../../../src/domain/alerts/targets.ts';
import { FilterError } from '../../../../src/domain/filters.ts';
import type { DraftEvent } from '../../../../src/domain/stream-events.ts';

const T0 = Date.UTC(2026, 10, 29, 12);
let nextId = 1;
const sub = (spec: unknown, minIntervalMs = 60_000): AlertSubscription => ({ id: nextId++, accountId: 7, spec: parseAlertSpec(spec), minIntervalMs });

function listing(uuid: string, over: { tag?: string; price?: number; bin?: boolean; seller?: string; reforge?: string; enchantments?: Record<string, number> } = {}): DraftEvent {
  const price = over.price ?? 1000;
  return {
    topic: 'auction.new',
    time: T0,
    uuid,
    tag: over.tag ?? 'HYPERION',
    variant: null,
    bin: over.bin ?? true,
    startingBid: price,
    highestBid: 0,
    seller: over.seller ?? 'a'.repeat(32),
    start: T0,
    end: T0 + 3_600_000,
    price,
    item: { itemName: 'Hyperion', count: 1, tier: 'LEGENDARY', reforge: over.reforge ?? null, itemUid: null, itemCreatedAt: null, enchantments: over.enchantments ?? {}, flatNbt: {} },
  } as DraftEvent;
}

const lbin = (tag: string, oldPrice: number | null, newPrice: number | null, time = T0): DraftEvent => ({ topic: 'lbin.changed', time, tag, variant: null, oldPrice, newPrice, listing: null }) as DraftEvent;
const bazaar = (product: string, buyPrice: number, sellPrice: number, time = T0): DraftEvent =>
  ({ topic: 'bazaar.changed', time, product, buyPrice, sellPrice, buyVolume: 1, sellVolume: 1, buyMovingWeek: 1, sellMovingWeek: 1, buyOrders: 1, sellOrders: 1, topBuyOrders: null, topSellOffers: null }) as DraftEvent;

describe('alert specs', () => {
  it('accepts every kind and normalises tags and player uuids', () => {
    assert.deepEqual(parseAlertSpec({ kind: 'listing', tag: 'hyperion', maxPrice: 800e6, filters: { ultimate_wise: '5' } }), { kind: 'listing', tag: 'HYPERION', filters: { ultimate_wise: '5' }, binOnly: true, maxPrice: 800e6 });
    assert.equal((parseAlertSpec({ kind: 'player_auctions', player: 'ABCDEF01-2345-6789-abcd-ef0123456789' }) as { player: string }).player, 'abcdef0123456789abcdef0123456789');
    for (const spec of [
      { kind: 'lowest_bin', tag: 'PET_ENDER_DRAGON', variant: 'LEGENDARY', direction: 'below', threshold: 1 },
      { kind: 'bazaar_price', product: 'ENCHANTED_DIAMOND', side: 'buy', direction: 'above', threshold: 200 },
      { kind: 'bazaar_median', product: 'ENCHANTED_DIAMOND', side: 'sell', direction: 'above', percent: 10 },
      { kind: 'underpriced', tag: 'HYPERION', percent: 20 },
    ]) assert.equal(parseAlertSpec(spec).kind, spec.kind);
  });

  it('refuses hostile specs with a named reason', () => {
    const refused = (spec: unknown, slug = 'invalid_alert') => assert.throws(() => parseAlertSpec(spec), (e: unknown) => e instanceof AlertSpecError && e.slug === slug);
    refused(null);
    refused([]);
    refused({ kind: 'nope' });
    refused({ kind: 'listing', tag: '../../etc' });
    refused({ kind: 'listing', tag: 'X', maxPrice: -1 });
    refused({ kind: 'listing', tag: 'X', maxPrice: Number.POSITIVE_INFINITY });
    refused({ kind: 'lowest_bin', tag: 'X', direction: 'sideways', threshold: 1 });
    refused({ kind: 'bazaar_median', product: 'X', side: 'buy', direction: 'above', percent: 0 });
    refused({ kind: 'player_auctions', player: 'Notch' });
    refused({ kind: 'listing', tag: 'X', filters: { Reforge: 'x'.repeat(5000) } }, 'too_large');
    const many = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`Filter${i}`, '1']));
    assert.throws(() => parseAlertSpec({ kind: 'listing', tag: 'X', filters: many }), FilterError);
    assert.throws(() => parseAlertSpec({ kind: 'listing', tag: 'X', filters: { NoSuchFilter: '1' } }), FilterError);
    assert.throws(() => parseIntervalMs(1), AlertSpecError);
    assert.equal(parseIntervalMs(undefined), 60_000);
  });
});

describe('the alert index', () => {
  it('a new listing matches its tag, filters, price cap and BIN rule; other tags are not looked at', () => {
    const cheap = sub({ kind: 'listing', tag: 'HYPERION', maxPrice: 900 });
    const withFilter = sub({ kind: 'listing', tag: 'HYPERION', filters: { Reforge: 'Heroic' } });
    const auctionsToo = sub({ kind: 'listing', tag: 'HYPERION', binOnly: false, maxPrice: 5000 });
    const other = sub({ kind: 'listing', tag: 'TERMINATOR' });
    const index = new AlertIndex([cheap, withFilter, auctionsToo, other]);
    const counts: EvaluationCounts = { checked: 0, matched: 0, rateLimited: 0 };
    const out = index.evaluate([listing('u1', { price: 1000 }), listing('u2', { price: 800, reforge: 'heroic' }), listing('u3', { price: 10, bin: false, tag: 'HYPERION' })], { now: T0 }, counts);
    const by = (id: number) => out.filter((a) => a.subscriptionId === id).map((a) => a.auctionUuid);
    assert.deepEqual(by(cheap.id), ['u2']);
    assert.deepEqual(by(withFilter.id), ['u2']);
    assert.deepEqual(by(auctionsToo.id), ['u1']); // u2 and u3 are within its minimum interval
    assert.deepEqual(by(other.id), []);
    assert.equal(counts.checked, 9, 'three HYPERION subscriptions per HYPERION event; TERMINATOR never checked');
    assert.equal(out[0]!.key, `${auctionsToo.id}:listing:u1`);
  });

  it('the minimum interval holds per subscription, and lets the next alert through after it', () => {
    const s = sub({ kind: 'listing', tag: 'HYPERION' }, 60_000);
    const index = new AlertIndex([s]);
    assert.equal(index.evaluate([listing('a')], { now: T0 }).length, 1);
    assert.equal(index.evaluate([listing('b')], { now: T0 + 59_999 }).length, 0);
    assert.equal(index.evaluate([listing('c')], { now: T0 + 60_000 }).length, 1);
  });

  it('lowest BIN and bazaar prices alert when they cross, not while they stay across', () => {
    const below = sub({ kind: 'lowest_bin', tag: 'HYPERION', direction: 'below', threshold: 500 }, 10_000);
    const buyAbove = sub({ kind: 'bazaar_price', product: 'ENCHANTED_DIAMOND', side: 'buy', direction: 'above', threshold: 200 }, 10_000);
    const index = new AlertIndex([below, buyAbove]);
    let now = T0;
    const run = (e: DraftEvent) => index.evaluate([e], { now: (now += 60_000) }).map((a) => a.subscriptionId);
    assert.deepEqual(run(lbin('HYPERION', 600, 550)), []);
    assert.deepEqual(run(lbin('HYPERION', 550, 480)), [below.id]);
    assert.deepEqual(run(lbin('HYPERION', 480, 450)), [], 'already below');
    assert.deepEqual(run(bazaar('ENCHANTED_DIAMOND', 190, 180)), []);
    assert.deepEqual(run(bazaar('ENCHANTED_DIAMOND', 210, 180)), [buyAbove.id]);
    assert.deepEqual(run(bazaar('ENCHANTED_DIAMOND', 215, 180)), []);
    assert.deepEqual(run(bazaar('ENCHANTED_DIAMOND', 150, 140)), []);
    assert.deepEqual(run(bazaar('ENCHANTED_DIAMOND', 201, 140)), [buyAbove.id]);
  });

  it('a bazaar price moving a percentage against its hourly median', () => {
    const s = sub({ kind: 'bazaar_median', product: 'ENCHANTED_DIAMOND', side: 'buy', direction: 'above', percent: 10 }, 10_000);
    const index = new AlertIndex([s]);
    const medians = new HourlyMedians();
    const at = (h: number) => T0 + h * 3_600_000;
    for (const [h, p] of [[0, 100], [1, 102], [2, 98], [3, 100]] as const) medians.seed('ENCHANTED_DIAMOND', 'buy', at(h), p);
    assert.equal(medians.median('ENCHANTED_DIAMOND', 'buy'), 100);
    assert.equal(index.evaluate([bazaar('ENCHANTED_DIAMOND', 109, 1, at(4))], { now: at(4), medians }).length, 0);
    const out = index.evaluate([bazaar('ENCHANTED_DIAMOND', 111, 1, at(4))], { now: at(4) + 60_000, medians });
    assert.equal(out.length, 1);
    assert.equal(out[0]!.reference, 100);
    assert.equal(new HourlyMedians().median('X', 'buy'), undefined, 'no median from too few hours');
  });

  it("a player's auctions, and underpriced listings through a value source", () => {
    const player = 'b'.repeat(32);
    const watch = sub({ kind: 'player_auctions', player });
    const under = sub({ kind: 'underpriced', tag: 'HYPERION', percent: 20 });
    const index = new AlertIndex([watch, under]);
    const values = { valueOf: () => 1000 };
    const out = index.evaluate([listing('p1', { seller: player, price: 900 }), listing('p2', { price: 790 })], { now: T0, values });
    assert.deepEqual(out.map((a) => [a.subscriptionId, a.auctionUuid]), [[watch.id, 'p1'], [under.id, 'p2']]);
    assert.equal(new AlertIndex([sub({ kind: 'underpriced', tag: 'HYPERION', percent: 20 })]).evaluate([listing('p3', { price: 10 })], { now: T0 }).length, 0, 'no value source: never fires');
  });
});

describe('established listeners', () => {
  it('read as specs', () => {
    const spec = (type: number, topicId = 'HYPERION', product = false): AlertSpec => listenerSpec({ topicId, price: 800, type, filter: null }, product);
    assert.deepEqual(spec(1 | 16), { kind: 'listing', tag: 'HYPERION', filters: {}, binOnly: true, maxPrice: 800 });
    assert.equal(spec(2).kind, 'lowest_bin');
    assert.deepEqual(spec(1 | 32, 'ENCHANTED_DIAMOND', true), { kind: 'bazaar_price', product: 'ENCHANTED_DIAMOND', side: 'sell', direction: 'below', threshold: 800 });
    assert.equal(spec(128, 'c'.repeat(32)).kind, 'player_auctions');
    assert.throws(() => spec(4), AlertSpecError);
    assert.throws(() => listenerSpec({ topicId: 'HYPERION', price: 1, type: 1, filter: '{not json' }, false), AlertSpecError);
  });
});

describe('targets', () => {
  it('blocks private, loopback, link-local and reserved addresses, v4 and v6', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'nonsense']) {
      assert.ok(isBlockedAddress(ip), ip);
    }
    for (const ip of ['1.1.1.1', '162.159.128.233', '2606:4700::6810:84e5', '::ffff:8.8.8.8']) assert.ok(!isBlockedAddress(ip), ip);
  });

  it('checks a target before storing it', () => {
    const check = (type: number, target: string, allowPrivate = false) => targetProblem(type, target, ['discord.com'], allowPrivate, isBlockedAddress);
    assert.equal(check(TARGET_TYPES.DISCORD_WEBHOOK, 'https://discord.com/api/webhooks/1/abc'), null);
    assert.match(check(TARGET_TYPES.DISCORD_WEBHOOK, 'https://evil.example/api/webhooks/1/abc')!, /allowed host/);
    assert.equal(check(TARGET_TYPES.WEBHOOK, 'https://hooks.example.org/skymarket'), null);
    assert.match(check(TARGET_TYPES.WEBHOOK, 'http://hooks.example.org/')!, /https/);
    assert.match(check(TARGET_TYPES.WEBHOOK, 'https://127.0.0.1/')!, /private/);
    assert.match(check(TARGET_TYPES.WEBHOOK, 'https://[::1]/')!, /private/);
    assert.match(check(TARGET_TYPES.WEBHOOK, 'https://localhost/')!, /local name/);
    assert.match(check(TARGET_TYPES.WEBHOOK, 'https://user:pw@hooks.example.org/')!, /credentials/);
    assert.match(check(TARGET_TYPES.EMAIL, 'a@b.c')!, /not delivered/);
    assert.equal(check(TARGET_TYPES.WEBHOOK, 'http://127.0.0.1:9000/', true), null, 'the test seam');
  });

  it('signs what a receiver can verify, and embeds what Discord shows', () => {
    const body = JSON.stringify({ id: 'k' });
    const sig = signature('s3cret', '1764417600', body);
    assert.equal(sig, `v1=${createHmac('sha256', 's3cret').update(`1764417600.${body}`).digest('hex')}`);
    assert.ok(verifySignature('s3cret', '1764417600', body, sig));
    assert.ok(!verifySignature('other', '1764417600', body, sig));
    assert.ok(!verifySignature('s3cret', '1764417601', body, sig));
    const draft = { key: '1:listing:u', subscriptionId: 1, accountId: 2, kind: 'listing' as const, at: T0, title: 'Hyperion listed for 1,000 coins', tag: 'HYPERION', itemName: 'Hyperion', price: 1000, auctionUuid: 'u', reference: 1200 };
    const wire = alertBody(draft, 'https://sky.example.org/');
    assert.equal(wire.link, 'https://sky.example.org/item/HYPERION?auction=u');
    const embed = (discordMessage(wire)['embeds'] as Array<Record<string, unknown>>)[0]!;
    assert.equal(embed['url'], wire.link);
    assert.ok(JSON.stringify(embed['fields']).includes('1,000'));
    assert.equal(alertBody(draft, '').link, null);
  });

  it('backs off, then gives up', () => {
    assert.equal(nextAttemptAt(1, T0), T0 + RETRY_DELAYS_MS[0]);
    assert.equal(nextAttemptAt(RETRY_DELAYS_MS.length + 1, T0), null);
  });
});
