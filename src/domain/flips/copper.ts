/**
 * Copper flips: buy a greenhouse crop on the bazaar (instant buy, walking the sell offers for
 * an hour's volume) and analyse it for copper. totalCost = average buy price + analysis cost;
 * copperPerCoin = copperYield / totalCost; coinsPerCopper = its inverse (what a unit of copper
 * costs this way). Sorted by copperPerCoin descending.
 */
import type { CopperYield } from '../../gamedata/tables/copper.ts';
import { instantBuysPerHour, iso, round2, sellOffers, walkBook, type Market } from './common.ts';

export interface CopperFlip {
  itemTag: string;
  itemName: string;
  /** average instant-buy price for `volume` units */
  buyPrice: number;
  analyzeCost: number;
  copperYield: number;
  totalCost: number;
  copperPerCoin: number;
  coinsPerCopper: number;
  timestamp: string;
  /** units per hour the bazaar's instant-buy volume and book allow */
  volume: number;
}

export function copperFlips(market: Market, yields: readonly CopperYield[], now: number): CopperFlip[] {
  const out: CopperFlip[] = [];
  for (const y of yields) {
    const p = market.get(y.tag);
    if (!p || !(p.buyPrice > 0) || !(y.copperYield > 0)) continue;
    const want = Math.max(1, Math.floor(instantBuysPerHour(p)));
    const w = walkBook(sellOffers(p), want);
    if (w.filled < 1) continue;
    const totalCost = w.average + y.analyzeCost;
    out.push({
      itemTag: y.tag,
      itemName: p.name,
      buyPrice: round2(w.average),
      analyzeCost: y.analyzeCost,
      copperYield: y.copperYield,
      totalCost: round2(totalCost),
      copperPerCoin: y.copperYield / totalCost,
      coinsPerCopper: round2(totalCost / y.copperYield),
      timestamp: iso(now),
      volume: Math.floor(w.filled),
    });
  }
  return out.sort((a, b) => b.copperPerCoin - a.copperPerCoin);
}
