/** Bazaar test data: deterministic snapshot rows and store helpers. */
import { encodeBook } from '../../src/domain/bazaar-book.ts';
import type { HistoryPoint } from '../../src/domain/bazaar-history.ts';
import type { Store } from '../../src/store/index.ts';
import type { BazaarSnapshotsTable } from '../../src/store/schema.ts';

export /** Deterministic snapshot rows for `product` every `stepMs` in [from, to). */
function rows(product: string, from: number, to: number, stepMs = 20_000, seed = 1): BazaarSnapshotsTable[] {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: BazaarSnapshotsTable[] = [];
  for (let ts = from; ts + 137 < to; ts += stepMs) {
    const buy = Math.round(1000 + rand() * 1000) / 10;
    out.push({
      product_id: product,
      ts: ts + 137, // upstream lastUpdated is not aligned to anything
      buy_price: buy,
      sell_price: Math.round(buy * (0.8 + rand() * 0.1) * 10) / 10,
      buy_volume: Math.floor(rand() * 1e6),
      sell_volume: Math.floor(rand() * 1e6),
      buy_moving_week: Math.floor(rand() * 1e8),
      sell_moving_week: Math.floor(rand() * 1e8),
      buy_orders: Math.floor(rand() * 500),
      sell_orders: Math.floor(rand() * 500),
      book: null,
    });
  }
  return out;
}

/**
 * A snapshot row for crafting prices: `product` at `ts` whose book has one level a side, sell
 * offers at `offer` and buy orders a coin below (10,000 of each), 70,000 moved a week.
 */
export function offerRow(product: string, ts: number, offer: number): BazaarSnapshotsTable {
  return {
    product_id: product, ts, buy_price: offer, sell_price: offer - 1, buy_volume: 1, sell_volume: 1, buy_moving_week: 70_000, sell_moving_week: 70_000, buy_orders: 1, sell_orders: 1,
    book: encodeBook({ buyOrders: [{ pricePerUnit: offer - 1, amount: 10_000, orders: 1 }], sellOffers: [{ pricePerUnit: offer, amount: 10_000, orders: 1 }] }),
  };
}

export function point(r: BazaarSnapshotsTable): HistoryPoint {
  return {
    ts: r.ts,
    buy: r.buy_price,
    sell: r.sell_price,
    minBuy: r.buy_price,
    maxBuy: r.buy_price,
    minSell: r.sell_price,
    maxSell: r.sell_price,
    buyVolume: r.buy_volume,
    sellVolume: r.sell_volume,
    buyMovingWeek: r.buy_moving_week,
    sellMovingWeek: r.sell_moving_week,
    buyOrders: r.buy_orders,
    sellOrders: r.sell_orders,
    samples: 1,
  };
}

export async function insert(store: Store, data: BazaarSnapshotsTable[]): Promise<void> {
  await store.bazaar.insertSnapshot(data, { name: 'bazaar', lastUpdated: Math.max(...data.map((r) => r.ts)), storedAt: 0, records: data.length, source: 'simulator' });
}

export /** Each test starts from empty bazaar tables (the store is shared by the suite). */
async function reset(store: Store): Promise<void> {
  // bazaar_products stays: product numbers are cached by the store and never reused.
  for (const table of ['bazaar_recent_rows', 'bazaar_snapshot_chunks', 'bazaar_book_keyframes', 'bazaar_5m', 'bazaar_2h', 'bazaar_1d', 'bazaar_rollup_state'] as const) {
    await store.kysely.deleteFrom(table).execute();
  }
}

