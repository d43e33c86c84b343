import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

const ALICE = '0123456789abcdef0123456789abcdef';
const BOB = 'fedcba9876543210fedcba9876543210';
const PROFILE = 'aa'.repeat(16);
const DAY = 86_400_000;

describe('player endpoints (player API key)', () => {
  let t: TestApp;
  let aliceKey: string;
  let bobKey: string;
  let t0: number;
  before(async () => {
    t = await createTestApp();
    t0 = t.clock.now();
    aliceKey = (await t.store.apiKeys.create({ playerUuid: ALICE, now: t0 })).token;
    bobKey = (await t.store.apiKeys.create({ playerUuid: BOB, now: t0 })).token;
    await t.store.players.mergeState(ALICE, PROFILE, { purse: 123456, bits: 42, boosterCookieExpires: '2026-12-01T00:00:00.000Z', heartOfTheMountain: { tier: 7, perks: { mining_speed: 50 } } }, t0);
    await t.store.players.replaceOrders(ALICE, [{ isSell: false, itemTag: 'WHEAT', itemName: 'Wheat', amount: 640, filled: 64, pricePerUnit: 2.4, created: t0 - 1000, customers: [{ playerName: 'Bob', amount: 64, timeStamp: t0 - 500 }] }], t0);
    await t.store.players.addFlips(ALICE, [{ itemTag: 'WHEAT', itemName: 'Wheat', amount: 640, buyPrice: 1536, sellPrice: 1920.5, soldAt: t0 - 100 }]);
    await t.store.players.addFlips(BOB, [{ itemTag: 'CARROT_ITEM', itemName: 'Carrot', amount: 1, buyPrice: 1, sellPrice: 2, soldAt: t0 }]);
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  it('extracted: the key player state with defaults for what was never synced', async () => {
    const res = await get(`/api/player/extracted?apiKey=${aliceKey}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.purse, 123456);
    assert.equal(body.bits, 42);
    assert.equal(body.boosterCookieExpires, '2026-12-01T00:00:00.000Z');
    assert.deepEqual(body.heartOfTheMountain, { tier: 7, perks: { mining_speed: 50 } });
    assert.equal(body.currentServer, null);
    assert.equal(body.kuudraStart, '0001-01-01T00:00:00.000Z');
    // Objects never synced are sent as null, as the established service does (clients read them without a presence check).
    for (const field of ['composter', 'activePet', 'currentSession', 'heartOfTheForest', 'katStatus', 'playerElectionVote', 'weaponInHuntaxe']) {
      assert.ok(field in body && body[field] === null, `${field} is present and null`);
    }
    // Bob never synced: full default shape.
    const bob = (await get('/api/player/extracted', { 'x-api-key': bobKey })).json();
    assert.equal(bob.purse, 0);
    assert.equal(bob.pets, null);
  });

  it('orders and flips in the reference shapes; a key reads only its own player', async () => {
    const orders = (await get(`/api/player/bazaar/orders?key=${aliceKey}`)).json();
    assert.deepEqual(orders, [
      { isSell: false, itemTag: 'WHEAT', itemName: 'Wheat', amount: 640, filled: 64, pricePerUnit: 2.4, created: new Date(t0 - 1000).toISOString(), customers: [{ playerName: 'Bob', amount: 64, timeStamp: new Date(t0 - 500).toISOString() }] },
    ]);
    const flips = (await get(`/api/player/bazaar/flips?apikey=${aliceKey}`)).json() as Array<{ year: number }>;
    assert.deepEqual(flips, [
      { playerUuid: '01234567-89ab-cdef-0123-456789abcdef', year: flips[0]!.year, itemTag: 'WHEAT', itemName: 'Wheat', amount: 640, buyPrice: 15360, sellPrice: 19205, profit: 3845, soldAt: new Date(t0 - 100).toISOString() },
    ]);
    assert.ok(flips[0]!.year > 400, 'SkyBlock year');
    assert.deepEqual((await get('/api/player/bazaar/orders', { 'x-api-key': bobKey })).json(), []);
    const bobFlips = (await get('/api/player/bazaar/flips', { 'x-api-key': bobKey })).json();
    assert.deepEqual(bobFlips.map((f: { itemTag: string }) => f.itemTag), ['CARROT_ITEM']);
  });

  it('401 with a clear message for a missing, malformed, unknown, expired or revoked key', async () => {
    const doomed = await t.store.apiKeys.create({ playerUuid: ALICE, now: t0 });
    await t.store.apiKeys.revoke(doomed.key.id, t0);
    const old = await t.store.apiKeys.create({ playerUuid: ALICE, now: t0 - 181 * DAY });
    const cases: Array<[string, string]> = [
      ['', 'api_key_required'],
      ['?apiKey=nonsense', 'api_key_malformed'],
      [`?apiKey=sk_${'A'.repeat(43)}`, 'api_key_invalid'],
      [`?apiKey=${doomed.token}`, 'api_key_revoked'],
      [`?apiKey=${old.token}`, 'api_key_expired'],
    ];
    for (const path of ['/api/player/extracted', '/api/player/bazaar/orders', '/api/player/bazaar/flips']) {
      for (const [query, slug] of cases) {
        const res = await get(path + query);
        assert.equal(res.statusCode, 401, `${path}${query}`);
        assert.equal(res.json().slug, slug);
        assert.ok(res.json().detail.length > 10);
      }
    }
  });
});
