/**
 * What an alert subscription watches (issue 47), validated once when it is created. Pure: the
 * caller resolves aliases and checks that a tag or product exists; this checks shapes and bounds.
 */
import { compileFilters, FilterError, MAX_FILTERS } from '../filters.ts';
import { isValidTag } from '../tags.ts';

export const ALERT_KINDS = ['listing', 'lowest_bin', 'bazaar_price', 'bazaar_median', 'player_auctions', 'underpriced'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export type Direction = 'below' | 'above';
export type BazaarSide = 'buy' | 'sell';

/** A new listing of `tag` passing `filters` (the established filter names), at most `maxPrice` when set. */
export interface ListingSpec {
  kind: 'listing';
  tag: string;
  filters: Record<string, string>;
  maxPrice?: number;
  /** only BIN listings (default true: an auction's starting bid is not its price) */
  binOnly: boolean;
}

/** A tag's lowest BIN (optionally one variant, e.g. a pet rarity) crossing `threshold` in `direction`. */
export interface LowestBinSpec {
  kind: 'lowest_bin';
  tag: string;
  variant?: string;
  direction: Direction;
  threshold: number;
}

/** A bazaar product's instant-buy (`buy`) or instant-sell (`sell`) price crossing `threshold`. */
export interface BazaarPriceSpec {
  kind: 'bazaar_price';
  product: string;
  side: BazaarSide;
  direction: Direction;
  threshold: number;
}

/** A bazaar product's price moving `percent` % above or below its median (docs/alerts.md says which median). */
export interface BazaarMedianSpec {
  kind: 'bazaar_median';
  product: string;
  side: BazaarSide;
  direction: Direction;
  percent: number;
}

/** Every new listing of a player (seller uuid, 32 hex). */
export interface PlayerAuctionsSpec {
  kind: 'player_auctions';
  player: string;
}

/** A new BIN listing of `tag` priced at least `percent` % below its value (the valuation service's estimate). */
export interface UnderpricedSpec {
  kind: 'underpriced';
  tag: string;
  filters: Record<string, string>;
  percent: number;
}

export type AlertSpec = ListingSpec | LowestBinSpec | BazaarPriceSpec | BazaarMedianSpec | PlayerAuctionsSpec | UnderpricedSpec;

/** An alert subscription as the evaluator holds it. */
export interface AlertSubscription {
  id: number;
  accountId: number;
  spec: AlertSpec;
  /** at most one alert per this many ms (the subscription's own rate limit) */
  minIntervalMs: number;
}

/** A spec the service refuses; `slug` is the problem body's. */
export class AlertSpecError extends Error {
  constructor(
    readonly slug: 'invalid_alert' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/** Bound on a stored spec (its JSON): filters included, a few KB at most. */
export const MAX_SPEC_BYTES = 4096;
export const MAX_PRICE = 1e13;
export const MIN_INTERVAL_MS = 10_000;
export const MAX_INTERVAL_MS = 7 * 24 * 3_600_000;
const UUID_HEX = /^[0-9a-f]{32}$/;
const VARIANT = /^[A-Z0-9_:]{1,40}$/;

function fail(message: string): never {
  throw new AlertSpecError('invalid_alert', message);
}

function record(raw: unknown, what: string): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(`${what} has to be an object.`);
  return raw as Record<string, unknown>;
}

function tagOf(raw: unknown, field: string): string {
  if (typeof raw !== 'string' || !isValidTag(raw.toUpperCase())) fail(`\`${field}\` has to be an item tag (A-Z, 0-9, _ : ; -).`);
  return raw.toUpperCase();
}

function price(raw: unknown, field: string): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw <= 0 || raw > MAX_PRICE) fail(`\`${field}\` has to be a number above 0 and at most ${MAX_PRICE}.`);
  return raw;
}

function percent(raw: unknown, field: string): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw) || raw <= 0 || raw > 1000) fail(`\`${field}\` has to be a percentage above 0 and at most 1000.`);
  return raw;
}

