/** Kat flips over hand-made upgrades and pet listings, numbers checked by hand. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { katFlips, katUpgradeCost, type PetListing } from '../../../../src/domain/flips/kat.ts';
import type { KatUpgrade } from '../../../../src/gamedata/types.ts';

const TO_UNCOMMON: KatUpgrade = { petTag: 'PET_BEE', name: 'Bee', fromTier: 'COMMON', toTier: 'UNCOMMON', coins: 10_000, durationSeconds: 3600, materials: [] };
const TO_RARE: KatUpgrade = { petTag: 'PET_BEE', name: 'Bee', fromTier: 'UNCOMMON', toTier: 'RARE', coins: 50_000, durationSeconds: 36_000, materials: [{ tag: 'ENCHANTED_X', count: 2 }] };

const pet = (uuid: string, tier: string, price: number, nbt: Record<string, string> = {}): PetListing => ({
  uuid,
  tag: 'PET_BEE',
  itemName: `[Lvl 1] Bee ${uuid}`,
  price,
  tier,
  flatNbt: { 'petInfo.tier': tier, ...nbt },
});

const LISTINGS = [
  pet('a2', 'COMMON', 120_000),
  pet('a1', 'COMMON', 100_000),
  pet('b1', 'UNCOMMON', 500_000),
  pet('b2', 'UNCOMMON', 600_000),
  // Shown as uncommon by a Tier Boost: a common pet, neither origin nor reference.
  { ...pet('boost', 'UNCOMMON', 50_000, { 'petInfo.heldItem': 'PET_ITEM_TIER_BOOST' }), flatNbt: { 'petInfo.tier': 'COMMON', 'petInfo.heldItem': 'PET_ITEM_TIER_BOOST' } },
  pet('c1', 'RARE', 900_000),
];

const materialCost = (tag: string, count: number) => (tag === 'ENCHANTED_X' ? 1000 * count : undefined);

describe('Kat flips', () => {
  test('cheapest origin, lowest BIN of the higher rarity after the fee, upgrade and materials', () => {
    const flips = katFlips([TO_UNCOMMON, TO_RARE], LISTINGS, { materialCost, volumes: new Map([['PET_BEE', 7]]) });
    assert.equal(flips.length, 2);
    const [first, second] = flips;
    // 500,000 × 0.98 − 100,000 − 10,000
    assert.equal(first!.profit, 380_000);
    assert.equal(first!.originAuction, 'a1');
    assert.equal(first!.originAuctionName, '[Lvl 1] Bee a1');
    assert.equal(first!.purchaseCost, 100_000);
    assert.equal(first!.referenceAuction, 'b1');
    assert.equal(first!.referencePrice, 500_000);
    assert.equal(first!.upgradeCost, 10_000);
    assert.equal(first!.materialCost, 0);
    assert.equal(first!.targetRarity, 'UNCOMMON');
    assert.equal(first!.median, 550_000, 'median of 500,000 and 600,000');
    assert.equal(first!.volume, 7);
    // 900,000 × 0.98 − 500,000 − 50,000 − 2 × 1,000
    assert.equal(second!.profit, 330_000);
    assert.equal(second!.materialCost, 2000);
    assert.deepEqual(second!.coreData, {
      name: 'Bee',
      baseRarity: 'UNCOMMON',
      hours: 10,
      cost: 50_000,
      material: 'ENCHANTED_X',
      amount: 2,
      materials: { ENCHANTED_X: 2 },
      itemTag: 'PET_BEE',
    });
  });

  test('unpriced materials, missing rarities and losses are not listed; Derpy raises the fee', () => {
    assert.deepEqual(katFlips([TO_RARE], LISTINGS, { materialCost: () => undefined, volumes: new Map() }), []);
    assert.deepEqual(katFlips([TO_UNCOMMON], LISTINGS.filter((l) => l.tier !== 'UNCOMMON' || l.uuid === 'boost'), { materialCost, volumes: new Map() }), []);
    const dear = { ...TO_UNCOMMON, coins: 390_000 };
    assert.deepEqual(katFlips([dear], LISTINGS, { materialCost, volumes: new Map() }), [], '490,000 − 100,000 − 390,000 = 0');
    const big = [pet('x', 'COMMON', 1_000_000), pet('y', 'UNCOMMON', 2_000_000)];
    // 2,000,000 × (1 − 0.02 − 0.03) − 1,000,000 − 10,000
    assert.equal(katFlips([TO_UNCOMMON], big, { materialCost, volumes: new Map(), derpy: true })[0]!.profit, 890_000);
    assert.equal(katFlips([TO_UNCOMMON], big, { materialCost, volumes: new Map() })[0]!.profit, 950_000);
  });

  test('the upgrade table as /api/kat/data lists it', () => {
    assert.deepEqual(katUpgradeCost(TO_UNCOMMON), { name: 'Bee', baseRarity: 'COMMON', hours: 1, cost: 10_000, material: null, amount: 0, materials: null, itemTag: 'PET_BEE' });
  });
});
