/**
 * Bazaar history: rollups (5-minute from 20-second snapshots, 2-hour and daily from
 * 5-minute rows), retention of 20-second snapshots, and the reads behind the history,
 * snapshot and export endpoints. Rollups are INSERT … SELECT … ON CONFLICT DO UPDATE:
 * re-running any window gives the same rows, so the jobs are idempotent.
 */
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Statement } from 'better-sqlite3';
import type { DatabaseHandle, Dialect } from '../db.ts';
import type { HistoryPoint, RollupResolution } from '../../domain/bazaar-history.ts';
import { aggregate, RESOLUTION_MS } from '../../domain/bazaar-history.ts';
import { isFullBook } from '../../domain/bazaar-book.ts';
import type { RowColumns } from '../../domain/bazaar-chunk.ts';
import type { BazaarRollupTable, Database } from '../schema.ts';
import type { BazaarRepository } from './bazaar.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';

type RollupTable = 'bazaar_5m' | 'bazaar_2h' | 'bazaar_1d';

export const ROLLUP_TABLE: Record<RollupResolution, RollupTable> = {
  '5m': 'bazaar_5m',
  '2h': 'bazaar_2h',
  '1d': 'bazaar_1d',
};

const FIRST_COLUMNS = [
  'buy_price',
  'sell_price',
  'buy_volume',
  'sell_volume',
  'buy_moving_week',
  'sell_moving_week',
  'buy_orders',
  'sell_orders',
] as const;
const ROLLUP_COLUMNS = ['product_id', 'ts', ...FIRST_COLUMNS, 'min_buy', 'max_buy', 'min_sell', 'max_sell', 'samples'] as const;

