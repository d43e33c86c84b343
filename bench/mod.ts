/**
 * Lowball listings against a store of 20,000 offers: a page of 20 by item, a page
 * filtered on item attributes (scans 3× the page per round), and the trivial
 * GET /api/version of the same process as the baseline, side by side.
 */
import { pathToFileURL } from 'node:url';
import { compare, startServer } from './harness.ts';
import type { BenchOptions, BenchRow } from './lib.ts';

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const app = await startServer('mod');
  try {
    const targets = [
      { name: 'version', url: `${app.url}/api/version` },
      { name: 'item', url: `${app.url}/api/lowball/item/HYPERION` },
      { name: 'filtered', url: `${app.url}/api/lowball/item/HYPERION?reforge=heroic&stars=0` },
    ];
    for (const t of targets) {
      const res = await fetch(t.url);
      if (res.status !== 200) throw new Error(`${t.url} answered ${res.status}`);
    }
    const results = await compare(targets, { rounds: options.quick ? 1 : 3, seconds: options.quick ? 2 : 4, connections: 20 });
    const base = results.get('version')!;
    const row = (name: string, key: string): BenchRow => {
      const r = results.get(key)!;
      return {
        name,
        figure: r.requestsPerSecond,
        unit: 'req/s',
        ratio: r.requestsPerSecond / base.requestsPerSecond,
        baseline: 'GET /api/version',
        notes: `p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, 20 connections, 20,000 offers (SQLite)`,
      };
    };
    return [
      { name: 'GET /api/version (same process)', figure: base.requestsPerSecond, unit: 'req/s', notes: `p50 ${base.p50} ms, p99 ${base.p99} ms` },
      row('GET /api/lowball/item/HYPERION (page of 20 of 2,000)', 'item'),
      row('GET /api/lowball/item/HYPERION?reforge=heroic&stars=0 (filtered page)', 'filtered'),
    ];
  } finally {
    await app.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
