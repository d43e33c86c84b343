/**
 * In-memory fakes of the repository methods services read (the Picks each service declares, e.g.
 * services/uploads.ts UploadsStore), for service specs in test/unit/services/: no database.
 * Each fake keeps what the real repository keeps and answers as it does, for the methods it has.
 */
import type { AuctionRecord } from '../../src/domain/auction-records.ts';
import type { TagHistory } from '../../src/services/auction-filters.ts';
import { encodeBook, type OrderBook } from '../../src/domain/bazaar-book.ts';
import type { HistoryPoint } from '../../src/domain/bazaar-history.ts';
import type { BazaarRepository } from '../../src/store/repositories/bazaar.ts';
import type { BazaarHistoryRepository } from '../../src/store/repositories/bazaar-history.ts';
import type { PlayerName, PlayerNameRepository } from '../../src/store/repositories/player-names.ts';
import type { BazaarRollupTable, BazaarSnapshotsTable } from '../../src/store/schema.ts';

/** Player names, looked up case-insensitively as the repository does; `touched` records touch() calls. */
export function fakePlayerNames(names: ReadonlyArray<{ playerUuid: string; name: string; activeAuctions?: number }>) {
  const rows: PlayerName[] = names.map((n) => ({ playerUuid: n.playerUuid, name: n.name, source: 'test', seenAt: 0 }));
  const active = new Map(names.map((n) => [n.playerUuid, n.activeAuctions ?? 0]));
  const touched: Array<{ playerUuid: string; now: number }> = [];
  const repo: Pick<PlayerNameRepository, 'findByName' | 'touch' | 'activeAuctionCount' | 'namesOf' | 'withPrefix'> = {
    findByName: async (name) => rows.find((r) => r.name.toLowerCase() === name.toLowerCase()),
    touch: async (playerUuid, now) => {
      touched.push({ playerUuid, now });
      return rows.some((r) => r.playerUuid === playerUuid);
    },
    activeAuctionCount: async (playerUuid) => active.get(playerUuid) ?? 0,
    namesOf: async (uuids) => new Map(rows.filter((r) => uuids.includes(r.playerUuid)).map((r) => [r.playerUuid, r.name])),
    withPrefix: async (prefix, limit) => rows.filter((r) => prefix !== '' && r.name.toLowerCase().startsWith(prefix.toLowerCase())).slice(0, Math.max(0, limit)),
  };
  return { repo, touched };
}

/** One stored 20-second bazaar snapshot of a product, as the fake bazaar keeps it. */
export interface FakeSnapshot {
  productId: string;
  ts: number;
  buy: number;
  sell: number;
  book?: OrderBook;
}

function row(s: FakeSnapshot): BazaarSnapshotsTable {
  return {
    product_id: s.productId,
    ts: s.ts,
    buy_price: s.buy,
    sell_price: s.sell,
    buy_volume: 100,
    sell_volume: 200,
    buy_moving_week: 1000,
    sell_moving_week: 2000,
    buy_orders: 3,
    sell_orders: 4,
    book: s.book ? encodeBook(s.book) : null,
  };
}

function point(s: FakeSnapshot): HistoryPoint {
  return { ts: s.ts, buy: s.buy, sell: s.sell, minBuy: s.buy, maxBuy: s.buy, minSell: s.sell, maxSell: s.sell, buyVolume: 100, sellVolume: 200, buyMovingWeek: 1000, sellMovingWeek: 2000, buyOrders: 3, sellOrders: 4, samples: 1 };
}

export const notInThisFake = (name: string) => () => {
  throw new Error(`${name}: not kept by this fake`);
};

/**
 * The bazaar's snapshots and their history: 20-second snapshots and 5-minute rollup rows of
 * products, with no rollup job progress (every resolution is aggregated from the snapshots, as
 * services/bazaar-history.ts does for the not-yet-rolled tail). The export's pages are not kept.
 */
export function fakeBazaar(snapshots: readonly FakeSnapshot[], fiveMinuteRows: readonly BazaarRollupTable[] = []) {
  const byTime = [...snapshots].sort((a, b) => a.ts - b.ts);
  const of = (id: string) => byTime.filter((s) => s.productId === id);
  const bazaar: Pick<BazaarRepository, 'snapshotAt' | 'latestBuyPrices'> = {
    snapshotAt: async (id, ts) => {
      const found = of(id).filter((s) => s.ts <= ts).at(-1);
      return found ? row(found) : undefined;
    },
    latestBuyPrices: async (ids) => new Map(ids.flatMap((id) => of(id).slice(-1).map((s) => [id, s.buy] as [string, number]))),
  };
  const bazaarHistory: Pick<BazaarHistoryRepository, 'snapshots' | 'doneUntil' | 'rollups' | 'productExists' | 'oldestSnapshotOf' | 'rollupSpan' | 'rollupAt' | 'bookAt' | 'exportColumns' | 'exportPage' | 'resolveExportBooks'> = {
    snapshots: async (id, from, to) => of(id).filter((s) => s.ts >= from && s.ts < to).map(point),
    doneUntil: async () => ({}),
    rollups: async () => [],
    productExists: async (id) => of(id).length > 0 || fiveMinuteRows.some((r) => r.product_id === id),
    oldestSnapshotOf: async (id) => of(id)[0]?.ts,
    rollupSpan: async (resolution, id) => {
      const rows = resolution === '5m' ? fiveMinuteRows.filter((r) => r.product_id === id) : [];
      return rows.length ? { oldest: rows[0]!.ts, newest: rows.at(-1)!.ts, count: rows.length } : undefined;
    },
    rollupAt: async (resolution, id, ts) => (resolution === '5m' ? fiveMinuteRows.filter((r) => r.product_id === id && r.ts <= ts).at(-1) : undefined),
    bookAt: notInThisFake('bookAt'),
    exportColumns: notInThisFake('exportColumns'),
    exportPage: notInThisFake('exportPage'),
    resolveExportBooks: notInThisFake('resolveExportBooks'),
  };
  return { bazaar, bazaarHistory };
}

/** An auction record as the store reads it (domain/auction-records.ts), with `over` applied. */
export function auctionRecord(over: Partial<AuctionRecord> & { uuid: string; tag: string }): AuctionRecord {
  return {
    itemName: over.tag,
    count: 1,
    seller: 'f'.repeat(32),
    profileId: null,
    coop: [],
    start: 0,
    end: 1,
    startingBid: 1000,
    highestBid: 0,
    soldPrice: null,
    soldAt: null,
    bin: true,
    tier: 'RARE',
    category: 'weapon',
    reforge: null,
    itemUid: null,
    itemCreatedAt: null,
    enchantments: {},
    flatNbt: {},
    state: 'active',
    lastUpdated: 0,
    buyer: null,
    ...over,
  };
}

/** The tags a store has seen sold (KnownTags' question), none unless given. */
export function fakeTagHistory(tags: readonly string[] = []): TagHistory {
  return { auctionQueries: { tagExists: async (tag) => tags.includes(tag) } };
}