export class BazaarHistoryRepository {
  private readonly exportStatements = new Map<string, Statement>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    /** the driver under Kysely, for the export's raw reads */
    private readonly handle: Pick<DatabaseHandle, 'sqlite' | 'pool'> | undefined,
    private readonly bazaar: BazaarRepository,
  ) {}

  // ---- rollup progress -------------------------------------------------------------

  /** Per rollup resolution, the time before which every bucket is rolled up (undefined: never ran). */
  async doneUntil(): Promise<Partial<Record<RollupResolution, number>>> {
    const rows = await this.db.selectFrom('bazaar_rollup_state').selectAll().execute();
    return Object.fromEntries(rows.map((r) => [r.resolution, Number(r.done_until)]));
  }

  /**
   * Records `ts` as done for `resolution`, unless progress is below `ifAtLeast` (a rewind
   * happened meanwhile: the rewound range must still be recomputed).
   */
  async setDoneUntil(resolution: RollupResolution, ts: number, ifAtLeast = -Infinity, db: Kysely<Database> = this.db): Promise<void> {
    await db
      .insertInto('bazaar_rollup_state')
      .values({ resolution, done_until: ts })
      .onConflict((oc) => {
        const update = oc.column('resolution').doUpdateSet({ done_until: ts });
        return Number.isFinite(ifAtLeast) ? update.where('bazaar_rollup_state.done_until', '>=', ifAtLeast) : update;
      })
      .execute();
  }

  /**
   * Marks everything from `ts` on as to be rolled up again: after snapshots older than the
   * rollups' progress were stored (a history backfill), the next job run recomputes them.
   */
  async rewind(ts: number): Promise<void> {
    await this.db.updateTable('bazaar_rollup_state').set({ done_until: ts }).where('done_until', '>', ts).execute();
  }

  /** Time of the oldest stored 20-second snapshot. */
  async oldestSnapshot(): Promise<number | undefined> {
    return this.firstSnapshotFrom(-Infinity);
  }

  /** The first snapshot time at or after `ts` over all products (or up to one chunk window earlier: see BazaarRows.firstFrom). */
  private async firstSnapshotFrom(ts: number): Promise<number | undefined> {
    return this.bazaar.rows.firstFrom(ts);
  }

  async oldestRollup(resolution: RollupResolution): Promise<number | undefined> {
    const row = await this.db
      .selectFrom(ROLLUP_TABLE[resolution])
      .select((eb) => eb.fn.min('ts').as('ts'))
      .executeTakeFirst();
    return row?.ts == null ? undefined : Number(row.ts);
  }

  /** The first time at or after `ts` with data a `resolution` rollup reads (snapshots for 5m, 5-minute rows otherwise). */
  async nextSourceTime(resolution: RollupResolution, ts: number): Promise<number | undefined> {
    if (resolution === '5m') return this.firstSnapshotFrom(ts);
    const row = await this.db
      .selectFrom('bazaar_5m')
      .select((eb) => eb.fn.min('ts').as('ts'))
      .where('ts', '>=', ts)
      .executeTakeFirst();
    return row?.ts == null ? undefined : Number(row.ts);
  }

  // ---- rollups ---------------------------------------------------------------------

  /**
   * (Re)computes `resolution` buckets starting in [from, to) — 5-minute rows from the
   * 20-second snapshots, 2-hour and daily rows from the 5-minute rows — and, in the same
   * transaction, records `to` as done when `doneGuard` is given (unless progress went below
   * it meanwhile: see setDoneUntil). Returns the rows written. `from` and `to` must be bucket boundaries.
   */
  async rollup(resolution: RollupResolution, from: number, to: number, doneGuard?: number): Promise<number> {
    const size = RESOLUTION_MS[resolution];
    if (from % size !== 0 || to % size !== 0) throw new Error(`rollup window not aligned to ${resolution}`);
    // 5-minute rows are aggregated here from the snapshot rows (recent rows and chunks alike).
    if (resolution === '5m') return this.rollupSnapshots(from, to, doneGuard);
    const target = sql.table(ROLLUP_TABLE[resolution]);
    const bucket = sql`(ts / ${sql.lit(size)}) * ${sql.lit(size)}`;
    const first = sql.join(FIRST_COLUMNS.map((c) => sql`s.${sql.ref(c)}`));
    const updates = sql.join(ROLLUP_COLUMNS.slice(2).map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
    const columns = sql.join(ROLLUP_COLUMNS.map((c) => sql.ref(c)));
    const statement = sql<never>`
      insert into ${target} (${columns})
      select s.product_id, g.bucket, ${first}, g.min_buy, g.max_buy, g.min_sell, g.max_sell, g.samples
      from (
        select product_id, ${bucket} as bucket, min(ts) as first_ts,
          min(min_buy) as min_buy, max(max_buy) as max_buy, min(min_sell) as min_sell, max(max_sell) as max_sell, sum(samples) as samples
        from bazaar_5m
        where ts >= ${from} and ts < ${to}
        group by product_id, ${bucket}
      ) g
      join bazaar_5m s on s.product_id = g.product_id and s.ts = g.first_ts
      where true
      on conflict (product_id, ts) do update set ${updates}`;
    return this.db.transaction().execute(async (trx) => {
      const result = await statement.execute(trx);
      if (doneGuard !== undefined) await this.setDoneUntil(resolution, to, doneGuard, trx);
      return Number(result.numAffectedRows ?? 0);
    });
  }

  /** 5-minute rows of [from, to) from the 20-second rows: first values, min/max, count (domain aggregate). */
  private async rollupSnapshots(from: number, to: number, doneGuard?: number): Promise<number> {
    const byProduct = new Map<number, HistoryPoint[]>();
    await this.bazaar.rows.scanAll(from, to, (r) => {
      let list = byProduct.get(r.product);
      if (!list) byProduct.set(r.product, (list = []));
      list.push(snapshotPoint(r));
    });
    const ids = new Map<number, string>();
    if (byProduct.size > 0) for (const p of await this.db.selectFrom('bazaar_products').select(['id', 'product_id']).execute()) ids.set(Number(p.id), p.product_id);
    const out: BazaarRollupTable[] = [];
    for (const [product, points] of byProduct) {
      const productId = ids.get(product);
      if (productId === undefined) continue;
      for (const b of aggregate(points, RESOLUTION_MS['5m'])) out.push(rollupRow(productId, b));
    }
    return this.db.transaction().execute(async (trx) => {
      await bulkInsert(trx, this.dialect, FIVE_MINUTE, out);
      if (doneGuard !== undefined) await this.setDoneUntil('5m', to, doneGuard, trx);
      return out.length;
    });
  }

  // ---- retention -------------------------------------------------------------------

  /**
   * Deletes 20-second snapshots older than `cutoff`, product by product, one transaction each
   * (whole chunks, the older rows of the chunk the cutoff falls in, recent rows: BazaarRows.deleteBefore).
   * Books are stored only when they change, and as deltas from a keyframe, so each product's
   * oldest kept row gets the book it would otherwise lose, and of the keyframes before the
   * cutoff only the newest stays (later deltas may refer to it). `batch` bounds the recent rows
   * one statement deletes.
   */
  async deleteSnapshotsBefore(cutoff: number, batch = 50_000): Promise<number> {
    let deleted = 0;
    for (const product of await this.bazaar.rows.productsWithRowsBefore(cutoff)) {
      deleted += await this.bazaar.rows.deleteBefore(product, cutoff, batch);
      await sql`delete from bazaar_book_keyframes where product = ${product}
        and ts < (select max(k.ts) from bazaar_book_keyframes k where k.product = ${product} and k.ts <= ${cutoff})`.execute(this.db);
    }
    return deleted;
  }

  /**
   * Packs closed windows of recent rows (ending at or before `before`) into chunks: see
   * BazaarRows.compact. Returns the rows packed.
   */
  async compact(before: number): Promise<number> {
    return (await this.bazaar.rows.compact(before)).rows;
  }

  /** The product's book at `ts` as a full encoding (delta resolved), if any is stored. */
  private async resolvedBookAt(product: number, ts: number): Promise<Uint8Array | undefined> {
    const row = await this.bazaar.bookRowAt(product, ts);
    if (!row) return undefined;
    const productId = await this.productIdOf(product);
    if (productId === undefined) return undefined;
    const [resolved] = await this.bazaar.books.resolve([{ product_id: productId, ts: row.ts, book: row.book }]);
    return resolved?.book ?? undefined;
  }

  private async productIdOf(product: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('bazaar_products').select('product_id').where('id', '=', product).executeTakeFirst();
    return row?.product_id;
  }

  // ---- reads -----------------------------------------------------------------------

  /** True when any snapshot or 5-minute rollup of the product is stored. */
  async productExists(productId: string): Promise<boolean> {
    const product = await this.bazaar.books.numberOf(productId);
    if (product !== undefined && (await this.bazaar.rows.has(product))) return true;
    const rolled = await this.db.selectFrom('bazaar_5m').select('ts').where('product_id', '=', productId).limit(1).executeTakeFirst();
    return rolled !== undefined;
  }

  /** 20-second snapshots of one product in [from, to), oldest first. */
  async snapshots(productId: string, from: number, to: number): Promise<HistoryPoint[]> {
    const product = await this.bazaar.books.numberOf(productId);
    if (product === undefined) return [];
    return (await this.bazaar.rows.range(product, from, to)).map(snapshotPoint);
  }

  /** Rollup rows of one product whose bucket starts in [from, to), oldest first. */
  async rollups(resolution: RollupResolution, productId: string, from: number, to: number): Promise<HistoryPoint[]> {
    const rows = await this.db
      .selectFrom(ROLLUP_TABLE[resolution])
      .select(ROLLUP_COLUMNS.slice(1))
      .where('product_id', '=', productId)
      .where('ts', '>=', from)
      .where('ts', '<', to)
      .orderBy('ts', 'asc')
      .execute();
    return rows.map(rollupPoint);
  }

  /** The rollup row whose bucket starts at or just before `ts`. */
  async rollupAt(resolution: RollupResolution, productId: string, ts: number): Promise<BazaarRollupTable | undefined> {
    const row = await this.db
      .selectFrom(ROLLUP_TABLE[resolution])
      .selectAll()
      .where('product_id', '=', productId)
      .where('ts', '<=', ts)
      .orderBy('ts', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? { ...row, ts: Number(row.ts) } : undefined;
  }

  /** The first and last bucket of one product's rollup at `resolution`, and how many there are; undefined when it has none. */
  async rollupSpan(resolution: RollupResolution, productId: string): Promise<{ oldest: number; newest: number; count: number } | undefined> {
    const row = await this.db
      .selectFrom(ROLLUP_TABLE[resolution])
      .select((eb) => [eb.fn.min('ts').as('oldest'), eb.fn.max('ts').as('newest'), eb.fn.countAll().as('count')])
      .where('product_id', '=', productId)
      .executeTakeFirst();
    if (!row || row.oldest === null || Number(row.count) === 0) return undefined;
    return { oldest: Number(row.oldest), newest: Number(row.newest), count: Number(row.count) };
  }

  /** Time of the product's oldest stored 20-second snapshot. */
  async oldestSnapshotOf(productId: string): Promise<number | undefined> {
    const product = await this.bazaar.books.numberOf(productId);
    return product === undefined ? undefined : this.bazaar.rows.oldestOf(product);
  }

  /**
   * One page of export rows with ts in (after, to), oldest first, as arrays in EXPORT_COLUMNS
   * order: the export's hot path, where building row objects cost more than the query. SQLite
   * gives numbers (better-sqlite3 raw rows), PostgreSQL the columns' text (pg array rows, no
   * parsing): both print the same JSON numbers. `source` '20s' reads snapshots (min/max and
   * samples left out: a snapshot is its own min and max), '5m' the 5-minute rows (book null).
   */
  async exportPage(source: '20s' | '5m', productId: string, after: number, to: number, limit: number, withBooks: boolean): Promise<ExportRow[]> {
    if (source === '20s') {
      // 20-second rows from chunks and recent rows (their books raw: deltas are resolved by the caller, see resolveExportBooks).
      const product = await this.bazaar.books.numberOf(productId);
      if (product === undefined) return [];
      const rows = await this.bazaar.rows.range(product, after + 1, to, limit, withBooks);
      return rows.map((r) => [r.ts, r.buy_price, r.sell_price, r.buy_volume, r.sell_volume, r.buy_moving_week, r.sell_moving_week, r.buy_orders, r.sell_orders, withBooks ? r.book : null]);
    }
    const columns = `ts, ${FIRST_COLUMNS.join(', ')}, null as book, min_buy, max_buy, min_sell, max_sell, samples`;
    const text = `select ${columns} from bazaar_5m where product_id = $1 and ts > $2 and ts < $3 order by ts limit $4`;
    const params = [productId, after, to, limit];
    if (this.handle?.sqlite) {
      const sqlite = this.handle.sqlite;
      let statement = this.exportStatements.get(text);
      if (!statement) {
        statement = sqlite.prepare(text.replace(/\$\d/g, '?')).raw(true);
        this.exportStatements.set(text, statement);
      }
      const prepared = statement;
      // Holding Kysely's (only) connection keeps the read outside any transaction it has open.
      return this.db.connection().execute(async () => prepared.all(...params) as ExportRow[]);
    }
    if (this.handle?.pool) {
      const result = await this.handle.pool.query({ text, values: params, rowMode: 'array', types: { getTypeParser: exportTypeParser } });
      return result.rows as ExportRow[];
    }
    const result = await sql<Record<string, unknown>>`select ${sql.raw(columns)} from bazaar_5m where product_id = ${productId} and ts > ${after} and ts < ${to} order by ts limit ${limit}`.execute(this.db);
    return result.rows.map((r) => Object.values(r) as ExportRow);
  }

  /**
   * One page of the product's 20-second rows with ts in [from, to), without books, appended to
   * `out` (see BazaarRows.pageColumns); returns where the page ends, `to` once done.
   */
  async exportColumns(productId: string, from: number, to: number, out: RowColumns, maxChunks: number, maxRecent: number): Promise<number> {
    const product = await this.bazaar.books.numberOf(productId);
    if (product === undefined) return to;
    return this.bazaar.rows.pageColumns(product, from, to, out, maxChunks, maxRecent);
  }

  /** The newest stored order book at or before `ts` as a full encoding (books are stored only when they change). */
  async bookAt(productId: string, ts: number): Promise<Uint8Array | undefined> {
    const product = await this.bazaar.books.numberOf(productId);
    return product === undefined ? undefined : this.resolvedBookAt(product, ts);
  }

  /**
   * Replaces delta books in export rows (20-second rows of `productId`, ts in column 0) by their
   * full encodings, in place: one batched keyframe read per page at most.
   */
  async resolveExportBooks(productId: string, rows: ExportRow[]): Promise<void> {
    const deltas = rows.filter((r) => r[EXPORT_BOOK_COLUMN] instanceof Uint8Array && !isFullBook(r[EXPORT_BOOK_COLUMN] as Uint8Array));
    if (deltas.length === 0) return;
    const resolved = await this.bazaar.books.resolve(deltas.map((r) => ({ product_id: productId, ts: Number(r[0]), book: r[EXPORT_BOOK_COLUMN] as Uint8Array | null })));
    deltas.forEach((r, i) => (r[EXPORT_BOOK_COLUMN] = resolved[i]!.book));
  }
}

/**
 * An export row: ts, the FIRST_COLUMNS in order, the order book (null unless requested), then
 * for 5-minute rows min_buy, max_buy, min_sell, max_sell, samples. Numbers from SQLite, text
 * from PostgreSQL (the book: a Buffer from either).
 */
export type ExportRow = Array<number | string | Uint8Array | null>;
export const EXPORT_BOOK_COLUMN = 1 + FIRST_COLUMNS.length;

/** pg: every column as the server's text (numbers print as JSON needs), bytea as a Buffer. */
function exportTypeParser(oid: number): (value: string) => unknown {
  return oid === pg.types.builtins.BYTEA ? pg.types.getTypeParser(oid) : (value: string) => value;
}

type FirstColumns = Pick<BazaarRollupTable, 'ts' | (typeof FIRST_COLUMNS)[number]>;

const FIVE_MINUTE: BulkSpec<BazaarRollupTable> = {
  table: 'bazaar_5m',
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
    min_buy: 'float8',
    max_buy: 'float8',
    min_sell: 'float8',
    max_sell: 'float8',
    samples: 'int4',
  },
  conflict: { target: ['product_id', 'ts'], update: [...FIRST_COLUMNS, 'min_buy', 'max_buy', 'min_sell', 'max_sell', 'samples'] },
};

