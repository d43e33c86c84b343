/**
 * What one exact item is worth: both estimates, the value and its confidence, from the item's
 * traits, the recent sales and active BINs of its tag, and the prices of its parts. Pure: the
 * service (services/valuation.ts) gathers the inputs, the backtest (bench/valuation.ts) feeds
 * history.
 */
import { comparablesEstimate, keysOf, type ComparableListing, type ComparableSale, type ComparablesEstimate, type ItemKeys, type PreparedComparables } from './comparables.ts';
import { partsEstimate, type PartsContext, type PartsEstimate } from './parts.ts';
import { traitsOf, type ItemTraits, type ValuationSubject } from './traits.ts';
import { combine, type CombinedValue } from './value.ts';

export interface TagMarket {
  /** the tag's recent sales, newest first */
  sales: readonly ComparableSale[];
  /** the tag's active BINs */
  bins: readonly ComparableListing[];
  /** the dimensions matched for the tag (comparables.ts decideDimensions) */
  dims: { dims: readonly number[]; fromSales: boolean };
  /** the sales and dimensions indexed for many valuations (same estimate, faster) */
  prepared?: PreparedComparables;
}

export interface ItemValuation {
  tag: string;
  count: number;
  traits: ItemTraits;
  comparables: ComparablesEstimate;
  parts: PartsEstimate;
  /** per item */
  combined: CombinedValue;
}

export interface EstimateOptions {
  now: number;
  windowMs: number;
  /** the uuid of the listing being valued, when it is one (comparables.ts `self`) */
  self?: string;
}

/**
 * `known`: the subject's traits and keys when the caller holds them already (an active listing's,
 * computed once per listing: market/valuation.ts keysOfListing); else they are read here.
 */
export function estimateItem(
  subject: ValuationSubject,
  market: TagMarket,
  parts: PartsContext,
  opts: EstimateOptions,
  category?: string | null,
  known?: { traits: ItemTraits; keys: ItemKeys },
): ItemValuation {
  const traits = known?.traits ?? traitsOf(subject, category);
  const comparables = comparablesEstimate(subject.tag, known?.keys ?? keysOf(traits), market.sales, market.bins, { now: opts.now, windowMs: opts.windowMs, dims: market.dims, ...(market.prepared ? { prepared: market.prepared } : {}), ...(opts.self !== undefined ? { self: opts.self } : {}) });
  const p = partsEstimate(traits, parts);
  return { tag: subject.tag, count: subject.count, traits, comparables, parts: p, combined: combine(comparables, p, subject.count) };
}
