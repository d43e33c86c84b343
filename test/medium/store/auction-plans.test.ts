/**
 * Every read of the auctions table finds its rows through an index (migration 013 made the
 * indexes that only active-auction reads use partial, `where state = 'active'`): the queries the
 * repositories send are captured and explained on SQLite (EXPLAIN QUERY PLAN) and PostgreSQL
 * (EXPLAIN over analyzed tables, sequential scans disabled so a usable index is always shown).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { Store } from '../../../src/store/index.ts';
import { AuctionQueryRepository } from '../../../src/store/repositories/auction-queries.ts';
import { AuctionRepository } from '../../../src/store/repositories/auctions.ts';
import { FlipInputRepository } from '../../../src/store/repositories/flip-inputs.ts';
import { MarketPriceRepository } from '../../../src/store/repositories/market-prices.ts';
import { PlayerNameRepository } from '../../../src/store/repositories/player-names.ts';
import type { Database } from '../../../src/store/schema.ts';
import { dropSchema, IN_CI, POSTGRES_TEST_URL, postgresUnavailable, uniqueSchema } from '../../helpers/databases.ts';
import { activeListings, hex32, listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const DAY = 86_400_000;

interface Probe {
  name: string;
  run(r: Repos): Promise<unknown>;
  /** the index every statement of the call must use (SQLite: `USING [COVERING] INDEX x`; PostgreSQL: `on x`) */
  index: string | RegExp;
  /**
   * the rows come from the index in the order asked, so a page reads a page (no sort of every
   * matching row: SQLite's `USE TEMP B-TREE FOR ORDER BY`, PostgreSQL's full `Sort`; sorting ties
   * of the index's order, SQLite's `RIGHT PART OF ORDER BY` and PostgreSQL's `Incremental Sort`, is allowed)
   */
  ordered?: boolean;
}

interface Repos {
  queries: AuctionQueryRepository;
  auctions: AuctionRepository;
  flips: FlipInputRepository;
  prices: MarketPriceRepository;
  names: PlayerNameRepository;
}

const SELLER = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const UID = '0123456789ab';
/** an item sold a few hundred times */
const RESOLD_UID = 'fedcba987654';

const PROBES: Probe[] = [
  { name: 'activeListings', run: (r) => activeListings(r.queries), index: /^auctions_active_/ },
  { name: 'countActive', run: (r) => r.queries.countActive(), index: /^auctions_active_/ },
  { name: 'activeIndex', run: (r) => r.auctions.activeIndex(), index: /^auctions_active_|^sqlite_autoindex_bids_1$|^bids_pk$/ },
  { name: 'activeItemUids', run: (r) => r.queries.activeItemUids([UID]), index: 'auctions_item_uid' },
  { name: 'salesByItemUid', run: (r) => r.queries.salesByItemUid([UID]), index: 'auctions_item_uid' },
  { name: 'salesOfItem', run: (r) => r.queries.salesOfItem(RESOLD_UID, 10, 0), index: 'auctions_item_uid', ordered: true },
  { name: 'sold', run: (r) => r.queries.sold({ tag: 'HYPERION', since: NOW - 7 * DAY, limit: 10 }), index: 'auctions_tag_sold_at', ordered: true },
  // 400 of a window's rows: PostgreSQL may read the window's rows through the index and keep the top 400 (bounded by the window, not the history).
  { name: 'soldForValuation', run: (r) => r.queries.soldForValuation('HYPERION', NOW - 7 * DAY, 400), index: 'auctions_tag_sold_at' },
  { name: 'soldLean', run: (r) => r.queries.soldLean('HYPERION', NOW - 7 * DAY, 10), index: 'auctions_tag_sold_at', ordered: true },
  { name: 'medianPrices', run: (r) => r.queries.medianPrices(['HYPERION'], NOW - 7 * DAY), index: 'auctions_tag_sold_at' },
  { name: 'salePricesBetween', run: (r) => r.queries.salePricesBetween(NOW - 7 * DAY, NOW, 'HYPERION'), index: 'auctions_tag_sold_at' },
  { name: 'tagExists (miss: all three probes)', run: (r) => r.queries.tagExists('NOPE'), index: /^auctions_active_tag_price$|^auctions_tag_sold_at$|^auctions_expired_tag$/ },
  { name: 'flip activeBins', run: (r) => r.flips.activeBins(['HYPERION'], NOW), index: 'auctions_active_tag_price' },
  { name: 'flip soldBetween', run: (r) => r.flips.soldBetween(NOW - DAY, NOW), index: 'auctions_sold_at' },
  { name: 'flip firstSaleFrom', run: (r) => r.flips.firstSaleFrom(NOW - DAY), index: 'auctions_sold_at' },
  { name: 'lowestBins', run: (r) => r.prices.lowestBins(NOW), index: /^auctions_active_/ },
  { name: 'activeAuctionCount', run: (r) => r.names.activeAuctionCount(SELLER), index: 'auctions_active_seller' },
];

