/**
 * Multi-row inserts and upserts that are fast on both dialects:
 * SQLite gets multi-row VALUES chunked under its 32,766 bound-parameter limit;
 * PostgreSQL gets one parameter per column (postgresColumn), zipped back into
 * rows by `ROWS FROM`, so a statement of any size has as many parameters as
 * the table has columns.
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
 * Rows per PostgreSQL statement. Its parameters exist twice while it is sent (the strings and the
 * protocol buffer holding them), so its size sets a peak of the cold sweep's memory (60,000 listings
 * with their item bytes).
 */
const POSTGRES_ROWS_PER_STATEMENT = 1_000;

/**
 * Values of columns the rows do not carry, by row index (`added.month[i]` is row i's month): the
 * caller need not copy every row to add a column. Copies made with an object spread each got a
 * hidden class of their own in V8, 0.7 KB a row more than the row itself (docs/performance.md, 2026-11-27).
 */
export type AddedColumns<Added> = { [K in keyof Added]: ReadonlyArray<Added[K]> };

/** Inserts `rows` in as few statements as the dialect allows; returns rows sent. */
export async function bulkInsert<Row extends object, Added extends object = Record<never, never>>(
  db: Kysely<any>,
  dialect: Dialect,
  spec: BulkSpec<Row & Added>,
  rows: readonly Row[],
  added?: AddedColumns<Added>,
): Promise<number> {
  if (rows.length === 0) return 0;
  const names = Object.keys(spec.columns) as Array<keyof (Row & Added) & string>;
  // Per column: the added values, or undefined when the rows carry it.
  const addedValues = names.map((n) => (added as Record<string, readonly unknown[]> | undefined)?.[n]);
  for (const [i, values] of addedValues.entries()) {
    if (values && values.length !== rows.length) throw new Error(`bulkInsert ${spec.table}: ${values.length} values of ${names[i]} for ${rows.length} rows`);
  }
  const valueOf = (row: Row, r: number, c: number): unknown => {
    const values = addedValues[c];
    return values ? values[r] : (row as Record<string, unknown>)[names[c]!];
  };
  const conflict = conflictClause(spec);
  const table = sql.table(spec.table);
  const columnList = sql.join(names.map((n) => sql.ref(n)));
  const types = names.map((n) => spec.columns[n]);

  if (dialect === 'sqlite') {
    // The statement text is built directly rather than through sql`` fragments: a node per
    // bound value made query compilation cost more than the insert itself on large batches.
    const perChunk = sqliteRowsPerStatement(names.length);
    const compiledConflict = conflict.compile(db);
    const head = `insert into ${quoteIdentifier(spec.table)} (${names.map(quoteIdentifier).join(', ')}) values `;
    const tuple = `(${names.map(() => '?').join(', ')})`;
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
        for (let c = 0; c < names.length; c++) parameters[p++] = toSqlite(valueOf(row, r, c), types[c]!);
      }
      // No copy of the (~16,000) parameters when the conflict clause adds none.
      await db.executeQuery(CompiledQuery.raw(text, compiledConflict.parameters.length === 0 ? parameters : [...parameters, ...compiledConflict.parameters]));
    }
    return rows.length;
  }

  // Each column travels as one parameter, zipped back into rows by ROWS FROM (postgresColumn).
  const selects = sql.raw(
    types.map((type, i) => (type === 'bytea' ? `decode(u.c${i}, 'base64')` : type === 'jsonb' ? `nullif(u.c${i}::jsonb, 'null')` : `u.c${i}`)).join(', '),
  );
  const aliases = sql.raw(names.map((_, i) => `c${i}`).join(', '));
  for (let start = 0; start < rows.length; start += POSTGRES_ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + POSTGRES_ROWS_PER_STATEMENT);
    const sources = names.map((_, i) => {
      const type = types[i]!;
      const values = postgresColumn(chunk.map((row, k) => valueOf(row, start + k, i)), type);
      return type === 'jsonb' ? sql`json_array_elements(${values}::json)` : sql`unnest(${values}::${sql.raw(type === 'bytea' ? 'text' : type)}[])`;
    });
    await sql`insert into ${table} (${columnList}) select ${selects} from rows from (${sql.join(sources)}) as u(${aliases})${conflict}`.execute(db);
  }
  return rows.length;
}

/**
 * One column of a statement's rows as its parameter. pg would build a text-array literal with an
 * escaped copy of every value; here most columns take one native `JSON.stringify`, whose output is
 * already the array literal when no value needs an escape other than `\"` and `\\`. Issue 29
 * measured pg's array building at ~440 MB of a cold sweep's garbage: a cold write of 60,000 listings
 * takes ~14 % less of the client's CPU this way, ~11 % more of the server's; the peak RSS did not move.
 * - numbers: an array literal (postgresArray);
 * - bytea: base64 (upstream's form of item bytes) as a text array, decoded by the statement;
 * - jsonb: a JSON document of the values, taken apart by `json_array_elements`;
 * - text: the JSON literal, or, when a value needs an escape, the values for pg to build.
 * Text PostgreSQL cannot store (a NUL, half a surrogate pair) would fail the whole statement:
 * U+FFFD stands in for it.
 */
export function postgresColumn(values: unknown[], type: ColumnType): unknown[] | string {
  switch (type) {
    case 'int4':
    case 'int8':
    case 'float8':
      return postgresArray(values, type);
    case 'bytea':
      return arrayLiteral(JSON.stringify(values.map(base64Of)));
    case 'jsonb': {
      const parsed = values.map((v) => (v === undefined ? null : typeof v === 'string' ? JSON.parse(v) : v));
      const document = JSON.stringify(parsed);
      // JSON.stringify writes NUL and half surrogate pairs, and nothing else of this range, as these escapes.
      return /\\u(?:0000|d[89a-f])/.test(document) ? JSON.stringify(storableText(parsed)) : document;
    }
    case 'text': {
      // Only strings and nulls: JSON would write an object or array with brackets the literal reads as its own.
      if (values.every((v) => v === null || v === undefined || typeof v === 'string')) {
        const literal = JSON.stringify(values.map((v) => (v === undefined ? null : v)));
        // An escape other than \" and \\ (an odd run of backslashes before another character) reads differently there.
        if (!/(?<!\\)(?:\\\\)*\\[^"\\]/.test(literal)) return arrayLiteral(literal);
      }
      return values.map((v) => (typeof v === 'string' ? storableText(v) : v));
    }
    default:
      return values;
  }
}

/** A JSON array of strings and nulls as a PostgreSQL array literal: the same quoting, other brackets. */
function arrayLiteral(json: string): string {
  return `{${json.slice(1, -1)}}`;
}

/** A bytea value as standard padded base64, the only form PostgreSQL's decode() reads. */
function base64Of(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  // Upstream's base64 is read by Buffer leniently (URL-safe, unpadded, spaces); re-encoding makes it standard.
  if (typeof value === 'string') return bytesOfBase64(value).toString('base64');
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  throw new TypeError(`a bytea value must be bytes or base64 text, not ${typeof value}`);
}

/** A value with every string, object keys included, made storable as PostgreSQL text. */
function storableText(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed().replaceAll('\0', '\uFFFD');
  if (Array.isArray(value)) return value.map(storableText);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[storableText(k) as string] = storableText(v);
    return out;
  }
  return value;
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
 * A column's values as a PostgreSQL array literal, built here for numbers and bytea (pg quotes and
 * regex-escapes every element); anything else stays an array for pg. Migration 013 binds its item
 * bytes this way.
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

