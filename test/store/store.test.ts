import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { bulkInsert, postgresArray, sqliteRowsPerStatement, SQLITE_MAX_PARAMETERS, type BulkSpec } from '../../src/store/bulk.ts';
import { describeEachBackend } from '../helpers/databases.ts';

interface Sample {
  id: number;
  label: string;
  price: number | null;
  big: number;
  flag: boolean;
  blob: Buffer | null;
  doc: unknown;
}

describeEachBackend('store', (fixture) => {
  it('applies migrations once and is idempotent on a second run', async () => {
    const { store } = fixture();
    const again = await store.migrate();
    assert.equal(again.error, undefined);
    assert.deepEqual(again.results, [], 'no migration should run twice');
    await store.ping();
  });

  it('bulk-inserts every column type, beyond the SQLite parameter limit', async () => {
    const { store } = fixture();
    const db = store.kysely as import('kysely').Kysely<any>;
    const big = store.dialect === 'postgres' ? 'bigint' : 'integer';
    const blob = store.dialect === 'postgres' ? 'bytea' : 'blob';
    const json = store.dialect === 'postgres' ? 'jsonb' : 'text';
    await sql`create table bulk_sample (id integer primary key, label text not null, price ${sql.raw(store.dialect === 'postgres' ? 'double precision' : 'real')}, big ${sql.raw(big)} not null, flag boolean not null, blob ${sql.raw(blob)}, doc ${sql.raw(json)})`.execute(db);
    const spec: BulkSpec<Sample> = {
      table: 'bulk_sample',
      columns: { id: 'int4', label: 'text', price: 'float8', big: 'int8', flag: 'bool', blob: 'bytea', doc: 'jsonb' },
      conflict: { target: ['id'], update: 'nothing' },
    };
    // 7 columns x 10,000 rows = 70,000 parameters: one SQLite statement could not hold them.
    const rows: Sample[] = Array.from({ length: 10_000 }, (_, i) => ({
      id: i,
      label: `it's "row" ${i}, {braces} \\ ok`,
      price: i % 5 ? i / 4 : null,
      big: 1_700_000_000_000 + i,
      flag: i % 2 === 0,
      blob: i % 7 ? Buffer.from([i & 255, 0, 255]) : null,
      doc: { i, tags: ['a', 'b'] },
    }));
    assert.ok(rows.length * 7 > SQLITE_MAX_PARAMETERS);
    assert.equal(await bulkInsert(db, store.dialect, spec, rows), rows.length);
    // Conflicting rows are ignored with update: 'nothing'.
    await bulkInsert(db, store.dialect, spec, [{ ...rows[3]!, label: 'changed' }]);

    const count = await sql<{ n: number }>`select count(*) as n from bulk_sample`.execute(db);
    assert.equal(Number(count.rows[0]!.n), 10_000);
    const three = await sql<Record<string, unknown>>`select * from bulk_sample where id = 3`.execute(db);
    const row = three.rows[0]!;
    assert.equal(row.label, `it's "row" 3, {braces} \\ ok`);
    assert.equal(row.price, 0.75);
    assert.equal(row.big, 1_700_000_000_003);
    assert.equal(Boolean(row.flag), false);
    assert.deepEqual(Buffer.from(row.blob as Uint8Array), Buffer.from([3, 0, 255]));
    const doc = typeof row.doc === 'string' ? JSON.parse(row.doc) : row.doc;
    assert.deepEqual(doc, { i: 3, tags: ['a', 'b'] });
    const nulls = await sql<Record<string, unknown>>`select price, blob from bulk_sample where id = 35`.execute(db);
    assert.deepEqual(nulls.rows[0], { price: null, blob: null });
  });

  it('bulk-inserts numbers and bytes exactly: fractions, extremes, empty and offset byte views', async () => {
    const { store } = fixture();
    const db = store.kysely as import('kysely').Kysely<any>;
    const pg = store.dialect === 'postgres';
    await sql`create table bulk_edges (id integer primary key, price ${sql.raw(pg ? 'double precision' : 'real')}, big ${sql.raw(pg ? 'bigint' : 'integer')}, blob ${sql.raw(pg ? 'bytea' : 'blob')})`.execute(db);
    const spec: BulkSpec<{ id: number; price: number | null; big: number | null; blob: Uint8Array | null }> = {
      table: 'bulk_edges',
      columns: { id: 'int4', price: 'float8', big: 'int8', blob: 'bytea' },
    };
    const backing = Buffer.from([9, 8, 7, 0x5c, 0x22, 0x7b, 0x2c, 6]);
    const rows = [
      { id: 1, price: 0.1 + 0.2, big: Number.MAX_SAFE_INTEGER, blob: Buffer.alloc(0) },
      { id: 2, price: -1e-300, big: -Number.MAX_SAFE_INTEGER, blob: backing.subarray(3, 7) }, // a view into a larger buffer: backslash, quote, brace, comma
      { id: 3, price: 1.7976931348623157e308, big: 0, blob: new Uint8Array(backing.buffer, backing.byteOffset + 1, 2) },
      { id: 4, price: null, big: null, blob: null },
      { id: 5, price: 123456.7, big: -1, blob: Buffer.from('\\x41', 'latin1') },
    ];
    await bulkInsert(db, store.dialect, spec, rows);
    const back = await sql<{ id: number; price: number | null; big: number | string | null; blob: Uint8Array | null }>`select * from bulk_edges order by id`.execute(db);
    assert.deepEqual(
      back.rows.map((r) => ({ id: r.id, price: r.price, big: r.big === null ? null : Number(r.big), blob: r.blob && [...r.blob] })),
      rows.map((r) => ({ ...r, blob: r.blob && [...r.blob] })),
    );
    // PostgreSQL gets numbers and bytes as array literals built here; anything else as pg builds it.
    assert.equal(postgresArray([1, null, -2.5, 1e21], 'int8'), '{1,NULL,-2.5,1e+21}');
    assert.equal(postgresArray([Buffer.from([0x5c, 1]), null, new Uint8Array(0)], 'bytea'), '{\\\\x5c01,NULL,\\\\x}');
    assert.deepEqual(postgresArray(['12', 3], 'int8'), ['12', 3]);
    assert.deepEqual(postgresArray(['a"b'], 'text'), ['a"b']);
  });

  it('rolls back every write of a failed transaction', async () => {
    const { store } = fixture();
    const before = await store.items.count();
    await assert.rejects(
      store.transaction(async (trx) => {
        await store.items.upsertMany([{ tag: 'TX_ONLY', name: 'x', tier: null, category: null, npcSellPrice: null }], 1, trx);
        await store.feeds.record({ name: 'bazaar', lastUpdated: 1, storedAt: 1, records: 1, source: 'upstream' }, trx);
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await store.items.count(), before);
    assert.equal(await store.items.get('TX_ONLY'), undefined);
  });
});

it('sizes SQLite statements under the bound-parameter limit', () => {
  assert.equal(sqliteRowsPerStatement(7), 2000);
  assert.equal(sqliteRowsPerStatement(40), Math.floor(SQLITE_MAX_PARAMETERS / 40));
  assert.ok(sqliteRowsPerStatement(40) * 40 <= SQLITE_MAX_PARAMETERS);
  assert.equal(sqliteRowsPerStatement(50_000), 1);
});
