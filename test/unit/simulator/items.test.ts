import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Market } from '../../../src/simulator/market.ts';
import { formatItemTimestamp } from '../../../src/simulator/items.ts';
import { decodeTyped, itemOf, tagAt, T0 } from '../../helpers/simulator-items.ts';

type Typed = { type: string; value: unknown };

test('every auction item_bytes decodes to the upstream NBT layout', () => {
  const m = new Market({ seed: 3, auctions: 1500, generationSeconds: 60, bazaarSeconds: 20 }, T0);
  m.populate();
  m.advanceTo(T0 + 3 * 60_000);
  const kinds = { string: 0, long: 0, pets: 0, books: 0, runes: 0, potions: 0, gems: 0, attributes: 0, stars: 0, recomb: 0, reforge: 0, withUuid: 0 };
  const auctions = m.generation().auctions;
  for (const a of auctions) {
    assert.match(a.item_bytes, /^H4sI[A-Za-z0-9+/]+=*$/, 'base64 of gzip');
    const root = decodeTyped(a.item_bytes);
    assert.equal(root.type, 'compound');
    assert.equal(root.name, '');
    const item = itemOf(a.item_bytes);
    assert.equal(tagAt(item, 'id')?.type, 'short');
    assert.equal(tagAt(item, 'Count')?.type, 'byte');
    assert.equal(tagAt(item, 'Damage')?.type, 'short');
    const name = tagAt(item, 'tag', 'display', 'Name') as Typed;
    const lore = tagAt(item, 'tag', 'display', 'Lore') as { type: string; value: { type: string; value: string[] } };
    assert.equal(name.type, 'string');
    assert.equal(lore.type, 'list');
    assert.equal(lore.value.type, 'string');
    assert.equal(a.item_lore, lore.value.value.join('\n'), 'item_lore = Lore joined by \\n');
    assert.equal(a.item_name, (name.value as string).replace(/§./g, ''), 'item_name = Name without colour codes');
    assert.ok(a.extra.startsWith(a.item_name));
    const ea = tagAt(item, 'tag', 'ExtraAttributes') as Typed;
    assert.equal(ea.type, 'compound');
    const id = tagAt(ea, 'id') as Typed;
    assert.equal(id.type, 'string');
    const uuid = tagAt(ea, 'uuid');
    if (uuid) {
      kinds.withUuid++;
      assert.match(uuid.value as string, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(a.item_uuid, (uuid.value as string).replace(/-/g, ''), 'item_uuid = ExtraAttributes.uuid without dashes');
    } else {
      assert.equal(a.item_uuid, undefined);
    }
    const ts = tagAt(ea, 'timestamp');
    if (ts?.type === 'string') {
      kinds.string++;
      assert.match(ts.value as string, /^\d{1,2}\/\d{1,2}\/\d{2} \d{1,2}:\d{2} (AM|PM)$/);
    } else if (ts) {
      assert.equal(ts.type, 'long');
      kinds.long++;
      const [hi, lo] = ts.value as [number, number];
      const ms = Number((BigInt(hi) << 32n) | BigInt(lo >>> 0));
      assert.ok(ms < a.start && ms > a.start - 500 * 86_400_000, 'created before listing');
    }
    const ench = tagAt(ea, 'enchantments');
    if (ench) {
      assert.equal(ench.type, 'compound');
      for (const v of Object.values(ench.value as Record<string, Typed>)) assert.equal(v.type, 'int');
    }
    switch (id.value) {
      case 'PET': {
        kinds.pets++;
        const info = tagAt(ea, 'petInfo') as Typed;
        assert.equal(info.type, 'string', 'petInfo is a JSON string');
        const pet = JSON.parse(info.value as string) as Record<string, unknown>;
        for (const k of ['type', 'active', 'exp', 'tier', 'hideInfo', 'candyUsed']) assert.ok(k in pet, `petInfo.${k}`);
        assert.equal(pet.tier, a.tier);
        assert.match(a.item_name, /^\[Lvl \d{1,3}\] /);
        if (uuid) assert.equal(pet.uuid, uuid.value);
        break;
      }
      case 'ENCHANTED_BOOK':
        kinds.books++;
        assert.ok(ench, 'books carry enchantments');
        assert.equal(Object.keys(ench.value as object).length, 1, 'exactly one enchantment');
        assert.equal(tagAt(item, 'id')?.value, 403);
        break;
      case 'RUNE':
        kinds.runes++;
        assert.equal(Object.keys((tagAt(ea, 'runes') as Typed).value as object).length, 1);
        break;
      case 'POTION':
        kinds.potions++;
        assert.equal(tagAt(ea, 'potion')?.type, 'string');
        assert.equal(tagAt(ea, 'potion_level')?.type, 'int');
        break;
    }
    if (tagAt(ea, 'gems')) kinds.gems++;
    if (tagAt(ea, 'attributes')) kinds.attributes++;
    if (tagAt(ea, 'upgrade_level')) kinds.stars++;
    if (tagAt(ea, 'rarity_upgrades')) kinds.recomb++;
    if (tagAt(ea, 'modifier')) kinds.reforge++;
  }
  for (const [k, n] of Object.entries(kinds)) assert.ok(n > 0, `some items have ${k} (${n})`);
  assert.ok(kinds.withUuid / auctions.length > 0.5);
});

test('the in-game timestamp string format', () => {
  assert.equal(formatItemTimestamp(Date.UTC(2022, 7, 7, 21, 21)), '8/7/22 9:21 PM');
  assert.equal(formatItemTimestamp(Date.UTC(2026, 0, 1, 0, 5)), '1/1/26 12:05 AM');
  assert.equal(formatItemTimestamp(Date.UTC(2025, 11, 31, 12, 0)), '12/31/25 12:00 PM');
});
