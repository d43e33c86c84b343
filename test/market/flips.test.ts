import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { displayName, electionLeader, neuNpcOffers } from '../../src/market/flips.ts';
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
  it('NPC shop offers come from the NEU table with coin costs parsed', () => {
    const offers = neuNpcOffers();
    assert.ok(offers.length > 1000, `${offers.length} offers from NEU ${NEU_SNAPSHOT}`);
    const flesh = offers.find((o) => o.itemTag === 'ROTTEN_FLESH' && o.costs.length === 1 && o.costs[0]!.tag === 'SKYBLOCK_COIN');
    assert.ok(flesh && flesh.costs[0]!.amount > 0 && flesh.count >= 1 && flesh.npcName.length > 0);
    assert.ok(offers.every((o) => o.count > 0 && o.costs.every((c) => Number.isFinite(c.amount))));
  });
});
