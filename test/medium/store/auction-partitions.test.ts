/**
 * Sold history partitioned by month on PostgreSQL (migration 019, docs/storage.md "Time
 * partitioning of `auctions`"): the migration from an unpartitioned table keeps every row, and both
 * feeds' writes keep one row per auction whatever the order they come in and whichever months
 * their times fall in. The write-order cases run on SQLite too (nothing changed there).
 */
import assert from 'node:assert/strict';
import { it, test } from 'node:test';
import { sql } from 'kysely';
import type { Store } from '../../../src/store/index.ts';
import { auctionMonth, monthOf, nextMonth } from '../../../src/store/auction-months.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend, IN_CI, migrateTo, openUnmigratedStore, postgresUnavailable } from '../../helpers/databases.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** the last minutes of November 2026 (UTC) */
const NOV_END = Date.UTC(2026, 11, 1) - 1;
const DEC_START = Date.UTC(2026, 11, 1);

async function rowsOf(store: Store, uuid: string): Promise<Array<{ state: string; month: number | null; sold_price: number | null }>> {
  const { rows } = await sql<{ state: string; month?: number; sold_price: string | null }>`select * from auctions where uuid = ${uuid}`.execute(store.kysely);
  return rows.map((r) => ({ state: r.state, month: r.month ?? null, sold_price: r.sold_price === null ? null : Number(r.sold_price) }));
}

/** The month filed for `uuid` (PostgreSQL) or null (SQLite: no months). */
async function keyMonth(store: Store, uuid: string): Promise<number | null> {
  if (store.dialect !== 'postgres') return null;
  const { rows } = await sql<{ month: number }>`select month from auction_keys where uuid = ${uuid}`.execute(store.kysely);
  assert.equal(rows.length, 1, `one key for ${uuid}`);
  return rows[0]!.month;
}

