/**
 * Networth on simulator data, on SQLite and PostgreSQL: a posted profile (the established
 * `POST /api/networth`) and the same profile stored as ingestion stores it
 * (`GET /api/player/{uuid}/networth`): the totals add up (member = containers + pets + purse,
 * profile = member + bank), an unreadable container counts 0, a missing profile is queued (202),
 * bad input is a 4xx problem.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { trimProfiles } from '../../../src/domain/craft/progress.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import type { SimMarket } from '../../helpers/sim-market.ts';
import { fillValuedMarket, inventoryBytes, itemCompound } from '../../helpers/valued-market.ts';

const PLAYER = '0123456789abcdef0123456789abcdef';
const COOP = 'fedcba9876543210fedcba9876543210';

interface Container {
  name: string;
  category: string;
  value: number;
  items: number;
  unknown: number;
  readable: boolean;
}
interface StoredAnswer {
  player: string;
  profiles: Array<{
    profileId: string;
    fullValue: number;
    bank: number;
    member: { fullValue: number; purse: number; valuePerCategory: Record<string, number>; containers: Container[]; pets: { value: number; count: number } } | null;
  }>;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describeEachBackend('networth endpoints', (fixture) => {
  let t: TestApp;
  let sim: SimMarket;
  let profile: Record<string, unknown>;
  let inventoryItems: number;

  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    const filled = await fillValuedMarket(t);
    sim = filled.sim;
    const page = filled.page;
    const bins = page.filter((a) => a.bin);
    const compounds = await Promise.all(bins.slice(0, 12).map((a) => itemCompound(a.item_bytes)));
    inventoryItems = compounds.length;
    const member = (n: number) => ({
      inventory: {
        inv_contents: { type: 0, data: inventoryBytes([...compounds, undefined]) },
        inv_armor: { type: 0, data: inventoryBytes(compounds.slice(0, 4 - n)) },
        wardrobe_contents: { type: 0, data: 'H4sIAAAAAAAA/this is not nbt' },
        backpack_contents: { '0': { type: 0, data: bins[20]!.item_bytes }, '1': { type: 0, data: bins[21]!.item_bytes } },
        bag_contents: { talisman_bag: { type: 0, data: bins[22]!.item_bytes } },
      },
      pets_data: { pets: [{ type: 'ENDER_DRAGON', tier: 'LEGENDARY', exp: 25_353_230, heldItem: null, candyUsed: 0, skin: null, active: true }, { type: 'NOT A PET !', tier: 'EPIC', exp: 0 }] },
      currencies: { coin_purse: 12_345.6 + n, motes_purse: 0 },
    });
    profile = { profile_id: 'aaaabbbbccccddddeeeeffff00001111', cute_name: 'Mango', selected: true, banking: { balance: 1_000_000 }, members: { [PLAYER]: member(0), [COOP]: member(1) } };
    await t.app.ready();
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  it('POST /api/networth: a NetworthBreakDown whose total is the members plus the bank, each member the sum of its categories', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/networth', payload: profile });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { fullValue: number; member: Record<string, { fullValue: number; valuePerCategory: Record<string, number> }> };
    assert.deepEqual(Object.keys(body.member).sort(), [COOP, PLAYER].sort());
    for (const m of Object.values(body.member)) assert.equal(m.fullValue, sum(Object.values(m.valuePerCategory)));
    assert.equal(body.fullValue, sum(Object.values(body.member).map((m) => m.fullValue)) + 1_000_000);
    const mine = body.member[PLAYER]!.valuePerCategory;
    assert.equal(mine['purse'], 12_346);
    assert.ok(mine['inventory']! > 0, 'the inventory is worth something');
    assert.ok(mine['pets']! > 0, 'the legendary ender dragon is worth something');
    assert.equal(mine['wardrobe'], 0, 'the unreadable wardrobe counts 0');
  });

  it('GET /api/player/{uuid}/networth: queued (202) until stored, then per container, and the same totals as posted', async () => {
    const queued = await t.app.inject({ method: 'GET', url: `/api/player/${PLAYER}/networth` });
    assert.equal(queued.statusCode, 202, queued.body);
    assert.equal(queued.json().slug, 'profile_queued');
    assert.deepEqual(await t.store.profileRequests.queued(10), [PLAYER]);

    // Stored as the ingest poller stores it: trimmed to the player's own membership.
    await t.store.profileRequests.stored(PLAYER, trimProfiles([profile], PLAYER), t.clock.now());
    const res = await t.app.inject({ method: 'GET', url: `/api/player/${PLAYER.replace(/^(.{8})(.{4})/, '$1-$2-')}/networth` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as StoredAnswer;
    assert.equal(body.profiles.length, 1);
    const p = body.profiles[0]!;
    const m = p.member!;
    assert.equal(p.bank, 1_000_000);
    assert.equal(p.fullValue, m.fullValue + p.bank);
    assert.equal(m.fullValue, sum(m.containers.map((c) => c.value)) + m.pets.value + m.purse);
    assert.equal(m.fullValue, sum(Object.values(m.valuePerCategory)));
    const byName = new Map(m.containers.map((c) => [c.name, c]));
    assert.equal(byName.get('inventory')!.items, inventoryItems, 'every item of the inventory counted, the empty slot not');
    assert.equal(byName.get('wardrobe')!.readable, false);
    assert.equal(byName.get('wardrobe')!.value, 0);
    assert.ok(byName.has('backpack_0') && byName.has('backpack_1') && byName.has('accessories'));
    assert.equal(m.valuePerCategory['backpacks'], byName.get('backpack_0')!.value + byName.get('backpack_1')!.value);
    assert.equal(m.pets.count, 1, 'the unreadable pet is not valued');

    // The stored copy keeps everything networth reads: the player's total equals the posted one.
    const posted = (await t.app.inject({ method: 'POST', url: '/api/networth', payload: profile })).json() as { member: Record<string, { fullValue: number }> };
    assert.equal(m.fullValue, posted.member[PLAYER]!.fullValue);

    const named = await t.app.inject({ method: 'GET', url: `/api/player/${PLAYER}/networth?profile=mango` });
    assert.equal((named.json() as StoredAnswer).profiles[0]!.profileId, profile['profile_id']);
    const missing = await t.app.inject({ method: 'GET', url: `/api/player/${PLAYER}/networth?profile=Kiwi` });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().slug, 'profile_not_found');
  });

  it('bad input: a small 4xx problem, never a 5xx', async () => {
    const cases: Array<[string, string, unknown, number]> = [
      ['GET', '/api/player/not%20a%20player!/networth', undefined, 400],
      ['GET', '/api/player/notaplayer/networth', undefined, 404],
      ['POST', '/api/networth', [1, 2, 3], 400],
      ['POST', '/api/networth', { members: Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`${i}`.padStart(32, '0'), {}])) }, 400],
      ['POST', '/api/networth', { members: 'x' }, 400],
    ];
    for (const [method, url, payload, status] of cases) {
      const res = await t.app.inject({ method: method as 'GET', url, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
      assert.ok(res.headers['content-type']?.toString().startsWith('application/problem+json'));
    }
    // Garbage everywhere inside a profile is valued 0, not an error.
    const junk = { members: { [PLAYER]: { inventory: { inv_contents: { data: 42 }, ender_chest_contents: { data: '%%%' }, backpack_contents: { x: null } }, pets_data: { pets: [null, 'x', { type: 7 }] }, currencies: { coin_purse: 'lots' } } }, banking: { balance: -5 } };
    const res = await t.app.inject({ method: 'POST', url: '/api/networth', payload: junk });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().fullValue, 0);
    // Nesting far past any NBT depth inside a pet or a container: valued 0 (or refused as a body), never a 5xx.
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    const nested = `{"members":{"${PLAYER}":{"pets_data":{"pets":[{"type":"BEE","tier":"RARE","exp":${deep}}]},"inventory":{"inv_contents":${deep}}}}}`;
    const deepRes = await t.app.inject({ method: 'POST', url: '/api/networth', payload: nested, headers: { 'content-type': 'application/json' } });
    assert.ok(deepRes.statusCode === 200 || deepRes.statusCode === 400, `${deepRes.statusCode}: ${deepRes.body.slice(0, 200)}`);
  });
});
