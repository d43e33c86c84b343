import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeFlips, upgradeIngredients, type AuctionListing, type AuctionSale, type VariantModifiers } from '../../../../src/domain/flips/attribute.ts';
import { partCostTablesFromNeu } from '../../../../src/gamedata/part-costs.ts';
import { builtinUpgradeCosts, upgradeCostsFromNeu, type UpgradeCosts } from '../../../../src/gamedata/upgrades.ts';
import { neuConstant } from '../../../helpers/fixtures.ts';
import { NOW, marketOf, product } from './helpers.ts';

const H = 3_600_000;
const base: VariantModifiers = { tier: 'LEGENDARY', reforge: null, stars: 0, rarityUpgrades: 0, hotPotatoCount: 0, enchantments: {}, attributes: {} };

/** Three sales of the target variant at `price` (the median) and one cheap listing of the start variant. */
function scenario(tag: string, from: Partial<VariantModifiers>, to: Partial<VariantModifiers>, target: number, listed: number, itemName = tag) {
  const sales: AuctionSale[] = [0.98, 1, 1.02].map((f, i) => ({ ...base, ...to, tag, price: target * f, soldAt: NOW - (i + 1) * H }));
  const listing: AuctionListing = { ...base, ...from, uuid: 'buy-me', tag, itemName, price: listed, startAt: NOW - 2 * H, count: 1 };
  return { sales, listings: [listing] };
}

const costs: UpgradeCosts = {
  stars: new Map([['HYPERION', { essence: 'ESSENCE_WITHER', perStar: [150, 300, 500, 900, 1500], coinsPerStar: [0, 0, 0, 10_000, 25_000], itemsPerStar: [{}, {}, {}, {}, {}] }]]),
  attributeShards: new Map([['mana_pool', { productId: 'SHARD_STARBORN', rarity: 'EPIC' }]]),
  attributeLevelling: { EPIC: [1, 1, 2, 2, 3, 3, 4, 4, 5, 7] },
  parts: partCostTablesFromNeu(undefined, undefined),
  source: 'builtin',
};

