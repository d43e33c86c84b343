/**
 * What the crafting engine needs to know about the market, behind one interface so the
 * source can change (a store-backed snapshot today, the in-memory active-auctions view later).
 */
import type { BookLevel } from '../bazaar-book.ts';
import type { Currency } from '../../gamedata/types.ts';

export interface BazaarQuote {
  productId: string;
  /** standing sell offers, lowest price first: what an instant buy walks */
  sellOffers: readonly BookLevel[];
  /** standing buy orders, highest price first: what an instant sell fills */
  buyOrders: readonly BookLevel[];
  /** units sold instantly per week (these fill buy orders) */
  instaSellWeekly: number;
  /** units bought instantly per week (these fill sell offers) */
  instaBuyWeekly: number;
}

export interface BinListing {
  /** auction uuid, when known (for `/viewauction`) */
  uuid: string | null;
  /** price per item (starting bid / count) */
  unitPrice: number;
  count: number;
}

export interface PriceSource {
  /** the product's current book, or undefined when the item is not on the bazaar */
  bazaar(tag: string): BazaarQuote | undefined;
  /** the cheapest active BIN listings, cheapest first (may be a bounded sample) */
  lowestBins(tag: string): readonly BinListing[] | undefined;
  /** coins per unit of a pseudo-currency, when a conversion is known */
  currencyValue?(currency: Currency): number | undefined;
  /** true while the mayor raises auction fees (Derpy) */
  derpy?: boolean | undefined;
  /** epoch ms of the prices */
  asOf: number;
}

/** Bazaar tax on every sale (the community-upgrade level the established service assumes). */
export const BAZAAR_FEE = 0.0125;

/**
 * Auction fee rate by price band (listing fee plus tax, as the established service models it):
 * 2 % below 10 M, 3 % from 10 M, 3.5 % from 100 M; three points more while Derpy is mayor, from 1 M.
 */
export function auctionFeeRate(price: number, derpy = false): number {
  let rate = price >= 100_000_000 ? 0.035 : price >= 10_000_000 ? 0.03 : 0.02;
  if (derpy && price >= 1_000_000) rate += 0.03;
  return rate;
}

/** A PriceSource over plain maps: for tests and benchmarks. */
export function mapPriceSource(
  bazaar: ReadonlyMap<string, BazaarQuote>,
  bins: ReadonlyMap<string, readonly BinListing[]> = new Map(),
  options: { asOf?: number; currencies?: Partial<Record<Currency, number>>; derpy?: boolean } = {},
): PriceSource {
  return {
    bazaar: (tag) => bazaar.get(tag),
    lowestBins: (tag) => bins.get(tag),
    currencyValue: (c) => options.currencies?.[c],
    derpy: options.derpy ?? false,
    asOf: options.asOf ?? 0,
  };
}
