/**
 * SQLite statements stay prepared between queries (src/store/db.ts withStatementCache): the same
 * text is prepared once, runs with each call's own parameters, and a statement still being
 * iterated is never handed to a second query.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import { openDatabase, withStatementCache } from '../../../src/store/db.ts';

async function sampleDatabase() {
  const handle = await openDatabase({ dataDir: '', sqliteFile: ':memory:' });
  const db = handle.db as unknown as Kysely<{ sample: { id: number; label: string } }>;
  await sql`create table sample (id integer primary key, label text not null)`.execute(db);
  await db
    .insertInto('sample')
    .values(Array.from({ length: 50 }, (_, i) => ({ id: i, label: `row ${i}` })))
    .execute();
  const sqlite = handle.sqlite!;
  const prepared: string[] = [];
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((text: string) => {
    prepared.push(text);
    return prepare(text);
  }) as typeof sqlite.prepare;
  return { handle, db, prepared };
}

it('prepares a statement once and binds each call its own parameters', async () => {
  const { handle, db, prepared } = await sampleDatabase();
  try {
    for (const id of [3, 17, 42]) {
      const row = await db.selectFrom('sample').selectAll().where('id', '=', id).executeTakeFirst();
      assert.deepEqual(row, { id, label: `row ${id}` });
    }
    assert.equal(prepared.length, 1, `prepared: ${prepared.join(' | ')}`);
    await db.updateTable('sample').set({ label: 'changed' }).where('id', '=', 3).execute();
    await db.updateTable('sample').set({ label: 'again' }).where('id', '=', 4).execute();
    assert.equal(prepared.length, 2);
    const changed = await db.selectFrom('sample').select('label').where('id', 'in', [3, 4]).orderBy('id').execute();
    assert.deepEqual(changed, [{ label: 'changed' }, { label: 'again' }]);
  } finally {
    await handle.close();
  }
});

it('hands out a fresh statement while the cached one is mid-iteration', () => {
  const sqlite = new SqliteDatabase(':memory:');
  try {
    sqlite.exec('create table sample (id integer primary key)');
    sqlite.prepare('insert into sample (id) values (1), (2), (3)').run();
    const cache = withStatementCache(sqlite);
    const text = 'select id from sample order by id';
    const first = cache.prepare(text) as SqliteDatabase.Statement;
    const rows = first.iterate() as IterableIterator<{ id: number }>;
    assert.deepEqual(rows.next().value, { id: 1 });
    // Reusing `first` now would throw "This statement is busy executing a query".
    const beside = cache.prepare(text) as SqliteDatabase.Statement;
    assert.notEqual(beside, first);
    assert.deepEqual(beside.all(), [{ id: 1 }, { id: 2 }, { id: 3 }]);
    assert.deepEqual([...rows], [{ id: 2 }, { id: 3 }]);
    // Done iterating: the cached statement serves again.
    assert.equal(cache.prepare(text), first);
  } finally {
    sqlite.close();
  }
});
