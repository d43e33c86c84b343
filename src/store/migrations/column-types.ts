import type { Kysely } from 'kysely';
import type { Dialect } from '../db.ts';

/** int8 on PostgreSQL, integer (64-bit) on SQLite. */
export function bigintType(dialect: Dialect): 'bigint' | 'integer' {
  return dialect === 'postgres' ? 'bigint' : 'integer';
}

/** double precision on PostgreSQL, real (64-bit float) on SQLite. */
export function doubleType(dialect: Dialect): 'double precision' | 'real' {
  return dialect === 'postgres' ? 'double precision' : 'real';
}

/** Migrations are written against an untyped database: the typed schema is what they produce. */
export type AnyDb = Kysely<any>;
