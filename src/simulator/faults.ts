/**
 * Fault injection for the simulator's HTTP server, so ingestion can be tested against
 * the failure modes upstream really shows: 5xx, slow responses, truncated JSON, corrupt
 * item NBT, pages of mixed generations, 404s while a generation swaps, 503 before the
 * first population. Settings can change at run time (`set`). Decisions come from a
 * seeded stream, one fixed set of draws per request, so a sequence of requests sees the
 * same faults on every run.
 */
import { Rng, hashUnit } from './rng.ts';

/** Fault probabilities (0..1) and parameters. */
export interface FaultOptions {
  /** probability of a 5xx response */
  error: number;
  /** probability of a delayed response */
  slow: number;
  /** delay of a slow response, ms */
  slowMs: number;
  /** probability that a body is cut short (invalid JSON) */
  truncate: number;
  /** share of auctions whose item_bytes are corrupt (stable per auction uuid) */
  corruptNbt: number;
  /** probability that an auctions page comes from the previous generation (old lastUpdated) */
  mixed: number;
  /** probability of a 404 for an auctions page requested within `swapWindowMs` after a generation swap */
  swap404: number;
  /** how long after a generation swap `swap404` applies, ms */
  swapWindowMs: number;
  /** answer 503 (not yet populated) to every request */
  notReady: boolean;
}

/** No faults at all. */
export const NO_FAULTS: Readonly<FaultOptions> = Object.freeze({
  error: 0,
  slow: 0,
  slowMs: 2000,
  truncate: 0,
  corruptNbt: 0,
  mixed: 0,
  swap404: 0,
  swapWindowMs: 2000,
  notReady: false,
});

/** What happens to one request. */
export interface FaultDecision {
  /** 5xx status to answer with instead of the real response */
  errorStatus: number | null;
  delayMs: number;
  /** cut the body at this fraction of its length (0..1), or null */
  truncateAt: number | null;
  /** serve this auctions page from the previous generation */
  mixed: boolean;
  /** answer this auctions page with 404 (generation swap in progress) */
  swap404: boolean;
}

const PROBABILITY_KEYS = ['error', 'slow', 'truncate', 'corruptNbt', 'mixed', 'swap404'] as const;
const NUMBER_KEYS = ['slowMs', 'swapWindowMs'] as const;

/**
 * Parses `error=0.05,slow=0.1,slowMs=3000,truncate=0.02,corruptNbt=0.01,mixed=0.05,swap404=0.5,notReady=true`.
 * Throws an Error naming the bad entry. An empty string means no faults.
 */
export function parseFaultSpec(spec: string, name = 'SIM_FAULTS'): Partial<FaultOptions> {
  const out: Partial<FaultOptions> = {};
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    const eq = part.indexOf('=');
    const key = (eq < 0 ? part : part.slice(0, eq)).trim();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    if ((PROBABILITY_KEYS as readonly string[]).includes(key)) {
      const n = Number(value);
      if (value === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new Error(`${name}: "${key}" must be a probability between 0 and 1, got "${value}"`);
      out[key as (typeof PROBABILITY_KEYS)[number]] = n;
    } else if ((NUMBER_KEYS as readonly string[]).includes(key)) {
      const n = Number(value);
      if (value === '' || !Number.isInteger(n) || n < 0 || n > 600_000) throw new Error(`${name}: "${key}" must be an integer of milliseconds (0-600000), got "${value}"`);
      out[key as (typeof NUMBER_KEYS)[number]] = n;
    } else if (key === 'notReady') {
      if (value !== '' && value !== 'true' && value !== 'false' && value !== '1' && value !== '0') throw new Error(`${name}: "notReady" must be true or false, got "${value}"`);
      out.notReady = value === '' || value === 'true' || value === '1';
    } else {
      throw new Error(`${name}: unknown fault "${key}" (known: ${[...PROBABILITY_KEYS, ...NUMBER_KEYS, 'notReady'].join(', ')})`);
    }
  }
  return out;
}

const ERROR_STATUSES = [500, 502, 503, 504] as const;

/** Run-time fault settings plus the seeded decision stream. */
export class Faults {
  private current: FaultOptions;
  private rng: Rng;

  constructor(
    private readonly seed: number,
    options: Partial<FaultOptions> = {},
  ) {
    this.current = { ...NO_FAULTS, ...options };
    this.rng = new Rng(seed, 'faults');
  }

  /** The settings in force. */
  get options(): Readonly<FaultOptions> {
    return this.current;
  }

  /** Changes some settings (tests flip faults on and off between requests). */
  set(options: Partial<FaultOptions>): void {
    this.current = { ...this.current, ...options };
  }

  /** Back to no faults and a fresh decision stream. */
  reset(): void {
    this.current = { ...NO_FAULTS };
    this.rng = new Rng(this.seed, 'faults');
  }

  /** Decides the faults of the next request. Always draws the same number of values. */
  decide(input: { isAuctionsPage: boolean; msSinceSwap: number }): FaultDecision {
    const o = this.current;
    const r = this.rng;
    const [rErr, rErrKind, rSlow, rTrunc, rTruncAt, rMixed, rSwap] = [r.next(), r.next(), r.next(), r.next(), r.next(), r.next(), r.next()];
    return {
      errorStatus: rErr < o.error ? ERROR_STATUSES[Math.floor(rErrKind * ERROR_STATUSES.length)]! : null,
      delayMs: rSlow < o.slow ? o.slowMs : 0,
      truncateAt: rTrunc < o.truncate ? 0.1 + rTruncAt * 0.8 : null,
      mixed: input.isAuctionsPage && rMixed < o.mixed,
      swap404: input.isAuctionsPage && input.msSinceSwap >= 0 && input.msSinceSwap < o.swapWindowMs && rSwap < o.swap404,
    };
  }

  /** Whether an auction's item_bytes are served corrupt: stable per uuid, so re-fetches agree. */
  isCorrupt(auctionUuid: string): boolean {
    const p = this.current.corruptNbt;
    return p > 0 && hashUnit(this.seed, 'corrupt', auctionUuid) < p;
  }
}

/**
 * A corrupt replacement for item_bytes, in one of three flavours (chosen by the uuid):
 * not base64/gzip at all, a truncated gzip stream, or gzip of broken NBT.
 */
export function corruptItemBytes(itemBytes: string, auctionUuid: string, gzip: (b: Buffer) => Buffer): string {
  const flavour = Math.floor(hashUnit('flavour', auctionUuid) * 3);
  if (flavour === 0) return `!!corrupt:${itemBytes.slice(0, 24)}`;
  const raw = Buffer.from(itemBytes, 'base64');
  if (flavour === 1) return raw.subarray(0, Math.max(4, Math.floor(raw.length / 2))).toString('base64');
  // A compound tag header followed by a list claiming far more entries than exist.
  return gzip(Buffer.from([0x0a, 0x00, 0x00, 0x09, 0x00, 0x01, 0x69, 0x0a, 0x7f, 0xff, 0xff, 0xff, 0x02])).toString('base64');
}
