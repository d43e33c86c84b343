/**
 * The bazaar's wire shapes, Coflnet's StorageQuickStatus (`buyOrders` is the instant-buy side,
 * sell offers; `sellOrders` the instant-sell side, buy orders) and GraphResult. Shared by the
 * routes' answers and the prepared answers (api/bazaar.ts, http/prepared-answers.ts), so both serialise
 * the same fields in the same order.
 */
import type { BookLevel } from './bazaar-book.ts';
import type { HistoryPoint } from './bazaar-history.ts';

/** A stored snapshot's quick-status columns (a snapshot row, or a rollup's first values). */
export interface QuickStatusColumns {
  ts: number;
  buy_price: number;
  sell_price: number;
  buy_volume: number;
  sell_volume: number;
  buy_moving_week: number;
  sell_moving_week: number;
  buy_orders: number;
  sell_orders: number;
}

export interface StorageQuickStatusWire {
  productId: string | null;
  buyPrice: number;
  buyVolume: number;
  buyMovingWeek: number;
  buyOrdersCount: number;
  sellPrice: number;
  sellVolume: number;
  sellMovingWeek: number;
  sellOrdersCount: number;
  timeStamp: string;
  buyOrders: BookLevel[] | null;
  sellOrders: BookLevel[] | null;
}

export function quickStatusWire(id: string, r: QuickStatusColumns, instantBuySide: BookLevel[] | null, instantSellSide: BookLevel[] | null): StorageQuickStatusWire {
  return {
    productId: id,
    buyPrice: r.buy_price,
    buyVolume: Number(r.buy_volume),
    buyMovingWeek: Number(r.buy_moving_week),
    buyOrdersCount: r.buy_orders,
    sellPrice: r.sell_price,
    sellVolume: Number(r.sell_volume),
    sellMovingWeek: Number(r.sell_moving_week),
    sellOrdersCount: r.sell_orders,
    timeStamp: new Date(Number(r.ts)).toISOString(),
    buyOrders: instantBuySide,
    sellOrders: instantSellSide,
  };
}

export interface GraphResultWire {
  minBuy: number;
  maxBuy: number;
  buy: number;
  minSell: number;
  maxSell: number;
  sell: number;
  buyVolume: number;
  sellVolume: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  timestamp: string;
}

export function graphResultWire(p: HistoryPoint): GraphResultWire {
  return {
    minBuy: p.minBuy,
    maxBuy: p.maxBuy,
    buy: p.buy,
    minSell: p.minSell,
    maxSell: p.maxSell,
    sell: p.sell,
    buyVolume: p.buyVolume,
    sellVolume: p.sellVolume,
    buyMovingWeek: p.buyMovingWeek,
    sellMovingWeek: p.sellMovingWeek,
    timestamp: new Date(p.ts).toISOString(),
  };
}
