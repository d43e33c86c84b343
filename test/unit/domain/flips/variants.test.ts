import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itemMayorVariantKey as mayorVariantKey, modifiersOf, type SoldItem } from '../../../../src/domain/sales-rollup.ts';
import { npcOffersFromShopRows } from '../../../../src/domain/flips/npc.ts';
import { decodeAuctionItem } from '../../../../src/domain/nbt.ts';
import { AUCTION_ITEMS } from '../../../../src/gamedata/builtin/catalog.ts';
import { encodeItem } from '../../../../src/simulator/items.ts';
import { NEU_SNAPSHOT, NPC_SHOP_ROWS } from '../../../../src/gamedata/tables/npc-shops.ts';

/** A sold or listed auction as the flips read it (store.flipInputs rows). */
type AuctionRow = SoldItem;

describe('flip engine helpers', () => {
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
    const offers = npcOffersFromShopRows(NPC_SHOP_ROWS);
    assert.ok(offers.length > 1000, `${offers.length} offers from NEU ${NEU_SNAPSHOT}`);
    const flesh = offers.find((o) => o.itemTag === 'ROTTEN_FLESH' && o.costs.length === 1 && o.costs[0]!.tag === 'SKYBLOCK_COIN');
    assert.ok(flesh && flesh.costs[0]!.amount > 0 && flesh.count >= 1 && flesh.npcName.length > 0);
    assert.ok(offers.every((o) => o.count > 0 && o.costs.every((c) => Number.isFinite(c.amount))));
  });
});

describe('attribute-flip variants from stored auctions', () => {
  it('reads gems (with universal-slot types and unlocked slots), attributes, stars and a pet item from the item NBT', () => {
    const valk = AUCTION_ITEMS.find((d) => d.id === 'VALKYRIE')!;
    const encoded = encodeItem({ def: valk, count: 1, tier: valk.tier, hasUuid: true, timestampForm: 'string', upgradeLevel: 3, gems: { COMBAT_0: 'FINE' } }, '0'.repeat(32), 0);
    const item = decodeAuctionItem(encoded.itemBytes);
    const row: AuctionRow = { uuid: 'u', tag: 'VALKYRIE', itemName: encoded.itemName, count: 1, price: 1, at: 0, tier: 'LEGENDARY', reforge: null, enchantments: {}, flatNbt: item.flatNbt };
    const m = modifiersOf(row);
    assert.equal(m.stars, 3);
    assert.equal(m.gems!.COMBAT_0, 'FINE');
    assert.ok(['JASPER', 'SAPPHIRE'].includes(m.gems!.COMBAT_0_gem!), m.gems!.COMBAT_0_gem);
    assert.deepEqual(m.unlockedGemSlots, [...(valk.gemSlots ?? [])]);
    assert.equal(m.petHeldItem, null);
    const petRow: AuctionRow = { ...row, tag: 'PET_RABBIT', itemName: '[Lvl 100] Rabbit', flatNbt: { 'petInfo.heldItem': 'PET_ITEM_EXP_SHARE', 'attributes.mana_pool': '4', 'gems.JASPER_0.quality': 'PERFECT' } };
    const pet = modifiersOf(petRow);
    assert.equal(pet.petHeldItem, 'PET_ITEM_EXP_SHARE');
    assert.equal(pet.petLevel, 100);
    assert.deepEqual(pet.attributes, { mana_pool: 4 });
    assert.deepEqual(pet.gems, { JASPER_0: 'PERFECT' });
  });

  it("takes a pet's level from its XP as the PetLevel filter does, the name only without pet data", () => {
    const row = (itemName: string, flatNbt: Record<string, string>): AuctionRow => ({ uuid: 'u', tag: 'PET_RABBIT', itemName, count: 1, price: 1, at: 0, tier: 'LEGENDARY', reforge: null, enchantments: {}, flatNbt });
    const petInfo = (exp: number) => ({ 'petInfo.type': 'RABBIT', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': String(exp) });
    // A name that disagrees with the XP (renamed, stale lore) must not decide the variant.
    assert.equal(modifiersOf(row('[Lvl 100] Rabbit', petInfo(0))).petLevel, 1);
    assert.equal(modifiersOf(row('[Lvl 1] Rabbit', petInfo(25_353_230))).petLevel, 100);
    assert.equal(modifiersOf(row('[Lvl 37] Rabbit', {})).petLevel, 37);
    assert.equal(modifiersOf(row('Rabbit', {})).petLevel, null);
    assert.equal(mayorVariantKey(row('[Lvl 100] Rabbit', petInfo(0))), mayorVariantKey(row('[Lvl 1] Rabbit', petInfo(0))));
  });
});
