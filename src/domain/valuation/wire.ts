/**
 * Valuations in their wire shapes: skymarket's own (`ItemValue`, with both estimates and the
 * breakdown) and the established service's `PriceEstimate` (POST /api/price/nbt) and
 * `PricingBreakdwon` (POST /api/mod/pricing/breakdown). Pure.
 */
import type { ItemValuation } from './estimate.ts';
import type { Part } from './parts.ts';

/** What the shapes read of a valued item (services/valuation.ts ValuedItem). */
export interface ValuedFacts {
  index: number;
  known: boolean;
  valuation: ItemValuation;
  volume24h: number;
  windowMs: number;
}

const round = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : Math.round(x));

export interface PartWire {
  kind: string;
  id: string;
  unitPrice: number | null;
  source: string;
  count: number;
  factor: number;
  value: number;
}

export interface ItemValueWire {
  index: number;
  tag: string;
  count: number;
  known: boolean;
  /** per item */
  value: number | null;
  /** value × count */
  stackValue: number | null;
  confidence: number;
  method: string;
  comparablesWeight: number;
  comparables: {
    median: number | null;
    p25: number | null;
    p75: number | null;
    count: number;
    matchedOn: string[];
    widenedBy: string[];
    widened: boolean;
    decidedFromSales: boolean;
    cheapestBin: { uuid: string; price: number } | null;
    fastSell: number | null;
    itemKey: string;
    medianKey: string;
    lbinKey: string;
    windowDays: number;
    volume24h: number;
  };
  parts: { value: number | null; unpriced: number; breakdown: PartWire[] };
}

function partWire(p: Part): PartWire {
  return { kind: p.kind, id: p.id, unitPrice: round(p.unitPrice), source: p.source, count: p.count, factor: p.factor, value: Number.isFinite(p.value) ? Math.round(p.value) : 0 };
}

export function itemValueWire(v: ValuedFacts): ItemValueWire {
  const { valuation: val } = v;
  const c = val.comparables;
  const value = round(val.combined.value);
  return {
    index: v.index,
    tag: val.tag,
    count: val.count,
    known: v.known,
    value,
    stackValue: value === null ? null : round(value * val.count),
    confidence: val.combined.confidence,
    method: val.combined.method,
    comparablesWeight: val.combined.comparablesWeight,
    comparables: {
      median: round(c.median),
      p25: round(c.p25),
      p75: round(c.p75),
      count: c.count,
      matchedOn: c.matchedOn,
      widenedBy: c.widenedBy,
      widened: c.widenedBy.length > 0,
      decidedFromSales: c.decidedFromSales,
      cheapestBin: c.cheapestBin === null ? null : { uuid: c.cheapestBin.uuid, price: Math.round(c.cheapestBin.price) },
      fastSell: c.fastSell,
      itemKey: c.itemKey,
      medianKey: c.medianKey,
      lbinKey: c.lbinKey,
      windowDays: v.windowMs / 86_400_000,
      volume24h: v.volume24h,
    },
    parts: { value: round(val.parts.value), unpriced: val.parts.unpriced, breakdown: val.parts.parts.map(partWire) },
  };
}

/** The established `PriceEstimate`. */
export interface PriceEstimateWire {
  lbin: number;
  median: number;
  volume: number;
  lbinLink: string | null;
  fastSell: number;
  lbinKey: string | null;
  medianKey: string | null;
  itemKey: string | null;
}

/** An empty slot's estimate: zeros, no keys. */
export const EMPTY_ESTIMATE: PriceEstimateWire = { lbin: 0, median: 0, volume: 0, lbinLink: null, fastSell: 0, lbinKey: null, medianKey: null, itemKey: null };

/** `median` is the valuation's value (the comparables' median when no parts blend in). */
export function priceEstimateWire(v: ValuedFacts): PriceEstimateWire {
  const c = v.valuation.comparables;
  return {
    lbin: c.cheapestBin === null ? 0 : Math.round(c.cheapestBin.price),
    median: Math.round(v.valuation.combined.value ?? 0),
    volume: v.volume24h,
    lbinLink: c.cheapestBin === null ? null : `/api/auction/${c.cheapestBin.uuid}`,
    fastSell: c.fastSell ?? Math.round((v.valuation.combined.value ?? 0) * 0.9),
    lbinKey: c.lbinKey,
    medianKey: c.medianKey,
    itemKey: c.itemKey,
  };
}

/** The established `CraftPrice` (one part of a `PricingBreakdwon`). */
export interface CraftPriceWire {
  price: number;
  itemTag: string | null;
  attribute: string | null;
  formattedReson: string | null;
  count: number;
}

const pct = (f: number): string => `${Math.round(f * 100)} %`;

/** The established `PricingBreakdwon`: one CraftPrice per part (the base first). */
export function pricingBreakdownWire(v: ValuedFacts): { craftPrice: CraftPriceWire[] | null } {
  return {
    craftPrice: v.valuation.parts.parts.map((p) => ({
      price: Math.round(p.value),
      itemTag: p.id,
      attribute: p.kind,
      formattedReson:
        p.unitPrice === null
          ? `${p.kind} ${p.id}: no price`
          : `${p.kind} ${p.id}: ${p.count} × ${Math.round(p.unitPrice)} coins (${p.source}) × ${pct(p.factor)}`,
      count: p.count,
    })),
  };
}
