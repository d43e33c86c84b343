/**
 * Multi-row inserts and upserts that are fast on both dialects:
 * SQLite gets multi-row VALUES chunked under its 32,766 bound-parameter limit;
 * PostgreSQL gets one array parameter per column, expanded with `unnest`, so a
 * statement of any size has as many parameters as the table has columns.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './db.ts';

/** Column types as PostgreSQL names them; SQLite maps them to its storage classes. A `bytea` value may be base64 text (bytesOfBase64). */
export type ColumnType = 'text' | 'int4' | 'int8' | 'float8' | 'bool' | 'bytea' | 'jsonb';

export interface BulkSpec<Row> {
  table: string;
  columns: { [K in keyof Row & string]: ColumnType };
  /** ON CONFLICT behaviour; omitted = plain insert (a conflict is an error) */
  conflict?: {
    target: Array<keyof Row & string>;
    update: 'nothing' | Array<keyof Row & string>;
    /** only update existing rows matching this condition (refer to them by the table name) */
    where?: RawBuilder<unknown>;
  };
}

export const SQLITE_MAX_PARAMETERS = 32_766;
const SQLITE_MAX_ROWS = 2_000;
/**
 * Rows per PostgreSQL statement. Each statement's parameters exist several times over while it is
 * sent (the column arrays as text, pg's escaped copies, the protocol buffer growing to hold them),
 * so its size sets a peak of the cold sweep's memory (60,000 listings with their item bytes).
 */
const POSTGRES_ROWS_PER_STATEMENT = 1_000;

/** Inserts `rows` in as few statements as the dialect allows; returns rows sent. */
export async function bulkInsert<Row extends object>(
  db: Kysely<any>,
  dialect: Dialect,
  spec: BulkSpec<Row>,
  rows: readonly Row[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const names = Object.keys(spec.columns) as Array<keyof Row & string>;
  const conflict = conflictClause(spec);
  const table = sql.table(spec.table);
  const columnList = sql.join(names.map((n) => sql.ref(n)));

  if (dialect === 'sqlite') {
    // The statement text is built directly rather than through sql`` fragments: a node per
    // bound value made query compilation cost more than the insert itself on large batches.
    const perChunk = sqliteRowsPerStatement(names.length);
    const compiledConflict = conflict.compile(db);
    const head = `insert into ${quoteIdentifier(spec.table)} (${names.map(quoteIdentifier).join(', ')}) values `;
    const tuple = `(${names.map(() => '?').join(', ')})`;
    const types = names.map((n) => spec.columns[n]);
    let text = '';
    let textRows = -1;
    for (let start = 0; start < rows.length; start += perChunk) {
      const count = Math.min(perChunk, rows.length - start);
      if (count !== textRows) {
        text = head + new Array<string>(count).fill(tuple).join(', ') + compiledConflict.sql;
        textRows = count;
      }
      const parameters: unknown[] = new Array(count * names.length);
      let p = 0;
      for (let r = start; r < start + count; r++) {
        const row = rows[r]!;
        for (let c = 0; c < names.length; c++) parameters[p++] = toSqlite(row[names[c]!], types[c]!);
      }
      // No copy of the (~16,000) parameters when the conflict clause adds none.
      await db.executeQuery(CompiledQuery.raw(text, compiledConflict.parameters.length === 0 ? parameters : [...parameters, ...compiledConflict.parameters]));
    }
    return rows.length;
  }

  for (let start = 0; start < rows.length; start += POSTGRES_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + POSTGRES_ROWS_PER_STATEMENT);
    const arrays = names.map((n) => {
      const type = spec.columns[n];
      const values = postgresArray(chunk.map((row) => toPostgres(row[n], type)), type);
      // jsonb travels as text[] and is cast per element; everything else binds as its own array type.
      const arrayType = type === 'jsonb' ? 'text' : type;
      return sql`${values}::${sql.raw(arrayType)}[]`;
    });
    const aliases = names.map((_, i) => `c${i}`);
    const selects = names.map((n, i) => sql.raw(spec.columns[n] === 'jsonb' ? `u.c${i}::jsonb` : `u.c${i}`));
    await sql`insert into ${table} (${columnList}) select ${sql.join(selects)} from unnest(${sql.join(arrays)}) as u(${sql.raw(aliases.join(', '))})${conflict}`.execute(
      db,
    );
  }
  return rows.length;
}

/**
 * A `bytea` value given as text is base64 (upstream's form, standard or URL-safe), decoded here, one
 * statement's rows at a time (schema.ts `AuctionRowWrite`).
 */
function bytesOfBase64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}

/** Rows per SQLite statement so that rows × columns stays under the parameter limit. */
export function sqliteRowsPerStatement(columnCount: number): number {
  return Math.max(1, Math.min(SQLITE_MAX_ROWS, Math.floor(SQLITE_MAX_PARAMETERS / columnCount)));
}

function conflictClause<Row>(spec: BulkSpec<Row>): RawBuilder<unknown> {
  if (!spec.conflict) return sql``;
  const target = sql.join(spec.conflict.target.map((c) => sql.ref(c)));
  if (spec.conflict.update === 'nothing') return sql` on conflict (${target}) do nothing`;
  const sets = sql.join(spec.conflict.update.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
  const where = spec.conflict.where ? sql` where ${spec.conflict.where}` : sql``;
  return sql` on conflict (${target}) do update set ${sets}${where}`;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function toSqlite(value: unknown, type: ColumnType): unknown {
  if (value === undefined || value === null) return null;
  if (type === 'bytea' && typeof value === 'string') return bytesOfBase64(value);
  if (type === 'bool') return value ? 1 : 0;
  if (type === 'jsonb') return typeof value === 'string' ? value : JSON.stringify(value);
  return value;
}

/**
 * A column's values as the array literal pg would send for them, built here for numbers and
 * bytea: pg quotes and regex-escapes every element (two replace() calls per number), which was
 * a fifth of a bazaar snapshot's ingest CPU on PostgreSQL. Anything else stays an array for pg.
 */
export function postgresArray(values: unknown[], type: ColumnType): unknown[] | string {
  if (type === 'int4' || type === 'int8' || type === 'float8') {
    const parts = new Array<string>(values.length);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null) parts[i] = 'NULL';
      else if (typeof v === 'number') parts[i] = String(v);
      else return values;
    }
    return `{${parts.join(',')}}`;
  }
  if (type === 'bytea') {
    const parts = new Array<string>(values.length);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === null) parts[i] = 'NULL';
      else if (v instanceof Uint8Array) parts[i] = `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
      else return values;
    }
    return `{${parts.join(',')}}`;
  }
  return values;
}

function toPostgres(value: unknown, type: ColumnType): unknown {
  if (value === undefined || value === null) return null;
  if (type === 'bytea' && typeof value === 'string') return bytesOfBase64(value);
  if (type === 'jsonb') return typeof value === 'string' ? value : JSON.stringify(value);
  return value;
}
