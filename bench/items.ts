/**
 * Finding items (issue "Finding items"): search over the full NEU catalog (test/fixtures, ~7,400
 * items after creatures and NPCs are left out), in process and over HTTP.
 * - in process: every query of a mixed list (full names, prefixes as typed, typos, initials, NEU
 *   ids, rarities), without the answer cache, p50 / p99 per search;
 * - over HTTP: `GET /api/item/search/{term}` against `GET /api/version` of the same server, side by
 *   side (the floor: ≥ 60 % of its throughput), and `GET /api/items` (a precomputed body).
 */
import { pathToFileURL } from 'node:url';
import { loadGameData } from '../src/gamedata/index.ts';
import { createLogger } from '../src/logger.ts';
import { ItemCatalog } from '../src/market/item-catalog.ts';
import { Store } from '../src/store/index.ts';
import { systemClock } from '../src/clock.ts';
import { neuRepo } from '../test/helpers/fixtures.ts';
import { compare, startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

const QUERIES = [
  'hyperion', 'hyp', 'hype', 'hyperon', 'aspect of the end', 'aspect of the dragons', 'aotd', 'aote', 'ultimate wise 5',
  'ultimate wise v', 'ender dragon legendary', 'ENDER_DRAGON;4', 'enchanted diamond', 'ench diam', 'juju', 'terminator',
  'necron chestplate', 'necron', 'wither', 'shadow assassin', 'livid dagger', 'giants sword', 'golden dragon', 'sheep pet',
  'sharpness 7', 'growth 6', 'booster cookie', 'god potion', 'kismet feather', 'recombobulator', 'recomb', 'fuming potato',
  'hot potato book', 'enchanted book', 'e', 'a', 'diamond', 'ink sack', 'lapis', 'spirit sceptre', 'bonzo', 'scylla', 'valkyrie',
  'midas staff', 'dark claymore', 'jerry', 'treecapitator', 'gemstone', 'perfect ruby', 'flawless jasper', 'xxxxxxxxxxxxxxxxxxxx',
];

async function inProcess(quick: boolean): Promise<BenchRow[]> {
  const store = await Store.open({ dataDir: '/tmp', sqliteFile: ':memory:' });
  const game = loadGameData({ gameDataDir: neuRepo(), dataDir: '/tmp' });
  const catalog = new ItemCatalog({ store, game, clock: systemClock, logger: createLogger('silent'), activeCounts: () => new Map() });
  const built = performance.now();
  await catalog.start();
  const buildMs = performance.now() - built;
  try {
    for (let r = 0; r < 5; r++) for (const q of QUERIES) catalog.searchUncached(q, 30); // warm-up
    const times: number[] = [];
    const rounds = quick ? 10 : 100;
    for (let r = 0; r < rounds; r++) {
      for (const q of QUERIES) {
        const start = performance.now();
        catalog.searchUncached(q, 30);
        times.push(performance.now() - start);
      }
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))]!;
    return [
      {
        name: `search (uncached), in process, ${catalog.size} items, ${QUERIES.length} queries × ${rounds}`,
        figure: at(0.99),
        unit: 'ms p99',
        notes: `p50 ${at(0.5).toFixed(3)} ms, max ${times.at(-1)!.toFixed(2)} ms; catalog build ${buildMs.toFixed(0)} ms (index built in chunks that yield)`,
      },
    ];
  } finally {
    catalog.close();
    await store.close();
  }
}

async function overHttp(quick: boolean): Promise<BenchRow[]> {
  const app = await startServer('items-app');
  try {
    // One term asked again and again: after the first, answered from the catalog's answer cache.
    const search = `${app.url}/api/item/search/${encodeURIComponent('aspect of the end')}`;
    const first = (await (await fetch(search)).json()) as Array<{ id: string }>;
    if (first[0]?.id !== 'ASPECT_OF_THE_END') throw new Error(`search answered ${JSON.stringify(first.slice(0, 2))}`);
    const results = await compare(
      [
        { name: 'version', url: `${app.url}/api/version` },
        { name: 'search', url: search },
        { name: 'items', url: `${app.url}/api/items` },
      ],
      { rounds: quick ? 1 : 3, seconds: quick ? 2 : 5, connections: 50 },
    );
    const version = results.get('version')!;
    const row = (name: string, key: string): BenchRow => {
      const r = results.get(key)!;
      return { name, figure: r.requestsPerSecond, unit: 'req/s', ratio: r.requestsPerSecond / version.requestsPerSecond, baseline: '/api/version', notes: `p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}` };
    };
    return [
      { name: 'GET /api/version (same server)', figure: version.requestsPerSecond, unit: 'req/s', notes: `p50 ${version.p50} ms, p99 ${version.p99} ms, 50 connections` },
      row('GET /api/item/search/aspect of the end (repeated: answer cache)', 'search'),
      row('GET /api/items (precomputed, ~500 KB)', 'items'),
    ];
  } finally {
    await app.stop();
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  return [...(await inProcess(options.quick)), ...(await overHttp(options.quick))];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
