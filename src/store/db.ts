/**
 * Opens the database: embedded SQLite (better-sqlite3, WAL) by default, PostgreSQL
 * when a postgres:// URL is configured. Both run the same Kysely migrations.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type ColumnMetadata,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type MigrationResultSet,
  type SchemaMetadata,
  type SqliteDatabase as KyselySqliteDatabase,
  type TableMetadata,
} from 'kysely';
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
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return {
    db,
    dialect: 'sqlite',
    location: file === ':memory:' ? 'sqlite::memory:' : `sqlite:${resolve(file)}`,
    close: () => db.destroy(),
    sqlite,
  };
}

/** Statements kept prepared, most recently used last (Kysely compiles `in (?, ?, …)` lists of every length, so it is bounded). */
const CACHED_STATEMENTS = 256;

/**
 * Kysely prepares every statement it runs, and preparing costs more than running most of ours:
 * an account token's lookup (one row by a unique index) spent 16 µs preparing and parsing of its
 * ~50 µs, and a bulk insert of a thousand rows milliseconds, dozens of times per cold generation.
 * So statements are kept prepared by their text (SQLite re-prepares one itself after a schema
 * change). A streamed read keeps its statement busy until the last row: a statement busy then
 * is not handed out again, the caller gets a fresh one (Kysely holds its one SQLite connection for
 * a stream's length, so only a caller outside Kysely could meet one).
 */
export function withStatementCache(sqlite: SqliteDatabase.Database): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string) {
      const cached = cache.get(text);
      if (cached !== undefined && !cached.busy) {
        cache.delete(text);
        cache.set(text, cached);
        return cached;
      }
      const statement = sqlite.prepare(text);
      if (cached === undefined) {
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
  // A client in use whose connection drops (the server went away mid-query) emits 'error' on
  // itself, where the pool listens only while it is idle: unheard, that ended the process. Its
  // query fails anyway, and the pool drops the client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
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

/**
 * The migrator of a database. On PostgreSQL it looks only at the store's own schema: Kysely's
 * own introspector lists every table of every schema on the server to find its bookkeeping
 * tables, calling `has_schema_privilege()` and `pg_get_serial_sequence()` with each one's name;
 * a schema that another client drops during that scan fails the call (3F000, 42P01, or
 * 42703 `column "revoked_at" of relation "partner_tokens" does not exist`), and with it the
 * migration. Other schemas are none of the migrator's business, so it never sees them.
 */
export function migratorFor(handle: DatabaseHandle): Migrator {
  const provider = { getMigrations: async () => migrationsFor(handle.dialect) };
  if (handle.dialect !== 'postgres' || !handle.pool) return new Migrator({ db: handle.db, provider });
  const schema = handle.schema ?? 'public';
  const base = new PostgresDialect({ pool: handle.pool });
  // The same pool under a Kysely whose introspector is scoped to `schema`. Never destroyed:
  // that would end the pool, which the handle owns and closes.
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => base.createAdapter(),
      createDriver: () => base.createDriver(),
      createQueryCompiler: () => base.createQueryCompiler(),
      createIntrospector: (kysely) => new OwnSchemaIntrospector(kysely, schema),
    },
  });
  return new Migrator({ db, provider, migrationTableSchema: schema });
}

/** Runs every pending migration; safe to call from several processes at once. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationResultSet> {
  const result = await migratorFor(handle).migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${reason}`);
  }
  return result;
}

/**
 * A PostgreSQL introspector that sees one schema: its tables, views and columns from the
 * catalogs, filtered by the schema's name before any row is read, and no catalog function
 * that resolves another relation by name.
 */
export class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<any>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const rows = await sql<{ nspname: string }>`select nspname from pg_catalog.pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows.rows.map((r) => ({ name: r.nspname }));
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ table: string; kind: string; column: string; not_null: boolean; has_default: boolean; type: string; type_schema: string; comment: string | null }>`
      select c.relname as "table", c.relkind as kind, a.attname as "column", a.attnotnull as not_null,
             a.atthasdef as has_default, t.typname as type, tn.nspname as type_schema,
             col_description(a.attrelid, a.attnum) as comment
        from pg_catalog.pg_namespace n
        join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relkind in ('r', 'v', 'p')
        join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        join pg_catalog.pg_type t on t.oid = a.atttypid
        join pg_catalog.pg_namespace tn on tn.oid = t.typnamespace
       where n.nspname = ${this.schema}
       order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, { name: string; schema: string; isView: boolean; columns: ColumnMetadata[] }>();
    for (const r of rows) {
      let table = tables.get(r.table);
      if (!table) tables.set(r.table, (table = { name: r.table, schema: this.schema, isView: r.kind === 'v', columns: [] }));
      table.columns.push({
        name: r.column,
        dataType: r.type,
        dataTypeSchema: r.type_schema,
        isNullable: !r.not_null,
        hasDefaultValue: r.has_default,
        // Identity columns (the only generated keys the migrations create) have no sequence by name.
        isAutoIncrementing: false,
        ...(r.comment !== null ? { comment: r.comment } : {}),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** A cheap round trip, for readiness checks. */
export async function ping(handle: DatabaseHandle): Promise<void> {
  await sql`select 1`.execute(handle.db);
}
