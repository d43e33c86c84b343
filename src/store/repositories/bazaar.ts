import type { Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import type { BazaarSnapshotsTable, Database } from '../schema.ts';
import type { FeedRepository, FeedState } from './feeds.ts';

const SNAPSHOTS: BulkSpec<BazaarSnapshotsTable> = {
  table: 'bazaar_snapshots',
  columns: {
    product_id: 'text',
    ts: 'int8',
    buy_price: 'float8',
    sell_price: 'float8',
    buy_volume: 'int8',
    sell_volume: 'int8',
    buy_moving_week: 'int8',
    sell_moving_week: 'int8',
    buy_orders: 'int4',
    sell_orders: 'int4',
    book: 'bytea',
  },
  // The same upstream snapshot stored twice (a retry, a restart) is a no-op.
  conflict: { target: ['product_id', 'ts'], update: 'nothing' },
};

export class BazaarRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly feeds: FeedRepository,
  ) {}

  /** Stores one snapshot of every product atomically. */
  async insertSnapshot(rows: BazaarSnapshotsTable[], feed: FeedState): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await bulkInsert(trx, this.dialect, SNAPSHOTS, rows);
      await this.feeds.record(feed, trx);
    });
  }

  /** The newest stored order book of every product: the base for storing only changed books. */
  async latestBooks(): Promise<Map<string, Uint8Array>> {
    const rows = await this.db
      .selectFrom('bazaar_snapshots as s')
      .select(['s.product_id', 's.book'])
      .where('s.book', 'is not', null)
      .where('s.ts', '=', (eb) =>
        eb
          .selectFrom('bazaar_snapshots as t')
          .select((e) => e.fn.max('t.ts').as('ts'))
          .whereRef('t.product_id', '=', 's.product_id')
          .where('t.book', 'is not', null),
      )
      .execute();
    return new Map(rows.map((r) => [r.product_id, r.book!]));
  }

  /** The snapshot at or just before `ts`, with its order book resolved (null when none stored). */
  async snapshotAt(productId: string, ts: number): Promise<(BazaarSnapshotsTable & { book: Uint8Array | null }) | undefined> {
    const row = await this.db
      .selectFrom('bazaar_snapshots')
      .selectAll()
      .where('product_id', '=', productId)
      .where('ts', '<=', ts)
      .orderBy('ts', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row || row.book) return row;
    const withBook = await this.db
      .selectFrom('bazaar_snapshots')
      .select('book')
      .where('product_id', '=', productId)
      .where('ts', '<=', row.ts)
      .where('book', 'is not', null)
      .orderBy('ts', 'desc')
      .limit(1)
      .executeTakeFirst();
    return { ...row, book: withBook?.book ?? null };
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('bazaar_snapshots')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