function matches(index: string | RegExp, name: string): boolean {
  return typeof index === 'string' ? index === name : index.test(name);
}

/** Index names a plan uses on `auctions`/`bids` (`idle[i]`: the probe of `indexes[i]` on a partition read no row), and whether it scans a table without one. */
interface Plan {
  indexes: string[];
  idle?: boolean[];
  tableScan: boolean;
  text: string;
}

/** Index names a SQLite plan uses on `auctions`/`bids`, and whether it scans a table without one. */
function sqlitePlan(sqlite: SqliteDatabase.Database, q: CompiledQuery): { indexes: string[]; tableScan: boolean; text: string } {
  const rows = sqlite.prepare(`explain query plan ${q.sql}`).all(...(q.parameters as unknown[]).map((p) => (typeof p === 'boolean' ? Number(p) : p))) as Array<{ detail: string }>;
  const text = rows.map((r) => r.detail).join('\n');
  const indexes = [...text.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)].map((m) => m[1]!);
  const tableScan = rows.some((r) => /^SCAN (auctions|bids|a|b)\b(?!.*INDEX)/.test(r.detail));
  return { indexes, tableScan, text };
}

/**
 * PostgreSQL (migration 019): `auctions` is partitioned by month, so a plan names each partition's
 * index (`auctions_m202611_tag_sold_at_idx`), reported as the index of `auctions` it belongs to,
 * and a sequential scan of any partition counts as a table scan. The statement is run (EXPLAIN
 * ANALYZE, reads only): on a partition that holds no row of the range asked (an old month's sales
 * before the window, a month without active auctions) the planner may descend any index whose
 * range there is empty; such a probe, which read no row at all (`rows=0`, none removed by a
 * filter), is not counted; every other probe must be through the expected index, and one at least is.
 */
async function postgresPlan(client: pg.Client, q: CompiledQuery): Promise<Plan> {
  const res = await client.query(`explain (analyze, costs off, timing off, summary off) ${q.sql}`, q.parameters as unknown[]);
  const lines: string[] = res.rows.map((r: Record<string, string>) => r['QUERY PLAN']!);
  const text = lines.join('\n');
  const { rows: inherited } = await client.query<{ child: string; parent: string }>(`select c.relname as child, p.relname as parent from pg_inherits i
    join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent where c.relkind = 'i' and c.relnamespace = current_schema()::regnamespace`);
  const parentOf = new Map(inherited.map((r) => [r.child, r.parent]));
  const indexes: string[] = [];
  const idle: boolean[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /Index (?:Only )?Scan(?: Backward)? using (\w+)|Bitmap Index Scan on (\w+)/.exec(lines[i]!);
    if (!m) continue;
    const name = (m[1] ?? m[2])!;
    let details = '';
    for (let j = i + 1; j < lines.length && !lines[j]!.includes('->'); j++) details += lines[j]! + '\n';
    const readNothing = /\(never executed\)|actual rows=0 /.test(lines[i]!) && !/Rows Removed by Filter: [1-9]/.test(details);
    indexes.push(parentOf.get(name) ?? name);
    idle.push(parentOf.has(name) && readNothing);
  }
  const tableScan = /Seq Scan on (auctions(_m\d+|_default)?|bids)\b/.test(text);
  return { indexes, idle, tableScan, text };
}

