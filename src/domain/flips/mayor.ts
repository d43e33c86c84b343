/**
 * Mayor diff flips: items whose price depends on who is mayor. Price history is split into
 * mayor terms; each term gets the median of its price samples.
 * - medianPrice: the median of the current term.
 * - expectedPrice: the median of the medians of past terms of the next mayor (the election
 *   leader). When the current mayor is also next, past terms of that mayor other than the
 *   current one are used (usedPricesAfterCurrentMayor); without any past term the item is skipped.
 * - averageMayorMedianDiff: the mean absolute difference between consecutive term medians.
 * Sorted by |expectedPrice − medianPrice| / medianPrice descending; items whose expected
 * change is below `minChange` (default 5 %), or within the sampling noise of the medians, are left out.
 */
import { median, round1, type ProductMarket } from './common.ts';

export interface MayorTerm {
  mayor: string;
  start: number;
  /** exclusive */
  end: number;
}

export interface PriceSample {
  ts: number;
  price: number;
}

export interface MayorDiffFlip {
  itemTag: string;
  itemName: string;
  averageMayorMedianDiff: number;
  /** units per day traded (bazaar: instant buys per day; auctions: sales per day in the current term) */
  volume: number;
  expectedPrice: number;
  medianPrice: number;
  nextMayor: string;
  usedPricesAfterCurrentMayor: boolean;
  usedPricesBeforeNextMayor: boolean;
  currentMayor: string;
}

export interface ElectionObservation {
  year: number;
  mayorName: string;
  /** last time this mayor was seen in office */
  lastSeen: number;
}

/**
 * Terms from observed elections: a term ends when its mayor was last seen in office (the next
 * one took over right after) and starts where the previous term ended; the oldest term starts
 * `yearMs` before its end; the newest (current) term runs to `now`.
 */
export function termsFromElections(records: readonly ElectionObservation[], now: number, yearMs = 124 * 3_600_000): MayorTerm[] {
  const sorted = [...records].sort((a, b) => a.year - b.year);
  const terms: MayorTerm[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const r = sorted[i]!;
    const end = i === sorted.length - 1 ? now + 1 : r.lastSeen;
    const start = i === 0 ? Math.min(end, r.lastSeen) - yearMs : terms[i - 1]!.end;
    terms.push({ mayor: r.mayorName, start, end });
  }
  return terms;
}

export interface TermMedian {
  term: MayorTerm;
  index: number;
  median: number;
  /** standard error of that median: 1.2533 × σ / √n, σ estimated robustly as 1.4826 × MAD */
  stdError: number;
}

/** Per-term medians of one item's samples (terms with fewer than `minSamples` samples are left out). */
export function termMedians(terms: readonly MayorTerm[], samples: readonly PriceSample[], minSamples = 1): TermMedian[] {
  const out: TermMedian[] = [];
  terms.forEach((term, index) => {
    const prices = samples.filter((s) => s.ts >= term.start && s.ts < term.end).map((s) => s.price);
    const m = prices.length >= Math.max(1, minSamples) ? median(prices) : null;
    if (m === null) return;
    const mad = median(prices.map((p) => Math.abs(p - m))) ?? 0;
    out.push({ term, index, median: m, stdError: (1.2533 * 1.4826 * mad) / Math.sqrt(prices.length) });
  });
  return out;
}

export interface MayorItemInput {
  tag: string;
  name: string;
  samples: readonly PriceSample[];
  volume: number;
  /**
   * samples a term needs before its median counts (default 1: hourly bazaar means). Auction sales
   * of one tag mix variants (pet levels, enchantments), so a term median from one or two sales is noise.
   */
  minSamples?: number;
}

/**
 * `minChange`: smallest relative change listed. `minZ`: the change must also stand out from the
 * sampling noise of the medians it compares: |expected − median| ≥ minZ × √(se_current² + se_expected²),
 * se_expected = √(Σ se²) / k over the k past terms (sparse, noisy sales do not make flips).
 */
export function mayorFlip(item: MayorItemInput, terms: readonly MayorTerm[], nextMayor: string | null, minChange = 0.05, minZ = 2): MayorDiffFlip | null {
  if (terms.length < 2) return null;
  const current = terms[terms.length - 1]!;
  const next = nextMayor ?? current.mayor;
  const medians = termMedians(terms, item.samples, item.minSamples);
  const cur = medians.find((m) => m.index === terms.length - 1);
  if (!cur || !(cur.median > 0)) return null;
  const pastOfNext = medians.filter((m) => m.index !== terms.length - 1 && m.term.mayor === next);
  const expected = median(pastOfNext.map((m) => m.median));
  if (expected === null) return null;
  const change = Math.abs(expected - cur.median);
  if (change / cur.median < minChange) return null;
  const seExpected = Math.sqrt(pastOfNext.reduce((a, m) => a + m.stdError * m.stdError, 0)) / pastOfNext.length;
  if (change < minZ * Math.sqrt(cur.stdError * cur.stdError + seExpected * seExpected)) return null;
  let diffSum = 0;
  for (let i = 1; i < medians.length; i++) diffSum += Math.abs(medians[i]!.median - medians[i - 1]!.median);
  return {
    itemTag: item.tag,
    itemName: item.name,
    averageMayorMedianDiff: round1(medians.length > 1 ? diffSum / (medians.length - 1) : 0),
    volume: round1(item.volume),
    expectedPrice: round1(expected),
    medianPrice: round1(cur.median),
    nextMayor: next,
    usedPricesAfterCurrentMayor: next === current.mayor,
    usedPricesBeforeNextMayor: next !== current.mayor,
    currentMayor: current.mayor,
  };
}

export function mayorFlips(items: Iterable<MayorItemInput>, terms: readonly MayorTerm[], nextMayor: string | null, minChange = 0.05, minZ = 2): MayorDiffFlip[] {
  const out: MayorDiffFlip[] = [];
  for (const item of items) {
    const f = mayorFlip(item, terms, nextMayor, minChange, minZ);
    if (f) out.push(f);
  }
  const change = (f: MayorDiffFlip) => Math.abs(f.expectedPrice - f.medianPrice) / f.medianPrice;
  return out.sort((a, b) => change(b) - change(a));
}

/** Bazaar volume for mayor flips: instant buys per day. */
export function bazaarDailyVolume(p: ProductMarket): number {
  return Math.max(0, p.buyMovingWeek) / 7;
}