describe('upgrade pricing: stars, attributes, gemstones, pet items', () => {
  it('dungeon stars: essence per star at the essence bazaar price plus the star coins; 3 % AH fee from 10 M', () => {
    const market = marketOf(product('ESSENCE_WITHER', { buy: 2_000, sell: 1_900 }));
    const { sales, listings } = scenario('HYPERION', { stars: 3 }, { stars: 5 }, 20_000_000, 10_000_000);
    const [f, ...rest] = attributeFlips(market, listings, sales, { now: NOW, windowDays: 7, upgrades: costs });
    assert.equal(rest.length, 0);
    // Stars 4 and 5: 900 + 1,500 essence, 10,000 + 25,000 coins.
    const cost = 2_400 * 2_000 + 35_000;
    assert.deepEqual(f!.ingredients.map((i) => [i.itemId, i.amount, i.price]), [['ESSENCE_WITHER', 2_400, 4_800_000], ['SKYBLOCK_COIN', 35_000, 35_000]]);
    assert.equal(f!.estimatedCraftingCost, cost);
    assert.equal(f!.profitAfterTax, Math.round((20_000_000 * 0.97 - 10_000_000 - cost) * 10) / 10);
    // Without star data, or removing stars, there is no flip.
    assert.deepEqual(attributeFlips(market, listings, sales, { now: NOW, windowDays: 7 }), []);
    assert.equal(upgradeIngredients(market, { ...base, stars: 5 }, { ...base, stars: 3 }, { upgrades: costs, tag: 'HYPERION' }), null);
  });

  it('attribute levels: shards per level by rarity at the shard price; 2 % fee below 10 M', () => {
    const market = marketOf(product('SHARD_STARBORN', { buy: 100_000, sell: 90_000 }));
    const { sales, listings } = scenario('AURORA_CHESTPLATE', { attributes: { mana_pool: 2 } }, { attributes: { mana_pool: 5 } }, 5_000_000, 3_000_000);
    const [f] = attributeFlips(market, listings, sales, { now: NOW, windowDays: 7, upgrades: costs });
    // Levels 2→3, 3→4, 4→5 of an EPIC shard: 2 + 2 + 3 = 7 shards.
    assert.deepEqual(f!.ingredients, [{ itemId: 'SHARD_STARBORN', attributeName: 'mana_pool', amount: 7, price: 700_000 }]);
    assert.equal(f!.profitAfterTax, 5_000_000 * 0.98 - 3_000_000 - 700_000);
    // A different attribute is a different item; a lower level is not an upgrade.
    assert.equal(upgradeIngredients(market, { ...base, attributes: { veteran: 2 } }, { ...base, attributes: { mana_pool: 5 } }, { upgrades: costs }), null);
    assert.equal(upgradeIngredients(market, { ...base, attributes: { mana_pool: 5 } }, { ...base, attributes: { mana_pool: 2 } }, { upgrades: costs }), null);
  });

  it('a shard (or any upgrade) not on the bazaar is priced at its lowest BIN', () => {
    const ingredients = upgradeIngredients(marketOf(), { ...base, attributes: { mana_pool: 1 } }, { ...base, attributes: { mana_pool: 3 } }, { upgrades: costs, lowestBin: (t) => (t === 'SHARD_STARBORN' ? 50_000 : null) });
    // Levels 1→2 and 2→3 of an EPIC shard: 1 + 2 shards.
    assert.deepEqual(ingredients, [{ itemId: 'SHARD_STARBORN', attributeName: 'mana_pool', amount: 3, price: 150_000 }]);
    assert.equal(upgradeIngredients(marketOf(), { ...base, attributes: { mana_pool: 1 } }, { ...base, attributes: { mana_pool: 3 } }, { upgrades: costs }), null);
  });

  it('gemstones: into an open slot at the gem bazaar product; a better gem may replace a worse one', () => {
    const market = marketOf(product('PERFECT_JASPER_GEM', { buy: 12_000_000, sell: 11_000_000 }), product('FINE_AMETHYST_GEM', { buy: 20_000, sell: 19_000 }));
    const from = { gems: { COMBAT_0: 'FINE', COMBAT_0_gem: 'JASPER' }, unlockedGemSlots: ['COMBAT_0', 'DEFENSIVE_0'] };
    const to = { gems: { COMBAT_0: 'PERFECT', COMBAT_0_gem: 'JASPER', DEFENSIVE_0: 'FINE', DEFENSIVE_0_gem: 'AMETHYST' } };
    const { sales, listings } = scenario('VALKYRIE', from, to, 150_000_000, 120_000_000);
    const [f] = attributeFlips(market, listings, sales, { now: NOW, windowDays: 7 });
    assert.deepEqual(f!.ingredients.map((i) => [i.itemId, i.price]), [['PERFECT_JASPER_GEM', 12_000_000], ['FINE_AMETHYST_GEM', 20_000]]);
    // 3.5 % from 100 M.
    assert.equal(f!.profitAfterTax, Math.round((150_000_000 * 0.965 - 120_000_000 - 12_020_000) * 10) / 10);
    // A slot not known to be unlocked is not assumed open; a gem is never removed or downgraded.
    assert.equal(upgradeIngredients(market, { ...base, gems: from.gems }, { ...base, ...to }), null);
    assert.equal(upgradeIngredients(market, { ...base, ...to }, { ...base, gems: {} }), null);
    assert.equal(upgradeIngredients(market, { ...base, gems: { COMBAT_0: 'PERFECT', COMBAT_0_gem: 'JASPER' } }, { ...base, gems: { COMBAT_0: 'FINE', COMBAT_0_gem: 'JASPER' } }), null);
    // A typed slot names its gem itself.
    assert.deepEqual(upgradeIngredients(market, { ...base, unlockedGemSlots: ['JASPER_0'] }, { ...base, gems: { JASPER_0: 'PERFECT' } })!.map((i) => i.itemId), ['PERFECT_JASPER_GEM']);
  });

  it('pet items: the held item at its bazaar price or lowest BIN; pets of another level never match', () => {
    const { sales, listings } = scenario('PET_ENDER_DRAGON', { petLevel: 100 }, { petLevel: 100, petHeldItem: 'PET_ITEM_TIER_BOOST' }, 900_000_000, 700_000_000, '[Lvl 100] Ender Dragon');
    const lowestBin = (t: string) => (t === 'PET_ITEM_TIER_BOOST' ? 90_000_000 : null);
    const [f] = attributeFlips(marketOf(), listings, sales, { now: NOW, windowDays: 7, lowestBin });
    assert.deepEqual(f!.ingredients, [{ itemId: 'PET_ITEM_TIER_BOOST', attributeName: null, amount: 1, price: 90_000_000 }]);
    assert.equal(f!.profitAfterTax, Math.round((900_000_000 * 0.965 - 700_000_000 - 90_000_000) * 10) / 10);
    assert.ok(f!.endingKey.modifiers.some((m) => m.key === 'heldItem' && m.value === 'PET_ITEM_TIER_BOOST'));
    // Unpriced item, a level-1 pet, or taking the item off: no flip.
    assert.deepEqual(attributeFlips(marketOf(), listings, sales, { now: NOW, windowDays: 7 }), []);
    const low = scenario('PET_ENDER_DRAGON', { petLevel: 1 }, { petLevel: 100, petHeldItem: 'PET_ITEM_TIER_BOOST' }, 900_000_000, 100_000_000);
    assert.deepEqual(attributeFlips(marketOf(), low.listings, low.sales, { now: NOW, windowDays: 7, lowestBin }), []);
    assert.equal(upgradeIngredients(marketOf(), { ...base, petHeldItem: 'PET_ITEM_TIER_BOOST' }, base), null);
  });

  it('several kinds at once add up, and a profit the upgrades eat is not listed', () => {
    const market = marketOf(product('ESSENCE_WITHER', { buy: 2_000, sell: 1_900 }), product('RECOMBOBULATOR_3000', { buy: 6_000_000, sell: 5_900_000 }));
    const { sales, listings } = scenario('HYPERION', {}, { stars: 1, rarityUpgrades: 1 }, 20_000_000, 10_000_000);
    const [f] = attributeFlips(market, listings, sales, { now: NOW, windowDays: 7, upgrades: costs });
    assert.equal(f!.estimatedCraftingCost, 6_000_000 + 150 * 2_000);
    const tight = scenario('HYPERION', {}, { stars: 1, rarityUpgrades: 1 }, 16_500_000, 10_000_000);
    // 16.5 M × 0.97 = 16.005 M < 10 M + 6.3 M.
    assert.deepEqual(attributeFlips(market, tight.listings, tight.sales, { now: NOW, windowDays: 7, upgrades: costs }), []);
  });
});

