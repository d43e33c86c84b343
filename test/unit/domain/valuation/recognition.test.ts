/**
 * Parts recognition on ~1,100 real decoded items (SkyHelper-Networth's example profile,
 * test/fixtures/skyhelper): every item reads, every ExtraAttributes key is either a priced part
 * or a known identity trait (none unknown), and the parts found stay found (counts as measured;
 * docs/valuation.md, "Recognition"); with the NEU part cost tables, the reforges priced as their
 * stones and the unlocked slots priced are counted exactly.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { partCostTablesFromNeu } from '../../../../src/gamedata/part-costs.ts';
import { partsEstimate } from '../../../../src/domain/valuation/parts.ts';
import { subjectOfJson, subjectOfProfilePet } from '../../../../src/domain/valuation/subject.ts';
import { traitsOf } from '../../../../src/domain/valuation/traits.ts';
import { neuConstant, skyHelperItems } from '../../../helpers/fixtures.ts';

/** Parts found on the fixture's items, by kind, as measured (2026-11-29). */
const EXPECTED_PARTS: Record<string, number> = {
  base: 1082,
  enchantment: 591,
  reforge: 188,
  recombobulator: 36,
  hot_potato_book: 23,
  pet_item: 21,
  gemstone: 18,
  essence_star: 13,
  rune: 5,
  fuming_potato_book: 4,
  farming_for_dummies: 4,
  master_star: 4,
  power_scroll: 3,
  necron_scroll: 3,
  wood_singularity: 2,
  transmission_tuner: 1,
  winning_bid: 1,
  enrichment: 1,
  bookworm_book: 1,
  stats_book: 1,
  art_of_war: 1,
  skin: 1,
};

/** Reforges and unlocked gemstone slots priced through the NEU part cost tables, as measured (2026-11-29). */
const EXPECTED_PRICED = { reforgeStones: 33, gemstoneSlots: 0, reforges: 188, unlockedSlots: 0 };
/** The fixture's reforges without a stone: basic (blacksmith) reforges, and `none` (accessories reforged to nothing). */
const BASIC_REFORGES = new Set(['none', 'fierce', 'strange', 'wise', 'godly', 'pure', 'smart', 'clean', 'heroic', 'spicy', 'titanic', 'heavy', 'unreal', 'sharp', 'fast', 'hasty', 'odd_sword', 'light', 'mythic', 'strong', 'shaded', 'deadly', 'gentle', 'rapid', 'epic', 'fair', 'neat']);

it('recognises every part of the real decoded items', () => {
  const inventories = skyHelperItems() as Record<string, unknown[]>;
  const unknown = new Map<string, number>();
  const kinds: Record<string, number> = {};
  const tables = partCostTablesFromNeu(neuConstant('reforgestones.json'), neuConstant('gemstonecosts.json'));
  const priced = { reforgeStones: 0, gemstoneSlots: 0, reforges: 0, unlockedSlots: 0 };
  const unmatched = new Map<string, number>();
  const stones = new Map<string, number>();
  let items = 0;
  let failed = 0;
  for (const [inventory, list] of Object.entries(inventories)) {
    // sacks and essence are amounts of bazaar products, not items with NBT
    if (inventory === 'sacks' || inventory === 'essence') continue;
    for (const raw of list) {
      let subject;
      try {
        subject = inventory === 'pets' ? subjectOfProfilePet(raw) : subjectOfJson(raw);
      } catch {
        failed++;
        continue;
      }
      if (!subject) continue;
      items++;
      const traits = traitsOf(subject);
      for (const k of traits.unknownKeys) unknown.set(k, (unknown.get(k) ?? 0) + 1);
      // Every part priced at 1 coin: recognition, not pricing, is measured here.
      const parts = partsEstimate(traits, { prices: { lookup: () => ({ coins: 1, source: 'bazaar' }), base: () => ({ coins: 1, source: 'lbin' }) } });
      for (const p of parts.parts) kinds[p.kind] = (kinds[p.kind] ?? 0) + 1;
      // With the NEU tables and a market that prices every real item (not the price map's `REFORGE:x`, `<TAG>:<slot>`):
      // a reforge is priced when its stone is known, a slot when its unlock cost is.
      const market = { prices: { lookup: (id: string) => (id.includes(':') ? undefined : { coins: 1, source: 'bazaar' as const }), base: () => ({ coins: 1, source: 'lbin' as const }) }, reforgeStones: tables.reforgeStones, gemstoneSlots: tables.gemstoneSlots };
      const withTables = partsEstimate(traits, market);
      if (traits.reforge !== null && !traits.tag.startsWith('PET_')) priced.reforges++;
      priced.unlockedSlots += traits.tag.startsWith('PET_') ? 0 : traits.unlockedSlots.length;
      for (const p of withTables.parts) {
        if (p.kind === 'reforge' && p.unitPrice !== null) {
          priced.reforgeStones++;
          stones.set(p.id, (stones.get(p.id) ?? 0) + 1);
        }
        if (p.kind === 'gemstone_slot' && p.unitPrice !== null) priced.gemstoneSlots++;
      }
      if (traits.reforge !== null && !traits.tag.startsWith('PET_') && !withTables.parts.some((p) => p.kind === 'reforge')) unmatched.set(traits.reforge, (unmatched.get(traits.reforge) ?? 0) + 1);
    }
  }
  assert.equal(failed, 0);
  assert.ok(items >= 1_050, `${items} items read`);
  assert.deepEqual([...unknown.entries()], [], 'ExtraAttributes keys neither priced nor known');
  for (const [kind, count] of Object.entries(EXPECTED_PARTS)) assert.ok((kinds[kind] ?? 0) >= count, `${kind}: ${kinds[kind] ?? 0} found, ${count} before`);
  // 13 different stones: Blessed Fruit 8, Precursor Gear 7, Necromancer's Brooch, Wither Blood, Refined Amber 3 each …
  assert.equal(stones.size, 13);
  assert.equal(stones.get('BLESSED_FRUIT'), 8);
  assert.deepEqual(priced, EXPECTED_PRICED);
  // A reforge without a stone is a basic one (a stone reforge the table misses would show here).
  assert.deepEqual([...unmatched.keys()].filter((r) => !BASIC_REFORGES.has(r)), []);
});
