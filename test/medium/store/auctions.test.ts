import assert from 'node:assert/strict';
import { it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import type { Store } from '../../../src/store/index.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { listing, sale } from '../../helpers/auctions.ts';
import { describeEachBackend, type Backend } from '../../helpers/databases.ts';

const T = Date.UTC(2026, 10, 23, 12, 0, 0);
const TAGS = ['HYPERION', 'TERMINATOR', 'ASPECT_OF_THE_END', 'JUJU_SHORTBOW'];

/** The auctions table's indexes as the catalog describes them, by name. */
async function indexes(store: Store, backend: Backend): Promise<Record<string, string>> {
  const { rows } =
    backend === 'sqlite'
      ? await sql<{ name: string; definition: string | null }>`select name, sql as definition from sqlite_master where type = 'index' and tbl_name = 'auctions'`.execute(store.kysely)
      : await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition from pg_indexes where schemaname = current_schema() and tablename = 'auctions'`.execute(store.kysely);
  return Object.fromEntries(rows.map((r) => [r.name, r.definition ?? '']));
}

function generation(n: number): AuctionsTable[] {
  return Array.from({ length: n }, (_, i) => listing(T, { tag: TAGS[i % TAGS.length]!, starting_bid: 1000 + i, seller: (i % 97).toString(16).padStart(32, '0') }));
}

/** Suites share one store: each test starts from an empty auctions table. */
async function emptyAuctions(store: Store): Promise<void> {
  await store.kysely.deleteFrom('bids').execute();
  await store.kysely.deleteFrom('auctions').execute();
}

const feed = { name: 'auctions' as const, lastUpdated: T, storedAt: T, records: 0, source: 'simulator' as const };

describeEachBackend('auctions: a cold generation loads before building its indexes', (fixture) => {
  it('keeps every index as the migrations defined it and answers indexed queries', async () => {
    const { store, backend } = fixture();
    await emptyAuctions(store);
    // A few sales stored before the first generation (the ended feed can come first).
    await store.auctions.recordSales([sale(T, 60_000, { tag: 'HYPERION', sold_price: 5 })], [], { ...feed, name: 'auctions_ended' });
    const before = await indexes(store, backend);
    assert.ok(Object.keys(before).length >= 6, JSON.stringify(before));
    const rows = generation(6000);
    const neverAnalyzed = await store.statistics.stale();
    await store.auctions.applyGeneration({ listings: rows, bids: [], departed: [], feed: { ...feed, records: rows.length } });
    assert.deepEqual(await indexes(store, backend), before);
    if (backend === 'postgres') {
      // The load is analyzed at once (planner statistics), not left to autovacuum.
      assert.ok(neverAnalyzed.includes('auctions'), neverAnalyzed.join());
      const { rows: stats } = await sql<{ reltuples: number }>`select reltuples from pg_class where oid = 'auctions'::regclass`.execute(store.kysely);
      assert.equal(Number(stats[0]!.reltuples), 6001);
      assert.ok(!(await store.statistics.stale()).includes('auctions'));
    }
    if (backend === 'sqlite') {
      const { rows: check } = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(store.kysely);
      assert.deepEqual(check.map((r) => r.integrity_check), ['ok']);
    }
    assert.deepEqual(await store.auctions.countByState(), { active: 6000, sold: 1 });
    const cheapest = await store.kysely
      .selectFrom('auctions')
      .select(['uuid', 'starting_bid'])
      .where('tag', '=', 'TERMINATOR')
      .where('state', '=', 'active')
      .orderBy('starting_bid')
      .limit(1)
      .executeTakeFirstOrThrow();
    assert.equal(Number(cheapest.starting_bid), 1001);
    const one = rows[4321]!;
    assert.equal((await store.auctions.get(one.uuid))?.item_uid, one.item_uid);
    assert.equal((await store.kysely.selectFrom('auctions').select('uuid').where('item_uid', '=', one.item_uid).execute()).length, 1);

    // The next generation goes into a full table, row by row, and the indexes stay.
    const next = generation(5000);
    await store.auctions.applyGeneration({ listings: next, bids: [], departed: [], feed: { ...feed, lastUpdated: T + 60_000, records: next.length } });
    assert.deepEqual(await indexes(store, backend), before);
    assert.deepEqual(await store.auctions.countByState(), { active: 11000, sold: 1 });
  });

  it('rolls the dropped indexes back with a failed load', async () => {
    const { store, backend } = fixture();
    await emptyAuctions(store);
    const before = await indexes(store, backend);
    const rows = generation(6000);
    // NOT NULL violation in the last rows: the whole generation fails.
    rows[5999] = { ...rows[5999]!, tag: null as unknown as string };
    await assert.rejects(store.auctions.applyGeneration({ listings: rows, bids: [], departed: [], feed: { ...feed, records: rows.length } }));
    assert.deepEqual(await indexes(store, backend), before);
    assert.deepEqual(await store.auctions.countByState(), {});
  });
});

describeEachBackend('auctions: departed auctions leave the active set in set-based statements', (fixture) => {
  it('marks those that ended with bids sold (price, buyer, time), expires the rest, and leaves a sold one alone', async () => {
    const { store } = fixture();
    await emptyAuctions(store);
    const rows = generation(7);
    await store.auctions.applyGeneration({ listings: rows, bids: [], departed: [], feed: { ...feed, records: rows.length } });
    // The ended feed sold rows[6] first: a later generation must not re-mark it.
    await store.auctions.recordSales([{ ...rows[6]!, state: 'sold', sold_price: 77, buyer: 'e'.repeat(32), sold_at: T + 1 }], [], { ...feed, name: 'auctions_ended', lastUpdated: T + 1 });
    const buyer = (i: number) => i.toString(16).repeat(32);
    await store.auctions.applyGeneration({
      listings: [],
      bids: [],
      departed: [
        { uuid: rows[0]!.uuid, sale: { price: 1_000, buyer: buyer(1), at: T + 10 } },
        { uuid: rows[1]!.uuid, sale: { price: 2_000, buyer: buyer(2), at: T + 20 } },
        { uuid: rows[2]!.uuid },
        { uuid: rows[3]!.uuid },
        { uuid: rows[6]!.uuid, sale: { price: 9, buyer: buyer(9), at: T + 90 } },
      ],
      feed: { ...feed, lastUpdated: T + 60_000, records: 2 },
    });
    const state = async (i: number) => {
      const row = await store.auctions.get(rows[i]!.uuid);
      return { state: row?.state, price: row?.sold_price == null ? null : Number(row.sold_price), buyer: row?.buyer ?? null, at: row?.sold_at == null ? null : Number(row.sold_at) };
    };
    assert.deepEqual(await state(0), { state: 'sold', price: 1_000, buyer: buyer(1), at: T + 10 });
    assert.deepEqual(await state(1), { state: 'sold', price: 2_000, buyer: buyer(2), at: T + 20 });
    assert.deepEqual(await state(2), { state: 'expired', price: null, buyer: null, at: null });
    assert.deepEqual(await state(3), { state: 'expired', price: null, buyer: null, at: null });
    assert.deepEqual(await state(4), { state: 'active', price: null, buyer: null, at: null });
    assert.deepEqual(await state(6), { state: 'sold', price: 77, buyer: 'e'.repeat(32), at: T + 1 });
    assert.deepEqual(await store.auctions.countByState(), { active: 2, sold: 3, expired: 2 });
  });
});

describeEachBackend("auctions: a listing's item bytes written as upstream's base64 text are stored as the bytes", (fixture) => {
  it('decodes standard and URL-safe base64 per statement; bytes given as bytes stay as they are', async () => {
    const { store } = fixture();
    await emptyAuctions(store);
    const gz = gzipSync(Buffer.from('0a0000090001690a00000000', 'hex'));
    // Bytes chosen so that standard and URL-safe base64 differ ('+/' against '-_').
    const odd = Buffer.from([0xfb, 0xff, 0xbf, 0x3e, 0x00, 0xfa]);
    const rows = generation(3);
    const written = [
      { ...rows[0]!, item_bytes: gz.toString('base64') },
      { ...rows[1]!, item_bytes: odd.toString('base64url') },
      { ...rows[2]!, item_bytes: odd },
    ];
    assert.notEqual(odd.toString('base64'), odd.toString('base64url'));
    await store.auctions.applyGeneration({ listings: written, bids: [], departed: [], feed: { ...feed, records: 3 } });
    const stored = async (i: number) => Buffer.from((await store.auctions.get(rows[i]!.uuid))!.item_bytes);
    assert.deepEqual(await stored(0), gz);
    assert.deepEqual(await stored(1), odd);
    assert.deepEqual(await stored(2), odd);
    // A sale over the listing, its bytes as text too.
    await store.auctions.recordSales([{ ...written[0]!, item_bytes: odd.toString('base64'), state: 'sold', sold_price: 5, buyer: 'e'.repeat(32), sold_at: T + 1 }], [], { ...feed, name: 'auctions_ended', lastUpdated: T + 1 });
    assert.deepEqual(await stored(0), odd);
  });
});
