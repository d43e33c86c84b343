/** The data uploads repository on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { runModRetention } from '../../../src/jobs/mod-retention.ts';
import { DATA_UPLOAD_RETENTION_MS } from '../../../src/store/repositories/data-uploads.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describeEachBackend('data uploads repository', (fixture) => {
  it('stores data uploads and drops them after retention', async () => {
    const { store } = fixture();
    await store.dataUploads.add({ id: 'u1', requestId: 'r1', kind: 'auctions_page', bytes: 2, body: '{}', receivedAt: T0 });
    assert.equal((await store.dataUploads.get('u1'))?.kind, 'auctions_page');
    assert.equal((await store.dataUploads.recent('auctions_page', 5)).length, 1);
    assert.equal((await runModRetention(store, T0 + DATA_UPLOAD_RETENTION_MS + 1)).uploads, 1);
    assert.equal(await store.dataUploads.get('u1'), undefined);
  });

  it('indexes data uploads by kind and time, for the newest uploads of one kind', async () => {
    const { store } = fixture();
    const db = store.kysely as import('kysely').Kysely<any>;
    const names =
      store.dialect === 'postgres'
        ? (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'data_uploads'`.execute(db)).rows
        : (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'data_uploads'`.execute(db)).rows;
    assert.ok(names.some((r) => r.name === 'data_uploads_kind_received'), JSON.stringify(names));
    for (let i = 0; i < 6; i++) {
      await store.dataUploads.add({ id: `k${i}`, requestId: `r${i}`, kind: i % 2 ? 'npc_shop' : 'other', bytes: 2, body: '{}', receivedAt: T0 + i });
    }
    assert.deepEqual((await store.dataUploads.recent('npc_shop', 2)).map((u) => u.id), ['k5', 'k3']);
  });
});
