/** The items repository on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';

describeEachBackend('items repository', (fixture) => {
  it('bulk-upserts items across several statements and updates on conflict', async () => {
    const { store } = fixture();
    const items = Array.from({ length: 12_345 }, (_, i) => ({
      tag: `ITEM_${i}`,
      name: `Item ${i}`,
      tier: i % 2 ? 'RARE' : null,
      category: 'MISC',
      npcSellPrice: i % 3 ? i * 1.5 : null,
    }));
    assert.equal(await store.items.upsertMany(items, 1000), items.length);
    assert.equal(await store.items.count(), items.length);
    await store.items.upsertMany([{ tag: 'ITEM_7', name: 'Renamed', tier: 'EPIC', category: 'SWORD', npcSellPrice: 99 }], 2000);
    assert.equal(await store.items.count(), items.length);
    assert.deepEqual(await store.items.get('ITEM_7'), { tag: 'ITEM_7', name: 'Renamed', tier: 'EPIC', category: 'SWORD', npcSellPrice: 99 });
    assert.deepEqual(await store.items.get('ITEM_8'), { tag: 'ITEM_8', name: 'Item 8', tier: null, category: 'MISC', npcSellPrice: 12 });
    assert.equal(await store.items.get('NOPE'), undefined);
  });
});