/** Partitions of `auctions` by name (PostgreSQL). */
async function partitions(store: Store): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'auctions'::regclass order by 1`.execute(store.kysely);
  return rows.map((r) => r.name);
}

const sold = (row: AuctionsTable, at: number, price: number, over: Partial<AuctionsTable> = {}): AuctionsTable => ({
  ...row,
  state: 'sold',
  sold_price: price,
  highest_bid: price,
  buyer: 'c'.repeat(32),
  sold_at: at,
  end_at: at,
  last_updated: at,
  ...over,
});

test('months: yyyymm of the UTC month, December rolls over to January', () => {
  assert.equal(monthOf(NOV_END), 202611);
  assert.equal(monthOf(DEC_START), 202612);
  assert.equal(nextMonth(202611), 202612);
  assert.equal(nextMonth(202612), 202701);
  assert.equal(auctionMonth({ start_at: null, end_at: DEC_START }), 202612);
  assert.equal(auctionMonth({ start_at: NOV_END, end_at: DEC_START }), 202611);
});

describeEachBackend('auction partitions: one row per auction whatever order the feeds write it in', (fixture) => {
  it('a listing, then its sale: one row, sold, filed under the listing month', async () => {
    const { store } = fixture();
    const row = listing(Date.UTC(2026, 10, 20), { start_at: Date.UTC(2026, 10, 19) });
    await storeGeneration(store, Date.UTC(2026, 10, 20), [row]);
    await storeSales(store, Date.UTC(2026, 10, 21), [sold(row, Date.UTC(2026, 10, 21), 500)]);
    assert.deepEqual(await rowsOf(store, row.uuid), [{ state: 'sold', month: store.dialect === 'postgres' ? 202611 : null, sold_price: 500 }]);
  });

  it('a sale, then a stale listings page: still one row, still sold', async () => {
    const { store } = fixture();
    const row = listing(Date.UTC(2026, 10, 20));
    await storeSales(store, Date.UTC(2026, 10, 21), [sold(row, Date.UTC(2026, 10, 21), 700)]);
    await storeGeneration(store, Date.UTC(2026, 10, 20), [{ ...row, highest_bid: 5, last_updated: Date.UTC(2026, 10, 22) }]);
    const rows = await rowsOf(store, row.uuid);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.state, 'sold');
    assert.equal(rows[0]!.sold_price, 700);
  });

  it('the same sale twice: one row, unchanged', async () => {
    const { store } = fixture();
    const row = sold(listing(Date.UTC(2026, 10, 20)), Date.UTC(2026, 10, 21), 900);
    await storeSales(store, Date.UTC(2026, 10, 21), [row]);
    const once = await rowsOf(store, row.uuid);
    await storeSales(store, Date.UTC(2026, 10, 21) + 60_000, [row]);
    assert.deepEqual(await rowsOf(store, row.uuid), once);
    assert.equal(once.length, 1);
  });

  it('listed in November, sold in December (the sale starting in December): one row, its month unchanged', async () => {
    const { store } = fixture();
    const row = listing(NOV_END, { start_at: NOV_END - 10 * 60_000, end_at: NOV_END + DAY });
    await storeGeneration(store, NOV_END, [row]);
    const month = await keyMonth(store, row.uuid);
    // auctions_ended names no start: the sale's row carries one estimated in December.
    await storeSales(store, DEC_START + 600_000, [sold(row, DEC_START + 600_000, 1_234, { start_at: DEC_START + 60_000 })]);
    assert.deepEqual(await rowsOf(store, row.uuid), [{ state: 'sold', month: store.dialect === 'postgres' ? 202611 : null, sold_price: 1_234 }]);
    assert.equal(await keyMonth(store, row.uuid), month);
  });

  it('sold in December first, then a stale November listing of it: one row, December, sold', async () => {
    const { store } = fixture();
    const row = listing(NOV_END, { start_at: NOV_END - 10 * 60_000, end_at: NOV_END + DAY });
    await storeSales(store, DEC_START + 600_000, [sold(row, DEC_START + 600_000, 4_321, { start_at: DEC_START + 60_000 })]);
    await storeGeneration(store, NOV_END, [{ ...row, last_updated: DEC_START + 700_000 }]);
    assert.deepEqual(await rowsOf(store, row.uuid), [{ state: 'sold', month: store.dialect === 'postgres' ? 202612 : null, sold_price: 4_321 }]);
    assert.equal(await keyMonth(store, row.uuid), store.dialect === 'postgres' ? 202612 : null);
  });

  it('auctions on both sides of a month boundary leave the listings sold or expired, each in its month', async () => {
    const { store } = fixture();
    const start = (ms: number) => listing(ms, { start_at: ms, end_at: ms + DAY });
    const rows = [start(NOV_END - HOUR), start(NOV_END), start(DEC_START), start(DEC_START + HOUR), start(Date.UTC(2027, 0, 1, 0, 0, 1))];
    await storeGeneration(store, DEC_START + 2 * HOUR, rows);
    await store.auctions.applyGeneration({
      listings: [],
      bids: [],
      departed: rows.map((r, i) => (i % 2 ? { uuid: r.uuid } : { uuid: r.uuid, sale: { price: 100 + i, buyer: 'd'.repeat(32), at: DEC_START + 3 * HOUR } })),
      feed: { name: 'auctions', lastUpdated: DEC_START + 3 * HOUR, storedAt: DEC_START + 3 * HOUR, records: 0, source: 'upstream' },
    });
    const months = [202611, 202611, 202612, 202612, 202701];
    for (const [i, r] of rows.entries()) {
      assert.deepEqual(await rowsOf(store, r.uuid), [
        { state: i % 2 ? 'expired' : 'sold', month: store.dialect === 'postgres' ? months[i]! : null, sold_price: i % 2 ? null : 100 + i },
      ]);
    }
    if (store.dialect === 'postgres') {
      const names = await partitions(store);
      for (const m of [202611, 202612, 202701]) assert.ok(names.includes(`auctions_m${m}`), names.join());
      const { rows: inDefault } = await sql<{ n: string }>`select count(*) as n from auctions_default`.execute(store.kysely);
      assert.equal(Number(inDefault[0]!.n), 0, 'the default partition stays empty');
    }
    const { rows: dup } = await sql<{ uuid: string }>`select uuid from auctions group by uuid having count(*) > 1`.execute(store.kysely);
    assert.deepEqual(dup, []);
  });
});

describeEachBackend('auction partitions: a month whose rows sit in the default partition', (fixture) => {
  it('stays there and later writes of the month still land (PostgreSQL); SQLite writes as ever', async () => {
    const { store } = fixture();
    const at = Date.UTC(2031, 4, 10);
    const first = listing(at, { start_at: at });
    if (store.dialect === 'postgres') {
      // A row of May 2031 written while the month had no partition (as by hand): it goes to the default.
      await sql`insert into auction_keys (uuid, month) values (${first.uuid}, 203105)`.execute(store.kysely);
      const { uuid, tag, item_name, count, seller, start_at, end_at, starting_bid, highest_bid, bin, state, last_updated } = first;
      await sql`insert into auctions (uuid, tag, item_name, count, seller, start_at, end_at, starting_bid, highest_bid, bin, state, last_updated, item_bytes, month)
        values (${uuid}, ${tag}, ${item_name}, ${count}, ${seller}, ${start_at}, ${end_at}, ${starting_bid}, ${highest_bid}, ${bin}, ${state}, ${last_updated}, ${Buffer.of(1)}, 203105)`.execute(store.kysely);
    } else {
      await storeGeneration(store, at, [first]);
    }
    const second = listing(at, { start_at: at + HOUR });
    await storeGeneration(store, at + HOUR, [first, second]);
    await storeSales(store, at + 2 * HOUR, [sold(first, at + 2 * HOUR, 42), sold(second, at + 2 * HOUR, 43)]);
    assert.deepEqual((await rowsOf(store, first.uuid)).map((r) => [r.state, r.sold_price]), [['sold', 42]]);
    assert.deepEqual((await rowsOf(store, second.uuid)).map((r) => [r.state, r.sold_price]), [['sold', 43]]);
    if (store.dialect === 'postgres') {
      assert.ok(!(await partitions(store)).includes('auctions_m203105'));
      const { rows } = await sql<{ n: string }>`select count(*) as n from auctions_default where month = 203105`.execute(store.kysely);
      assert.equal(Number(rows[0]!.n), 2);
    }
  });
});

test('migration 019: an unpartitioned auctions table with rows becomes monthly partitions, and back [postgres]', async (t) => {
  if (postgresUnavailable && !IN_CI) return t.skip('PostgreSQL unreachable');
  const { store, migrator, close } = await openUnmigratedStore('postgres', 'm019');
  try {
    assert.equal((await migrateTo(migrator, '018-item-uid-sales')).error, undefined);
    const now = Date.UTC(2026, 10, 22);
    // Sales over three months (one starting on the last millisecond of October, one on the first of
    // November), listings active and expired, one sale stored without a start (an older row).
    const sales = Array.from({ length: 90 }, (_, i) => sale(now, i * DAY));
    sales.push(sale(now, 0, { start_at: Date.UTC(2026, 10, 1) - 1 }), sale(now, 0, { start_at: Date.UTC(2026, 10, 1) }));
    await storeSales(store, now, sales);
    const active = Array.from({ length: 20 }, () => listing(now));
    const expired = Array.from({ length: 10 }, () => listing(now - DAY, { start_at: now - 40 * DAY }));
    await storeGeneration(store, now - DAY, expired);
    await storeGeneration(store, now, active, [{ auction_uuid: active[0]!.uuid, amount: 5, bidder: 'e'.repeat(32), profile_id: null, placed_at: now }], expired.map((e) => e.uuid));
    const noStart = sales[5]!;
    await sql`update auctions set start_at = null where uuid = ${noStart.uuid}`.execute(store.kysely);
    const counts = await store.auctions.countByState();
    assert.deepEqual(counts, { sold: 92, active: 20, expired: 10 });
    const indexNames = async () =>
      (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'auctions' order by 1`.execute(store.kysely)).rows.map(
        (r) => r.name,
      );
    const indexesBefore = await indexNames();
    const pageBefore = await store.auctionQueries.sold({ tag: 'HYPERION', since: now - 100 * DAY, limit: 200 });

    assert.equal((await migrateTo(migrator, '019-auction-partitions')).error, undefined);
    assert.deepEqual(await store.auctions.countByState(), counts);
    const { rows: kind } = await sql<{ relkind: string }>`select relkind from pg_class where oid = 'auctions'::regclass`.execute(store.kysely);
    assert.equal(kind[0]!.relkind, 'p');
    assert.deepEqual(await indexNames(), indexesBefore);
    const { rows: storage } = await sql<{ attstorage: string }>`select attstorage from pg_attribute where attrelid = 'auctions'::regclass and attname = 'item_bytes'`.execute(store.kysely);
    assert.equal(storage[0]!.attstorage, 'e', 'item_bytes stays EXTERNAL');
    // Every row keyed once, filed under the month of its start (its end without one), in that month's partition.
    const { rows } = await sql<{ uuid: string; month: number; start_at: string | null; end_at: string; part: string }>`
      select a.uuid, a.month, a.start_at, a.end_at, a.tableoid::regclass::text as part from auctions a`.execute(store.kysely);
    assert.equal(rows.length, 122);
    const { rows: keys } = await sql<{ uuid: string; month: number }>`select uuid, month from auction_keys`.execute(store.kysely);
    assert.equal(keys.length, 122);
    const keyed = new Map(keys.map((k) => [k.uuid, k.month]));
    for (const r of rows) {
      const expected = auctionMonth({ start_at: r.start_at === null ? null : Number(r.start_at), end_at: Number(r.end_at) });
      assert.equal(r.month, expected, r.uuid);
      assert.equal(keyed.get(r.uuid), expected);
      assert.equal(r.part, `auctions_m${expected}`);
    }
    assert.equal(keyed.get(sales[90]!.uuid), 202610);
    assert.equal(keyed.get(sales[91]!.uuid), 202611);
    assert.equal(keyed.get(noStart.uuid), monthOf(noStart.end_at));
    assert.deepEqual(await partitions(store), ['auctions_default', 'auctions_m202608', 'auctions_m202609', 'auctions_m202610', 'auctions_m202611']);
    assert.deepEqual(await store.auctionQueries.sold({ tag: 'HYPERION', since: now - 100 * DAY, limit: 200 }), pageBefore);
    // Uniqueness of uuid holds: the key is (uuid, month), and writes find each uuid's month.
    await assert.rejects(sql`insert into auction_keys (uuid, month) values (${sales[0]!.uuid}, 202601)`.execute(store.kysely), /duplicate key/);
    await storeSales(store, now, sales.slice(0, 10));
    await storeGeneration(store, now + 60_000, [...active, sales[1]!]);
    assert.deepEqual(await store.auctions.countByState(), counts);
    const { rows: dup } = await sql<{ uuid: string }>`select uuid from auctions group by uuid having count(*) > 1`.execute(store.kysely);
    assert.deepEqual(dup, []);

    assert.equal((await migrateTo(migrator, '018-item-uid-sales')).error, undefined);
    assert.deepEqual(await store.auctions.countByState(), counts);
    const { rows: back } = await sql<{ relkind: string; keys: string | null }>`select relkind, to_regclass('auction_keys')::text as keys from pg_class where oid = 'auctions'::regclass`.execute(store.kysely);
    assert.deepEqual(back, [{ relkind: 'r', keys: null }]);
    assert.deepEqual(await indexNames(), indexesBefore);
    assert.deepEqual(await store.auctionQueries.sold({ tag: 'HYPERION', since: now - 100 * DAY, limit: 200 }), pageBefore);
    await assert.rejects(sql`insert into auctions select * from auctions limit 1`.execute(store.kysely), /duplicate key/);
    assert.equal((await migrateTo(migrator, '019-auction-partitions')).error, undefined);
    assert.deepEqual(await store.auctions.countByState(), counts);
  } finally {
    await close();
  }
});
