import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayName, electionLeader, mayorVariantKey, neuNpcOffers } from '../../src/market/flips.ts';
import type { AuctionRow } from '../../src/store/repositories/flip-inputs.ts';
import { NEU_SNAPSHOT } from '../../src/gamedata/tables/npc-shops.ts';

describe('flip engine helpers', () => {
  it('names products the items resource lacks', () => {
    assert.equal(displayName('ENCHANTMENT_ULTIMATE_WISE_5'), 'Wise V');
    assert.equal(displayName('ENCHANTMENT_SHARPNESS_6'), 'Sharpness VI');
    assert.equal(displayName('SHARD_SEA_SERPENT'), 'Shard Sea Serpent');
  });
  it('the next mayor is the leading candidate of an open election', () => {
    assert.equal(electionLeader({ current: { candidates: [{ name: 'Paul', votes: 3 }, { name: 'Diana', votes: 9 }] } }), 'Diana');
    assert.equal(electionLeader({}), null);
    assert.equal(electionLeader({ current: { candidates: [] } }), null);
  });
  it('mayor flips compare one variant: pet level and upgrades split sales, reforges do not', () => {
    const row = (over: Partial<AuctionRow>): AuctionRow => ({ uuid: 'u', tag: 'PET_RABBIT', itemName: '[Lvl 100] Rabbit', count: 1, price: 1, at: 0, tier: 'LEGENDARY', reforge: null, enchantments: {}, flatNbt: {}, ...over });
    const base = mayorVariantKey(row({}));
    assert.notEqual(mayorVariantKey(row({ itemName: '[Lvl 1] Rabbit' })), base);
    assert.notEqual(mayorVariantKey(row({ tier: 'EPIC' })), base);
    assert.notEqual(mayorVariantKey(row({ flatNbt: { hot_potato_count: '10' } })), base);
    assert.equal(mayorVariantKey(row({ reforge: 'Heroic' })), base);
    const sword = row({ tag: 'HYPERION', itemName: 'Heroic Hyperion', enchantments: { sharpness: 6, smite: 7 } });
    assert.equal(mayorVariantKey({ ...sword, enchantments: { smite: 7, sharpness: 6 } }), mayorVariantKey(sword));
    assert.notEqual(mayorVariantKey({ ...sword, enchantments: { smite: 7, sharpness: 5 } }), mayorVariantKey(sword));
  });
  it('NPC shop offers come from the NEU table with coin costs parsed', () => {
    const offers = neuNpcOffers();
    assert.ok(offers.length > 1000, `${offers.length} offers from NEU ${NEU_SNAPSHOT}`);
    const flesh = offers.find((o) => o.itemTag === 'ROTTEN_FLESH' && o.costs.length === 1 && o.costs[0]!.tag === 'SKYBLOCK_COIN');
    assert.ok(flesh && flesh.costs[0]!.amount > 0 && flesh.count >= 1 && flesh.npcName.length > 0);
    assert.ok(offers.every((o) => o.count > 0 && o.costs.every((c) => Number.isFinite(c.amount))));
  });
});
