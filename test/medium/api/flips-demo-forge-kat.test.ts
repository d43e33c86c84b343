/**
 * The demo's Kat tab has rows: the built-in catalog carries a few of the NEU repository's forge
 * recipes and Kat upgrades (gamedata/builtin/neu-recipes.ts), for items and pets the simulator
 * trades, so the flips compute on the simulated market (issue 44).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { builtinGameData } from '../../../src/gamedata/builtin.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { fillFromSimulator, type SimMarket } from '../../helpers/sim-market.ts';

let t: TestApp;
let sim: SimMarket;

before(async () => {
  t = await createTestApp({ game: builtinGameData(), env: { FLIPS_POLL_MS: '0' } });
  sim = await fillFromSimulator(t.store, { historyHours: 1, detailedMinutes: 30, generations: 2 });
  t.clock.set(sim.clock.now());
  t.app.market.flips.setOptions({ katVolumesMs: 0, auctionsMinIntervalMs: 0 });
  await t.app.market.flips.refresh();
});
after(async () => {
  await sim?.close();
  await t?.close();
});

it('Kat flips and the upgrade table on the simulated market with the built-in catalog', async () => {
  const forge = (await t.app.inject({ method: 'GET', url: '/api/flip/forge' })).json() as Array<{ craftData: { itemId: string }; duration: number }>;
  // The forge recipes are there (test/unit/gamedata/builtin-neu.test.ts); whether one pays depends on the simulated prices.
  assert.ok(Array.isArray(forge));
  const kat = (await t.app.inject({ method: 'GET', url: '/api/kat/profit' })).json() as Array<{ coreData: { itemTag: string } }>;
  assert.ok(kat.length > 0, 'Kat flips');
  assert.ok(kat.every((k) => k.coreData.itemTag.startsWith('PET_')));
  const data = (await t.app.inject({ method: 'GET', url: '/api/kat/data' })).json() as unknown[];
  assert.ok(data.length >= 40, `${data.length} upgrade costs`);
});
