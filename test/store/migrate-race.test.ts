/**
 * Kysely's migration bookkeeping check scans every schema on the server; a schema that another
 * client drops during that scan used to fail the migration (3F000). Parallel test suites drop
 * their schemas all the time, and so may other tenants of a shared server.
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { describe, it } from 'node:test';
import pg from 'pg';
import { Store } from '../../src/store/index.ts';
import { dropSchema, IN_CI, POSTGRES_TEST_URL, postgresUnavailable, uniqueSchema } from '../helpers/databases.ts';

const skip = postgresUnavailable && !IN_CI ? `PostgreSQL unreachable (${postgresUnavailable})` : false;
if (skip) console.log(`# SKIP migrations while other schemas are dropped: ${skip}`);

describe('migrations while other schemas are dropped [postgres]', { skip }, () => {
  it('open a migrated store while other clients drop their schemas', async () => {
    if (postgresUnavailable) throw new Error(`PostgreSQL is required under CI=true: ${postgresUnavailable}`);
    const admin = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await admin.connect();
    try {
      for (let round = 0; round < 6; round++) {
        const doomed = Array.from({ length: 12 }, () => uniqueSchema('doomed'));
        for (const name of doomed) await admin.query(`create schema "${name}"; create table "${name}".t (a int, b text, c int8)`);
        const mine = uniqueSchema();
        const dropping = (async () => {
          for (const name of doomed) await admin.query(`drop schema "${name}" cascade`);
        })();
        const opened = Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: tmpdir(), schema: mine });
        const [store] = await Promise.all([opened, dropping]);
        try {
          assert.deepEqual((await store.migrate()).results, []);
        } finally {
          await store.close();
          await dropSchema(mine);
        }
      }
    } finally {
      await admin.end();
    }
  });
});
