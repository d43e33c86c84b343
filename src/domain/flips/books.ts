/**
 * Book flips: buy two level-N enchanted books on the bazaar, combine them in an anvil into
 * one level-(N+1) book and sell that. Both legs are instant (walk the books), so
 *   profit(q) = revenue of q level-(N+1) books sold into the buy orders × (1 − tax)
 *             − cost of 2q level-N books bought from the sell offers,
 * with q bounded by both volumes: min(instant buys of N / 2, instant sells of N+1) per hour.
 * (The established service subtracted one level-N book and ignored volume.)
 */
import {
  BAZAAR_FEE,
  bestQuantity,
  buyOrders,
  instantBuysPerHour,
  instantSellsPerHour,
  iso,
  round1,
  round2,
  sellOffers,
  walkBook,
  type ProductMarket,
} from './common.ts';
import { enchantmentBookTag } from '../tags.ts';

export interface BookFlip {
  startTag: string;
  endTag: string;
  /** coins per hour after tax, with both books walked for the hour's quantity */
  profitPerHour: number;
  /** level-(N+1) books per hour the flip can make and sell */
  hourlyVolume: number;
  /** tax per hour (already deducted) */
  estimatedFees: number;
  timestamp: string;
  /** average price paid per level-N book for that quantity */
  startBuyPrice: number;
  /** average price received per level-(N+1) book for that quantity */
  endSellPrice: number;
}

const ENCHANT_ID = /^ENCHANTMENT_(.+)_(\d+)$/;

export function parseEnchantProduct(id: string): { enchant: string; level: number } | null {
  const m = ENCHANT_ID.exec(id);
  return m ? { enchant: m[1]!.toLowerCase(), level: Number(m[2]) } : null;
}

/** Evaluates combining two `start` books into one `end` book; null when not profitable at any quantity. */
export function bookFlip(start: ProductMarket, end: ProductMarket, now: number): BookFlip | null {
  const maxPerHour = Math.min(instantBuysPerHour(start) / 2, instantSellsPerHour(end));
  if (!(maxPerHour >= 1)) return null;
  // Walking only makes both prices worse: unprofitable at the top of the books means never.
  if (!(end.sellPrice * (1 - BAZAAR_FEE) > 2 * start.buyPrice)) return null;
  const offers = sellOffers(start);
  const bids = buyOrders(end);
  const best = bestQuantity(maxPerHour, (q) => {
    const buy = walkBook(offers, 2 * q);
    const sell = walkBook(bids, q);
    if (buy.filled < 2 * q || sell.filled < q) return null;
    const fees = sell.total * BAZAAR_FEE;
    return { profit: sell.total - fees - buy.total, fees, buyAvg: buy.average, sellAvg: sell.average };
  });
  if (!best) return null;
  return {
    startTag: start.productId,
    endTag: end.productId,
    profitPerHour: round1(best.result.profit),
    hourlyVolume: best.quantity,
    estimatedFees: round1(best.result.fees),
    timestamp: iso(now),
    startBuyPrice: round2(best.result.buyAvg),
    endSellPrice: round2(best.result.sellAvg),
  };
}

/** All profitable book combinations among `products`, by profit per hour descending. */
export function bookFlips(products: Iterable<ProductMarket>, combinable: (enchant: string, level: number) => boolean, now: number): BookFlip[] {
  const byId = new Map<string, ProductMarket>();
  for (const p of products) if (p.productId.startsWith('ENCHANTMENT_')) byId.set(p.productId, p);
  const out: BookFlip[] = [];
  for (const [id, start] of byId) {
    const parsed = parseEnchantProduct(id);
    if (!parsed || !combinable(parsed.enchant, parsed.level + 1)) continue;
    const end = byId.get(enchantmentBookTag(parsed.enchant, parsed.level + 1));
    if (!end) continue;
    const flip = bookFlip(start, end, now);
    if (flip) out.push(flip);
  }
  return out.sort((a, b) => b.profitPerHour - a.profitPerHour);
}
