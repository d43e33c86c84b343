import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compactUuid, SALE_START_BOUND_MS, saleStart, tierFromLore } from '../../../src/ingest/records.ts';

describe('record mapping', () => {
  it('normalises item uuids to 32 lower-case hex characters', () => {
    assert.equal(compactUuid('8C2AE7C1-5B0D-4E7F-9A1B-0123456789AB'), '8c2ae7c15b0d4e7f9a1b0123456789ab');
    assert.equal(compactUuid('8c2ae7c15b0d4e7f9a1b0123456789ab'), '8c2ae7c15b0d4e7f9a1b0123456789ab');
    for (const bad of [null, undefined, '', 'abc', '8c2ae7c1-5b0d-4e7f-9a1b-0123456789ag']) assert.equal(compactUuid(bad), null);
  });

  it('reads the rarity from the last lore line that names one', () => {
    assert.equal(tierFromLore(['§7Damage: §c+100', '', '§6§lLEGENDARY SWORD']), 'LEGENDARY');
    assert.equal(tierFromLore(['§d§lMYTHIC DUNGEON CHESTPLATE', '§8(Recombobulated)']), 'MYTHIC');
    assert.equal(tierFromLore(['§c§lVERY SPECIAL']), 'VERY_SPECIAL');
    assert.equal(tierFromLore(['§f§lCOMMON']), 'COMMON');
    assert.equal(tierFromLore(['§5§l§ka§r §5§lEPIC ACCESSORY §5§l§ka']), 'EPIC', 'recombobulated: the obfuscated glyph comes first');
    assert.equal(tierFromLore(['§7Just lore', '§8no rarity here']), null);
    assert.equal(tierFromLore([]), null);
  });

  it('derives the start of a sale seen only in auctions_ended', () => {
    const at = 10_000_000;
    assert.equal(saleStart({ timestamp: at, start: at - 5_000 }, [at - 1000]), at - 5_000, "the record's own start first");
    assert.equal(saleStart({ timestamp: at, start: at + 1 }, []), at, 'a start after the sale is not believed');
    assert.equal(saleStart({ timestamp: at }, [at - 180_000, at - 60_000, at + 30_000]), at - 60_000, 'the newest scan before the sale');
    assert.equal(saleStart({ timestamp: at }, [at - SALE_START_BOUND_MS - 1]), at, 'a scan too long before bounds nothing');
    assert.equal(saleStart({ timestamp: at }, [at + 30_000]), at, 'only later scans: the sale time');
    assert.equal(saleStart({ timestamp: at }, []), at);
  });
});
