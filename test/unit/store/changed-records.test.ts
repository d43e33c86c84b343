/**
 * A written row as the spine's change carries it (store/repositories/auction-queries.ts changedRecordOf):
 * maps parsed once per distinct text, frozen, and kept as they are by the active-auctions view.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { changedRecordOf, toRecord } from '../../../src/store/repositories/auction-queries.ts';
import { listingOf } from '../../../src/market/active-auctions.ts';

let n = 0;
function row(enchantments: string | null, flatNbt: string | null) {
  n++;
  return {
    uuid: n.toString(16).padStart(32, '0'),
    tag: 'ASPECT_OF_THE_END',
    item_name: 'Aspect of the End',
    count: 1,
    seller: 'a'.repeat(32),
    profile_id: 'b'.repeat(32),
    coop: null,
    start_at: 1_000,
    end_at: 2_000,
    starting_bid: 500,
    highest_bid: 0,
    bin: 1,
    tier: 'RARE',
    category: 'weapon',
    reforge: 'heroic',
    item_uid: null,
    item_created_at: null,
    enchantments,
    flat_nbt: flatNbt,
    state: 'active' as const,
    last_updated: 1_500,
    sold_price: null,
    buyer: null,
    sold_at: null,
  };
}

it('equal map texts give one frozen object, equal to what toRecord parses', () => {
  const a = row('{"sharpness":5,"critical":6}', '{"hot_potato_count":"10"}');
  const b = row('{"sharpness":5,"critical":6}', '{"hot_potato_count":"10"}');
  const ra = changedRecordOf(a);
  const rb = changedRecordOf(b);
  assert.equal(ra.enchantments, rb.enchantments);
  assert.equal(ra.flatNbt, rb.flatNbt);
  assert.ok(Object.isFrozen(ra.enchantments) && Object.isFrozen(ra.flatNbt));
  assert.deepEqual(ra, toRecord(a));
  // toRecord (the readers' records) stays mutable and unshared
  assert.ok(!Object.isFrozen(toRecord(a).enchantments));
  assert.notEqual(toRecord(a).enchantments, toRecord(b).enchantments);
});

it('maps holding a unique value (a pet uuid) are frozen but not pooled; bad or empty JSON is an empty map', () => {
  const text = `{"uuid":"${'c'.repeat(36)}","type":"ENDER_DRAGON"}`;
  const ra = changedRecordOf(row(null, text));
  const rb = changedRecordOf(row(null, text));
  assert.notEqual(ra.flatNbt, rb.flatNbt);
  assert.deepEqual(ra.flatNbt, rb.flatNbt);
  assert.ok(Object.isFrozen(ra.flatNbt));
  for (const bad of ['{not json', '{}', null, '"a string"']) {
    const r = changedRecordOf(row(bad, bad));
    assert.deepEqual(r.enchantments, {});
    assert.deepEqual(r.flatNbt, {});
  }
});

it('a row carrying its maps as objects (as the ingester writes them) shares them by the text SQLite stores', () => {
  const a = { ...row(null, null), enchantments: { growth: 5 }, flat_nbt: { rarity_upgrades: '1' } };
  const b = { ...row(null, null), enchantments: { growth: 5 }, flat_nbt: { rarity_upgrades: '1' } };
  const ra = changedRecordOf(a, '{"growth":5}', '{"rarity_upgrades":"1"}');
  const rb = changedRecordOf(b);
  assert.equal(ra.enchantments, rb.enchantments);
  assert.equal(ra.flatNbt, rb.flatNbt);
  assert.deepEqual(ra.enchantments, { growth: 5 });
  assert.ok(Object.isFrozen(rb.flatNbt));
});

it('the active-auctions view keeps the change\'s frozen maps instead of re-keying them', () => {
  const r = changedRecordOf(row('{"growth":5}', '{"rarity_upgrades":"1"}'));
  const l = listingOf(r);
  assert.equal(l.enchantments, r.enchantments);
  assert.equal(l.flatNbt, r.flatNbt);
});
