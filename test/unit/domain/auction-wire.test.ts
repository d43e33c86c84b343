/** The established wire shapes of auctions: enum spellings, required fields, flatNbt's uid and uuid, sale ids. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auctionStart, flatNbtWire, itemCreatedAtWire, saleId, saveAuctionWire, soldAuctionWire, type AuctionFacts } from '../../../src/domain/auction-wire.ts';
import { readFileSync } from 'node:fs';
import { CATEGORIES, categoryName, ENCHANTMENT_TYPES, enchantmentTypeName, ITEM_CATEGORIES, itemCategoryName, REFORGES, reforgeName, TIERS, tierName } from '../../../src/domain/wire-enums.ts';

/** The enums of the established client as the conformance suite holds them (scripts/refresh-established-enums.mjs). */
const ESTABLISHED = (JSON.parse(readFileSync(new URL('../../medium/conformance/established-types.json', import.meta.url), 'utf8')) as { $defs: Record<string, { enum?: string[] }> }).$defs;

const T = Date.UTC(2026, 10, 22, 12);

function facts(over: Partial<AuctionFacts> = {}): AuctionFacts {
  return {
    uuid: '35cdb9999a824aba8fdbd90fe75f31e1',
    tag: 'HYPERION',
    itemName: 'Ancient Hyperion',
    count: 1,
    seller: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    profileId: null,
    coop: [],
    start: T - 3_600_000,
    end: T + 3_600_000,
    startingBid: 1_000_000,
    highestBid: 0,
    soldPrice: null,
    soldAt: null,
    bin: true,
    tier: 'LEGENDARY',
    category: 'weapon',
    reforge: 'ancient',
    itemUid: '0e9fe2583dd2',
    itemCreatedAt: null,
    enchantments: { sharpness: 5 },
    flatNbt: { anvil_uses: '3', modifier: 'ancient' },
    ...over,
  };
}

describe('wire enums', () => {
  it("restates the established client's enums exactly: Reforge (174 values), Category, Tier, ItemCategory", () => {
    assert.deepEqual(REFORGES, ESTABLISHED['Reforge']!.enum);
    assert.deepEqual(CATEGORIES, ESTABLISHED['Category']!.enum);
    assert.deepEqual(TIERS, ESTABLISHED['Tier']!.enum);
    assert.deepEqual(ITEM_CATEGORIES, ESTABLISHED['ItemCategory']!.enum);
    assert.deepEqual(ENCHANTMENT_TYPES, ESTABLISHED['EnchantmentType']!.enum);
    assert.equal(new Set(REFORGES).size, 174);
    for (const v of ['None', 'Fabled', 'Spiritual', 'Renowned', 'aoteStone', 'ancient', 'withered', 'Fang_tastic_chocolate_chip', 'Unknown', 'mantid', 'deep_fried', 'geometric']) {
      assert.ok(REFORGES.includes(v), v);
    }
    for (const gone of ['RENOWED', 'warped_on_aote']) assert.ok(!REFORGES.includes(gone), `${gone}: gone from the current client`);
  });

  it('spells enchantments as the EnchantmentType enum: renamed ids under the new name, unknown ones `unknown`', () => {
    assert.equal(enchantmentTypeName('PROSECUTE'), 'prosecute');
    assert.equal(enchantmentTypeName('ultimate_reiterate'), 'ultimate_duplex');
    assert.equal(enchantmentTypeName('not_an_enchantment'), 'unknown');
    for (const e of ENCHANTMENT_TYPES) if (e === e.toLowerCase()) assert.equal(enchantmentTypeName(e), e);
  });

  it("maps every category of the items resource onto the client's ItemCategory, never null", () => {
    const cases: Array<[string | null, string]> = [
      ['SWORD', 'SWORD'], ['sword', 'SWORD'], ['ARMORDYE', 'ArmorDye'], ['fossil', 'Fossil'], [null, 'UNKNOWN'], ['NONE', 'UNKNOWN'],
      ['MINION_UPGRADE', 'GENERATOR'], ['PET_UPGRADE', 'PET_ITEM'], ['DUNGEON_UPGRADE', 'DUNGEON_ITEM'], ['POTION', 'CONSUMABLE'],
      ['DYE', 'ArmorDye'], ['CAKE', 'CONSUMABLE'], ['SOMETHING_NEW', 'UNKNOWN'],
    ];
    for (const [raw, wire] of cases) assert.equal(itemCategoryName(raw), wire, String(raw));
    for (const c of ITEM_CATEGORIES) assert.equal(itemCategoryName(c), c, 'enum values map to themselves');
  });

  it("maps the game's modifier ids onto the enum's spelling", () => {
    assert.equal(reforgeName(null), 'None');
    assert.equal(reforgeName('ancient'), 'ancient');
    assert.equal(reforgeName('withered'), 'withered');
    assert.equal(reforgeName('fabled'), 'Fabled');
    assert.equal(reforgeName('spiritual'), 'Spiritual');
    assert.equal(reforgeName('renowned'), 'Renowned');
    assert.equal(reforgeName('aote_stone'), 'aoteStone');
    assert.equal(reforgeName('fang_tastic_chocolate_chip'), 'Fang_tastic_chocolate_chip');
    assert.equal(reforgeName('not_a_reforge'), 'Unknown');
    for (const r of REFORGES) assert.equal(reforgeName(r), r, 'enum values map to themselves');
  });

  it('spells categories as the established enum: seven upper case, cosmetic and dyes lower case', () => {
    assert.deepEqual(CATEGORIES, ['UNKNOWN', 'WEAPON', 'ARMOR', 'ACCESSORIES', 'CONSUMABLES', 'BLOCKS', 'MISC', 'cosmetic', 'dyes']);
    const cases: Array<[string | null, string]> = [['armor', 'ARMOR'], ['misc', 'MISC'], ['COSMETIC', 'cosmetic'], ['dyes', 'dyes'], [null, 'UNKNOWN'], ['furniture', 'UNKNOWN']];
    for (const [raw, wire] of cases) assert.equal(categoryName(raw), wire, String(raw));
  });

  it('spells tiers as the established enum; SUPREME is DIVINE', () => {
    assert.equal(TIERS.length, 11);
    const cases: Array<[string | null, string]> = [['LEGENDARY', 'LEGENDARY'], ['very special', 'VERY_SPECIAL'], ['SUPREME', 'DIVINE'], [null, 'UNKNOWN'], ['MEGA', 'UNKNOWN']];
    for (const [raw, wire] of cases) assert.equal(tierName(raw), wire, String(raw));
  });
});

