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
import { RESOLUTION_MS } from '../../domain/bazaar-history.ts';
import { isFullBook } from '../../domain/bazaar-book.ts';
import type { BazaarRollupTable, Database } from '../schema.ts';
import type { BazaarRepository } from './bazaar.ts';
import { rowsPerProduct } from './bazaar-books.ts';

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

  /** The first snapshot time at or after `ts` over all products: one key probe per product (there is no ts index). */
  private async firstSnapshotFrom(ts: number): Promise<number | undefined> {
    const from = Number.isFinite(ts) ? sql`and r.ts >= ${ts}` : sql``;
    const row = await sql<{ ts: number | null }>`select min((select r.ts from bazaar_snapshot_rows r where r.product = p.id ${from} order by r.ts limit 1)) as ts from bazaar_products p`.execute(this.db);
    const first = row.rows[0]?.ts;
    return first == null ? undefined : Number(first);
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
    const target = sql.table(ROLLUP_TABLE[resolution]);
    const fromFive = resolution !== '5m';
    const bucket = sql`(ts / ${sql.lit(size)}) * ${sql.lit(size)}`;
    const aggregates = fromFive
      ? sql`min(min_buy) as min_buy, max(max_buy) as max_buy, min(min_sell) as min_sell, max(max_sell) as max_sell, sum(samples) as samples`
      : sql`min(buy_price) as min_buy, max(buy_price) as max_buy, min(sell_price) as min_sell, max(sell_price) as max_sell, count(*) as samples`;
    const first = sql.join(FIRST_COLUMNS.map((c) => sql`s.${sql.ref(c)}`));
    const updates = sql.join(ROLLUP_COLUMNS.slice(2).map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`));
    const columns = sql.join(ROLLUP_COLUMNS.map((c) => sql.ref(c)));
    // 5-minute rows come from the numbered snapshot rows, walked product by product (a key range
    // per product: there is no ts index).
    const statement = fromFive
      ? sql<never>`
      insert into ${target} (${columns})
      select s.product_id, g.bucket, ${first}, g.min_buy, g.max_buy, g.min_sell, g.max_sell, g.samples
      from (
        select product_id, ${bucket} as bucket, min(ts) as first_ts, ${aggregates}
        from bazaar_5m
        where ts >= ${from} and ts < ${to}
        group by product_id, ${bucket}
      ) g
      join bazaar_5m s on s.product_id = g.product_id and s.ts = g.first_ts
      where true
      on conflict (product_id, ts) do update set ${updates}`
      : sql<never>`
      insert into ${target} (${columns})
      select p.product_id, g.bucket, ${first}, g.min_buy, g.max_buy, g.min_sell, g.max_sell, g.samples
      from (
        select r.product, ${sql.raw(`(r.ts / ${size}) * ${size}`)} as bucket, min(r.ts) as first_ts, ${aggregates}
        from ${rowsPerProduct(this.dialect, sql`r.ts >= ${from} and r.ts < ${to}`)}
        group by r.product, ${sql.raw(`(r.ts / ${size}) * ${size}`)}
      ) g
      join bazaar_snapshot_rows s on s.product = g.product and s.ts = g.first_ts
      join bazaar_products p on p.id = g.product
      where true
      on conflict (product_id, ts) do update set ${updates}`;
    return this.db.transaction().execute(async (trx) => {
      const result = await statement.execute(trx);
      if (doneGuard !== undefined) await this.setDoneUntil(resolution, to, doneGuard, trx);
      return Number(result.numAffectedRows ?? 0);
    });
  }

  // ---- retention -------------------------------------------------------------------

  /**
   * Deletes 20-second snapshots older than `cutoff`, product by product (a key range each:
   * there is no ts index). Books are stored only when they change, and as deltas from a
   * keyframe, so first each product's oldest kept row gets the full book it would otherwise
   * lose, and of the keyframes before the cutoff only the newest stays (later deltas may refer
   * to it). `batch` bounds the rows one statement deletes, so none holds the database for long.
   */
  async deleteSnapshotsBefore(cutoff: number, batch = 50_000): Promise<number> {
    // A scalar subquery with LIMIT: one key probe per product on both backends (never a scan).
    const products = await sql<{ id: number }>`select p.id from bazaar_products p
      where (select r.ts from bazaar_snapshot_rows r where r.product = p.id and r.ts < ${cutoff} order by r.ts limit 1) is not null`.execute(this.db);
    let deleted = 0;
    for (const { id } of products.rows) {
      const product = Number(id);
      await this.carryBookForward(product, cutoff);
      for (;;) {
        const oldest = await this.db
          .selectFrom('bazaar_snapshot_rows')
          .select('ts')
          .where('product', '=', product)
          .where('ts', '<', cutoff)
          .orderBy('ts')
          .offset(batch - 1)
          .limit(1)
          .executeTakeFirst();
        const until = oldest ? Number(oldest.ts) + 1 : cutoff;
        const result = await this.db.deleteFrom('bazaar_snapshot_rows').where('product', '=', product).where('ts', '<', until).executeTakeFirst();
        deleted += Number(result.numDeletedRows ?? 0);
        if (!oldest) break;
      }
      await sql`delete from bazaar_book_keyframes where product = ${product}
        and ts < (select max(k.ts) from bazaar_book_keyframes k where k.product = ${product} and k.ts <= ${cutoff})`.execute(this.db);
    }
    return deleted;
  }

  /** Makes the product's first row at or after `cutoff` carry a full book, unless it has one or a delta. */
  private async carryBookForward(product: number, cutoff: number): Promise<void> {
    const firstKept = await this.db
      .selectFrom('bazaar_snapshot_rows')
      .select(['ts', 'book'])
      .where('product', '=', product)
      .where('ts', '>=', cutoff)
      .orderBy('ts', 'asc')
      .limit(1)
      .executeTakeFirst();
    if (!firstKept || firstKept.book) return;
    const full = await this.resolvedBookAt(product, cutoff - 1);
    if (!full) return;
    await this.db
      .updateTable('bazaar_snapshot_rows')
      .set({ book: full })
      .where('product', '=', product)
      .where('ts', '=', Number(firstKept.ts))
      .execute();
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
    const raw = product === undefined ? undefined : await this.db.selectFrom('bazaar_snapshot_rows').select('ts').where('product', '=', product).limit(1).executeTakeFirst();
    if (raw) return true;
    const rolled = await this.db.selectFrom('bazaar_5m').select('ts').where('product_id', '=', productId).limit(1).executeTakeFirst();
    return rolled !== undefined;
  }

  /** 20-second snapshots of one product in [from, to), oldest first. */
  async snapshots(productId: string, from: number, to: number): Promise<HistoryPoint[]> {
    const product = await this.bazaar.books.numberOf(productId);
    if (product === undefined) return [];
    const rows = await this.db
      .selectFrom('bazaar_snapshot_rows')
      .select(['ts', ...FIRST_COLUMNS])
      .where('product', '=', product)
      .where('ts', '>=', from)
      .where('ts', '<', to)
      .orderBy('ts', 'asc')
      .execute();
    return rows.map(snapshotPoint);
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

  /** Time of the product's oldest stored 20-second snapshot. */
  async oldestSnapshotOf(productId: string): Promise<number | undefined> {
    const product = await this.bazaar.books.numberOf(productId);
    if (product === undefined) return undefined;
    const row = await this.db
      .selectFrom('bazaar_snapshot_rows')
      .select('ts')
      .where('product', '=', product)
      .orderBy('ts', 'asc')
      .limit(1)
      .executeTakeFirst();
    return row ? Number(row.ts) : undefined;
  }

  /**
   * One page of export rows with ts in (after, to), oldest first, as arrays in EXPORT_COLUMNS
   * order: the export's hot path, where building row objects cost more than the query. SQLite
   * gives numbers (better-sqlite3 raw rows), PostgreSQL the columns' text (pg array rows, no
   * parsing): both print the same JSON numbers. `source` '20s' reads snapshots (min/max and
   * samples left out: a snapshot is its own min and max), '5m' the 5-minute rows (book null).
   */
  async exportPage(source: '20s' | '5m', productId: string, after: number, to: number, limit: number, withBooks: boolean): Promise<ExportRow[]> {
    const raw = source === '20s';
    const columns = raw
      ? `ts, ${FIRST_COLUMNS.join(', ')}, ${withBooks ? 'book' : 'null'} as book`
      : `ts, ${FIRST_COLUMNS.join(', ')}, null as book, min_buy, max_buy, min_sell, max_sell, samples`;
    // 20-second rows by product number (their books raw: deltas are resolved by the caller, see resolveBooks).
    const product = raw ? await this.bazaar.books.numberOf(productId) : productId;
    if (product === undefined) return [];
    const text = `select ${columns} from ${raw ? 'bazaar_snapshot_rows where product' : 'bazaar_5m where product_id'} = $1 and ts > $2 and ts < $3 order by ts limit $4`;
    const params = [product, after, to, limit];
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
    const result = await sql<Record<string, unknown>>`select ${sql.raw(columns)} from ${sql.raw(raw ? 'bazaar_snapshot_rows where product' : 'bazaar_5m where product_id')}
      = ${product} and ts > ${after} and ts < ${to} order by ts limit ${limit}`.execute(this.db);
    return result.rows.map((r) => Object.values(r) as ExportRow);
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
