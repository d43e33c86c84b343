/**
 * The endpoints over stored sales whose cost could grow with the whole stored history (issue 24,
 * point b): sold page 0 of the most sold tag, the price analysis at 7/30/90/365 days, the archive
 * overview of a day, and one item's sales by uid. Two stores side by side in one run, 7 days and a
 * long history (`BENCH_HISTORY_DAYS`, 90) of synthetic sales (test/helpers/sales-history.ts) at
 * `BENCH_HISTORY_PER_DAY` (20,000) a day, each given item uids: every sold row the uid of its
 * item (the copies test/helpers/sales-history.ts makes share it: 8 sales per uid), and one item,
 * HOT_UID, resold ~17 times a day over the whole history (every sale of SYNTH_ITEM_397). The
 * same request (the same window) is asked of both apps in turn (bench/prices.ts
 * `measureSideBySide`) and its p50 compared: ratio long / short ~1 when the cost depends on the
 * window asked for, not on what else is stored. PostgreSQL too when it answers, at
 * `BENCH_HISTORY_PG_DAYS` (30) against 7 (`BENCH_HISTORY_POSTGRES=0` skips it).
 *
 * `npm run bench -- history-endpoints` (`--quick`: smaller histories); standalone
 * `node --import tsx bench/history-endpoints.ts [--quick]`.
 */
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import type { Store } from '../src/store/index.ts';
import { DAY, HOT, measureSideBySide, NOW, prepare, ratioRows, type Endpoint, type Prepared } from './prices.ts';
import { postgresReachable, type BenchOptions, type BenchRow } from './lib.ts';

/** An item uid with one sale every ~1.4 hours over the whole history. */
const HOT_UID = 'feed00c0ffee';
const HOT_UID_TAG = 'SYNTH_ITEM_397';

/** Item uids on the stored sales: each row its item's (shared by the copies), HOT_UID for every sale of HOT_UID_TAG. */
async function giveItemUids(store: Store): Promise<void> {
  await sql`update auctions set item_uid = case when tag = ${HOT_UID_TAG} then ${HOT_UID} else substr(uuid, 21, 12) end where state = 'sold'`.execute(store.kysely);
}

/** Each app's Premium+ token (accounts are per store). */
const tokens = new WeakMap<Prepared, string>();
const premium = (p: Prepared) => ({ authorization: `Bearer ${tokens.get(p)}` });

function endpoints(quick: boolean): Record<string, Endpoint> {
  const seconds = (ms: number) => Math.floor(ms / 1000);
  const analysis = (days: number): Endpoint => ({ url: `/api/item/price/${HOT}/analysis?days=${days}`, headers: premium, requests: quick ? 3 : 15, warmups: 2 });
  return {
    'sold page 0 (1,000 sales)': `/api/auctions/tag/${HOT}/sold`,
    'analysis days=7': analysis(7),
    'analysis days=30': analysis(30),
    'analysis days=90': analysis(90),
    'analysis days=365': analysis(365),
    'archive overview, last day, page 0': { url: `/api/auctions/tag/${HOT}/archive/overview?EndAfter=${seconds(NOW - DAY)}&EndBefore=${seconds(NOW)}`, headers: premium },
    'archive overview, 6 to 5 days ago, page 3 of 100': {
      url: `/api/auctions/tag/${HOT}/archive/overview?EndAfter=${seconds(NOW - 6 * DAY)}&EndBefore=${seconds(NOW - 5 * DAY)}&page=3&pageSize=100`,
      headers: premium,
    },
    'uid history page 0 (an item sold all along)': `/api/auctions/uid/${HOT_UID}/sold`,
  };
}

async function compare(backend: 'sqlite' | 'postgres', longDays: number, perDay: number, quick: boolean): Promise<BenchRow[]> {
  const short = await prepare(7, perDay, backend, giveItemUids);
  const long = await prepare(longDays, perDay, backend, giveItemUids);
  try {
    for (const p of [short, long]) tokens.set(p, (await p.app.store.accounts.create({ tier: 'premium_plus', now: NOW })).token);
    const asked = endpoints(quick);
    const rows = ratioRows(await measureSideBySide(short, long, quick ? 30 : 200, asked), short, long, backend === 'postgres' ? 'PostgreSQL ' : '');
    // The analysis reads the window's sales up to its cap: how many each side analysed, and the cost per 1,000 of them.
    for (const [i, [name, endpoint]] of Object.entries(asked).entries()) {
      if (!name.startsWith('analysis') || typeof endpoint === 'string') continue;
      const analysed = async (p: Prepared) => ((await p.app.app.inject({ url: endpoint.url, headers: premium(p) })).json() as { totalSales: number }).totalSales;
      const [a, b] = [await analysed(short), await analysed(long)];
      const row = rows[i]!;
      const shortMs = Number(/: ([\d.]+) ms/.exec(row.baseline ?? '')?.[1]);
      row.notes = `${row.notes}; sales analysed ${b.toLocaleString('en-US')} vs ${a.toLocaleString('en-US')}: ${((row.figure / b) * 1000).toFixed(1)} vs ${((shortMs / a) * 1000).toFixed(1)} ms per 1,000`;
    }
    return rows;
  } finally {
    await short.close();
    await long.close();
  }
}

export async function run(options: BenchOptions): Promise<BenchRow[]> {
  const perDay = options.quick ? 5_000 : Number(process.env['BENCH_HISTORY_PER_DAY'] ?? 20_000);
  const longDays = options.quick ? 21 : Number(process.env['BENCH_HISTORY_DAYS'] ?? 90);
  const rows = await compare('sqlite', longDays, perDay, options.quick);
  const pgDays = options.quick ? 21 : Number(process.env['BENCH_HISTORY_PG_DAYS'] ?? 30);
  if (process.env['BENCH_HISTORY_POSTGRES'] !== '0' && (await postgresReachable())) rows.push(...(await compare('postgres', pgDays, perDay, options.quick)));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await run({ quick: process.argv.includes('--quick') }));
}
