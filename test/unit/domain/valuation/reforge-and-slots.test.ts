/**
 * The parts estimate prices reforge stones and unlocked gemstone slots from the part cost tables
 * (gamedata/part-costs.ts), with fake prices: the stone at its price × 1.0, a slot's unlock as
 * Σ item price × amount + coins, × 0.6; a basic reforge is no part; without the tables a price
 * map may still name `REFORGE:<reforge>` and `<TAG>:<slot>`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partCostTablesFromNeu, type ReforgeStone } from '../../../../src/gamedata/part-costs.ts';
import { APPLICATION_WORTH, partsEstimate, slotUnlockPrice, stoneOfReforge, type PartPrice, type PartPrices, type PartsContext } from '../../../../src/domain/valuation/parts.ts';
import { traitsOf } from '../../../../src/domain/valuation/traits.ts';

const tables = partCostTablesFromNeu(
  {
    WITHER_BLOOD: { internalName: 'WITHER_BLOOD', reforgeName: 'Withered', itemTypes: 'SWORD', reforgeCosts: { LEGENDARY: 50_000 } },
    // Two stones of one reforge name: the item decides.
    SPOOKY_A: { internalName: 'SPOOKY_A', reforgeName: 'Spooky', itemTypes: { internalName: ['GHOST_HELMET'] } },
    SPOOKY_B: { internalName: 'SPOOKY_B', reforgeName: 'Spooky', itemTypes: 'BOW' },
    SPOOKY_C: { internalName: 'SPOOKY_C', reforgeName: 'Spooky', itemTypes: 'ARMOR' },
  },
  {
    HYPERION: {
      COMBAT_0: ['SKYBLOCK_COIN:250000', 'FLAWLESS_JASPER_GEM:1', 'FLAWLESS_SAPPHIRE_GEM:2'],
      SAPPHIRE_0: ['SKYBLOCK_COIN:250000', 'FLAWLESS_SAPPHIRE_GEM:4'],
      JASPER_0: ['SKYBLOCK_COIN:100000', 'UNPRICED_GEM:1'],
    },
  },
);

function pricesOf(map: Record<string, PartPrice>): PartPrices {
  return { lookup: (id) => map[id], base: () => ({ coins: 100_000_000, source: 'lbin' }) };
}

const PRICES: Record<string, PartPrice> = {
  WITHER_BLOOD: { coins: 2_500_000, source: 'lbin' },
  FLAWLESS_JASPER_GEM: { coins: 3_000_000, source: 'bazaar' },
  FLAWLESS_SAPPHIRE_GEM: { coins: 2_000_000, source: 'bazaar' },
  'REFORGE:heroic': { coins: 1_000, source: 'bazaar' },
  'HYPERION:JASPER_0': { coins: 7_000, source: 'bazaar' },
};

const ctx = (prices: PartPrices, withTables = true): PartsContext => ({
  prices,
  ...(withTables ? { reforgeStones: tables.reforgeStones, gemstoneSlots: tables.gemstoneSlots } : {}),
});

const hyperion = (flat: Record<string, string>) => traitsOf({ tag: 'HYPERION', tier: 'LEGENDARY', count: 1, enchantments: {}, flatNbt: flat });

describe('reforge stones in the parts estimate', () => {
  it('a stone reforge is its stone at the stone’s price × 1.0', () => {
    const est = partsEstimate(hyperion({ modifier: 'withered' }), ctx(pricesOf(PRICES)));
    const reforge = est.parts.filter((p) => p.kind === 'reforge');
    assert.deepEqual(reforge.map((p) => [p.id, p.unitPrice, p.source, p.factor, p.value]), [['WITHER_BLOOD', 2_500_000, 'lbin', APPLICATION_WORTH.reforge, 2_500_000]]);
    assert.equal(APPLICATION_WORTH.reforge, 1);
    assert.equal(est.value, 100_000_000 + 2_500_000);
    assert.equal(est.unpriced, 0);
  });

  it('a stone without a market price is listed unpriced', () => {
    const est = partsEstimate(hyperion({ modifier: 'withered' }), ctx(pricesOf({})));
    const reforge = est.parts.find((p) => p.kind === 'reforge')!;
    assert.equal(reforge.id, 'WITHER_BLOOD');
    assert.equal(reforge.unitPrice, null);
    assert.equal(est.unpriced, 1);
  });

  it('a basic reforge (no stone) is no part; a price map may still name the stone as REFORGE:<reforge>', () => {
    const basic = partsEstimate(hyperion({ modifier: 'sharp' }), ctx(pricesOf(PRICES)));
    assert.equal(basic.parts.filter((p) => p.kind === 'reforge').length, 0);
    assert.equal(basic.unpriced, 0);
    const named = partsEstimate(hyperion({ modifier: 'heroic' }), ctx(pricesOf(PRICES)));
    assert.deepEqual(named.parts.filter((p) => p.kind === 'reforge').map((p) => [p.id, p.value]), [['REFORGE:heroic', 1_000]]);
    // Without the tables the stone is not known.
    const noTables = partsEstimate(hyperion({ modifier: 'withered' }), ctx(pricesOf(PRICES), false));
    assert.equal(noTables.parts.filter((p) => p.kind === 'reforge').length, 0);
  });

  it('pets are not reforged', () => {
    const pet = traitsOf({ tag: 'PET_BEE', tier: 'RARE', count: 1, enchantments: {}, flatNbt: { modifier: 'withered', 'petInfo.type': 'BEE', 'petInfo.tier': 'RARE', 'petInfo.exp': '0' } });
    assert.equal(partsEstimate(pet, ctx(pricesOf(PRICES))).parts.filter((p) => p.kind === 'reforge').length, 0);
  });

  it('where several stones give one reforge: the one naming the item, else the one whose type fits, else the first', () => {
    const stones = tables.reforgeStones;
    const pick = (tag: string) => (stoneOfReforge(stones, 'spooky', tag) as ReforgeStone).stone;
    assert.equal(pick('GHOST_HELMET'), 'SPOOKY_A');
    assert.equal(pick('RUNAANS_BOW'), 'SPOOKY_B');
    assert.equal(pick('SUPERIOR_DRAGON_LEGGINGS'), 'SPOOKY_C');
    assert.equal(pick('HYPERION'), 'SPOOKY_A');
    assert.equal(stoneOfReforge(stones, 'WITHERED', 'HYPERION')?.stone, 'WITHER_BLOOD', 'the modifier in any case');
    assert.equal(stoneOfReforge(undefined, 'withered', 'HYPERION'), undefined);
  });
});

describe('unlocked gemstone slots in the parts estimate', () => {
  it('a slot’s unlock is Σ item price × amount + coins, × 0.6', () => {
    const est = partsEstimate(hyperion({ 'gems.unlocked_slots': 'COMBAT_0,SAPPHIRE_0' }), ctx(pricesOf(PRICES)));
    const slots = est.parts.filter((p) => p.kind === 'gemstone_slot');
    const combat = 250_000 + 3_000_000 + 2 * 2_000_000;
    const sapphire = 250_000 + 4 * 2_000_000;
    assert.deepEqual(
      slots.map((p) => [p.id, p.unitPrice, p.source, p.factor]),
      [
        ['HYPERION:COMBAT_0', combat, 'bazaar', 0.6],
        ['HYPERION:SAPPHIRE_0', sapphire, 'bazaar', 0.6],
      ],
    );
    assert.equal(APPLICATION_WORTH.gemstone_slot, 0.6);
    assert.equal(est.value, 100_000_000 + (combat + sapphire) * 0.6);
  });

  it('a slot whose items are not all priced is unpriced (no partial sum); a slot not in the table is asked as <TAG>:<slot>', () => {
    const est = partsEstimate(hyperion({ 'gems.unlocked_slots': 'JASPER_0,AMBER_0' }), ctx(pricesOf(PRICES)));
    const slots = est.parts.filter((p) => p.kind === 'gemstone_slot');
    assert.deepEqual(slots.map((p) => [p.id, p.unitPrice]), [['HYPERION:JASPER_0', null], ['HYPERION:AMBER_0', null]]);
    assert.equal(est.unpriced, 2);
    // Without the table a price map naming the slot prices it.
    const noTables = partsEstimate(hyperion({ 'gems.unlocked_slots': 'JASPER_0' }), ctx(pricesOf(PRICES), false));
    assert.equal(noTables.parts.find((p) => p.kind === 'gemstone_slot')!.unitPrice, 7_000);
  });

  it('slotUnlockPrice: the weakest source of its items, coins alone at face value', () => {
    const lookup = (id: string): PartPrice | undefined => ({ A: { coins: 10, source: 'bazaar' as const }, B: { coins: 20, source: 'lbin' as const } })[id];
    assert.deepEqual(slotUnlockPrice({ items: { A: 2, B: 1 }, coins: 5 }, lookup), { coins: 45, source: 'lbin' });
    assert.deepEqual(slotUnlockPrice({ items: {}, coins: 5 }, lookup), { coins: 5, source: 'face' });
    assert.equal(slotUnlockPrice({ items: { C: 1 }, coins: 5 }, lookup), undefined);
    assert.equal(slotUnlockPrice({ items: {}, coins: 0 }, lookup), undefined);
  });
});
