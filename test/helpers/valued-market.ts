/**
 * A market the valuation has history for (the valuation, networth and underpriced tests): the
 * simulator's 600 auctions with 4 hours of history, 3 generations, the app's clock at the market's,
 * and the first upstream page (its item_bytes are real items to value); plus NBT builders for
 * inventories of such items.
 */
import { gzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import type { UpstreamAuction } from '../../src/ingest/upstream.ts';
import type { TestApp } from './app.ts';
import { fillFromSimulator, type SimMarket } from './sim-market.ts';

export async function fillValuedMarket(t: TestApp): Promise<{ sim: SimMarket; page: UpstreamAuction[] }> {
  const sim = await fillFromSimulator(t.store, { auctions: 600, historyHours: 4, detailedMinutes: 20, generations: 3 });
  t.clock.set(sim.clock.now());
  const page = ((await (await fetch(`${sim.sim.url}/v2/skyblock/auctions?page=0`)).json()) as { auctions: UpstreamAuction[] }).auctions;
  return { sim, page };
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