for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' && postgresUnavailable && !IN_CI ? `PostgreSQL unreachable: ${postgresUnavailable}` : false;
  describe(`auction query plans [${backend}]`, { skip }, () => {
    const captured: CompiledQuery[] = [];
    let repos: Repos;
    let explain: (q: CompiledQuery) => Promise<Plan>;
    let cleanup: (() => Promise<void>) | undefined;

    before(async () => {
      const dir = tempDir('plans');
      const schema = uniqueSchema('plans');
      // Until the explaining connections exist, cleaning up removes the directory and schema only.
      cleanup = async () => {
        dir.remove();
        if (backend === 'postgres') await dropSchema(schema);
      };
      const store = backend === 'sqlite' ? await Store.open({ dataDir: dir.path }) : await Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: dir.path, schema });
      // Rows in every state over 40 tags and 300 sellers: PostgreSQL plans by statistics (ANALYZE
      // below, as autovacuum keeps them in production); SQLite, as in production, without any.
      const tags = Array.from({ length: 40 }, (_, i) => `TAG_${i}`);
      const seller = (i: number) => (i % 300).toString(16).padStart(32, '0');
      const active = [listing(NOW, { seller: SELLER, item_uid: UID, tag: 'HYPERION' })];
      for (let i = 0; i < 1500; i++) active.push(listing(NOW, { tag: tags[i % 40]!, seller: seller(i), item_uid: hex32().slice(-12), starting_bid: 1000 + i }));
      const expired = Array.from({ length: 500 }, (_, i) => listing(NOW, { tag: tags[i % 40]!, seller: seller(i), item_uid: hex32().slice(-12) }));
      await storeGeneration(store, NOW - 60_000, expired);
      await storeGeneration(store, NOW, active, [{ auction_uuid: active[0]!.uuid, amount: 5, bidder: hex32(), profile_id: null, placed_at: NOW }], expired.map((e) => e.uuid));
      // One item and one tag with a few hundred sales each: enough that PostgreSQL's plans for a
      // page of them differ from its plans for a handful (where sorting them all is as cheap).
      const sales = [sale(NOW, DAY, { item_uid: UID }), sale(NOW, 2 * DAY)];
      for (let i = 0; i < 400; i++) sales.push(sale(NOW, i * 600_000, { item_uid: RESOLD_UID, seller: seller(i) }), sale(NOW, i * 700_000, { seller: seller(i), item_uid: hex32().slice(-12) }));
      for (let i = 0; i < 3000; i++) sales.push(sale(NOW, (i % 100) * 3_600_000, { tag: tags[i % 40]!, seller: seller(i), item_uid: hex32().slice(-12) }));
      // Older sales, a few months of them: on PostgreSQL every read spans several month partitions.
      for (let i = 0; i < 1500; i++) sales.push(sale(NOW, 30 * DAY + i * 2 * 3_600_000, { tag: i % 5 ? tags[i % 40]! : 'HYPERION', seller: seller(i), item_uid: i % 100 ? hex32().slice(-12) : RESOLD_UID }));
      await storeSales(store, NOW, sales);
      if (backend === 'postgres') await sql`analyze auctions, bids`.execute(store.kysely);
      await store.close();
      const log = (event: { query: CompiledQuery }) => void captured.push(event.query);
      let db: Kysely<Database>;
      if (backend === 'sqlite') {
        const sqlite = new SqliteDatabase(join(dir.path, 'skymarket.db'));
        db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log });
        explain = async (q) => sqlitePlan(sqlite, q);
        cleanup = async () => {
          await db.destroy();
          dir.remove();
        };
      } else {
        const options = `-c search_path="${schema}"`;
        db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: POSTGRES_TEST_URL, options, max: 2 }) }), log });
        const client = new pg.Client({ connectionString: POSTGRES_TEST_URL, options });
        await client.connect();
        await client.query('set enable_seqscan = off');
        explain = (q) => postgresPlan(client, q);
        cleanup = async () => {
          try {
            await client.end().catch(() => {});
            await db.destroy().catch(() => {});
          } finally {
            await dropSchema(schema);
            dir.remove();
          }
        };
      }
      const names = new PlayerNameRepository(db);
      const queries = new AuctionQueryRepository(db, backend);
      const auctions = new AuctionRepository(db, backend, undefined as never, undefined as never);
      const bazaar = undefined as never;
      repos = { queries, auctions, flips: new FlipInputRepository(db, backend, bazaar), prices: new MarketPriceRepository(db, backend, bazaar), names };
    });
    after(async () => cleanup?.());

    for (const probe of PROBES) {
      it(`${probe.name} reads auctions through ${probe.index}`, async () => {
        captured.length = 0;
        await probe.run(repos);
        const statements = captured.filter((q) => /\bauctions\b/.test(q.sql));
        assert.ok(statements.length > 0, 'the call queried auctions');
        for (const q of statements) {
          const plan = await explain(q);
          assert.equal(plan.tableScan, false, `no table scan:\n${q.sql}\n${plan.text}`);
          const onAuctions = plan.indexes.flatMap((i, n) => (/bids/.test(i) ? [] : [{ index: i, idle: plan.idle?.[n] ?? false }]));
          assert.ok(
            onAuctions.length > 0 && onAuctions.some((p) => matches(probe.index, p.index)) && onAuctions.every((p) => p.idle || matches(probe.index, p.index)),
            `expected ${probe.index}, got ${plan.indexes.join(', ')}:\n${q.sql}\n${plan.text}`,
          );
          if (probe.ordered) assert.doesNotMatch(plan.text, /TEMP B-TREE FOR ORDER BY|^\s*(->\s*)?Sort \(/m, `read in index order:\n${q.sql}\n${plan.text}`);
        }
      });
    }
  });
}
