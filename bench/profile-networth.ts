/**
 * Networth of a full stored profile (docs/valuation.md#networth): a SQLite store filled from the
 * simulator; one player's profile stored as ingestion stores it, with the containers a late-game
 * player fills (inventory 36, armour 4, equipment 4, wardrobe 36, ender chest 90, 18 backpacks of
 * 27, accessory bag 90: ~750 items as simulator listings' NBT) and 100 pets, purse and bank.
 * Measured: `GET /api/player/{uuid}/networth` in process (inject), CPU per request (median), against
 * the floor of valuing the same items in one `POST /api/item/value` in the same run.
 *
 * Standalone: `node --import tsx bench/profile-networth.ts [--quick]`
 */
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import nbt from 'prismarine-nbt';
import { trimProfiles } from '../src/domain/craft/progress.ts';
import { decodeAuctionItem } from '../src/domain/nbt.ts';
import { createTestApp } from '../test/helpers/app.ts';
import { fillFromSimulator } from '../test/helpers/sim-market.ts';
import type { BenchOptions, BenchRow } from './lib.ts';
import { formatNumber } from './lib.ts';

const PLAYER = '0123456789abcdef0123456789abcdef';

async function compoundOf(itemBytes: string): Promise<unknown> {
  const parsed = await nbt.parse(Buffer.from(itemBytes, 'base64'));
  return (parsed.parsed.value as unknown as { i: { value: { value: unknown[] } } }).i.value.value[0];
}

function inventoryBytes(items: unknown[]): string {
  const root = nbt.comp({ i: nbt.list(nbt.comp(items as never)) } as never, '');
  return gzipSync(nbt.writeUncompressed(root as never, 'big')).toString('base64');
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const t = await createTestApp({ env: { FLIPS_POLL_MS: '0' } });
  try {
    await t.app.ready();
    const sim = await fillFromSimulator(t.store, { auctions: options.quick ? 800 : 2_000, historyHours: 12, detailedMinutes: 10, generations: 3 });
    t.clock.set(sim.clock.now());
    const page = ((await (await fetch(`${sim.sim.url}/v2/skyblock/auctions?page=0`)).json()) as { auctions: Array<{ item_bytes: string }> }).auctions;
    const compounds = await Promise.all(page.map((a) => compoundOf(a.item_bytes)));
    let next = 0;
    const take = (n: number) => Array.from({ length: n }, () => compounds[next++ % compounds.length]);
    const container = (n: number) => ({ type: 0, data: inventoryBytes(take(n)) });
    const inventory = {
      inv_contents: container(36),
      inv_armor: container(4),
      equipment_contents: container(4),
      wardrobe_contents: container(36),
      ender_chest_contents: container(90),
      bag_contents: { talisman_bag: container(90) },
      backpack_contents: Object.fromEntries(Array.from({ length: 18 }, (_, i) => [String(i), container(27)])),
    };
    const petTypes = [...new Set(page.map((a) => decodeAuctionItem(a.item_bytes).tag).filter((tag) => tag.startsWith('PET_')).map((tag) => tag.slice(4)))];
    const pets = Array.from({ length: 100 }, (_, i) => ({ type: petTypes[i % Math.max(1, petTypes.length)] ?? 'BEE', tier: ['RARE', 'EPIC', 'LEGENDARY'][i % 3], exp: i * 250_000, heldItem: null, candyUsed: 0, skin: null }));
    const profile = { profile_id: 'aaaabbbbccccddddeeeeffff00001111', cute_name: 'Mango', selected: true, banking: { balance: 50_000_000 }, members: { [PLAYER]: { inventory, pets_data: { pets }, currencies: { coin_purse: 12_000_000 } } } };
    await t.store.profileRequests.request(PLAYER, t.clock.now(), 10);
    await t.store.profileRequests.stored(PLAYER, trimProfiles([profile], PLAYER), t.clock.now());
    const items = next;

    const rounds = options.quick ? 5 : 15;
    const measure = async (req: () => Promise<{ statusCode: number }>) => {
      const cpu: number[] = [];
      for (let i = 0; i <= rounds; i++) {
        const c0 = process.cpuUsage();
        const res = await req();
        const c = process.cpuUsage(c0);
        if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
        if (i > 0) cpu.push((c.user + c.system) / 1000);
      }
      return median(cpu);
    };
    const networth = await measure(() => t.app.inject({ method: 'GET', url: `/api/player/${PLAYER}/networth` }));
    const allItems = Object.values(inventory).flatMap((c) => ('data' in c ? [c.data] : Object.values(c as Record<string, { data: string }>).map((x) => x.data)));
    const floor = await measure(() => t.app.inject({ method: 'POST', url: '/api/item/value', payload: { items: allItems } }));
    await sim.close();
    return [
      {
        name: 'networth of a full stored profile: GET /api/player/{uuid}/networth in process (median CPU)',
        figure: networth,
        unit: 'ms',
        ratio: networth / floor,
        baseline: 'the same items in one POST /api/item/value',
        notes: `${items} items in 26 containers and 100 pets; floor ${floor.toFixed(1)} ms CPU; ${rounds} requests after one warm-up; target ≤ 100 ms`,
      },
    ];
  } finally {
    await t.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await run({ quick: process.argv.includes('--quick') });
  for (const r of rows) {
    const ratio = r.ratio === undefined ? '' : `  ${r.ratio.toFixed(2)}x vs ${r.baseline}`;
    console.log(`${r.name.padEnd(60)} ${formatNumber(r.figure).padStart(9)} ${r.unit}${ratio}${r.notes ? `  (${r.notes})` : ''}`);
  }
}
