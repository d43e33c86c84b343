/**
 * Underpriced listings (issue 43): a new BIN listing priced at least a share below its value
 * after the auction fees a reseller pays, with enough comparable sales behind the value, is kept
 * in a list ranked by expected profit until it sells or ends (docs/flips.md). Pure: the service
 * (services/underpriced.ts) values the listings and feeds this module the live feed's events.
 */

/** The rule: configured by UNDERPRICED_MIN_SHARE and UNDERPRICED_MIN_COMPARABLES. */
export interface UnderpricedRule {
  /** least share below the value after fees (0.1: at least 10 % below) */
  minShare: number;
  /** least comparable sales behind the value */
  minComparables: number;
}

/** A listing against its value, as the rule reads it. */
export interface ValuedListing {
  uuid: string;
  tag: string;
  itemName: string;
  count: number;
  /** the whole listing's price */
  price: number;
  /** the whole stack's value, null when there is none */
  value: number | null;
  /** 0–1 */
  confidence: number;
  /** auction fee rate on reselling at the value */
  feeRate: number;
  /** comparable sales behind the value */
  comparables: number;
  /** the comparables' key (the established `medianKey`) */
  medianKey: string;
  /** when the listing was seen (ms) */
  at: number;
}

/** A listing the rule kept: its value after fees and the profit of buying it and reselling at the value. */
export interface UnderpricedListing extends ValuedListing {
  value: number;
  valueAfterFees: number;
  /** valueAfterFees − price */
  profit: number;
  /** (valueAfterFees − price) / valueAfterFees */
  shareBelow: number;
}

/** The listing as an underpriced one, or undefined when the rule does not keep it. */
export function underpricedVerdict(l: ValuedListing, rule: UnderpricedRule): UnderpricedListing | undefined {
  if (l.value === null || !(l.value > 0) || !(l.price > 0)) return undefined;
  if (l.comparables < rule.minComparables) return undefined;
  const valueAfterFees = l.value * (1 - l.feeRate);
  if (!(valueAfterFees > 0)) return undefined;
  const shareBelow = (valueAfterFees - l.price) / valueAfterFees;
  if (shareBelow < rule.minShare) return undefined;
  return { ...l, value: l.value, valueAfterFees, profit: valueAfterFees - l.price, shareBelow };
}

/** Highest expected profit first; ties: the larger share below, then the older listing, then the uuid. */
export function byExpectedProfit(a: UnderpricedListing, b: UnderpricedListing): number {
  return b.profit - a.profit || b.shareBelow - a.shareBelow || a.at - b.at || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0);
}

/**
 * The listings kept, by uuid; the ranking is sorted lazily (once per change, not per request).
 * Bounded: past `capacity` the least profitable listing leaves.
 */
export class UnderpricedList {
  private readonly byUuid = new Map<string, UnderpricedListing>();
  private sorted: UnderpricedListing[] | null = [];

  constructor(private readonly capacity = 5_000) {}

  get size(): number {
    return this.byUuid.size;
  }

  add(l: UnderpricedListing): void {
    this.byUuid.set(l.uuid, l);
    this.sorted = null;
    if (this.byUuid.size > this.capacity) {
      const last = this.ranked().at(-1)!;
      this.byUuid.delete(last.uuid);
      this.sorted = null;
    }
  }

  /** A listing that sold or ended leaves; answers whether it was kept. */
  remove(uuid: string): boolean {
    if (!this.byUuid.delete(uuid)) return false;
    this.sorted = null;
    return true;
  }

  get(uuid: string): UnderpricedListing | undefined {
    return this.byUuid.get(uuid);
  }

  /** Every kept listing, highest expected profit first. */
  ranked(): readonly UnderpricedListing[] {
    this.sorted ??= [...this.byUuid.values()].sort(byExpectedProfit);
    return this.sorted;
  }
}
