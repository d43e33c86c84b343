import type { BookLevel } from '../../../../src/domain/bazaar-book.ts';
import type { ProductMarket } from '../../../../src/domain/flips/common.ts';

/** A product with a hand-made book: levels as [price, amount]. */
export function product(
  id: string,
  opts: { buy: number; sell: number; buyWeek?: number; sellWeek?: number; offers?: Array<[number, number]>; bids?: Array<[number, number]>; name?: string },
): ProductMarket {
  const lv = (xs: Array<[number, number]>): BookLevel[] => xs.map(([pricePerUnit, amount]) => ({ pricePerUnit, amount, orders: 1 }));
  return {
    productId: id,
    name: opts.name ?? id,
    buyPrice: opts.buy,
    sellPrice: opts.sell,
    buyMovingWeek: opts.buyWeek ?? 168_000,
    sellMovingWeek: opts.sellWeek ?? 168_000,
    book: opts.offers || opts.bids ? { sellOffers: lv(opts.offers ?? [[opts.buy, 1e9]]), buyOrders: lv(opts.bids ?? [[opts.sell, 1e9]]) } : null,
  };
}

export function marketOf(...ps: ProductMarket[]): Map<string, ProductMarket> {
  return new Map(ps.map((p) => [p.productId, p]));
}

export const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
