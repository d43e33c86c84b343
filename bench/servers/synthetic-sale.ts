/**
 * One synthetic sold auction row for the benchmarks that fill a store with sales
 * (bench/auctions.ts, bench/servers/analysis-fill.ts): sellers, buyers, uids and
 * enchantments derived from `i`, so a fill is the same on every run.
 */
import type { AuctionsTable } from '../../src/store/schema.ts';

const DAY = 86_400_000;

export function syntheticSale(i: number, sale: { uuid: string; tag: string; soldAt: number; price: number; count: number; startAt: number | null }): AuctionsTable {
  const { uuid, tag, soldAt, price, count, startAt } = sale;
  return {
    uuid,
    tag,
    item_name: tag,
    count,
    seller: (i % 977).toString(16).padStart(32, '0'),
    profile_id: null,
    coop: null,
    start_at: startAt,
    end_at: soldAt,
    starting_bid: price,
    highest_bid: price,
    bin: i % 3 !== 0,
    tier: 'LEGENDARY',
    category: 'WEAPON',
    reforge: null,
    item_uid: (i + 1).toString(16).padStart(12, '0'),
    item_created_at: soldAt - 30 * DAY,
    enchantments: { sharpness: 5 + (i % 3) },
    flat_nbt: { upgrade_level: String(i % 6) },
    item_bytes: new Uint8Array(0),
    state: 'sold',
    last_updated: soldAt,
    sold_price: price,
    buyer: (i % 1231).toString(16).padStart(32, '0'),
    sold_at: soldAt,
    buyer_profile: null,
  };
}
