/**
 * Opens the database: embedded SQLite (better-sqlite3, WAL) by default, PostgreSQL
 * when a postgres:// URL is configured. Both run the same Kysely migrations.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type MigrationResultSet, type SqliteDialectConfig } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { migrationsFor } from './migrations/index.ts';

export type Dialect = 'sqlite' | 'postgres';

// PostgreSQL returns int8 (and count(*)) as strings; every int8 we store (epoch ms,
// coins, counts) fits in a double exactly, so both dialects hand back numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value: string) => Number(value));

export interface DatabaseOptions {
  /** postgres:// URL; undefined = SQLite file `skymarket.db` in dataDir */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** PostgreSQL schema to use (created when missing); also read from `?schema=` in the URL */
  schema?: string | undefined;
  /** SQLite file path override (':memory:' for throwaway databases) */
  sqliteFile?: string | undefined;
  /** PostgreSQL pool size */
  poolSize?: number | undefined;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** where the data lives, with secrets removed, for logs and health */
  location: string;
  /** PostgreSQL schema holding the tables (and the migration bookkeeping) */
  schema?: string;
  /** PostgreSQL only: a new connection outside the pool, same server and search_path (session locks) */
  connect?: () => Promise<pg.Client>;
  close(): Promise<void>;
  /**
   * The driver under Kysely, for read paths where per-row objects cost more than the query
   * (better-sqlite3's raw rows, pg's array rows). Repositories only.
   */
  sqlite?: SqliteDatabase.Database;
  pool?: pg.Pool;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options);
  return openSqlite(options);
}

function openSqlite(options: DatabaseOptions): DatabaseHandle {
  let file = options.sqliteFile;
  if (!file) {
    mkdirSync(options.dataDir, { recursive: true });
    file = join(options.dataDir, 'skymarket.db');
  }
  const sqlite = new SqliteDatabase(file);
  // WAL lets readers (the API, the CLI in another process) run beside the writer;
  // NORMAL sync is durable across process crashes, which is what WAL needs.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withBulkStatementCache(sqlite) }) });
  return {
    db,
    dialect: 'sqlite',
    location: `sqlite:${file}`,
    close: () => db.destroy(),
    sqlite,
  };
}

/** Long write statements (bulk inserts of ~1,000 rows) kept prepared. */
const CACHED_STATEMENT_CHARS = 4096;
const CACHED_STATEMENTS = 16;

/**
 * Kysely prepares every statement it runs. Preparing a bulk insert of a thousand rows
 * costs milliseconds, and a cold auctions generation runs dozens of identical ones, so
 * long write statements are kept prepared (SQLite re-prepares them itself after a schema
 * change). Readers are never cached: a streamed query keeps its statement busy.
 */
function withBulkStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      if (text.length < CACHED_STATEMENT_CHARS) return sqlite.prepare(text);
      const cached = cache.get(text);
      if (cached) return cached;
      const statement = sqlite.prepare(text);
      if (!statement.reader) {
        if (cache.size >= CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

async function openPostgres(databaseUrl: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const url = new URL(databaseUrl);
  const schema = options.schema ?? url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name '${schema}': use lower-case letters, digits and _`);
  }
  const connectionString = url.toString();
  if (schema) {
    // The schema must exist before the pool pins search_path to it.
    const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await client.end();
    }
  }
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 10_000,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  // An idle client that loses its connection emits 'error' on the pool; without a
  // listener that would crash the process. The next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const safe = new URL(connectionString);
  if (safe.password) safe.password = '***';
  return {
    db,
    dialect: 'postgres',
    location: `${safe.toString()}${schema ? ` (schema ${schema})` : ''}`,
    schema: schema ?? 'public',
    async connect() {
      // keepAlive lets a leader notice a dead server; query_timeout bounds a heartbeat on a hung one.
      const client = new pg.Client({
        connectionString,
        connectionTimeoutMillis: 10_000,
        keepAlive: true,
        query_timeout: 10_000,
        ...(schema ? { options: `-c search_path="${schema}"` } : {}),
      });
      await client.connect();
      return client;
    },
    close: () => db.destroy(),
    pool,
  };
}

/** Runs every pending migration; safe to call from several processes at once. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => migrationsFor(handle.dialect) },
    // Kysely looks for its bookkeeping tables in any schema unless told which one: another
    // schema's tables on the same server would make it skip creating ours.
    ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
  let result = await migrator.migrateToLatest();
  // Kysely's bookkeeping check introspects every schema on the server, naming each schema and
  // table; one dropped by someone else during that scan fails it (3F000, 42P01) before any
  // migration ran. Nothing was applied, so running again is safe.
  for (let attempt = 1; attempt < 5 && handle.dialect === 'postgres' && isIntrospectionRace(result); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    result = await migrator.migrateToLatest();
  }
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  return result;
}

/** A migration run that failed only because another schema or table vanished while Kysely listed them. */
export function isIntrospectionRace(result: MigrationResultSet): boolean {
  const code = (result.error as { code?: unknown } | undefined)?.code;
  return (code === '3F000' || code === '42P01') && !result.results?.some((r) => r.status !== 'NotExecuted');
}

/** A cheap round trip, for readiness checks. */
export async function ping(handle: DatabaseHandle): Promise<void> {
  await sql`select 1`.execute(handle.db);
}