describe('auction wire shapes', () => {
  it('SaveAuction: enums mapped, never-null times, flatNbt with uid and the item uuid', () => {
    const uuid = '837cad89-4f1b-4b6a-9d2e-0e9fe2583dd2';
    const wire = saveAuctionWire(facts(), [{ bidder: 'b', profileId: null, amount: 5, at: T }], { data: { id: 'HYPERION', uuid } });
    assert.equal(wire.reforge, 'ancient');
    assert.equal(wire.category, 'WEAPON');
    assert.equal(wire.tier, 'LEGENDARY');
    assert.equal(wire.itemCreatedAt, '0001-01-01T00:00:00.000Z', 'no creation time: the DateTime default the established service sends');
    assert.equal(wire.start, new Date(T - 3_600_000).toISOString());
    assert.deepEqual(wire.flatNbt, { anvil_uses: '3', modifier: 'ancient', uid: '0e9fe2583dd2', uuid });
    assert.equal(wire.anvilUses, 3);
    assert.deepEqual(wire.bids, [{ bidder: 'b', profileId: null, amount: 5, timestamp: new Date(T).toISOString() }]);
    assert.deepEqual(Object.keys(wire).slice(0, 3), ['enchantments', 'uuid', 'count']);
    assert.equal(Object.keys(wire).at(-1), 'flatNbt');
    assert.equal(saveAuctionWire(facts({ itemCreatedAt: T - 1000 }), [], {}).itemCreatedAt, new Date(T - 1000).toISOString());
  });

  it('SoldAuction: a numeric id and a start on every sale', () => {
    const sold = soldAuctionWire({ ...facts({ start: null, soldAt: T, soldPrice: 900, end: T }), uuid: '35cdb9999a824aba8fdbd90fe75f31e1' });
    assert.equal(sold.id, 0x35cdb9999a82a);
    assert.ok(Number.isSafeInteger(sold.id));
    assert.equal(sold.start, new Date(T).toISOString(), 'a sale stored before starts were kept starts when it sold');
    assert.equal(sold.highestBidAmount, 900);
    assert.deepEqual(sold.flattenedNbt, { anvil_uses: '3', modifier: 'ancient', uid: '0e9fe2583dd2' });
  });

  it('sale ids: stable, within 2^53, different for different auctions', () => {
    assert.equal(saleId('ffffffffffff4fffffffffffffffffff'), 2 ** 52 - 1);
    assert.equal(saleId('35cdb999-9a82-4aba-8fdb-d90fe75f31e1'), saleId('35cdb9999a824aba8fdbd90fe75f31e1'));
    const ids = new Set(Array.from({ length: 2000 }, (_, i) => saleId(i.toString(16).padStart(12, '0') + '4' + 'a'.repeat(19))));
    assert.equal(ids.size, 2000);
    // The published definition: the first 13 hex digits without the version digit (the 13th).
    assert.equal(saleId('35cdb9999a824aba8fdbd90fe75f31e1'), Number.parseInt('35cdb9999a82' + 'a', 16));
  });

  it('helpers: start falls back to the sale, then the end; uid/uuid only when known', () => {
    assert.equal(auctionStart({ start: 5, soldAt: 9, end: 10 }), 5);
    assert.equal(auctionStart({ start: null, soldAt: 9, end: 10 }), 9);
    assert.equal(auctionStart({ start: null, soldAt: null, end: 10 }), 10);
    assert.deepEqual(flatNbtWire({ a: '1' }, null, null), { a: '1' });
    const flat = { b: '2', a: '1' };
    const wire = flatNbtWire(flat, '0e9fe2583dd2', 'dashed');
    assert.equal(JSON.stringify(wire), '{"b":"2","a":"1","uid":"0e9fe2583dd2","uuid":"dashed"}', 'stored keys first, in order, then uid and uuid');
    assert.deepEqual(flat, { b: '2', a: '1' }, 'a copy: the stored values are not changed');
    assert.equal(itemCreatedAtWire(0), '1970-01-01T00:00:00.000Z');
  });
});
