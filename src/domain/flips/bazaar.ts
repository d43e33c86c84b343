/**
 * Bazaar order flips: spread (weekly volume), demand spread (short-window volume) and
 * residual capacity. An order flip places a buy order one tick above the best buy order
 * and a sell offer one tick below the best sell offer; instant sellers fill the first,
 * instant buyers the second. The tax is charged on what the sale brings in.
 * See docs/flips.md for the models and their assumptions.
 */
import {
  BAZAAR_FEE,
  TICK,
  instantBuysPerHour,
  instantSellsPerHour,
  iso,
  round1,
  round2,
  type ProductMarket,
} from './common.ts';

/** Prices and margin of one order flip on a product, or null when the book has no spread left after fees. */
export interface OrderFlipPrices {
  /** price of our buy order (best buy order + one tick) */
  orderPrice: number;
  /** price of our sell offer (best sell offer − one tick) */
  offerPrice: number;
  /** tax per unit sold */
  feePerUnit: number;
  /** offer − order − tax */
  marginPerUnit: number;
}

export function orderFlipPrices(p: ProductMarket): OrderFlipPrices | null {
  if (!(p.buyPrice > 0) || !(p.sellPrice > 0)) return null;
  const orderPrice = p.sellPrice + TICK;
  const offerPrice = p.buyPrice - TICK;
  if (offerPrice <= orderPrice) return null;
  const feePerUnit = offerPrice * BAZAAR_FEE;
  const marginPerUnit = offerPrice - orderPrice - feePerUnit;
  if (!(marginPerUnit > 0)) return null;
  return { orderPrice, offerPrice, feePerUnit, marginPerUnit };
}

/**
 * True when the instant-buy price is far above its 7-day median: more than 2×, or more
 * than 1.5× when the price is above 7.5 M. Without a median nothing is flagged.
 */
export function isManipulated(buyPrice: number, medianBuyPrice: number | null | undefined): boolean {
  if (!medianBuyPrice || !(medianBuyPrice > 0)) return false;
  const ratio = buyPrice / medianBuyPrice;
  return ratio > 2 || (ratio > 1.5 && buyPrice > 7_500_000);
}

export interface BazaarFlip {
  itemTag: string;
  /** instant-buy price (the best sell offer: where our sell offer goes, one tick lower) */
  buyPrice: number;
  /** instant-sell price (the best buy order: where our buy order goes, one tick higher) */
  sellPrice: number;
  /** coins per hour after tax for `volume` units per hour */
  profitPerHour: number;
  /** units per hour both sides trade: min(instant buys, instant sells) per hour */
  volume: number;
  /** tax per hour (already deducted from profitPerHour) */
  estimatedFees: number;
  timestamp: string;
  /** 7-day median of the instant-buy price (0 when unknown) */
  medianBuyPrice: number;
  /** seconds to fill one hour's volume with our buy order at the current instant-sell rate */
  estimatedBuyFillSeconds: number;
  /** seconds to sell one hour's volume with our offer at the current instant-buy rate */
  estimatedSellFillSeconds: number;
}

export interface SpreadFlip {
  flip: BazaarFlip;
  itemName: string;
  isManipulated: boolean;
}

/**
 * A product with a positive after-tax spread and trades on both sides, at its weekly
 * hourly rates (instant buys, instant sells, and the min of the two); null otherwise.
 */
function weeklySpread(p: ProductMarket): { prices: OrderFlipPrices; buys: number; sells: number; volume: number } | null {
  const prices = orderFlipPrices(p);
  if (!prices) return null;
  const buys = instantBuysPerHour(p);
  const sells = instantSellsPerHour(p);
  const volume = Math.min(buys, sells);
  return volume > 0 ? { prices, buys, sells, volume } : null;
}

/**
 * Spread flips: for every product with a positive after-tax spread and volume on both sides,
 * profit per hour = min(instant buys, instant sells per hour) × (offer − order − tax).
 * Sorted by profitPerHour descending. `medians` holds 7-day median instant-buy prices.
 */
export function spreadFlips(products: Iterable<ProductMarket>, medians: ReadonlyMap<string, number>, now: number): SpreadFlip[] {
  const out: SpreadFlip[] = [];
  const timestamp = iso(now);
  for (const p of products) {
    const tradable = weeklySpread(p);
    if (!tradable) continue;
    const { prices, buys, sells, volume } = tradable;
    const median = medians.get(p.productId) ?? 0;
    out.push({
      flip: {
        itemTag: p.productId,
        buyPrice: p.buyPrice,
        sellPrice: p.sellPrice,
        profitPerHour: round1(volume * prices.marginPerUnit),
        volume: round2(volume),
        estimatedFees: round1(volume * prices.feePerUnit),
        timestamp,
        medianBuyPrice: median,
        estimatedBuyFillSeconds: Math.round((3600 * volume) / sells),
        estimatedSellFillSeconds: Math.round((3600 * volume) / buys),
      },
      itemName: p.name,
      isManipulated: isManipulated(p.buyPrice, median),
    });
  }
  return out.sort((a, b) => b.flip.profitPerHour - a.flip.profitPerHour);
}

/** Moving-week counters of one product at one snapshot. */
export interface VolumeSample {
  ts: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
}

export interface HourlyRates {
  /** instant buys per hour */
  buys: number;
  /** instant sells per hour */
  sells: number;
}

/**
 * Real-time volume from the change of the 7-day rolling counters over a short window.
 * A rolling sum S changes by (units traded in the window) − (units that left the 7-day
 * horizon); the units leaving are estimated at the weekly average rate, so
 *   rate ≈ ΔS / Δt + S / 168 h.
 * With fewer than two samples (or a zero-length window) the weekly average is returned.
 */
