/** NEU and Elite ids of items, and the raw and smooth lowest BIN (domain/bulk-prices.ts, domain/item-names.ts). */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { cleanSales, eliteIdOf, quantile, smoothLowest, variantIds } from '../../../src/domain/bulk-prices.ts';
import { cellOf } from '../../../src/domain/prices.ts';
import { neuIdOf } from '../../../src/domain/item-names.ts';
import { decodeAuctionItem } from '../../../src/domain/nbt.ts';
import { neuIdToTag } from '../../../src/domain/tags.ts';
import { neuRepo, realAuctionPages } from '../../helpers/fixtures.ts';

const id = (tag: string, flatNbt: Record<string, string> = {}, tier: string | null = null) => neuIdOf({ tag, tier, flatNbt });

test('NEU ids: pets by rarity index, books, runes, potions, shards, hats, damage variants', () => {
  assert.equal(id('PET_BEE', { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY' }), 'BEE;4');
  assert.equal(id('PET_BEE', {}, 'COMMON'), 'BEE;0', 'the listing tier when petInfo has none');
  assert.equal(id('PET_ENDER_DRAGON', { 'petInfo.tier': 'MYTHIC' }), 'ENDER_DRAGON;5');
  assert.equal(id('ENCHANTMENT_ULTIMATE_WISE_5'), 'ULTIMATE_WISE;5');
  assert.equal(id('RUNE_MUSIC', { 'runes.MUSIC': '3' }), 'MUSIC_RUNE;3');
  assert.equal(id('UNIQUE_RUNE_GRAND_SEARING', { 'runes.GRAND_SEARING': '3' }), 'GRAND_SEARING_RUNE;3');
  assert.equal(id('POTION_SPEED', { potion_level: '2', potion: 'speed' }), 'POTION_SPEED;2');
  assert.equal(id('ATTRIBUTE_SHARD', { 'attributes.mana_pool': '3' }), 'ATTRIBUTE_SHARD_MANA_POOL;3');
  assert.equal(id('PARTY_HAT_CRAB', { party_hat_color: 'red' }), 'PARTY_HAT_CRAB_RED');
  assert.equal(id('PARTY_HAT_CRAB_ANIMATED', { party_hat_color: 'aqua' }), 'PARTY_HAT_CRAB_AQUA_ANIMATED');
  assert.equal(id('BALLOON_HAT_2024', { party_hat_color: 'lime' }), 'BALLOON_HAT_2024_LIME');
  assert.equal(id('PARTY_HAT_SLOTH', { party_hat_emoji: 'cool' }), 'PARTY_HAT_SLOTH_COOL');
  assert.equal(id('INK_SACK:3'), 'INK_SACK-3');
  assert.equal(id('HYPERION'), 'HYPERION');
});

test('NEU ids map back to the tag they came from', () => {
  for (const [tag, flat, material] of [
    ['ENCHANTMENT_ULTIMATE_WISE_5', {}, 'minecraft:enchanted_book'],
    ['PET_BEE', { 'petInfo.tier': 'EPIC' }, 'minecraft:skull'],
    ['RUNE_MUSIC', { 'runes.MUSIC': '1' }, 'minecraft:skull'],
    ['POTION_SPEED', { potion_level: '4' }, 'minecraft:potion'],
  ] as const) {
    assert.equal(neuIdToTag(id(tag, flat), material), tag);
  }
});

test('Elite ids split pets at level 100 and 200, perfect dungeon items and cake years', () => {
  const maxExp = '1e12';
  assert.equal(eliteIdOf({ tag: 'PET_BEE', tier: null, flatNbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '0' } }), 'BEE;4');
  assert.equal(eliteIdOf({ tag: 'PET_BEE', tier: null, flatNbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': maxExp } }), 'BEE;4+100');
  assert.equal(eliteIdOf({ tag: 'PET_GOLDEN_DRAGON', tier: null, flatNbt: { 'petInfo.type': 'GOLDEN_DRAGON', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': maxExp } }), 'GOLDEN_DRAGON;4+200');
  assert.equal(eliteIdOf({ tag: 'GIANTS_SWORD', tier: null, flatNbt: { baseStatBoostPercentage: '50' } }), 'GIANTS_SWORD+PERFECT');
  assert.equal(eliteIdOf({ tag: 'GIANTS_SWORD', tier: null, flatNbt: { baseStatBoostPercentage: '49' } }), 'GIANTS_SWORD');
  assert.equal(eliteIdOf({ tag: 'NEW_YEAR_CAKE', tier: null, flatNbt: { new_years_cake: '204' } }), 'NEW_YEAR_CAKE+204');
});

test('real 2022 auctions: every id is an item of the NEU repository but two vanilla damage variants', () => {
  const repo = neuRepo();
  const seen = new Set<string>();
  const missing: string[] = [];
  let special = 0;
  for (const page of realAuctionPages()) {
    for (const a of page.auctions) {
      if (seen.has(a.uuid)) continue;
      seen.add(a.uuid);
      const item = decodeAuctionItem(a.item_bytes as string);
      const neu = neuIdOf({ tag: item.tag, tier: a.tier as string, flatNbt: item.flatNbt });
      if (neu !== item.tag) special++;
      if (!existsSync(join(repo, 'items', `${neu}.json`))) missing.push(`${neu} (${item.tag})`);
    }
  }
  assert.ok(seen.size >= 1900 && special >= 150, `${seen.size} auctions, ${special} with a NEU id unlike their tag`);
  // The two left are vanilla blocks whose damage value NEU does not list as an item of its own.
  assert.deepEqual(missing.sort(), ['OBSIDIAN-8 (OBSIDIAN:8)', 'SAND-5 (SAND:5)']);
});

test('smooth: a listing planted far below the market moves raw, not smooth', () => {
  const market = Array.from({ length: 30 }, (_, i) => 100_000_000 + i * 500_000);
  const planted = [1_000, ...market];
  assert.equal(planted[0], 1_000, 'raw is the absolute lowest');
  assert.equal(smoothLowest(planted), 100_000_000);
  assert.equal(smoothLowest(market), 100_000_000, 'without the plant, smooth is the lowest');
  // A real undercut inside the spread is believed.
  assert.equal(smoothLowest([92_000_000, ...market]), 92_000_000);
});

test('smooth with few listings reads the recent reference, else believes the lowest', () => {
  assert.equal(smoothLowest([10, 1_000, 1_100], 1_050), 1_000);
  assert.equal(smoothLowest([10, 1_000, 1_100]), 10, 'no history: the lowest');
  assert.equal(smoothLowest([400, 450], 1_000), 400, 'everything under the reference: the market moved');
  assert.equal(smoothLowest([]), undefined);
});

test('smooth is one of the prices, never below raw, and equals raw without outliers', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 1e9 }), { minLength: 1, maxLength: 60 }), (prices) => {
      const sorted = [...prices].sort((a, b) => a - b);
      const smooth = smoothLowest(sorted)!;
      assert.ok(sorted.includes(smooth));
      assert.ok(smooth >= sorted[0]!);
      if (sorted.length >= 4) {
        const q1 = quantile(sorted, 0.25);
        const fence = q1 - 2 * (quantile(sorted, 0.75) - q1);
        assert.equal(smooth, sorted.find((p) => p >= fence));
      }
    }),
  );
});

test('clean sales leave out a sale far below and one far above the market, exactly for small hours', () => {
  const market = Array.from({ length: 20 }, (_, i) => ({ price: 1_000_000 + i * 10_000, count: 1, at: 0 }));
  const hourA = cellOf([...market.slice(0, 10), { price: 1, count: 1, at: 0 }])!;
  const hourB = cellOf([...market.slice(10), { price: 900_000_000, count: 1, at: 0 }])!;
  const clean = cleanSales([hourA, hourB]);
  assert.equal(clean.count, 20);
  assert.equal(clean.mean, market.reduce((s, m) => s + m.price, 0) / 20);
  assert.deepEqual(cleanSales([]), { count: 0, mean: null });
  assert.deepEqual(cleanSales([cellOf([{ price: 5, count: 1, at: 0 }, { price: 500, count: 1, at: 0 }])!]), { count: 2, mean: 252.5 }, 'too few sales to fence');
});

test('clean sales over large hours (digests) keep nearly every sale of a tight market', () => {
  const hours = Array.from({ length: 6 }, (_, h) => cellOf(Array.from({ length: 200 }, (_, i) => ({ price: 1_000 + ((i * 37 + h) % 100), count: 1, at: 0 })))!);
  const clean = cleanSales(hours);
  assert.ok(Math.abs(clean.count - 1200) < 1e-6, `${clean.count}`);
  assert.ok(Math.abs(clean.mean! - 1049.5) < 2, `${clean.mean}`);
});

test('NEU and Elite ids of the price rollups\' variants', () => {
  assert.deepEqual(variantIds('PET_BEE', 'LEGENDARY'), { neu: 'BEE;4', elite: 'BEE;4' });
  assert.deepEqual(variantIds('PET_BEE', 'LEGENDARY+100'), { neu: null, elite: 'BEE;4+100' });
  assert.deepEqual(variantIds('PET_GOLDEN_DRAGON', 'LEGENDARY+200'), { neu: null, elite: 'GOLDEN_DRAGON;4+200' });
  assert.deepEqual(variantIds('PET_BEE', ''), { neu: null, elite: null }, 'the whole tag of a pet names no price');
  assert.deepEqual(variantIds('RUNE_BLOOD_2', '3'), { neu: 'BLOOD_2_RUNE;3', elite: 'BLOOD_2_RUNE;3' });
  assert.deepEqual(variantIds('UNIQUE_RUNE_RAINBOW', '1'), { neu: 'RAINBOW_RUNE;1', elite: 'RAINBOW_RUNE;1' });
  assert.deepEqual(variantIds('POTION_SPEED', '5'), { neu: 'POTION_SPEED;5', elite: 'POTION_SPEED;5' });
  assert.deepEqual(variantIds('ENCHANTMENT_ULTIMATE_WISE_5', ''), { neu: 'ULTIMATE_WISE;5', elite: 'ULTIMATE_WISE;5' });
  assert.deepEqual(variantIds('HYPERION', ''), { neu: 'HYPERION', elite: 'HYPERION' });
});
