/** A tiny hand-made NEU repository for loader and sync tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../src/store/index.ts';
import type { TestApp } from './app.ts';
import { offerRow } from './bazaar.ts';
import { waitUntil } from './wait.ts';

export function writeMiniRepo(dir: string): void {
  mkdirSync(join(dir, 'items'), { recursive: true });
  mkdirSync(join(dir, 'constants'), { recursive: true });
  const item = (id: string, extra: Record<string, unknown> = {}) =>
    writeFileSync(
      join(dir, 'items', `${id}.json`),
      JSON.stringify({ itemid: 'minecraft:stone', displayname: `§a${id}`, nbttag: '{}', damage: 0, lore: ['', '§a§lUNCOMMON'], internalname: id, ...extra }),
    );
  item('WHEAT', { lore: ['§f§lCOMMON'] });
  item('ENCHANTED_WHEAT', {
    crafttext: 'Requires: Wheat VI',
    recipe: { A1: 'WHEAT:32', A2: 'WHEAT:32', A3: 'WHEAT:32', B1: 'WHEAT:32', B2: 'WHEAT:32', B3: '', C1: '', C2: '', C3: '' },
  });
  item('INK_SACK-3', { itemid: 'minecraft:dye', displayname: '§fCocoa Beans' });
  item('ENCHANTED_COCOA', { recipes: [{ type: 'crafting', A1: 'INK_SACK-3:64', A2: 'INK_SACK-3:64', A3: 'INK_SACK-3:32', B1: '', B2: '', B3: '', C1: '', C2: '', C3: '', count: 1, overrideOutputId: 'ENCHANTED_COCOA' }] });
  item('REFINED_WHEAT', { recipes: [{ type: 'forge', inputs: ['ENCHANTED_WHEAT:2', 'SKYBLOCK_COIN:1000'], count: 1, overrideOutputId: 'REFINED_WHEAT', duration: 3600 }] });
  item('LUCK;6', { itemid: 'minecraft:enchanted_book' });
  item('BEE;4', { itemid: 'minecraft:skull', recipes: [{ type: 'katgrade', input: 'BEE;3', output: 'BEE;4' }] });
  item('BROKEN', { recipe: { A1: 'NO_SUCH_ITEM:1', A2: '', A3: '', B1: '', B2: '', B3: '', C1: '', C2: '', C3: '' } });
  item('FARMER_NPC', {
    recipes: [
      { type: 'npc_shop', cost: ['SKYBLOCK_COIN:2.5'], result: 'WHEAT:1' },
      { type: 'npc_shop', cost: ['SKYBLOCK_BIT:100'], result: 'LUCK;6:1' },
    ],
  });
  writeFileSync(join(dir, 'constants', 'bazaarstocks.json'), JSON.stringify([{ stock: 'ENCHANTMENT_LUCK_6', id: 'LUCK;6' }]));
  writeFileSync(join(dir, 'constants', 'skymart.json'), JSON.stringify({ WHEAT: { display: 'Wheat', price: 5, currency: 'copper' } }));
  writeFileSync(join(dir, 'constants', 'george.json'), JSON.stringify({ prices: { 'BEE;4': 12345 } }));
  writeFileSync(join(dir, 'constants', 'enchants.json'), JSON.stringify({ enchants: { SWORD: ['sharpness', 'PROSECUTE'] } }));
}

/** One bazaar snapshot at which the mini repository's ENCHANTED_WHEAT (needs the Wheat VI collection) is a profitable craft. */
export async function storeMiniRepoPrices(store: Store, now: number): Promise<void> {
  await store.bazaar.insertSnapshot([offerRow('WHEAT', now, 2), offerRow('ENCHANTED_WHEAT', now, 1000)], { name: 'bazaar', lastUpdated: now, storedAt: now, records: 2, source: 'simulator' });
}

/**
 * Stores the mini repository's prices and waits until the app's profit list shows them: the views and
 * prepared answers follow the stored change on the spine, after the write returns.
 */
export async function storeMiniRepoPricesServed(t: Pick<TestApp, 'app' | 'store' | 'clock'>): Promise<void> {
  await storeMiniRepoPrices(t.store, t.clock.now());
  await waitUntil(
    async () => ((await t.app.inject('/api/craft/profit')).json() as Array<{ itemId: string }>).some((r) => r.itemId === 'ENCHANTED_WHEAT'),
    10_000,
    'the profit list to show the stored prices',
  );
}
