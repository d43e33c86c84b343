/**
 * Real OHLC candles of the bazaar's instant-buy and instant-sell prices. Pure: no I/O.
 *
 * Every stored history row (domain/bazaar-history.ts) keeps its bucket's FIRST snapshot and the
 * min/max over the bucket, not its last one. A candle is folded from rows finer than itself:
 * open = the first row's first snapshot, high/low = max of maxes / min of mins, close = the last
 * row's first snapshot. From 20-second snapshots (one snapshot per row) that is the exact close;
 * from 5-minute rows it is the price observed at the start of the candle's last 5 minutes. Every
 * value is a price that was observed; nothing is interpolated or carried from the next candle.
 */
import { bucketStart, type HistoryPoint } from './bazaar-history.ts';

export interface Ohlc {
  open: number;
  high: number;
  low: number;
  close: number;
}

export interface BazaarCandle {
  /** candle start, UTC epoch ms */
  time: number;
  buy: Ohlc;
  sell: Ohlc;
  /** the last row's quick-status volumes and moving weeks */
  buyVolume: number;
  sellVolume: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  /** snapshots folded in */
  samples: number;
}

/** Folds rows (oldest first, finer than `bucketMs`) into candles of `bucketMs`. */
export function foldCandles(points: readonly HistoryPoint[], bucketMs: number): BazaarCandle[] {
  const out: BazaarCandle[] = [];
  let current: BazaarCandle | undefined;
  for (const p of points) {
    const start = bucketStart(p.ts, bucketMs);
    if (!current || current.time !== start) {
      if (current && start < current.time) throw new RangeError('foldCandles: points must be oldest first');
      current = {
        time: start,
        buy: { open: p.buy, high: p.maxBuy, low: p.minBuy, close: p.buy },
        sell: { open: p.sell, high: p.maxSell, low: p.minSell, close: p.sell },
        buyVolume: p.buyVolume,
        sellVolume: p.sellVolume,
        buyMovingWeek: p.buyMovingWeek,
        sellMovingWeek: p.sellMovingWeek,
        samples: p.samples,
      };
      out.push(current);
      continue;
    }
    current.buy.high = Math.max(current.buy.high, p.maxBuy);
    current.buy.low = Math.min(current.buy.low, p.minBuy);
    current.buy.close = p.buy;
    current.sell.high = Math.max(current.sell.high, p.maxSell);
    current.sell.low = Math.min(current.sell.low, p.minSell);
    current.sell.close = p.sell;
    current.buyVolume = p.buyVolume;
    current.sellVolume = p.sellVolume;
    current.buyMovingWeek = p.buyMovingWeek;
    current.sellMovingWeek = p.sellMovingWeek;
    current.samples += p.samples;
  }
  return out;
}
