/**
 * Parts recognition on ~1,100 real decoded items (SkyHelper-Networth's example profile,
 * test/fixtures/skyhelper): every item reads, every ExtraAttributes key is either a priced part
 * or a known identity trait (none unknown), and the parts found stay found (counts as measured;
 * docs/valuation.md, "Recognition").
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { partsEstimate } from '../../../../src/domain/valuation/parts.ts';
import { subjectOfJson, subjectOfProfilePet } from '../../../../src/domain/valuation/subject.ts';
import { traitsOf } from '../../../../src/domain/valuation/traits.ts';
import { skyHelperItems } from '../../../helpers/fixtures.ts';

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

it('recognises every part of the real decoded items', () => {
  const inventories = skyHelperItems() as Record<string, unknown[]>;
  const unknown = new Map<string, number>();
  const kinds: Record<string, number> = {};
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
    }
  }
  assert.equal(failed, 0);
  assert.ok(items >= 1_050, `${items} items read`);
  assert.deepEqual([...unknown.entries()], [], 'ExtraAttributes keys neither priced nor known');
  for (const [kind, count] of Object.entries(EXPECTED_PARTS)) assert.ok((kinds[kind] ?? 0) >= count, `${kind}: ${kinds[kind] ?? 0} found, ${count} before`);
});
