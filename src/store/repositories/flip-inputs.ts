/**
 * Read-only queries the flip engine (src/market/flips.ts) needs: the newest bazaar snapshot,
 * recent moving-week counters, bucketed price history, the item catalog, elections and auction
 * rows for upgrade and mayor flips. No tables of its own.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import type { AuctionsTable, Database } from '../schema.ts';
import type { SoldItem } from '../../domain/sales-rollup.ts';
import { ACTIVE } from './auction-queries.ts';
import type { BazaarRepository } from './bazaar.ts';

export interface SnapshotRow {
  productId: string;
  ts: number;
  buyPrice: number;
  sellPrice: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  /** encoded book when it changed at this snapshot, else null */
  book: Uint8Array | null;
}

export interface PriceBucket {
  productId: string;
  /** bucket start, epoch ms */
  bucket: number;
  /** mean instant-buy price in the bucket */
  price: number;
}

export interface CatalogEntry {
  tag: string;
  name: string;
  npcSellPrice: number | null;
}

export interface ElectionRow {
  year: number;
  mayorName: string;
  lastSeen: number;
  payload: Record<string, unknown>;
}

/** A sold or listed auction as the flips read it (the domain's SoldItem: `price` per unit, `at` the sale or start time). */
export type AuctionRow = SoldItem & { enchantments: Record<string, number>; flatNbt: Record<string, string> };

const json = <T>(v: unknown, fallback: T): T => {
  if (v === null || v === undefined) return fallback;
  if (typeof v === 'string') {
    try {
      return JSON.parse(v) as T;
    } catch {
      return fallback;
    }
  }
  return v as T;
};

