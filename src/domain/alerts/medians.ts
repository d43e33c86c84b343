/**
 * A bazaar product's median price over the last week, as the evaluator observes it: the last
 * price seen in each hour, at most 168 hours, the median of those (the upper middle). Too few
 * hours (under MIN_HOURS) is no median, so a fresh process does not alert on noise. Pure.
 */
import type { DraftEvent } from '../stream-events.ts';
import type { BazaarSide } from './spec.ts';
import type { MedianSource } from './index.ts';

const HOUR = 3_600_000;
export const MEDIAN_HOURS = 168;
export const MIN_HOURS = 3;

class Hours {
  readonly byHour = new Map<number, number>();
  record(hour: number, price: number): void {
    this.byHour.set(hour, price);
    if (this.byHour.size > MEDIAN_HOURS) {
      for (const h of this.byHour.keys()) if (h <= hour - MEDIAN_HOURS) this.byHour.delete(h);
    }
  }
  median(): number | undefined {
    if (this.byHour.size < MIN_HOURS) return undefined;
    const sorted = [...this.byHour.values()].sort((a, b) => a - b);
    return sorted[sorted.length >> 1];
  }
}

export class HourlyMedians implements MedianSource {
  private readonly sides = new Map<string, Hours>();

  /** Records the prices of a batch's bazaar events (before the batch is evaluated). */
  observe(events: readonly DraftEvent[]): void {
    for (const e of events) {
      if (e.topic !== 'bazaar.changed') continue;
      const hour = Math.floor(e.time / HOUR);
      if (e.buyPrice > 0) this.hours(e.product, 'buy').record(hour, e.buyPrice);
      if (e.sellPrice > 0) this.hours(e.product, 'sell').record(hour, e.sellPrice);
    }
  }

  /** Seeds an hour's price (a store-backed start: the 2-hour rollups, or a test). */
  seed(product: string, side: BazaarSide, atMs: number, price: number): void {
    this.hours(product, side).record(Math.floor(atMs / HOUR), price);
  }

  median(product: string, side: BazaarSide): number | undefined {
    return this.sides.get(`${side}:${product}`)?.median();
  }

  private hours(product: string, side: BazaarSide): Hours {
    const key = `${side}:${product}`;
    let h = this.sides.get(key);
    if (!h) this.sides.set(key, (h = new Hours()));
    return h;
  }
}
