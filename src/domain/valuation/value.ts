/**
 * One value with a confidence from the two estimates (docs/valuation.md, "Combining"). Pure.
 *
 * Comparable sales are what such items sold for: trusted by how many there are, how far the
 * match had to widen and how tight they are. The parts estimate prices what the item is made
 * of: always available where the parts have prices, but the resale factors are a convention,
 * not a measurement. So the comparables' median carries weight `w` and the parts the rest:
 *
 *   w = min(1, count / 8) × 0.75^(dimensions dropped) × (IQR/median > 0.5 ? 0.7 : 1)
 *   value = w × median + (1 − w) × parts          (one alone when the other is missing)
 *
 * The confidence is w for a blended value, scaled by how well the two agree, and
 * 0.3 × (share of parts priced) for a value from parts alone.
 *
 * Ceiling: a value above the cheapest active BIN that matches the item as the median did and is
 * not the item's own listing (`cheapestOtherBin`) is lowered towards it by (1 − w):
 *
 *   value' = w × value + (1 − w) × min(value, cheapest other BIN)
 *
 * A buyer can take that equivalent item instead. Full comparables (w = 1) already say what the
 * market pays and are left alone; where they are few, widened or absent, the estimate leans on
 * the parts' resale convention, which overshoots, and the listing is the better evidence.
 */
import type { ComparablesEstimate } from './comparables.ts';
import type { PartsEstimate } from './parts.ts';

export interface CombinedValue {
  /** coins for the item (per item), null when neither estimate has one */
  value: number | null;
  /** 0–1 */
  confidence: number;
  /** which estimates the value came from */
  method: 'comparables' | 'parts' | 'blend' | 'none';
  /** weight of the comparables in the blend */
  comparablesWeight: number;
  /** the estimate was above the cheapest other matching BIN and was lowered to it */
  cappedAtBin: boolean;
}

export function comparablesWeight(c: ComparablesEstimate): number {
  if (c.median === null || c.count === 0) return 0;
  let w = Math.min(1, c.count / 8) * 0.75 ** c.widenedBy.length;
  if (c.p25 !== null && c.p75 !== null && c.median > 0 && (c.p75 - c.p25) / c.median > 0.5) w *= 0.7;
  return w;
}

/** `partsPerItem`: the parts estimate divided by the stack's count. */
export function combine(c: ComparablesEstimate, p: PartsEstimate, count: number): CombinedValue {
  const v = uncapped(c, p, count);
  const ceiling = c.cheapestOtherBin;
  if (v.value === null || ceiling === null || !(ceiling > 0) || v.value <= ceiling) return v;
  // Lowered to the ceiling by as much as the comparables leave untrusted (1 − w).
  const w = comparablesWeight(c);
  if (w >= 1) return v;
  return { ...v, value: w * v.value + (1 - w) * ceiling, cappedAtBin: true };
}

function uncapped(c: ComparablesEstimate, p: PartsEstimate, count: number): CombinedValue {
  const parts = p.value === null ? null : p.value / Math.max(1, count);
  const w = comparablesWeight(c);
  const pricedShare = p.parts.length === 0 ? 0 : 1 - p.unpriced / p.parts.length;
  if (c.median === null && parts === null) return { value: null, confidence: 0, method: 'none', comparablesWeight: 0, cappedAtBin: false };
  if (c.median === null) return { value: parts, confidence: round2(0.3 * pricedShare), method: 'parts', comparablesWeight: 0, cappedAtBin: false };
  if (parts === null || parts <= 0) return { value: c.median, confidence: round2(w), method: 'comparables', comparablesWeight: 1, cappedAtBin: false };
  const value = w * c.median + (1 - w) * parts;
  // Agreement: 1 when both say the same, falling to 0.5 when one is twice the other.
  const agreement = Math.max(0.5, 1 - Math.abs(Math.log2(c.median / parts)) / 2);
  return { value, confidence: round2(Math.max(w, 0.3 * pricedShare) * agreement), method: 'blend', comparablesWeight: round2(w), cappedAtBin: false };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;
