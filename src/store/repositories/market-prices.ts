/**
 * Current market prices for whole-catalog computations (crafting): the newest bazaar snapshot
 * of every product with its order book, and the cheapest active BINs per tag. Read once per
 * snapshot by src/market, never per request.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import type { Database } from '../schema.ts';
import type { BazaarQuick } from '../../domain/stream-events.ts';
import type { BazaarRepository } from './bazaar.ts';

export interface LatestBazaarProduct {
  productId: string;
  ts: number;
  buyMovingWeek: number;
  sellMovingWeek: number;
  /** the encoded order book (newest stored; books are stored only when they change) */
  book: Uint8Array | null;
}

/** A product's figures in one snapshot (the quick status, with top-of-book prices; fields in domain/stream-events.ts). */
export interface ProductQuick extends BazaarQuick {
  productId: string;
}

export interface BinRow {
  tag: string;
  uuid: string;
  startingBid: number;
  count: number;
}

export class MarketPriceRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly bazaar: BazaarRepository,
  ) {}

  /** Every product of the newest bazaar snapshot with its moving-week volumes, without books (the item catalog's activity). */
  async latestBazaarVolumes(): Promise<Array<{ productId: string; buyMovingWeek: number; sellMovingWeek: number }>> {
    const rows = await this.newestSnapshotRows();
    return rows.map((r) => ({ productId: r.product_id, buyMovingWeek: Number(r.buy_moving_week), sellMovingWeek: Number(r.sell_moving_week) }));
  }

  /** The newest snapshot's rows with their product ids: recent rows (keyed by time), or chunks when it is already packed. */
  private async newestSnapshotRows() {
    const ts = await this.bazaar.newestTs();
    if (ts === null) return [];
    const numbered = await this.bazaar.rows.rangeAll(ts, ts + 1);
    const ids = new Map((await this.db.selectFrom('bazaar_products').select(['id', 'product_id']).execute()).map((p) => [Number(p.id), p.product_id]));
    return numbered.filter((r) => ids.has(r.product)).map((r) => ({ ...r, product_id: ids.get(r.product)! }));
  }

  /** Every product's figures in the newest bazaar snapshot, without books (the bulk bazaar file); undefined before the first. */
  async latestBazaarQuick(): Promise<{ ts: number; products: ProductQuick[] } | undefined> {
    const rows = await this.newestSnapshotRows();
    if (rows.length === 0) return undefined;
    return {
      ts: Number(rows[0]!.ts),
      products: rows.map((r) => ({
        productId: r.product_id,
        buyPrice: Number(r.buy_price),
        sellPrice: Number(r.sell_price),
        buyVolume: Number(r.buy_volume),
        sellVolume: Number(r.sell_volume),
        buyMovingWeek: Number(r.buy_moving_week),
        sellMovingWeek: Number(r.sell_moving_week),
        buyOrders: Number(r.buy_orders),
        sellOrders: Number(r.sell_orders),
      })),
    };
  }

  /** Every product of the newest bazaar snapshot, with its current order book. */
  async latestBazaar(): Promise<LatestBazaarProduct[]> {
    const newest = await this.newestSnapshotRows();
    const rows = await this.bazaar.books.resolve(newest.map((r) => ({ product_id: r.product_id, ts: Number(r.ts), buy_moving_week: r.buy_moving_week, sell_moving_week: r.sell_moving_week, book: r.book })));
    const missing = rows.some((r) => !r.book);
    const books = missing ? await this.bazaar.latestBooks() : new Map<string, Uint8Array>();
    return rows.map((r) => ({
      productId: r.product_id,
      ts: Number(r.ts),
      buyMovingWeek: Number(r.buy_moving_week),
      sellMovingWeek: Number(r.sell_moving_week),
      book: r.book ?? books.get(r.product_id) ?? null,
    }));
  }

  /**
   * The `perTag` cheapest active, unexpired BIN auctions of every tag (ranked by price, which the
   * tag/state/price index serves; callers sort by price per item for stacks).
   */
  async lowestBins(now: number, perTag = 16): Promise<BinRow[]> {
    const bin = this.dialect === 'sqlite' ? sql`1` : sql`true`;
    const rows = await sql<{ tag: string; uuid: string; starting_bid: number | string; count: number }>`
      select tag, uuid, starting_bid, count from (
        select tag, uuid, starting_bid, count,
          row_number() over (partition by tag order by starting_bid, uuid) as rn
        from auctions
        where state = 'active' and bin = ${bin} and end_at > ${now}
      ) ranked
      where rn <= ${perTag}
      order by tag, rn`.execute(this.db);
    return rows.rows.map((r) => ({ tag: r.tag, uuid: r.uuid, startingBid: Number(r.starting_bid), count: Math.max(1, Number(r.count)) }));
  }
}
