/**
 * The lowest BIN per tag and price variant among listings seen in any order: the jobs record it
 * from the active listings each minute (jobs/price-rollups.ts), the demo's history replay from the
 * BIN listings its past sales were (ingest/history.ts).
 */
import { ALL_VARIANTS, priceVariantKey, type PriceVariantSource } from './prices.ts';

/** An active BIN listing without bids, as the lowest-BIN record reads it. */
export interface BinListing extends PriceVariantSource {
  uuid: string;
  startingBid: number;
  count: number;
  end: number;
}

/**
 * The lowest unit price per tag and variant ('' = the whole tag) of listings seen in any order. Of
 * two listings at the same unit price the one listed first cheapest-first (starting bid, then end,
 * then uuid) is kept, so the store and the view record the same uuid.
 */
export class LowestBins {
  private readonly best = new Map<string, { tag: string; variant: string; unit: number; l: BinListing }>();

  add(l: BinListing): void {
    const unit = l.startingBid / Math.max(1, l.count);
    if (!(unit > 0)) return;
    this.keep(l, ALL_VARIANTS, unit);
    const variant = priceVariantKey(l);
    if (variant !== ALL_VARIANTS) this.keep(l, variant, unit);
  }

  private keep(l: BinListing, variant: string, unit: number): void {
    const key = `${l.tag}\u0000${variant}`;
    const e = this.best.get(key);
    if (!e) this.best.set(key, { tag: l.tag, variant, unit, l });
    else if (unit < e.unit || (unit === e.unit && listedBefore(l, e.l))) {
      e.unit = unit;
      e.l = l;
    }
  }

  cells(): Array<{ tag: string; variant: string; lowest: number; uuid: string }> {
    return [...this.best.values()].map((e) => ({ tag: e.tag, variant: e.variant, lowest: e.unit, uuid: e.l.uuid }));
  }
}

function listedBefore(a: BinListing, b: BinListing): boolean {
  return a.startingBid - b.startingBid < 0 || (a.startingBid === b.startingBid && (a.end < b.end || (a.end === b.end && a.uuid < b.uuid)));
}