export function realtimeRates(samples: readonly VolumeSample[]): HourlyRates | null {
  if (samples.length === 0) return null;
  const last = samples[samples.length - 1]!;
  const weekly = { buys: Math.max(0, last.buyMovingWeek) / 168, sells: Math.max(0, last.sellMovingWeek) / 168 };
  if (samples.length < 2) return weekly;
  const first = samples[0]!;
  const hours = (last.ts - first.ts) / 3_600_000;
  if (!(hours > 0)) return weekly;
  return {
    buys: Math.max(0, (last.buyMovingWeek - first.buyMovingWeek) / hours + weekly.buys),
    sells: Math.max(0, (last.sellMovingWeek - first.sellMovingWeek) / hours + weekly.sells),
  };
}

export interface DemandFlip {
  itemTag: string;
  /** coins per hour after tax at the real-time volume */
  currentProfitPerHour: number;
  timestamp: string;
  /** real-time units per hour both sides trade */
  volume: number;
  /** the price to place the buy order at (best buy order + one tick) */
  buyPrice: number;
  /** the price to place the sell offer at (best sell offer − one tick) */
  sellPrice: number;
  /** 7-day median instant-buy price (0 when unknown) */
  medianValue: number;
}

export interface DemandSpreadFlip {
  flip: DemandFlip;
  itemName: string;
}

/** Demand spread flips: top order to top order, ranked by profit per hour at the real-time volume. */
export function demandFlips(
  products: Iterable<ProductMarket>,
  rates: ReadonlyMap<string, HourlyRates>,
  medians: ReadonlyMap<string, number>,
  now: number,
): DemandSpreadFlip[] {
  const out: DemandSpreadFlip[] = [];
  const timestamp = iso(now);
  for (const p of products) {
    const prices = orderFlipPrices(p);
    if (!prices) continue;
    const r = rates.get(p.productId) ?? { buys: instantBuysPerHour(p), sells: instantSellsPerHour(p) };
    const volume = Math.min(r.buys, r.sells);
    if (!(volume > 0)) continue;
    out.push({
      flip: {
        itemTag: p.productId,
        currentProfitPerHour: round1(volume * prices.marginPerUnit),
        timestamp,
        volume: round2(volume),
        buyPrice: round1(prices.orderPrice),
        sellPrice: round1(prices.offerPrice),
        medianValue: medians.get(p.productId) ?? 0,
      },
      itemName: p.name,
    });
  }
  return out.sort((a, b) => b.flip.currentProfitPerHour - a.flip.currentProfitPerHour);
}

/** Units players' open orders already hold on a product (reported by the mod). */
export interface OpenOrderUnits {
  /** units in open buy orders (they absorb instant sells) */
  buyOrderUnits: number;
  /** units in open sell offers (they absorb instant buys) */
  sellOfferUnits: number;
}

/** ResidualEntryDto: capacity of one product not yet taken by reported open orders. */
export interface ResidualEntry {
  itemTag: string;
  itemName: string;
  /** min(instant buys, instant sells) per hour, from the 7-day counters */
  hourlyVolume: number;
  targetHoldTimeHours: number;
  /** hourlyVolume × targetHoldTimeHours */
  capacity: number;
  /** units of that capacity held by reported open orders (the binding side) */
  takenByOpenOrders: number;
  /** capacity left: min over both sides of (side rate × hold time − open units on that side), ≥ 0 */
  remainingCapacity: number;
  /** our buy-order price (best buy order + one tick) */
  buyOrderPrice: number;
  /** our sell-offer price (best sell offer − one tick) */
  sellOfferPrice: number;
  /** after-tax margin per unit: offer − order − tax */
  spread: number;
  /** remainingCapacity × spread: the ranking value */
  value: number;
  timestamp: string;
}

/**
 * Residual flips: per product, capacity = hourly volume × hold time on each side, minus the
 * units players' open orders already hold on that side; value = remaining × after-tax spread.
 * Ranked by value descending; products with nothing left are omitted.
 */
export function residualFlips(
  products: Iterable<ProductMarket>,
  openOrders: ReadonlyMap<string, OpenOrderUnits>,
  targetHoldTimeHours: number,
  now: number,
): ResidualEntry[] {
  const out: ResidualEntry[] = [];
  const timestamp = iso(now);
  for (const p of products) {
    const tradable = weeklySpread(p);
    if (!tradable) continue;
    const { prices, buys, sells, volume: hourlyVolume } = tradable;
    const open = openOrders.get(p.productId) ?? { buyOrderUnits: 0, sellOfferUnits: 0 };
    const capacity = hourlyVolume * targetHoldTimeHours;
    const buySide = sells * targetHoldTimeHours - open.buyOrderUnits;
    const sellSide = buys * targetHoldTimeHours - open.sellOfferUnits;
    const remaining = Math.max(0, Math.min(buySide, sellSide));
    if (!(remaining > 0)) continue;
    out.push({
      itemTag: p.productId,
      itemName: p.name,
      hourlyVolume: round2(hourlyVolume),
      targetHoldTimeHours,
      capacity: round2(capacity),
      takenByOpenOrders: round2(Math.max(0, capacity - remaining)),
      remainingCapacity: round2(remaining),
      buyOrderPrice: round1(prices.orderPrice),
      sellOfferPrice: round1(prices.offerPrice),
      spread: round2(prices.marginPerUnit),
      value: round1(remaining * prices.marginPerUnit),
      timestamp,
    });
  }
  return out.sort((a, b) => b.value - a.value);
}
