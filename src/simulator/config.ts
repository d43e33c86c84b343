/**
 * Simulator settings: a typed options object and its reading from environment variables.
 * Invalid values throw one-line Errors that name the variable.
 */
import { parseFaultSpec } from './faults.ts';
import type { FaultOptions } from './faults.ts';

/** Everything `startSimulator` needs. */
export interface SimulatorOptions {
  /** PRNG seed: same seed (and start time) ⇒ same data */
  seed: number;
  /** target number of active auctions */
  auctions: number;
  /** optional cap on bazaar products */
  products?: number;
  /** seconds between auction generations */
  generationSeconds: number;
  /** seconds between bazaar snapshots */
  bazaarSeconds: number;
  /** how much history a consumer should backfill at start, ms (0 = none) */
  backfillMs: number;
  /**
   * sold auctions per day in the backfilled history (auctions_ended); absent: 2 % of the book per
   * minute (`auctions` × 28.8 a day). Hypixel sells on the order of 500,000 a day.
   */
  salesPerDay?: number;
  /** fault injection settings */
  faults: Partial<FaultOptions>;
  /** listen address */
  host: string;
  /** listen port (0 = any free port) */
  port: number;
  /** SkyBlock year length in ms (mayor changes once per year); default 124 h */
  yearMs?: number;
}

/** SkyBlock year length in the demo unless SIM_YEAR_HOURS is set: 2 h, so the one-day backfill holds ~12 mayor terms. */
export const DEMO_YEAR_MS = 2 * 3_600_000;

export const DEFAULT_SIMULATOR_OPTIONS: Readonly<SimulatorOptions> = Object.freeze({
  seed: 1,
  auctions: 2000,
  generationSeconds: 60,
  bazaarSeconds: 20,
  backfillMs: 24 * 3_600_000,
  faults: {},
  host: '127.0.0.1',
  port: 0,
});

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses a duration such as `7d`, `12h`, `30m`, `90s`, `500ms` or `0` into ms. */
export function parseDuration(value: string, name = 'duration'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?\s*$/.exec(value);
  if (!m) throw new Error(`${name} must be a duration like 7d, 12h, 30m or 0, got "${value}"`);
  const n = Number(m[1]);
  const unit = m[2];
  if (unit === undefined && n !== 0) throw new Error(`${name} needs a unit (ms, s, m, h, d, w), got "${value}"`);
  return Math.round(n * (unit ? (UNITS[unit] ?? 1) : 1));
}

function intVar(env: Readonly<Record<string, string | undefined>>, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  return n;
}

function numVar(env: Readonly<Record<string, string | undefined>>, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return def;
  const n = Number(raw.trim());
  if (!Number.isFinite(n) || n < min || n > max) throw new Error(`${name} must be a number between ${min} and ${max}, got "${raw}"`);
  return n;
}

/**
 * Reads SIM_SEED (1), SIM_AUCTIONS (2000), SIM_PRODUCTS (all), SIM_GENERATION_SECONDS (60),
 * SIM_BAZAAR_SECONDS (20), SIM_BACKFILL (1d), SIM_SALES_PER_DAY (auctions × 28.8), SIM_FAULTS (none), SIM_HOST (127.0.0.1),
 * SIM_PORT (0) and SIM_YEAR_HOURS (124).
 */
export function simulatorOptionsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): SimulatorOptions {
  const d = DEFAULT_SIMULATOR_OPTIONS;
  const opts: SimulatorOptions = {
    seed: intVar(env, 'SIM_SEED', d.seed, 0, 0xffffffff),
    auctions: intVar(env, 'SIM_AUCTIONS', d.auctions, 0, 200_000),
    generationSeconds: numVar(env, 'SIM_GENERATION_SECONDS', d.generationSeconds, 1, 3600),
    bazaarSeconds: numVar(env, 'SIM_BAZAAR_SECONDS', d.bazaarSeconds, 1, 3600),
    backfillMs: d.backfillMs,
    faults: {},
    host: d.host,
    port: intVar(env, 'SIM_PORT', d.port, 0, 65535),
  };
  if (env.SIM_PRODUCTS !== undefined && env.SIM_PRODUCTS.trim() !== '') opts.products = intVar(env, 'SIM_PRODUCTS', 0, 1, 100_000);
  if (env.SIM_BACKFILL !== undefined && env.SIM_BACKFILL.trim() !== '') {
    opts.backfillMs = parseDuration(env.SIM_BACKFILL, 'SIM_BACKFILL');
    if (opts.backfillMs > 90 * 86_400_000) throw new Error(`SIM_BACKFILL must be at most 90d, got "${env.SIM_BACKFILL}"`);
  }
  if (env.SIM_SALES_PER_DAY !== undefined && env.SIM_SALES_PER_DAY.trim() !== '') opts.salesPerDay = intVar(env, 'SIM_SALES_PER_DAY', 0, 1, 5_000_000);
  if (env.SIM_FAULTS !== undefined) opts.faults = parseFaultSpec(env.SIM_FAULTS, 'SIM_FAULTS');
  if (env.SIM_HOST !== undefined && env.SIM_HOST.trim() !== '') {
    if (!/^[A-Za-z0-9.:\-[\]]+$/.test(env.SIM_HOST.trim())) throw new Error(`SIM_HOST must be a host name or address, got "${env.SIM_HOST}"`);
    opts.host = env.SIM_HOST.trim();
  }
  if (env.SIM_YEAR_HOURS !== undefined && env.SIM_YEAR_HOURS.trim() !== '') opts.yearMs = Math.round(numVar(env, 'SIM_YEAR_HOURS', 124, 0.01, 10_000) * 3_600_000);
  return opts;
}
