/**
 * Shared shape of benchmark results: every bench module under bench/ exports
 * `run(options)` returning rows, and bench/run.ts prints them as one table.
 * Ratios compare two figures measured side by side in the same run, because
 * absolute numbers drift on shared machines.
 */
import pg from 'pg';

export interface BenchRow {
  /** what was measured, e.g. "GET /api/version (skymarket)" */
  name: string;
  /** the measured figure */
  figure: number;
  /** unit of the figure, e.g. "req/s", "items/s", "ms" */
  unit: string;
  /** figure / baseline figure, when the row has a side-by-side baseline */
  ratio?: number;
  /** name of the baseline the ratio is against */
  baseline?: string;
  /** extra context: p99, RSS, sizes */
  notes?: string;
}

export interface BenchOptions {
  /** shorter runs for smoke checks */
  quick: boolean;
}

export type BenchModule = { run(options: BenchOptions): Promise<BenchRow[]> };

/** The median of a run's figures (the upper one of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(2);
}

/** PostgreSQL for the benchmarks that measure it (the tests' server by default). */
export const POSTGRES_URL = process.env.DATABASE_URL_TEST ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Whether PostgreSQL answers; benchmarks skip their PostgreSQL rows (with a note) when it does not. */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops a benchmark's own PostgreSQL schema with everything in it. */
export async function dropBenchSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}
