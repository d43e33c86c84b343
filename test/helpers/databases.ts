/**
 * Runs a suite against every storage backend: SQLite always, PostgreSQL when
 * reachable at DATABASE_URL_TEST (default postgres://postgres@127.0.0.1:5432/test).
 * Each PostgreSQL suite gets a schema of its own, dropped afterwards, so parallel
 * runs never collide. Without PostgreSQL the suite is skipped with a visible line,
 * except under CI=true, where that is a failure.
 */
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import type { MigrationResultSet, Migrator } from 'kysely';
import pg from 'pg';
import { Store } from '../../src/store/index.ts';
import { IN_CI, probePostgres } from './services.ts';
import { tempDir } from './temp-dir.ts';

export const POSTGRES_TEST_URL = process.env.DATABASE_URL_TEST ?? 'postgres://postgres@127.0.0.1:5432/test';
export { IN_CI };

/** Why PostgreSQL cannot be used, or undefined when it can. */
export const postgresUnavailable = await probePostgres(POSTGRES_TEST_URL);

export type Backend = 'sqlite' | 'postgres';

export interface StoreFixture {
  store: Store;
  backend: Backend;
}

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_TEST_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

// Connection-level failures a busy or just-started server can give; anything else is a real error.
const TRANSIENT = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P03', '53300']);

function isTransient(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return TRANSIENT.has(e?.code ?? '') || /timeout|terminated unexpectedly/i.test(e?.message ?? '');
}

async function openWithRetry(open: () => Promise<Store>): Promise<Store> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      if (attempt >= 5 || !isTransient(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
    }
  }
}

/** Opens a fresh, migrated store on the given backend; `close` removes all of it. */
export async function openTestStore(backend: Backend): Promise<{ store: Store; close(): Promise<void> }> {
  if (backend === 'sqlite') {
    const dir = tempDir('test');
    const store = await Store.open({ dataDir: dir.path });
    return {
      store,
      async close() {
        await store.close();
        dir.remove();
      },
    };
  }
  const schema = uniqueSchema();
  const store = await openWithRetry(() => Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: tmpdir(), schema }));
  return {
    store,
    async close() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

/**
 * Opens a store with no migration applied, for tests that fill an older layout and then migrate:
 * `migrator` moves it to a named migration (with `migrateTo`); `close` removes all of it.
 */
export async function openUnmigratedStore(backend: Backend, prefix: string): Promise<{ store: Store; migrator: Migrator; close(): Promise<void> }> {
  const dir = tempDir(prefix);
  const schema = uniqueSchema(prefix);
  const store = backend === 'sqlite' ? await Store.open({ dataDir: dir.path, migrate: false }) : await Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: dir.path, schema, migrate: false });
  const migrator = store.migrator();
  return {
    store,
    migrator,
    async close() {
      await store.close();
      dir.remove();
      if (backend === 'postgres') await dropSchema(schema);
    },
  };
}

/**
 * Declares `describe(name [backend])` for each backend, with a fresh store per suite.
 * `body` receives a getter, valid inside tests and hooks.
 */
export function describeEachBackend(name: string, body: (fixture: () => StoreFixture) => void): void {
  for (const backend of ['sqlite', 'postgres'] as const) {
    const title = `${name} [${backend}]`;
    if (backend === 'postgres' && postgresUnavailable) {
      if (IN_CI) {
        describe(title, () => {
          before(() => {
            throw new Error(`PostgreSQL is required under CI=true but unreachable at ${POSTGRES_TEST_URL}: ${postgresUnavailable}`);
          });
          body(() => {
            throw new Error('PostgreSQL unavailable');
          });
        });
      } else {
        console.log(`# SKIP ${title}: PostgreSQL unreachable at ${POSTGRES_TEST_URL} (${postgresUnavailable})`);
        describe.skip(title, () => body(() => {
          throw new Error('PostgreSQL unavailable');
        }));
      }
      continue;
    }
    describe(title, () => {
      let fixture: StoreFixture | undefined;
      let close: (() => Promise<void>) | undefined;
      before(async () => {
        const opened = await openTestStore(backend);
        fixture = { store: opened.store, backend };
        close = opened.close;
      });
      after(async () => {
        await close?.();
      });
      body(() => {
        if (!fixture) throw new Error('store not opened yet');
        return fixture;
      });
    });
  }
}

/** `migrator.migrateTo(target)`: the store's migrator looks only at its own schema, so other suites' drops cannot disturb it. */
export function migrateTo(migrator: Migrator, target: string): Promise<MigrationResultSet> {
  return migrator.migrateTo(target);
}
