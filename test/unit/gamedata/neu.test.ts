import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadGameData, syncedGameDataPath } from '../../../src/gamedata/index.ts';
import { loadNeuRepository, requirementsOf } from '../../../src/gamedata/neu.ts';
import type { GameData } from '../../../src/gamedata/types.ts';
import { neuRepo } from '../../helpers/fixtures.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';
import { writeMiniRepo } from '../../helpers/mini-repo.ts';

describe('NEU loader on a hand-made repository', () => {
  let dir: TempDir;
  let data: ReturnType<typeof loadNeuRepository>;
  before(() => {
    dir = tempDir('neu');
    writeMiniRepo(dir.path);
    data = loadNeuRepository(dir.path);
  });
  after(() => dir.remove());

  test('maps NEU ids to skymarket tags', () => {
    assert.equal(data.report.itemFiles, 9);
    assert.ok(data.items.has('INK_SACK:3'), 'ID-DAMAGE becomes ID:DAMAGE');
    assert.ok(data.items.has('ENCHANTMENT_LUCK_6'), 'book through bazaarstocks');
    assert.ok(data.items.has('PET_BEE'), 'pet NAME;RARITY');
    assert.equal(data.items.get('INK_SACK:3')!.name, 'Cocoa Beans');
    assert.equal(data.items.get('WHEAT')!.tier, 'COMMON');
    assert.equal(data.bazaarIds.get('INK_SACK:3'), 'INK_SACK:3');
    assert.equal(data.bazaarIds.get('ENCHANTMENT_LUCK_6'), 'ENCHANTMENT_LUCK_6');
  });

  test('grid, typed crafting, forge and NPC shop recipes', () => {
    const wheat = data.recipes.get('ENCHANTED_WHEAT')!;
    assert.equal(wheat.length, 1);
    assert.deepEqual(wheat[0]!.inputs, [{ tag: 'WHEAT', count: 160 }]);
    assert.equal(wheat[0]!.grid!.A1, 'WHEAT:32');
    assert.equal(wheat[0]!.grid!.B3, '');
    assert.deepEqual(data.recipes.get('ENCHANTED_COCOA')![0]!.inputs, [{ tag: 'INK_SACK:3', count: 160 }]);
    const forge = data.recipes.get('REFINED_WHEAT')![0]!;
    assert.equal(forge.type, 'forge');
    assert.equal(forge.durationSeconds, 3600);
    assert.deepEqual(forge.currencies, [{ currency: 'coins', amount: 1000 }]);
    const npc = data.npcOffers.get('WHEAT')![0]!;
    assert.deepEqual(npc.currencies, [{ currency: 'coins', amount: 2.5 }]);
    assert.equal(npc.npc, 'FARMER_NPC');
    assert.deepEqual(data.npcOffers.get('ENCHANTMENT_LUCK_6')![0]!.currencies, [{ currency: 'bits', amount: 100 }]);
    assert.equal(data.recipes.has('PET_BEE'), false, 'katgrade is not a craft');
  });

  test('reports ingredients it cannot resolve instead of failing', () => {
    assert.deepEqual(data.unresolved, [{ output: 'BROKEN', ingredient: 'NO_SUCH_ITEM' }]);
    assert.equal(data.recipes.has('BROKEN'), false);
  });

  test('requirements, constants', () => {
    assert.deepEqual(data.items.get('ENCHANTED_WHEAT')!.requirements, [{ kind: 'collection', name: 'Wheat', level: 6 }]);
    assert.deepEqual(requirementsOf({ crafttext: 'Requires: Zombie Slayer 5' }), [{ kind: 'slayer', name: 'zombie', level: 5 }]);
    assert.deepEqual(requirementsOf({ crafttext: 'Requires: HotM 3' }), [{ kind: 'skill', name: 'HotM', level: 3 }]);
    assert.deepEqual(requirementsOf({ slayer_req: 'EMAN_7', crafttext: '' }), [{ kind: 'slayer', name: 'enderman', level: 7 }]);
    assert.deepEqual(requirementsOf({ crafttext: 'Requires: Gemstone X & HotM 5' }), [
      { kind: 'collection', name: 'Gemstone', level: 10 },
      { kind: 'skill', name: 'HotM', level: 5 },
    ]);
    assert.deepEqual(data.copper.get('WHEAT'), { price: 5, currency: 'copper' });
    assert.equal(data.georgePrices.get('BEE;4'), 12345);
    assert.deepEqual(data.enchantsByClass.get('SWORD'), ['sharpness', 'prosecute']);
  });
});

describe('game data source precedence', () => {
  let dir: TempDir;
  before(() => {
    dir = tempDir('gd');
  });
  after(() => dir.remove());

  test('builtin when nothing is configured or synced', () => {
    const data = loadGameData({ dataDir: dir.path });
    assert.equal(data.source.kind, 'builtin');
    assert.deepEqual(data.recipes.get('ENCHANTED_WHEAT')![0]!.inputs, [{ tag: 'WHEAT', count: 160 }]);
  });

  test('the synced copy in DATA_DIR, then GAME_DATA_DIR over it', () => {
    writeMiniRepo(syncedGameDataPath(dir.path));
    assert.equal(loadGameData({ dataDir: dir.path }).source.kind, 'synced');
    const own = join(dir.path, 'own');
    writeMiniRepo(own);
    const data = loadGameData({ dataDir: dir.path, gameDataDir: own });
    assert.equal(data.source.kind, 'directory');
    assert.equal(data.source.path, own);
    assert.throws(() => loadGameData({ dataDir: dir.path, gameDataDir: join(dir.path, 'missing') }), /does not exist/);
  });
});