function oneOf<T extends string>(raw: unknown, field: string, values: readonly T[]): T {
  if (typeof raw !== 'string' || !(values as readonly string[]).includes(raw)) fail(`\`${field}\` has to be one of ${values.join(', ')}.`);
  return raw as T;
}

/** Established filters: at most MAX_FILTERS, each compiled once here so a bad one is refused now (FilterError). */
function filters(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  const r = record(raw, '`filters`');
  const out: Record<string, string> = {};
  const entries = Object.entries(r);
  if (entries.length > MAX_FILTERS) throw new FilterError(entries[MAX_FILTERS]![0], 'too_many_filters', `At most ${MAX_FILTERS} filters are allowed per alert`);
  for (const [k, v] of entries) {
    if (typeof v !== 'string') fail(`Filter \`${k}\` has to be a string.`);
    out[k] = v;
  }
  compileFilters(out);
  return out;
}

/**
 * Validates an alert spec from the wire (JSON). Throws AlertSpecError (or FilterError for a bad
 * filter): never stores a spec the evaluator could not run.
 */
export function parseAlertSpec(raw: unknown): AlertSpec {
  const size = JSON.stringify(raw ?? null).length;
  if (size > MAX_SPEC_BYTES) throw new AlertSpecError('too_large', `An alert spec is at most ${MAX_SPEC_BYTES} bytes of JSON (this one: ${size}).`);
  const r = record(raw, 'The alert spec');
  const kind = oneOf(r['kind'], 'kind', ALERT_KINDS);
  switch (kind) {
    case 'listing': {
      const spec: ListingSpec = { kind, tag: tagOf(r['tag'], 'tag'), filters: filters(r['filters']), binOnly: r['binOnly'] !== false };
      if (r['maxPrice'] !== undefined && r['maxPrice'] !== null) spec.maxPrice = price(r['maxPrice'], 'maxPrice');
      return spec;
    }
    case 'lowest_bin': {
      const spec: LowestBinSpec = { kind, tag: tagOf(r['tag'], 'tag'), direction: oneOf(r['direction'], 'direction', ['below', 'above'] as const), threshold: price(r['threshold'], 'threshold') };
      if (r['variant'] !== undefined && r['variant'] !== null) {
        if (typeof r['variant'] !== 'string' || !VARIANT.test(r['variant'])) fail('`variant` has to be a lowest-BIN variant such as LEGENDARY, LEGENDARY:LVL100 or L3.');
        spec.variant = r['variant'];
      }
      return spec;
    }
    case 'bazaar_price':
      return {
        kind,
        product: tagOf(r['product'], 'product'),
        side: oneOf(r['side'], 'side', ['buy', 'sell'] as const),
        direction: oneOf(r['direction'], 'direction', ['below', 'above'] as const),
        threshold: price(r['threshold'], 'threshold'),
      };
    case 'bazaar_median':
      return {
        kind,
        product: tagOf(r['product'], 'product'),
        side: oneOf(r['side'], 'side', ['buy', 'sell'] as const),
        direction: oneOf(r['direction'], 'direction', ['below', 'above'] as const),
        percent: percent(r['percent'], 'percent'),
      };
    case 'player_auctions': {
      const player = typeof r['player'] === 'string' ? r['player'].replace(/-/g, '').toLowerCase() : '';
      if (!UUID_HEX.test(player)) fail('`player` has to be a player uuid (32 hex digits, dashes allowed).');
      return { kind, player };
    }
    case 'underpriced':
      return { kind, tag: tagOf(r['tag'], 'tag'), filters: filters(r['filters']), percent: percent(r['percent'], 'percent') };
  }
}

/** The subscription's minimum interval from the wire (seconds), bounded. */
export function parseIntervalMs(rawSeconds: unknown): number {
  if (rawSeconds === undefined || rawSeconds === null) return 60_000;
  if (typeof rawSeconds !== 'number' || !Number.isInteger(rawSeconds)) fail('`minIntervalSeconds` has to be a whole number of seconds.');
  const ms = rawSeconds * 1000;
  if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) fail(`\`minIntervalSeconds\` has to be between ${MIN_INTERVAL_MS / 1000} and ${MAX_INTERVAL_MS / 1000}.`);
  return ms;
}
