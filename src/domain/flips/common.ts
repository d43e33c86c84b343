/**
 * Shared pieces of the flip models (docs/flips.md): the market each model reads, fees,
 * order-book walking and small statistics. Pure: no I/O, the caller passes every input.
 *
 * Naming (as stored by ingestion): `buyPrice` = instant-buy price (the lowest sell offer),
 * `sellPrice` = instant-sell price (the highest buy order). `buyMovingWeek` = units bought
 * instantly over 7 days, `sellMovingWeek` = units sold instantly over 7 days.
 */
import type { BookLevel, OrderBook } from '../bazaar-book.ts';

/** Bazaar tax on what a sale brings in (free community upgrade assumed, as in-game default for most players). */
export const BAZAAR_FEE = 0.0125;
/** One price step: orders are placed one tick ahead of the best order. */
export const TICK = 0.1;
export const HOURS_PER_WEEK = 168;

/** One bazaar product as every flip model sees it. */
export interface ProductMarket {
  productId: string;
  name: string;
  /** instant-buy price: the lowest sell offer */
  buyPrice: number;
  /** instant-sell price: the highest buy order */
  sellPrice: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  /** the order book; null when none is known (models then treat the top price as the only level) */
  book: OrderBook | null;
}

export type Market = ReadonlyMap<string, ProductMarket>;

/** Units bought instantly per hour (what fills sell offers). */
export function instantBuysPerHour(p: ProductMarket): number {
  return Math.max(0, p.buyMovingWeek) / HOURS_PER_WEEK;
}

/** Units sold instantly per hour (what fills buy orders). */
export function instantSellsPerHour(p: ProductMarket): number {
  return Math.max(0, p.sellMovingWeek) / HOURS_PER_WEEK;
}

/**
 * Auction-house fee rate for a sale at `price` (listing + claim): 2 % below 10 M, 3 % from 10 M,
 * 3.5 % from 100 M, plus 3 points while Derpy is mayor for prices of 1 M and more.
 */
export function auctionFeeRate(price: number, derpy = false): number {
  let rate = price >= 100_000_000 ? 0.035 : price >= 10_000_000 ? 0.03 : 0.02;
  if (derpy && price >= 1_000_000) rate += 0.03;
  return rate;
}

export interface Walk {
  /** units the book could fill (≤ requested) */
  filled: number;
  /** total coins of those units */
  total: number;
  /** total / filled (0 when nothing filled) */
  average: number;
  /** price of the last unit filled */
  worst: number;
}

/** Walks `levels` (best first) for `quantity` units. */
export function walkBook(levels: readonly BookLevel[], quantity: number): Walk {
  let filled = 0;
  let total = 0;
  let worst = 0;
  for (const level of levels) {
    if (filled >= quantity) break;
    const take = Math.min(level.amount, quantity - filled);
    if (take <= 0) continue;
    filled += take;
    total += take * level.pricePerUnit;
    worst = level.pricePerUnit;
  }
  return { filled, total, average: filled > 0 ? total / filled : 0, worst };
}

/** The sell offers an instant buy fills against (or the top price as one unlimited level). */
export function sellOffers(p: ProductMarket): readonly BookLevel[] {
  if (p.book && p.book.sellOffers.length > 0) return p.book.sellOffers;
  return p.buyPrice > 0 ? [{ pricePerUnit: p.buyPrice, amount: Number.MAX_SAFE_INTEGER, orders: 1 }] : [];
}

/** The buy orders an instant sell fills against (or the top price as one unlimited level). */
export function buyOrders(p: ProductMarket): readonly BookLevel[] {
  if (p.book && p.book.buyOrders.length > 0) return p.book.buyOrders;
  return p.sellPrice > 0 ? [{ pricePerUnit: p.sellPrice, amount: Number.MAX_SAFE_INTEGER, orders: 1 }] : [];
}

/**
 * The largest quantity ≤ `max` whose profit, as `profitAt(q)` computes it with the book walked for q,
 * is positive; tries max, max/2, max/4 … 1 and returns the one with the highest total profit.
 * Returns null when no tried quantity is profitable: such a flip is not listed.
 */
export function bestQuantity<T extends { profit: number }>(max: number, profitAt: (q: number) => T | null): { quantity: number; result: T } | null {
  let best: { quantity: number; result: T } | null = null;
  let q = Math.floor(max);
  while (q >= 1) {
    const r = profitAt(q);
    if (r && r.profit > 0 && (!best || r.profit > best.result.profit)) best = { quantity: q, result: r };
    if (q === 1) break;
    q = Math.max(1, Math.floor(q / 2));
  }
  return best;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Rounds coins to 1 decimal (bazaar prices) for the wire. */
export function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
