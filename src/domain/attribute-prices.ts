/**
 * Attribute prices (`GET /api/price/attributes`): what one attribute at one level sells for, read
 * from the sales that carry it. Pure: the flip engine hands over the attribute variants it rolls
 * up (market/sales-rollups.ts: variants with their 7-day median and sale count).
 */
import type { VariantModifiers } from './flips/attribute.ts';

export interface AttributeVariantSales {
  tag: string;
  mods: Pick<VariantModifiers, 'attributes'>;
  /** median sale price of the variant over the window */
  median: number;
  count: number;
}

/**
 * `{attribute: {level: price}}`: per attribute and level, the lowest 7-day median of the variants
 * that carry that attribute alone at that level (a shard, or the cheapest item holding it), so
 * a second attribute's worth never counts for the first. Levels as strings, as JSON keys are.
 */
export function attributePrices(variants: readonly AttributeVariantSales[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const v of variants) {
    const entries = Object.entries(v.mods.attributes);
    if (entries.length !== 1 || !(v.median > 0) || v.count <= 0) continue;
    const [name, level] = entries[0]!;
    const levels = (out[name] ??= {});
    const key = String(level);
    if (levels[key] === undefined || v.median < levels[key]!) levels[key] = v.median;
  }
  return out;
}