describe('upgrade costs as game data', () => {
  it('reads stars and attribute levelling from the real NEU constants', () => {
    const neu = upgradeCostsFromNeu(neuConstant('essencecosts.json'), neuConstant('attribute_shards.json'));
    const hyperion = neu.stars.get('HYPERION')!;
    assert.equal(hyperion.essence, 'ESSENCE_WITHER');
    assert.deepEqual(hyperion.perStar.slice(0, 5), [150, 300, 500, 900, 1500]);
    assert.deepEqual(hyperion.coinsPerStar.slice(0, 5), [0, 0, 0, 10_000, 25_000]);
    assert.ok(neu.stars.size > 500);
    assert.deepEqual(neu.attributeLevelling.LEGENDARY, [1, 1, 1, 2, 2, 2, 3, 3, 4, 5]);
    assert.equal(neu.attributeShards.get('magic_find')?.productId.startsWith('SHARD_'), true);
    // Master stars (6–10) need items besides essence.
    const withItems = [...neu.stars.values()].find((s) => s.itemsPerStar.some((i) => Object.keys(i).length > 0));
    assert.ok(withItems, 'some star needs items');
  });

  it('the built-in tables cover the simulator catalog', () => {
    const builtin = builtinUpgradeCosts();
    assert.equal(builtin.stars.get('POWER_WITHER_CHESTPLATE')?.essence, 'ESSENCE_WITHER');
    assert.equal(builtin.attributeShards.get('mana_pool')?.productId, 'SHARD_STARBORN');
    for (const { rarity } of builtin.attributeShards.values()) assert.ok(builtin.attributeLevelling[rarity], rarity);
  });
});
