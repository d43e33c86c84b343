/**
 * Forge and Kat flips over HTTP with the real NEU repository (test/fixtures) on a hand-made
 * market, on SQLite and PostgreSQL: shapes, numbers, validation, the HotM filter, an empty
 * market.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { loadNeuRepository } from '../../../src/gamedata/neu.ts';
import type { GameData } from '../../../src/gamedata/types.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { insert, offerRow } from '../../helpers/bazaar.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { neuRepo } from '../../helpers/fixtures.ts';

let neu: GameData | undefined;
const game = () => (neu ??= loadNeuRepository(neuRepo()));

const PLAYER = '0123456789abcdef0123456789abcdef';

interface Forge {
  craftData: { itemId: string; craftCost: number; profit: number; sellPrice: number; type: string };
  duration: number;
  requiredHotMLevel: number;
  profitPerHour: number;
  requirements: Record<string, number> | null;
}

interface Kat {
  originAuction: string;
  referenceAuction: string;
  purchaseCost: number;
  upgradeCost: number;
  materialCost: number;
  profit: number;
  targetRarity: string;
  volume: number;
  coreData: { itemTag: string; baseRarity: string; material: string | null; amount: number };
}

describeEachBackend('forge and Kat flips', (fixture) => {
  let t: TestApp;
  const uuids = { epic: '', legendary: '', dearer: '' };

  before(async () => {
    t = await createTestApp({ store: fixture().store, game: game(), env: { FLIPS_POLL_MS: '0' } });
    // Sale counts are re-read at every computation here (10 minutes in production).
    t.app.market.flips.setOptions({ katVolumesMs: 0 });
  });
  after(async () => t?.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  it('an empty market: [] everywhere, and the upgrade table all the same', async () => {
    await t.app.market.flips.refresh();
    for (const url of ['/api/flip/forge', '/api/kat/profit', `/api/flip/forge?uuid=${PLAYER}`]) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      assert.deepEqual(res.json(), [], url);
    }
    const data = (await get('/api/kat/data')).json() as Array<{ itemTag: string; baseRarity: string; cost: number; hours: number; material: string | null; amount: number }>;
    assert.equal(data.length, game().katUpgrades.length);
    // items/MOSQUITO;4.json: EPIC → LEGENDARY for 2,500,000 coins, 120 h and 64 Tarantula Silk.
    const mosquito = data.find((d) => d.itemTag === 'PET_MOSQUITO' && d.baseRarity === 'EPIC')!;
    assert.deepEqual({ ...mosquito }, { name: 'Mosquito', baseRarity: 'EPIC', hours: 120, cost: 2_500_000, material: 'TARANTULA_SILK', amount: 64, materials: { TARANTULA_SILK: 64 }, itemTag: 'PET_MOSQUITO' });
  });

  it('forge flips: the craft flips\' prices per hour of forge time, with the HotM tier', async () => {
    const now = t.clock.now();
    await insert(t.store, [offerRow('ENCHANTED_MITHRIL', now, 100), offerRow('REFINED_MITHRIL', now, 20_000), offerRow('TARANTULA_SILK', now, 10)]);
    await t.app.market.flips.refresh();
    const res = await get('/api/flip/forge');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['cache-control']), /max-age=300/);
    const flips = res.json() as Forge[];
    const refined = flips.find((f) => f.craftData.itemId === 'REFINED_MITHRIL');
    assert.ok(refined, JSON.stringify(flips.map((f) => f.craftData.itemId)));
    // 160 Enchanted Mithril at 100 = 16,000; sold at 19,999.9 after 1.25 %: 19,749.90 − 16,000 = 3,749.90 over 6 h.
    assert.equal(refined.craftData.craftCost, 16_000);
    assert.equal(refined.craftData.profit, 3749.9);
    assert.equal(refined.craftData.type, 'forge');
    assert.equal(refined.duration, 21_600);
    assert.equal(refined.profitPerHour, 624.98);
    assert.equal(refined.requiredHotMLevel, 2);
    assert.equal(refined.requirements, null);
    // The craft list prices it the same.
    const craft = ((await get('/api/craft/profit')).json() as Array<{ itemId: string; profit: number; craftCost: number }>).find((c) => c.itemId === 'REFINED_MITHRIL')!;
    assert.deepEqual([craft.craftCost, craft.profit], [refined.craftData.craftCost, refined.craftData.profit]);
  });

  it('forge flips for a player: filtered by the HotM tier their mod uploaded, else unfiltered and said why', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: `/api/flip/forge?uuid=${PLAYER}`, headers: { origin: 'https://example.org' } });
    assert.equal(unknown.statusCode, 200);
    assert.match(String(unknown.headers['access-control-expose-headers']), /X-Forge-Filter/, 'a browser script may read why');
    assert.match(String(unknown.headers['x-forge-filter']), /^unfiltered; /);
    assert.ok((unknown.json() as Forge[]).some((f) => f.craftData.itemId === 'REFINED_MITHRIL'));
    await t.store.players.mergeState(PLAYER, null, { skills: { hotm: 1 } }, t.clock.now());
    const low = await get(`/api/flip/forge?uuid=${PLAYER}`);
    assert.equal(low.headers['x-forge-filter'], 'filtered; HotM tier 1');
    assert.ok((low.json() as Forge[]).every((f) => f.requiredHotMLevel <= 1));
    assert.ok(!(low.json() as Forge[]).some((f) => f.craftData.itemId === 'REFINED_MITHRIL'));
    await t.store.players.mergeState(PLAYER, null, { skills: { hotm: 2 } }, t.clock.now());
    const dashed = `${PLAYER.slice(0, 8)}-${PLAYER.slice(8, 12)}-${PLAYER.slice(12, 16)}-${PLAYER.slice(16, 20)}-${PLAYER.slice(20)}`;
    assert.ok(((await get(`/api/flip/forge?uuid=${dashed}`)).json() as Forge[]).some((f) => f.craftData.itemId === 'REFINED_MITHRIL'));
  });

  it('bad input is a 400 problem', async () => {
    for (const url of ['/api/flip/forge?uuid=nope', '/api/flip/forge?uuid=' + 'g'.repeat(32)]) {
      const res = await get(url);
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(typeof res.json().slug, 'string');
    }
  });

  it('Kat flips: cheapest origin BIN, lowest BIN of the higher rarity, Kat\'s coins and materials at bazaar prices', async () => {
    const now = t.clock.now();
    const pet = (tier: string, price: number, extra: Record<string, string> = {}) =>
      listing(now, { tag: 'PET_MOSQUITO', item_name: `[Lvl 1] Mosquito`, tier, starting_bid: price, category: 'MISC', enchantments: {}, flat_nbt: { 'petInfo.type': 'MOSQUITO', 'petInfo.tier': tier, ...extra } });
    const epic = pet('EPIC', 1_000_000);
    const dearer = pet('EPIC', 1_200_000);
    const legendary = pet('LEGENDARY', 10_000_000);
    // A Tier Boost shows an epic pet as legendary: not a reference.
    const boosted = { ...pet('LEGENDARY', 4_000_000), flat_nbt: { 'petInfo.type': 'MOSQUITO', 'petInfo.tier': 'EPIC', 'petInfo.heldItem': 'PET_ITEM_TIER_BOOST' } };
    uuids.epic = epic.uuid;
    uuids.legendary = legendary.uuid;
    uuids.dearer = dearer.uuid;
    await storeGeneration(t.store, now, [epic, dearer, legendary, boosted]);
    await storeSales(t.store, now, [sale(now, 3_600_000, { tag: 'PET_MOSQUITO', sold_price: 9_000_000 }), sale(now, 2 * 86_400_000, { tag: 'PET_MOSQUITO' })]);
    await t.app.market.flips.refresh();
    const res = await get('/api/kat/profit');
    assert.equal(res.statusCode, 200);
    const flips = res.json() as Kat[];
    const flip = flips.find((f) => f.coreData.itemTag === 'PET_MOSQUITO' && f.targetRarity === 'LEGENDARY');
    assert.ok(flip, JSON.stringify(flips));
    assert.equal(flip.originAuction, uuids.epic);
    assert.equal(flip.referenceAuction, uuids.legendary);
    assert.equal(flip.purchaseCost, 1_000_000);
    assert.equal(flip.upgradeCost, 2_500_000);
    assert.equal(flip.materialCost, 640, '64 Tarantula Silk at 10');
    // 10,000,000 × 0.97 − 1,000,000 − 2,500,000 − 640
    assert.equal(flip.profit, 6_199_360);
    assert.equal(flip.volume, 1, 'one sale in the last 24 hours');
    assert.equal(flips.filter((f) => f.coreData.itemTag === 'PET_MOSQUITO').length, 1, 'no other rarity pair is listed');
  });

  it('the OpenAPI document lists the routes', async () => {
    const doc = (await get('/api/openapi.json')).json() as { paths: Record<string, { get?: { parameters?: Array<{ name: string }> } }> };
    for (const path of ['/api/flip/forge', '/api/kat/profit', '/api/kat/data']) assert.ok(doc.paths[path], path);
    assert.ok(doc.paths['/api/flip/forge']!.get!.parameters!.some((p) => p.name === 'uuid'));
  });
});
