/** The price file networth libraries read: its key formats and its pricing rules. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { networthCoins, networthKeyOf, networthKeyOfVariant, networthPrices, upperCaseKeys, type NetworthListing } from '../../../src/domain/networth-prices.ts';
import { PET_RARITY_OFFSET, PET_XP_PER_LEVEL } from '../../../src/domain/pets.ts';

/** The XP a pet of `tier` needs to reach `level` on the shared ladder (levels past 100: the dragons' flat step). */
function xpFor(tier: string, level: number): string {
  const offset = PET_RARITY_OFFSET[tier]!;
  let xp = 0;
  for (let l = 1; l < level; l++) xp += PET_XP_PER_LEVEL[offset + l - 1] ?? 1_886_700;
  return String(xp);
}

function item(tag: string, startingBid: number, flatNbt: Record<string, string> = {}, count = 1): NetworthListing {
  return { tag, tier: 'LEGENDARY', flatNbt, startingBid, count };
}

function pet(type: string, tier: string, level: number, startingBid: number, extra: Record<string, string> = {}): NetworthListing {
  return { tag: `PET_${type}`, tier, startingBid, count: 1, flatNbt: { 'petInfo.type': type, 'petInfo.tier': tier, 'petInfo.exp': xpFor(tier, level), ...extra } };
}

describe('networth price file: keys', () => {
  it('items by their lower-case id; books as enchantment_<name>_<level>; a stack per item', () => {
    const file = networthPrices({
      listings: [
        item('HYPERION', 800_000_000),
        item('HYPERION', 790_000_000),
        item('ENCHANTMENT_ULTIMATE_WISE_5', 1_200_000, { 'enchantments.ultimate_wise': '5' }),
        item('ENCHANTED_DIAMOND', 64_000, {}, 64),
      ],
      bazaar: [],
    });
    assert.deepEqual(file, { enchanted_diamond: 1_000, enchantment_ultimate_wise_5: 1_200_000, hyperion: 790_000_000 });
    assert.deepEqual(Object.keys(file), Object.keys(file).sort(), 'keys in order');
  });

  it('pets: lvl_1 for levels 1–99, lvl_100 at 100, lvl_200 at 200, per rarity; skins apart; tier boosts and 101–199 price nothing', () => {
    const file = networthPrices({
      listings: [
        pet('ENDER_DRAGON', 'LEGENDARY', 1, 550_000_000),
        pet('ENDER_DRAGON', 'LEGENDARY', 57, 560_000_000),
        pet('ENDER_DRAGON', 'LEGENDARY', 100, 640_000_000),
        pet('ENDER_DRAGON', 'EPIC', 100, 500_000_000),
        pet('GOLDEN_DRAGON', 'LEGENDARY', 100, 700_000_000),
        pet('GOLDEN_DRAGON', 'LEGENDARY', 150, 900_000_000),
        pet('GOLDEN_DRAGON', 'LEGENDARY', 200, 1_100_000_000),
        pet('ENDER_DRAGON', 'LEGENDARY', 100, 900_000_000, { 'petInfo.skin': 'DRAGON_NEON_RED' }),
        pet('BEE', 'EPIC', 12, 90_000, { 'petInfo.heldItem': 'PET_ITEM_TIER_BOOST' }),
      ],
      bazaar: [],
    });
    assert.deepEqual(file, {
      lvl_1_legendary_ender_dragon: 550_000_000,
      lvl_100_legendary_ender_dragon: 640_000_000,
      lvl_100_epic_ender_dragon: 500_000_000,
      lvl_100_legendary_golden_dragon: 700_000_000,
      lvl_200_legendary_golden_dragon: 1_100_000_000,
      lvl_100_legendary_ender_dragon_skinned_dragon_neon_red: 900_000_000,
    });
    assert.equal(networthKeyOf(pet('BEE', 'EPIC', 12, 1, { 'petInfo.heldItem': 'PET_ITEM_TIER_BOOST' })), undefined);
    assert.equal(networthKeyOf(pet('GOLDEN_DRAGON', 'LEGENDARY', 150, 1)), undefined);
  });

  it('item skins, shiny items, runes, cakes, hats, editions, potions and cases by the ids the libraries build', () => {
    const cases: Array<[NetworthListing, string]> = [
      [item('WITHER_GOGGLES', 1, { skin: 'WITHER_GOGGLES_CELESTIAL' }), 'wither_goggles_skinned_wither_goggles_celestial'],
      [item('HYPERION', 1, { is_shiny: '1' }), 'hyperion_shiny'],
      [item('RUNE_MUSIC', 1, { 'runes.MUSIC': '3' }), 'rune_music_3'],
      [item('UNIQUE_RUNE_GRAND_SEARING', 1, { 'runes.GRAND_SEARING': '3' }), 'rune_grand_searing_3'],
      [item('NEW_YEAR_CAKE', 1, { new_years_cake: '42' }), 'new_year_cake_42'],
      [item('PARTY_HAT_CRAB', 1, { party_hat_color: 'red' }), 'party_hat_crab_red'],
      [item('BALLOON_HAT_2024', 1, { party_hat_color: 'aqua' }), 'balloon_hat_2024_aqua'],
      [item('PARTY_HAT_SLOTH', 1, { party_hat_emoji: 'cool' }), 'party_hat_sloth_cool'],
      [item('DCTR_SPACE_HELM', 1, { edition: '12' }), 'dctr_space_helm_editioned'],
      [item('CREATIVE_MIND', 1), 'creative_mind_uneditioned'],
      [item('CREATIVE_MIND', 1, { edition: '3' }), 'creative_mind'],
      [item('POTION_SPEED', 1, { potion: 'speed', potion_level: '5' }), 'potion'],
      [item('POTION_AFFINITY_TALISMAN', 1), 'potion_affinity_talisman'],
      [item('ABICASE_SUMSUNG_1', 1, { model: 'SUMSUNG_1' }), 'abicase'],
      [item('INK_SACK:3', 1), 'ink_sack:3'],
      [item('MIDAS_SWORD', 1, { winning_bid: '50000000' }), 'midas_sword_50m'],
      [item('MIDAS_SWORD', 1, { winning_bid: '30000000' }), 'midas_sword'],
      [item('MIDAS_STAFF', 1, { winning_bid: '100000000' }), 'midas_staff_100m'],
    ];
    for (const [listing, key] of cases) assert.equal(networthKeyOf(listing), key, listing.tag);
    // A skinned or shiny item is not the plain item's price.
    const file = networthPrices({ listings: [item('HYPERION', 900, { is_shiny: '1' }), item('WITHER_GOGGLES', 5, { skin: 'X' })], bazaar: [] });
    assert.deepEqual(file, { hyperion_shiny: 900, wither_goggles_skinned_x: 5 });
  });

  it('rejects names that would forge a key (a skin or colour with spaces or punctuation)', () => {
    assert.equal(networthKeyOf(item('HYPERION', 1, { skin: 'a b"' })), undefined);
    assert.equal(networthKeyOf(item('PARTY_HAT_CRAB', 1, { party_hat_color: '../x' })), undefined);
    assert.equal(networthKeyOf(pet('BEE', 'LEGENDARY', 5, 1, { 'petInfo.skin': 'x y' })), 'lvl_1_legendary_bee');
  });

  it('upper case for SkyHelper-Networth 2.x: the same keys, upper case', () => {
    assert.deepEqual(upperCaseKeys({ hyperion: 1, lvl_100_legendary_ender_dragon: 2, essence_wither: 3 }), { HYPERION: 1, LVL_100_LEGENDARY_ENDER_DRAGON: 2, ESSENCE_WITHER: 3 });
  });
});

