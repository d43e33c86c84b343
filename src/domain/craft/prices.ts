/**
 * What the crafting engine needs to know about the market, behind one interface so the
 * source can change (a store-backed snapshot today, the in-memory active-auctions view later).
 */
import { decodeBook, type BookLevel, type OrderBook } from '../bazaar-book.ts';
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

/**
 * A PriceSource from stored rows (the crafting view's reads): decoded books and per-unit BIN
 * prices. `cache` keeps decoded books by product, reused while a product's book bytes stay the same.
 */
export function buildPriceSource(
  products: ReadonlyArray<{ productId: string; buyMovingWeek: number; sellMovingWeek: number; book: Uint8Array | null }>,
  bins: ReadonlyArray<{ tag: string; uuid: string; startingBid: number; count: number }>,
  asOf: number,
  cache?: Map<string, { bytes: Uint8Array; book: OrderBook }>,
): PriceSource {
  const bazaar = new Map<string, BazaarQuote>();
  for (const p of products) {
    let sellOffers: BazaarQuote['sellOffers'] = [];
    let buyOrders: BazaarQuote['buyOrders'] = [];
    if (p.book) {
      const hit = cache?.get(p.productId);
      if (hit && Buffer.compare(hit.bytes, p.book) === 0) {
        sellOffers = hit.book.sellOffers;
        buyOrders = hit.book.buyOrders;
      } else {
        try {
          const book = decodeBook(p.book);
          cache?.set(p.productId, { bytes: p.book, book });
          sellOffers = book.sellOffers;
          buyOrders = book.buyOrders;
        } catch {
          // An unreadable book leaves the product without depth: it cannot be bought instantly.
        }
      }
    }
    // Upstream: buyMovingWeek = units bought instantly (filling sell offers), sellMovingWeek = units sold instantly.
    bazaar.set(p.productId, { productId: p.productId, sellOffers, buyOrders, instaBuyWeekly: p.buyMovingWeek, instaSellWeekly: p.sellMovingWeek });
  }
  const byTag = new Map<string, BinListing[]>();
  for (const b of bins) {
    const list = byTag.get(b.tag) ?? [];
    list.push({ uuid: b.uuid, unitPrice: b.startingBid / b.count, count: b.count });
    byTag.set(b.tag, list);
  }
  for (const list of byTag.values()) list.sort((a, b) => a.unitPrice - b.unitPrice);
  return mapPriceSource(bazaar, byTag, { asOf });
}
