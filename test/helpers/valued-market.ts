/**
 * A market the valuation has history for (the valuation, networth and underpriced tests): the
 * simulator's 600 auctions with 4 hours of history, 3 generations, the app's clock at the market's,
 * and the first upstream page (its item_bytes are real items to value); plus NBT builders for
 * inventories of such items.
 */
import { gzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import { trimProfiles } from '../../src/domain/craft/progress.ts';
import type { UpstreamAuction } from '../../src/ingest/upstream.ts';
import type { TestApp } from './app.ts';
import { fillFromSimulator, type SimMarket } from './sim-market.ts';

export async function fillValuedMarket(t: TestApp): Promise<{ sim: SimMarket; page: UpstreamAuction[] }> {
  const sim = await fillFromSimulator(t.store, { auctions: 600, historyHours: 4, detailedMinutes: 20, generations: 3 });
  t.clock.set(sim.clock.now());
  return { sim, page: await firstUpstreamPage(sim.sim.url) };
}

/** The first item compound of an item_bytes string, as prismarine parsed it. */
export async function itemCompound(itemBytes: string): Promise<unknown> {
  const parsed = await nbt.parse(Buffer.from(itemBytes, 'base64'));
  const root = parsed.parsed.value as unknown as { i: { value: { value: unknown[] } } };
  return root.i.value.value[0];
}

/** An inventory's base64 gzip NBT from item compounds (undefined: an empty slot). */
export function inventoryBytes(items: Array<unknown | undefined>): string {
  const root = nbt.comp({ i: nbt.list(nbt.comp(items.map((i) => (i ?? {}) as Record<string, never>) as never)) } as never, '');
  return gzipSync(nbt.writeUncompressed(root as never, 'big')).toString('base64');
}

/**
 * A player with stored profiles, as the ingest poller stores them, and a name as a seller's: the
 * selected profile `Mango` (inventory, ender chest, an unreadable wardrobe, a legendary ender
 * dragon, a purse, a bank; shared with `coop`) and `Kiwi` (a purse only). The items are the
 * first BINs of the simulator's first page. Returns the Mango profile (to store for the coop later).
 */
export async function storeProfiledPlayer(t: TestApp, page: UpstreamAuction[], who: { player: string; name: string; coop: string }): Promise<Record<string, unknown>> {
  const compounds = await Promise.all(page.filter((a) => a.bin).slice(0, 6).map((a) => itemCompound(a.item_bytes)));
  const member = (purse: number) => ({
    inventory: {
      inv_contents: { type: 0, data: inventoryBytes([...compounds, undefined]) },
      ender_chest_contents: { type: 0, data: inventoryBytes(compounds.slice(0, 2)) },
      wardrobe_contents: { type: 0, data: 'H4sIAAAAAAAA/this is not nbt' },
    },
    pets_data: { pets: [{ type: 'ENDER_DRAGON', tier: 'LEGENDARY', exp: 25_353_230, heldItem: null, candyUsed: 0, skin: null, active: true }] },
    currencies: { coin_purse: purse },
  });
  const kiwi = { profile_id: 'bbbbbbbbccccddddeeeeffff00002222', cute_name: 'Kiwi', selected: false, banking: { balance: 5 }, members: { [who.player]: { currencies: { coin_purse: 7 } } } };
  const mango = { profile_id: 'aaaabbbbccccddddeeeeffff00001111', cute_name: 'Mango', selected: true, banking: { balance: 1_000_000 }, members: { [who.player]: member(54_321), [who.coop]: member(1) } };
  const now = t.clock.now();
  // Stored as ingestion stores them (the unselected profile first), and the name as a seller's.
  await t.store.profileRequests.request(who.player, now, 100);
  await t.store.profileRequests.stored(who.player, trimProfiles([kiwi, mango], who.player), now);
  await t.store.playerNames.record([{ playerUuid: who.player, name: who.name }], 'operator', now);
  return mango;
}

/** The simulator's first page of auctions (its item_bytes are real items to value). */
export async function firstUpstreamPage(simUrl: string): Promise<UpstreamAuction[]> {
  return ((await (await fetch(`${simUrl}/v2/skyblock/auctions?page=0`)).json()) as { auctions: UpstreamAuction[] }).auctions;
}