describe('NEU loader on the real repository', () => {
  let data: GameData & { report: { itemFiles: number; failed: unknown[] } };
  before(() => {
    data = loadNeuRepository(neuRepo());
  });

  test('every one of the 8,745 items parses', () => {
    assert.equal(data.report.itemFiles, 8745);
    assert.deepEqual(data.report.failed, []);
    assert.ok(data.items.size > 8000, `${data.items.size} distinct tags`);
  });

  test('every recipe ingredient resolves to a known tag or is reported', () => {
    for (const list of data.recipes.values()) {
      for (const r of list) for (const i of r.inputs) assert.ok(data.items.has(i.tag), `${r.output} needs unknown ${i.tag}`);
    }
    for (const u of data.unresolved) assert.ok(!data.items.has(u.ingredient), `${u.ingredient} was reported but is known`);
  });

  test('known recipes come out right', () => {
    const diamond = data.recipes.get('ENCHANTED_DIAMOND')!.find((r) => r.inputs[0]!.tag === 'DIAMOND')!;
    assert.deepEqual(diamond.inputs, [{ tag: 'DIAMOND', count: 160 }]);
    assert.equal(diamond.count, 1);
    const refined = data.recipes.get('REFINED_MITHRIL')!.find((r) => r.type === 'forge')!;
    assert.deepEqual(refined.inputs, [{ tag: 'ENCHANTED_MITHRIL', count: 160 }]);
    assert.equal(refined.durationSeconds, 6 * 3600);
    const plate = data.recipes.get('MITHRIL_PLATE')!.find((r) => r.type === 'forge')!;
    assert.equal(plate.durationSeconds, 18 * 3600);
    assert.ok(plate.inputs.some((i) => i.tag === 'REFINED_MITHRIL' && i.count === 5));
    assert.deepEqual(data.recipes.get('ENCHANTED_COCOA')!.find((r) => r.type === 'crafting')!.inputs, [{ tag: 'INK_SACK:3', count: 160 }]);
    assert.equal(data.bazaarIds.get('ENCHANTMENT_CORRUPTION_5'), 'ENCHANTMENT_CORRUPTION_5');
    assert.ok(data.attributeShards.length > 100);
    assert.ok(data.copper.size > 20);
    assert.ok(data.npcOffers.get('BONE')!.some((r) => r.currencies.some((c) => c.currency === 'coins')));
    assert.deepEqual(data.items.get('TERMINATOR')!.requirements, [{ kind: 'slayer', name: 'enderman', level: 7 }]);
  });

  test('forge recipes: every one has a duration, and HotM and collection requirements are read', () => {
    const forged = [...data.recipes.values()].flat().filter((r) => r.type === 'forge');
    assert.ok(forged.length >= 100, `${forged.length} forge recipes`);
    assert.ok(forged.every((r) => typeof r.durationSeconds === 'number' && r.durationSeconds > 0));
    // "Requires: Gemstone X & HotM 5": both requirements, not one collection named "Gemstone X & HotM".
    assert.deepEqual(data.items.get('PERFECT_JADE_GEM')!.requirements, [
      { kind: 'collection', name: 'Gemstone', level: 10 },
      { kind: 'skill', name: 'HotM', level: 5 },
    ]);
    assert.deepEqual(data.recipes.get('PERFECT_JADE_GEM')!.find((r) => r.type === 'forge')!.durationSeconds, 20 * 3600);
    assert.deepEqual(data.items.get('DIAMONITE')!.requirements, [{ kind: 'skill', name: 'HotM', level: 2 }]);
    const needHotm = forged.filter((r) => data.items.get(r.output)?.requirements.some((q) => q.name === 'HotM'));
    assert.ok(needHotm.length >= 100, `${needHotm.length} forge outputs with a HotM tier`);
  });

  test('Kat upgrades from the katgrade recipes: coins, time, materials, rarities', () => {
    assert.ok(data.katUpgrades.length >= 200, `${data.katUpgrades.length} upgrades`);
    // The fixture's items/ARMADILLO;1.json … ARMADILLO;5.json.
    const armadillo = data.katUpgrades.filter((k) => k.petTag === 'PET_ARMADILLO');
    assert.deepEqual(
      armadillo.map((k) => [k.fromTier, k.toTier, k.coins, k.durationSeconds, k.materials]),
      [
        ['COMMON', 'UNCOMMON', 10_000, 10_800, []],
        ['UNCOMMON', 'RARE', 30_000, 36_000, []],
        ['RARE', 'EPIC', 250_000, 172_800, []],
        ['EPIC', 'LEGENDARY', 1_000_000, 432_000, []],
        ['LEGENDARY', 'MYTHIC', 1_000_000, 3_600, [{ tag: 'FROZEN_SCUTE', count: 1 }]],
      ],
    );
    assert.equal(armadillo[0]!.name, 'Armadillo');
    const mosquito = data.katUpgrades.find((k) => k.petTag === 'PET_MOSQUITO' && k.toTier === 'LEGENDARY')!;
    assert.deepEqual(mosquito.materials, [{ tag: 'TARANTULA_SILK', count: 64 }]);
    assert.equal(mosquito.coins, 2_500_000);
    for (const k of data.katUpgrades) {
      assert.ok(data.items.has(k.petTag), `${k.petTag} is an item`);
      for (const m of k.materials) assert.ok(data.items.has(m.tag), `${k.petTag} needs unknown ${m.tag}`);
    }
  });
});