export class FlipInputRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly bazaar: BazaarRepository,
  ) {}

  /** ts of the newest stored bazaar snapshot, or null. */
  async latestSnapshotTs(): Promise<number | null> {
    return this.bazaar.newestTs();
  }

  /** Product ids by number (rows carry the number). */
  private async productIds(): Promise<Map<number, string>> {
    const rows = await this.db.selectFrom('bazaar_products').select(['id', 'product_id']).execute();
    return new Map(rows.map((r) => [Number(r.id), r.product_id]));
  }

  /** Every product's rows of the snapshots taken after `afterTs` (up to `limit` rows), oldest first. */
  async snapshotsAfter(afterTs: number, limit = 200_000): Promise<SnapshotRow[]> {
    const newest = await this.bazaar.newestTs();
    if (newest === null || newest <= afterTs) return [];
    const ids = await this.productIds();
    const found = (await this.bazaar.rows.rangeAll(afterTs + 1, newest + 1)).slice(0, limit);
    const rows = await this.bazaar.books.resolve(found.filter((r) => ids.has(r.product)).map((r) => ({ ...r, product_id: ids.get(r.product)! })));
    return rows.map((r) => ({
      productId: r.product_id,
      ts: r.ts,
      buyPrice: r.buy_price,
      sellPrice: r.sell_price,
      buyMovingWeek: r.buy_moving_week,
      sellMovingWeek: r.sell_moving_week,
      book: r.book,
    }));
  }

  /** Moving-week counters of every product since `since` (inclusive), oldest first. */
  async countersSince(since: number): Promise<Array<{ productId: string; ts: number; buyMovingWeek: number; sellMovingWeek: number }>> {
    const newest = await this.bazaar.newestTs();
    if (newest === null || newest < since) return [];
    const ids = await this.productIds();
    const rows = await this.bazaar.rows.rangeAll(since, newest + 1);
    return rows.filter((r) => ids.has(r.product)).map((r) => ({ productId: ids.get(r.product)!, ts: r.ts, buyMovingWeek: r.buy_moving_week, sellMovingWeek: r.sell_moving_week }));
  }

  /** Mean instant-buy price per product and `bucketMs` bucket since `since`. */
  async priceBuckets(since: number, bucketMs: number): Promise<PriceBucket[]> {
    const size = Math.round(bucketMs);
    const newest = await this.bazaar.newestTs();
    if (newest === null || newest < since) return [];
    const ids = await this.productIds();
    // Sums per (product, bucket), folded while scanning: memory grows with buckets, not rows.
    const sums = new Map<number, Map<number, { sum: number; n: number }>>();
    await this.bazaar.rows.scanAll(since, newest + 1, (r) => {
      let perBucket = sums.get(r.product);
      if (!perBucket) sums.set(r.product, (perBucket = new Map()));
      const bucket = Math.floor(r.ts / size) * size;
      const s = perBucket.get(bucket);
      if (s) {
        s.sum += r.buy_price;
        s.n++;
      } else perBucket.set(bucket, { sum: r.buy_price, n: 1 });
    }, true);
    const out: PriceBucket[] = [];
    for (const [product, perBucket] of sums) {
      const productId = ids.get(product);
      if (productId === undefined) continue;
      for (const [bucket, s] of perBucket) out.push({ productId, bucket, price: s.sum / s.n });
    }
    return out;
  }

  async catalog(): Promise<CatalogEntry[]> {
    const rows = await this.db.selectFrom('items').select(['tag', 'name', 'npc_sell_price']).execute();
    return rows.map((r) => ({ tag: r.tag, name: r.name, npcSellPrice: r.npc_sell_price === null ? null : Number(r.npc_sell_price) }));
  }

  /** All stored elections, oldest year first; `lastSeen` = when ingestion last stored it. */
  async elections(): Promise<ElectionRow[]> {
    const rows = await this.db.selectFrom('elections').selectAll().orderBy('year').execute();
    return rows.map((r) => ({
      year: r.year,
      mayorName: r.mayor_name,
      lastSeen: Number(r.updated_at),
      payload: json<Record<string, unknown>>(r.payload, {}),
    }));
  }

  /**
   * Units still open in players' bazaar orders (uploaded by the mod at or after `since`), per item:
   * buy orders (they absorb instant sells) and sell offers (they absorb instant buys).
   */
  async openOrderUnits(since: number): Promise<Map<string, { buyOrderUnits: number; sellOfferUnits: number }>> {
    const rows = await this.db
      .selectFrom('player_bazaar_orders')
      .select(['item_tag', 'is_sell', (eb) => eb.fn.sum<number>(sql`amount - filled`).as('open')])
      .where('uploaded_at', '>=', since)
      .where(sql<boolean>`amount > filled`)
      .groupBy(['item_tag', 'is_sell'])
      .execute();
    const out = new Map<string, { buyOrderUnits: number; sellOfferUnits: number }>();
    for (const r of rows) {
      const e = out.get(r.item_tag) ?? { buyOrderUnits: 0, sellOfferUnits: 0 };
      if (Boolean(r.is_sell)) e.sellOfferUnits += Number(r.open);
      else e.buyOrderUnits += Number(r.open);
      out.set(r.item_tag, e);
    }
    return out;
  }

  /** The time of the first sale at or after `from`, or null. */
  async firstSaleFrom(from: number): Promise<number | null> {
    const table = this.dialect === 'sqlite' ? sql`auctions indexed by auctions_sold_at` : sql`auctions`;
    const { rows } = await sql<{ first: number | null }>`select min(sold_at) as first from ${table} where state = 'sold' and sold_at >= ${from}`.execute(this.db);
    const first = rows[0]?.first;
    return first === null || first === undefined ? null : Number(first);
  }

  /** Sold auctions with `from` ≤ sale time < `to` (no upper bound when omitted): price per unit, sale time. */
  async soldBetween(from: number, to?: number): Promise<AuctionRow[]> {
    // SQLite's planner (no statistics) would pick (state, end_at) and walk every sale ever stored.
    const table = this.dialect === 'sqlite' ? sql`auctions indexed by auctions_sold_at` : sql`auctions`;
    const upper = to === undefined ? sql`` : sql` and sold_at < ${to}`;
    const { rows } = await sql<Pick<AuctionsTable, 'uuid' | 'tag' | 'item_name' | 'count' | 'sold_price' | 'sold_at' | 'tier' | 'reforge' | 'enchantments' | 'flat_nbt'>>`
      select uuid, tag, item_name, count, sold_price, sold_at, tier, reforge, enchantments, flat_nbt
      from ${table} where state = 'sold' and sold_at >= ${from}${upper}`.execute(this.db);
    return rows.map((r) => ({
      uuid: r.uuid,
      tag: r.tag,
      itemName: r.item_name,
      count: r.count,
      price: Number(r.sold_price ?? 0) / Math.max(1, r.count),
      at: Number(r.sold_at),
      tier: r.tier,
      reforge: r.reforge,
      enchantments: json<Record<string, number>>(r.enchantments, {}),
      flatNbt: json<Record<string, string>>(r.flat_nbt, {}),
    }));
  }

  /** Active BIN auctions of `tags` that have not ended at `now`. */
  async activeBins(tags: readonly string[], now: number): Promise<AuctionRow[]> {
    const out: AuctionRow[] = [];
    for (let i = 0; i < tags.length; i += 500) {
      const chunk = tags.slice(i, i + 500);
      const rows = await this.db
        .selectFrom('auctions')
        .select(['uuid', 'tag', 'item_name', 'count', 'starting_bid', 'start_at', 'end_at', 'tier', 'reforge', 'enchantments', 'flat_nbt'])
        .where('state', '=', ACTIVE)
        .where('tag', 'in', chunk)
        .where('bin', '=', this.dialect === 'sqlite' ? 1 : true)
        .where('end_at', '>', now)
        .execute();
      for (const r of rows) {
        out.push({
          uuid: r.uuid,
          tag: r.tag,
          itemName: r.item_name,
          count: r.count,
          price: Number(r.starting_bid),
          at: Number(r.start_at ?? r.end_at),
          tier: r.tier,
          reforge: r.reforge,
          enchantments: json<Record<string, number>>(r.enchantments, {}),
          flatNbt: json<Record<string, string>>(r.flat_nbt, {}),
        });
      }
    }
    return out;
  }
}