describe('networth price file: prices', () => {
  it('the bazaar: instant sell (highest buy order), else instant buy; neither: no key; it wins over the auction house', () => {
    const file = networthPrices({
      listings: [item('ENCHANTMENT_ULTIMATE_WISE_5', 2_000_000)],
      bazaar: [
        { productId: 'ESSENCE_WITHER', buyPrice: 2_500, sellPrice: 2_350.4 },
        { productId: 'PERFECT_RUBY_GEM', buyPrice: 16_000_000, sellPrice: 0 },
        { productId: 'ENCHANTMENT_ULTIMATE_WISE_5', buyPrice: 1_300_000, sellPrice: 1_150_000 },
        { productId: 'FIRST_MASTER_STAR', buyPrice: 0, sellPrice: 0 },
        { productId: 'ROTTEN_FLESH', buyPrice: 3, sellPrice: 0.7 },
      ],
    });
    assert.deepEqual(file, { enchantment_ultimate_wise_5: 1_150_000, essence_wither: 2_350, perfect_ruby_gem: 16_000_000, rotten_flesh: 0.7 });
    assert.equal((file as Record<string, number>)['first_master_star'], undefined, 'no price: no key, never 0');
  });

  it('the auction house: the lowest BIN inside the outlier fence, so a planted listing does not move it', () => {
    const listings = [item('HYPERION', 1_000), ...Array.from({ length: 12 }, (_, i) => item('HYPERION', 800_000_000 + i * 5_000_000))];
    assert.equal(networthPrices({ listings, bazaar: [] })['hyperion'], 800_000_000);
    // With fewer than four listings there is no fence: the lowest.
    assert.equal(networthPrices({ listings: [item('HYPERION', 1_000), item('HYPERION', 800_000_000)], bazaar: [] })['hyperion'], 1_000);
  });

  it('the last day of history for keys nothing is listed under now: pets by band, runes by level, plain items', () => {
    const file = networthPrices({
      listings: [pet('ENDER_DRAGON', 'LEGENDARY', 100, 640_000_000)],
      bazaar: [],
      recentLowestBins: [
        { tag: 'PET_ENDER_DRAGON', variant: 'LEGENDARY+100', price: 600_000_000 }, // listed now: the listing wins
        { tag: 'PET_ENDER_DRAGON', variant: 'LEGENDARY', price: 540_000_000 },
        { tag: 'PET_GOLDEN_DRAGON', variant: 'LEGENDARY+200', price: 1_050_000_000 },
        { tag: 'RUNE_MUSIC', variant: '3', price: 2_000_000 },
        { tag: 'UNIQUE_RUNE_GRAND_SEARING', variant: '3', price: 9_000_000 },
        { tag: 'PET_BEE', variant: '', price: 1 }, // the whole-tag row of a variant-keyed item
        { tag: 'PARTY_HAT_CRAB', variant: '', price: 1 }, // no colour
        { tag: 'TERMINATOR', variant: '', price: 300_000_000 },
        { tag: 'POTION_SPEED', variant: '5', price: 40 },
      ],
    });
    assert.deepEqual(file, {
      lvl_100_legendary_ender_dragon: 640_000_000,
      lvl_1_legendary_ender_dragon: 540_000_000,
      lvl_200_legendary_golden_dragon: 1_050_000_000,
      potion: 40,
      rune_grand_searing_3: 9_000_000,
      rune_music_3: 2_000_000,
      terminator: 300_000_000,
    });
    assert.equal(networthKeyOfVariant('PET_BEE', 'EPIC'), 'lvl_1_epic_bee');
    assert.equal(networthKeyOfVariant('NEW_YEAR_CAKE', ''), undefined);
    assert.equal(networthKeyOfVariant('ENCHANTMENT_ULTIMATE_WISE_5', ''), 'enchantment_ultimate_wise_5');
  });

  it('a free item is 0 coins; a negative or broken price is skipped', () => {
    const file = networthPrices({ listings: [item('DIRT', 0), item('STONE', -5), item('SAND', Number.NaN)], bazaar: [] });
    assert.deepEqual(file, { dirt: 0 });
  });

  it('attributes: per level-1 shard from the sales where known, else the active shards; the cheapest shard; Kuudra pieces per slot', () => {
    const file = networthPrices({
      listings: [
        item('ATTRIBUTE_SHARD', 400_000, { 'attributes.mana_pool': '1' }),
        item('ATTRIBUTE_SHARD', 1_600_000, { 'attributes.veteran': '3' }),
        item('ATTRIBUTE_SHARD', 450_000, { 'attributes.veteran': '1' }),
        item('AURORA_HELMET', 2_000_000, { 'attributes.mana_pool': '2', 'attributes.veteran': '1' }),
        item('INFERNAL_AURORA_CHESTPLATE', 90_000_000, { 'attributes.mana_pool': '1' }),
      ],
      bazaar: [],
      attributeSales: [
        { tag: 'ATTRIBUTE_SHARD', mods: { attributes: { mana_pool: 2 } }, median: 1_000_000, count: 8 },
        { tag: 'ATTRIBUTE_SHARD', mods: { attributes: { mana_pool: 1 } }, median: 600_000, count: 8 },
      ],
    });
    assert.equal(file['attribute_shard_mana_pool'], 500_000, 'the sales: level 2 at 1 M is 500 k per level-1 shard, under level 1 at 600 k');
    assert.equal(file['attribute_shard_veteran'], 400_000, 'no sales: the active shards, level 3 at 1.6 M is 400 k per shard');
    assert.equal(file['attribute_shard'], 400_000);
    assert.equal(file['kuudra_helmet_mana_pool'], 1_000_000);
    assert.equal(file['kuudra_helmet_veteran'], 2_000_000);
    assert.equal(file['kuudra_chestplate_mana_pool'], 90_000_000);
    assert.equal(file['aurora_helmet'], 2_000_000, 'the piece itself keeps its own key');
  });

  it('coins: whole from 100 up, two decimals under, never rounded to 0', () => {
    assert.equal(networthCoins(1234.6), 1235);
    assert.equal(networthCoins(0.7), 0.7);
    assert.equal(networthCoins(12.345), 12.35);
    assert.equal(networthCoins(0.0012346), 0.001235);
    assert.equal(networthCoins(0), 0);
  });
});