function rollupRow(productId: string, p: HistoryPoint): BazaarRollupTable {
  return {
    product_id: productId,
    ts: p.ts,
    buy_price: p.buy,
    sell_price: p.sell,
    buy_volume: p.buyVolume,
    sell_volume: p.sellVolume,
    buy_moving_week: p.buyMovingWeek,
    sell_moving_week: p.sellMovingWeek,
    buy_orders: p.buyOrders,
    sell_orders: p.sellOrders,
    min_buy: p.minBuy,
    max_buy: p.maxBuy,
    min_sell: p.minSell,
    max_sell: p.maxSell,
    samples: p.samples,
  };
}

function snapshotPoint(r: FirstColumns): HistoryPoint {
  return {
    ts: Number(r.ts),
    buy: r.buy_price,
    sell: r.sell_price,
    minBuy: r.buy_price,
    maxBuy: r.buy_price,
    minSell: r.sell_price,
    maxSell: r.sell_price,
    buyVolume: Number(r.buy_volume),
    sellVolume: Number(r.sell_volume),
    buyMovingWeek: Number(r.buy_moving_week),
    sellMovingWeek: Number(r.sell_moving_week),
    buyOrders: r.buy_orders,
    sellOrders: r.sell_orders,
    samples: 1,
  };
}

function rollupPoint(r: Omit<BazaarRollupTable, 'product_id'>): HistoryPoint {
  return {
    ...snapshotPoint(r),
    minBuy: r.min_buy,
    maxBuy: r.max_buy,
    minSell: r.min_sell,
    maxSell: r.max_sell,
    samples: Number(r.samples),
  };
}
