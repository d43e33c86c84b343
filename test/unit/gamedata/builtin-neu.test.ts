/**
 * The built-in catalog's forge recipes and Kat upgrades (gamedata/builtin/neu-recipes.ts) are the
 * NEU repository's own, read as the NEU loader reads the repository, and only for items, pet
 * rarities and materials the simulator trades: never invented numbers.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { builtinGameData } from '../../../src/gamedata/builtin.ts';
import { AUCTION_ITEMS, BAZAAR_PRODUCTS } from '../../../src/gamedata/builtin/catalog.ts';
import { loadNeuRepository } from '../../../src/gamedata/neu.ts';
import { neuRepo } from '../../helpers/fixtures.ts';

it("the built-in forge recipes and Kat upgrades are the NEU fixture's, for what the simulator trades", () => {
  const builtin = builtinGameData();
  const neu = loadNeuRepository(neuRepo());
  const traded = new Set([...BAZAAR_PRODUCTS.map((p) => p.id), ...AUCTION_ITEMS.map((a) => a.key)]);
  const pets = new Set(AUCTION_ITEMS.map((a) => `${a.key} ${a.tier}`));

  const forge = [...builtin.recipes.values()].flat().filter((r) => r.type === 'forge');
  assert.ok(forge.length >= 2, `${forge.length} forge recipes`);
  for (const r of forge) {
    assert.ok(
      (neu.recipes.get(r.output) ?? []).some((n) => n.type === 'forge' && JSON.stringify(n) === JSON.stringify(r)),
      `the forge recipe of ${r.output} is NEU's`,
    );
    assert.ok(traded.has(r.output) && r.inputs.every((i) => traded.has(i.tag)), `${r.output} and its inputs are traded`);
  }

  assert.ok(builtin.katUpgrades.length >= 40, `${builtin.katUpgrades.length} Kat upgrades`);
  for (const k of builtin.katUpgrades) {
    const real = neu.katUpgrades.find((n) => n.petTag === k.petTag && n.fromTier === k.fromTier);
    assert.deepEqual(k, real, `${k.petTag} ${k.fromTier}`);
    assert.ok(pets.has(`${k.petTag} ${k.fromTier}`) && pets.has(`${k.petTag} ${k.toTier}`), `${k.petTag} is traded at ${k.fromTier} and ${k.toTier}`);
    assert.ok(k.materials.every((m) => traded.has(m.tag)), `${k.petTag}'s materials are traded`);
  }
});
