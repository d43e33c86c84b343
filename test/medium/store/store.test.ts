import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { bulkInsert, postgresArray, postgresColumn, sqliteRowsPerStatement, SQLITE_MAX_PARAMETERS, type BulkSpec } from '../../../src/store/bulk.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

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

  it('bulk-inserts columns the rows do not carry from values by row index, across statements', async () => {
    const { store } = fixture();
    const db = store.kysely as import('kysely').Kysely<any>;
    await sql`create table bulk_added (id integer primary key, label text not null, month integer not null)`.execute(db);
    const spec: BulkSpec<{ id: number; label: string; month: number }> = { table: 'bulk_added', columns: { id: 'int4', label: 'text', month: 'int4' } };
    // More rows than one statement takes on either backend: the values must follow their rows past the first chunk.
    const rows = Array.from({ length: 5_003 }, (_, i) => ({ id: i, label: `row ${i}` }));
    const months = rows.map((r) => 202_600 + (r.id % 12));
    assert.equal(await bulkInsert<{ id: number; label: string }, { month: number }>(db, store.dialect, spec, rows, { month: months }), rows.length);
    const back = await sql<{ id: number; label: string; month: number }>`select id, label, month from bulk_added order by id`.execute(db);
    assert.equal(back.rows.length, rows.length);
    for (const r of back.rows) assert.deepEqual({ id: r.id, label: r.label, month: r.month }, { id: r.id, label: `row ${r.id}`, month: 202_600 + (r.id % 12) });
    // A values array of another length is a caller's bug, refused before anything is written.
    await assert.rejects(bulkInsert<{ id: number; label: string }, { month: number }>(db, store.dialect, spec, [{ id: 9_999, label: 'x' }], { month: [1, 2] }), /2 values of month for 1 rows/);
    const stray = await sql<{ n: number }>`select count(*) as n from bulk_added where id = 9999`.execute(db);
    assert.equal(Number(stray.rows[0]!.n), 0);
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
    // Text and bytes as JSON written as an array literal; a value needing another escape goes to pg.
    assert.equal(postgresColumn(['a"b\\c', null, 'NULL'], 'text'), '{"a\\"b\\\\c",null,"NULL"}');
    assert.deepEqual(postgresColumn(['x\ny', 'z'], 'text'), ['x\ny', 'z']);
    assert.equal(postgresColumn([Buffer.from([0xfb, 0xff]), null, '-_8'], 'bytea'), '{"+/8=",null,"+/8="}');
  });

  it('bulk-inserts what untrusted data may hold: NUL, half surrogate pairs, lenient base64, non-finite and big numbers, JSON text', async () => {
    const { store } = fixture();
    const db = store.kysely as import('kysely').Kysely<any>;
    const pg = store.dialect === 'postgres';
    await sql`create table bulk_hostile (id integer primary key, label text, price ${sql.raw(pg ? 'double precision' : 'real')}, big ${sql.raw(pg ? 'bigint' : 'integer')}, blob ${sql.raw(pg ? 'bytea' : 'blob')}, doc ${sql.raw(pg ? 'jsonb' : 'text')})`.execute(db);
    type Hostile = { id: number; label: string | null; price: number | null; big: number | bigint | string | null; blob: string | Uint8Array | null; doc: unknown };
    const spec: BulkSpec<Hostile> = {
      table: 'bulk_hostile',
      columns: { id: 'int4', label: 'text', price: 'float8', big: 'int8', blob: 'bytea', doc: 'jsonb' },
    };
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x00, 0x3e]);
    const rows: Hostile[] = [
      { id: 1, label: 'nul\u0000inside', price: NaN, big: 9_007_199_254_740_991n, blob: bytes.toString('base64url'), doc: { 'key\u0000': 'lone \ud800 high' } },
      { id: 2, label: 'lone \udc00 low, then a pair \ud83d\ude00', price: Infinity, big: '-42', blob: bytes.toString('base64').replace(/=+$/, ''), doc: '{"as":"text","n":[1,2]}' },
      { id: 3, label: 'a literal \\u0000 and \\ud800 are kept', price: -Infinity, big: null, blob: ` ${bytes.toString('base64')}\n`, doc: null },
      { id: 4, label: 'quote " backslash \\ brace } comma ,', price: 2.5, big: 7, blob: bytes, doc: ['x', null, { deep: '\u0000' }] },
      { id: 5, label: 'NULL', price: null, big: null, blob: null, doc: 'null' },
      { id: 6, label: 'line\nbreak\ttab \\" {}', price: null, big: null, blob: null, doc: '"NULL"' },
    ];
    assert.equal(await bulkInsert(db, store.dialect, spec, rows), 6);
    const back = await sql<Record<string, unknown>>`select * from bulk_hostile order by id`.execute(db);
    const got = back.rows.map((r) => ({
      id: r.id,
      label: r.label,
      price: r.price,
      big: r.big === null ? null : String(r.big),
      blob: r.blob === null ? null : [...(r.blob as Uint8Array)],
      doc: !pg && typeof r.doc === 'string' ? JSON.parse(r.doc) : r.doc,
    }));
    // PostgreSQL text cannot hold NUL or half a surrogate pair: U+FFFD stands in. SQLite keeps a NUL.
    const nul = pg ? '\uFFFD' : '\u0000';
    assert.deepEqual(
      got.map((r) => [r.id, r.label, r.big, r.blob, r.doc]),
      [
        // SQLite keeps the JSON text as written, escapes included.
        [1, `nul${nul}inside`, '9007199254740991', [...bytes], { [`key${nul}`]: pg ? 'lone \uFFFD high' : 'lone \ud800 high' }],
        // better-sqlite3 writes half a pair as three bytes of invalid UTF-8, read back as three U+FFFD.
        [2, `lone ${pg ? '\uFFFD' : '\uFFFD\uFFFD\uFFFD'} low, then a pair \ud83d\ude00`, '-42', [...bytes], { as: 'text', n: [1, 2] }],
        [3, 'a literal \\u0000 and \\ud800 are kept', null, [...bytes], null],
        [4, 'quote " backslash \\ brace } comma ,', '7', [...bytes], ['x', null, { deep: nul }]],
        // The text NULL is text, a JSON null is NULL; a JSON string stays one.
        [5, 'NULL', null, null, null],
        [6, 'line\nbreak\ttab \\" {}', null, null, 'NULL'],
      ],
    );
    if (pg) assert.deepEqual(got.map((r) => r.price), [NaN, Infinity, -Infinity, 2.5, null, null]);
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
