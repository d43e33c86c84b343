/**
 * Where bazaar snapshot rows live (migration 011): the open window(s) in `bazaar_recent_rows`
 * (keyed (ts, product): a snapshot appends), closed windows packed one chunk per product and
 * window in `bazaar_snapshot_chunks` (domain/bazaar-chunk.ts). Every reader goes through here
 * and sees one sequence of rows per product: chunk rows, then recent rows, merged by ts (a row
 * in both — the same upstream snapshot stored again after its window was packed — reads once,
 * from the chunk, as "the first copy stored wins" did before).
 *
 * Books are kept as stored (null = unchanged, a full book, or a delta naming its keyframe by
 * age); every chunk whose first row stores no book carries the book in effect there (a full
 * book copied, or the delta re-aged), apart from its rows, so the book at any time is found in
 * the recent rows or one chunk back, and rows read exactly as they were stored.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from '../db.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import { isFullBook } from '../../domain/bazaar-book.ts';
import { reageBookDelta } from '../../domain/bazaar-book-delta.ts';
import { CHUNK_MS, chunkStart, decodeChunk, decodeChunkColumns, decodeChunkPrices, decodeChunkWithCarry, encodeChunk, type Chunk, type ChunkRow, type RowColumns } from '../../domain/bazaar-chunk.ts';
import type { BazaarSnapshotChunksTable, BazaarSnapshotRowsTable, Database } from '../schema.ts';

export interface StoredRow extends ChunkRow {
  product: number;
}

/** A stored book and the time of the row that stored it. */
export interface StoredBook {
  ts: number;
  book: Uint8Array;
}

const ROW_COLUMNS = 'ts, buy_price, sell_price, buy_volume, sell_volume, buy_moving_week, sell_moving_week, buy_orders, sell_orders, product, book';

const RECENT: BulkSpec<BazaarSnapshotRowsTable> = {
  table: 'bazaar_recent_rows',
  columns: {
    ts: 'int8',
    buy_price: 'float8',
    sell_price: 'float8',
    buy_volume: 'int8',
    sell_volume: 'int8',
    buy_moving_week: 'int8',
    sell_moving_week: 'int8',
    product: 'int4',
    buy_orders: 'int4',
    sell_orders: 'int4',
    book: 'bytea',
  },
  // The same upstream snapshot stored twice (a retry, a restart) is a no-op.
  conflict: { target: ['ts', 'product'], update: 'nothing' },
};

const CHUNKS: BulkSpec<BazaarSnapshotChunksTable> = {
  table: 'bazaar_snapshot_chunks',
  columns: { start: 'int8', first_ts: 'int8', last_ts: 'int8', product: 'int4', row_count: 'int4', payload: 'bytea' },
  conflict: { target: ['product', 'start'], update: ['first_ts', 'last_ts', 'row_count', 'payload'] },
};

/** Rows one compaction transaction takes at most, unless one window holds more (a window is never split). */
const PACK_ROWS = 20_000;

/** Ranges up to this long read every product's chunks in one statement; longer ones product by product (bounded memory). */
const ONE_STATEMENT_RANGE = 2 * 60 * 60 * 1000;

type Db = Kysely<Database>;

export class BazaarRows {
  /**
   * Per product, the book in effect at the end of the window packed last (null: none stored),
   * valid for the window starting at `carriedFor`: the next run's first rows need it, and
   * looking it up costs two reads per product.
   */
  private carried = new Map<number, StoredBook | null>();
  private carriedFor = NaN;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
  ) {}

  /** Appends a snapshot's rows to the recent rows (inside the caller's transaction). */
  async insert(trx: Db, rows: readonly StoredRow[]): Promise<void> {
    await bulkInsert(trx, this.dialect, RECENT, rows);
  }

  // ---- one product -----------------------------------------------------------------

  /** One product's rows with ts in [from, to), oldest first, at most `limit` (books null unless `withBooks`). */
  async range(product: number, from: number, to: number, limit = Infinity, withBooks = true, db: Db = this.db): Promise<StoredRow[]> {
    if (to <= from || limit <= 0) return [];
    const packed: StoredRow[] = [];
    let after = from - CHUNK_MS;
    for (;;) {
      const batch = 32;
      const chunks = await sql<{ start: number; payload: Uint8Array }>`select start, payload from bazaar_snapshot_chunks
        where product = ${product} and start > ${after} and start < ${to} order by start limit ${batch}`.execute(db);
      for (const c of chunks.rows) {
        for (const r of decodeChunk(c.payload, withBooks) as StoredRow[]) {
          if (r.ts < from || r.ts >= to) continue;
          r.product = product;
          packed.push(r);
        }
      }
      if (chunks.rows.length < batch || packed.length >= limit) break;
      after = Number(chunks.rows[chunks.rows.length - 1]!.start);
    }
    const recent = await sql<StoredRow>`select ${sql.raw(withBooks ? ROW_COLUMNS : ROW_COLUMNS.replace('book', 'null as book'))} from bazaar_recent_rows
      where product = ${product} and ts >= ${from} and ts < ${to} order by ts ${Number.isFinite(limit) ? sql`limit ${limit}` : sql``}`.execute(db);
    return mergeByTs(packed, recent.rows.map(normalize), limit);
  }

  /**
   * One page of a product's rows with ts in [from, to), without books, appended to `out` as
   * columns: the rows of at most `maxChunks` chunks and the recent rows of the time they cover
   * (at most `maxRecent`), merged as range() merges them. Returns where the page ends (exclusive):
   * the next page starts there; `to` once the range is done. Pages follow chunk windows, so no
   * chunk is read twice (paging by row count re-read the chunk a page ended in).
   */
  async pageColumns(product: number, from: number, to: number, out: RowColumns, maxChunks: number, maxRecent: number, db: Db = this.db): Promise<number> {
    if (to <= from) return to;
    const chunks = await sql<{ start: number; payload: Uint8Array }>`select start, payload from bazaar_snapshot_chunks
      where product = ${product} and start > ${from - CHUNK_MS} and start < ${to} order by start limit ${maxChunks}`.execute(db);
    // A full batch may have more chunks after it: the page ends where its last chunk's window does.
    let end = chunks.rows.length === maxChunks ? Math.min(to, Number(chunks.rows[maxChunks - 1]!.start) + CHUNK_MS) : to;
    const base = out.length;
    for (const c of chunks.rows) decodeChunkColumns(c.payload, out, from, end);
    const recent = (
      await sql<StoredRow>`select ${sql.raw(ROW_COLUMNS.replace('book', 'null as book'))} from bazaar_recent_rows
      where product = ${product} and ts >= ${from} and ts < ${end} order by ts limit ${maxRecent}`.execute(db)
    ).rows.map(normalize);
    if (recent.length === maxRecent) {
      // More recent rows than a page holds: end the page after the last one read.
      end = recent[recent.length - 1]!.ts + 1;
      let keep = out.length;
      while (keep > base && out.ts[keep - 1]! >= end) keep--;
      out.truncate(keep);
    }
    out.merge(recent, base);
    return end;
  }

  /** One product's newest row at or before `ts`. */
  async lastAtOrBefore(product: number, ts: number, db: Db = this.db): Promise<StoredRow | undefined> {
    const recent = await sql<StoredRow>`select ${sql.raw(ROW_COLUMNS)} from bazaar_recent_rows
      where product = ${product} and ts <= ${ts} order by ts desc limit 1`.execute(db);
    const fromRecent = recent.rows[0] ? normalize(recent.rows[0]) : undefined;
    // Chunks can only hold something newer than the recent row when they end after it.
    const chunks = await sql<{ payload: Uint8Array }>`select payload from bazaar_snapshot_chunks
      where product = ${product} and start <= ${ts} and last_ts > ${fromRecent ? fromRecent.ts - 1 : -1} order by start desc limit 2`.execute(db);
    for (const c of chunks.rows) {
      const rows = decodeChunk(c.payload);
      for (let i = rows.length - 1; i >= 0; i--) {
        if (rows[i]!.ts <= ts) return fromRecent && fromRecent.ts > rows[i]!.ts ? fromRecent : { ...rows[i]!, product };
      }
    }
    return fromRecent;
  }

  /** One product's newest stored (unresolved) book at or before `ts`. */
  async bookAtOrBefore(product: number, ts: number, db: Db = this.db): Promise<StoredBook | undefined> {
    const recent = await sql<{ ts: number; book: Uint8Array }>`select ts, book from bazaar_recent_rows
      where product = ${product} and ts <= ${ts} and book is not null order by ts desc limit 1`.execute(db);
    const fromRecent = recent.rows[0] ? { ts: Number(recent.rows[0].ts), book: recent.rows[0].book } : undefined;
    // The chunk holding `ts` decides: a chunk has the book in effect at its first row (stored or
    // carried) whenever any book was stored before, so no earlier chunk is ever read. Its
    // predecessor is needed only when `ts` falls before the chunk's first row.
    const chunks = await sql<{ payload: Uint8Array }>`select payload from bazaar_snapshot_chunks
      where product = ${product} and start <= ${ts} and last_ts > ${fromRecent ? fromRecent.ts : -1} order by start desc limit 2`.execute(db);
    for (const c of chunks.rows) {
      const { rows, carried } = decodeChunkWithCarry(c.payload);
      if (!rows[0] || rows[0].ts > ts) continue;
      let found: StoredBook | undefined;
      for (let i = rows.length - 1; i >= 0 && !found; i--) {
        const r = rows[i]!;
        if (r.ts <= ts && r.book) found = { ts: r.ts, book: r.book };
      }
      if (!found && carried) found = { ts: rows[0].ts, book: carried };
      return found && (!fromRecent || found.ts >= fromRecent.ts) ? found : fromRecent;
    }
    return fromRecent;
  }

  /** One product's oldest row time. */
  async oldestOf(product: number): Promise<number | undefined> {
    const chunk = await sql<{ ts: number }>`select first_ts as ts from bazaar_snapshot_chunks where product = ${product} order by start limit 1`.execute(this.db);
    const recent = await sql<{ ts: number }>`select ts from bazaar_recent_rows where product = ${product} order by ts limit 1`.execute(this.db);
    const times = [chunk.rows[0]?.ts, recent.rows[0]?.ts].filter((t) => t !== undefined).map(Number);
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** True when any row of the product is stored. */
  async has(product: number): Promise<boolean> {
    const chunk = await this.db.selectFrom('bazaar_snapshot_chunks').select('start').where('product', '=', product).limit(1).executeTakeFirst();
    if (chunk) return true;
    const recent = await this.db.selectFrom('bazaar_recent_rows').select('ts').where('product', '=', product).limit(1).executeTakeFirst();
    return recent !== undefined;
  }

  // ---- every product ---------------------------------------------------------------

  /**
   * Calls `visit` for every product's rows with ts in [from, to): chunk rows product by product
   * (each product's oldest first), then the recent rows not already read from a chunk. Memory
   * stays bounded by one product's chunks and the recent rows in the range. `pricesOnly`: rows
   * read from chunks carry only ts and prices (the rest 0 or null), decoded at a fraction of the cost.
   */
  async scanAll(from: number, to: number, visit: (row: StoredRow) => void, pricesOnly = false): Promise<void> {
    if (to <= from) return;
    const recent = (await sql<StoredRow>`select ${sql.raw(ROW_COLUMNS)} from bazaar_recent_rows where ts >= ${from} and ts < ${to} order by ts, product`.execute(this.db)).rows.map(normalize);
    const recentKeys = new Set(recent.map((r) => rowKey(r.product, r.ts)));
    const shadowed = new Set<string>();
    const visitChunk = (product: number, payload: Uint8Array) => {
      for (const r of (pricesOnly ? decodeChunkPrices(payload) : decodeChunk(payload)) as StoredRow[]) {
        if (r.ts < from || r.ts >= to) continue;
        if (recentKeys.size > 0 && recentKeys.has(rowKey(product, r.ts))) shadowed.add(rowKey(product, r.ts));
        r.product = product;
        visit(r);
      }
    };
    if (to - from <= ONE_STATEMENT_RANGE) {
      const chunks = await sql<{ product: number; payload: Uint8Array }>`select c.product, c.payload from ${chunksPerProduct(this.dialect, sql`c.start > ${from - CHUNK_MS} and c.start < ${to}`)}`.execute(this.db);
      for (const c of chunks.rows) visitChunk(Number(c.product), c.payload);
    } else {
      const products = await this.db.selectFrom('bazaar_products').select('id').orderBy('id').execute();
      for (const { id } of products) {
        const product = Number(id);
        const chunks = await sql<{ payload: Uint8Array }>`select payload from bazaar_snapshot_chunks
          where product = ${product} and start > ${from - CHUNK_MS} and start < ${to} order by start`.execute(this.db);
        for (const c of chunks.rows) visitChunk(product, c.payload);
      }
    }
    for (const r of recent) if (shadowed.size === 0 || !shadowed.has(rowKey(r.product, r.ts))) visit(r);
  }

  /** Every product's rows with ts in [from, to), oldest first (then by product number). */
  async rangeAll(from: number, to: number): Promise<StoredRow[]> {
    const out: StoredRow[] = [];
    await this.scanAll(from, to, (r) => out.push(r));
    return out.sort((a, b) => a.ts - b.ts || a.product - b.product);
  }

  /** Time of the newest stored row of any product. */
  async newestTs(): Promise<number | null> {
    const recent = await sql<{ ts: number | null }>`select max(ts) as ts from bazaar_recent_rows`.execute(this.db);
    const chunks = await sql<{ ts: number | null }>`select max((select c.last_ts from bazaar_snapshot_chunks c where c.product = p.id order by c.start desc limit 1)) as ts from bazaar_products p`.execute(this.db);
    const times = [recent.rows[0]?.ts, chunks.rows[0]?.ts].filter((t) => t !== null && t !== undefined).map(Number);
    return times.length > 0 ? Math.max(...times) : null;
  }

  /**
   * The first row time at or after `ts` over all products; when `ts` falls inside a chunk's
   * window, `ts` itself may stand in for that chunk's first row after it (callers use this to
   * skip empty stretches, where starting a little early costs nothing). Exact for -Infinity.
   */
  async firstFrom(ts: number): Promise<number | undefined> {
    const bound = Number.isFinite(ts) ? ts : -1;
    const recent = await sql<{ ts: number | null }>`select min(ts) as ts from bazaar_recent_rows where ts >= ${bound}`.execute(this.db);
    const chunks = await sql<{ ts: number | null }>`select min((select c.first_ts from bazaar_snapshot_chunks c
      where c.product = p.id and c.start > ${bound - CHUNK_MS} and c.last_ts >= ${bound} order by c.start limit 1)) as ts from bazaar_products p`.execute(this.db);
    const times = [recent.rows[0]?.ts, chunks.rows[0]?.ts].filter((t) => t !== null && t !== undefined).map((t) => Math.max(Number(t), bound));
    return times.length > 0 ? Math.min(...times) : undefined;
  }

  /** Rows stored (recent rows and rows in chunks). */
  async count(): Promise<number> {
    const recent = await this.db.selectFrom('bazaar_recent_rows').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const packed = await this.db.selectFrom('bazaar_snapshot_chunks').select((eb) => eb.fn.sum<number>('row_count').as('n')).executeTakeFirstOrThrow();
    return Number(recent.n) + Number(packed.n ?? 0);
  }

  // ---- compaction ------------------------------------------------------------------

  /**
   * Packs every window of recent rows that ends at or before `before` into chunks, oldest window
   * first. The recent rows are deleted and the chunks written in one transaction (a crash leaves
   * either); a transaction packs one window, or several small ones (catching up on sparse
   * history) up to about PACK_ROWS rows. A window that already has chunks (a snapshot stored
   * late) is merged into them. Re-running is harmless; after downtime it catches up. Returns the
   * windows and rows packed.
   */
  async compact(before: number): Promise<{ windows: number; rows: number }> {
    let windows = 0;
    let rows = 0;
    // Seek from where the last window ended: PostgreSQL's index still holds the deleted rows until
    // vacuum, and min(ts) over the whole table would step over all of them every window.
    let cursor = -1;
    for (;;) {
      const first = await this.nextWindow(cursor, before);
      if (first === undefined) break;
      // Remembered books hold only for the window right after the last one packed: a late row in an
      // older window is packed first (oldest first) and so resets them.
      const known = this.carriedFor === first ? new Map(this.carried) : new Map<number, StoredBook | null>();
      const done = await this.db.transaction().execute(async (trx) => {
        let start: number | undefined = first;
        let taken = 0;
        let count = 0;
        while (start !== undefined) {
          taken += await this.packWindow(trx, start, known);
          count++;
          cursor = start + CHUNK_MS;
          if (taken >= PACK_ROWS) break;
          start = await this.nextWindow(cursor, before, trx);
          // Books remembered from the window just packed hold for the next one only if adjacent.
          if (start !== undefined && start !== cursor) known.clear();
        }
        return { taken, count };
      });
      this.carried = known;
      this.carriedFor = cursor;
      windows += done.count;
      rows += done.taken;
      // SQLite statements run on the event loop: let requests in between transactions.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { windows, rows };
  }

  /** Start of the oldest window with recent rows at or after `from` that ends by `before`. */
  private async nextWindow(from: number, before: number, db: Db = this.db): Promise<number | undefined> {
    const oldest = (await sql<{ ts: number | null }>`select min(ts) as ts from bazaar_recent_rows where ts >= ${from}`.execute(db)).rows[0]?.ts;
    if (oldest === null || oldest === undefined) return undefined;
    const start = chunkStart(Number(oldest));
    return start + CHUNK_MS <= before ? start : undefined;
  }

  /**
   * Moves one window's recent rows into its chunks (inside `trx`); `known` holds, per product,
   * the book in effect before the window where already known, and is updated to the end of it.
   */
  private async packWindow(trx: Db, start: number, known: Map<number, StoredBook | null>): Promise<number> {
    // PostgreSQL: DELETE … RETURNING takes exactly the rows it deletes (a snapshot committed
    // meanwhile stays for the next run). SQLite serialises writers, so the transaction's own
    // read is the same set, and a plain delete after it costs half of RETURNING.
    const window = sql`ts >= ${start} and ts < ${start + CHUNK_MS}`;
    let taken: StoredRow[];
    if (this.dialect === 'postgres') {
      taken = (await sql<StoredRow>`delete from bazaar_recent_rows where ${window} returning ${sql.raw(ROW_COLUMNS)}`.execute(trx)).rows.map(normalize);
    } else {
      taken = (await sql<StoredRow>`select ${sql.raw(ROW_COLUMNS)} from bazaar_recent_rows where ${window}`.execute(trx)).rows.map(normalize);
      await sql`delete from bazaar_recent_rows where ${window}`.execute(trx);
    }
    const byProduct = new Map<number, StoredRow[]>();
    for (const r of taken) {
      let list = byProduct.get(r.product);
      if (!list) byProduct.set(r.product, (list = []));
      list.push(r);
    }
    const existing = new Map<number, Chunk>();
    const products = [...byProduct.keys()];
    for (let i = 0; i < products.length; i += 500) {
      const some = products.slice(i, i + 500);
      const found = await trx.selectFrom('bazaar_snapshot_chunks').select(['product', 'payload']).where('start', '=', start).where('product', 'in', some).execute();
      for (const c of found) existing.set(Number(c.product), decodeChunkWithCarry(c.payload));
    }
    const chunks: BazaarSnapshotChunksTable[] = [];
    for (const [product, fresh] of byProduct) {
      const old = existing.get(product);
      const merged = mergeByTs(old?.rows.map((r) => ({ ...r, product })) ?? [], fresh.sort((a, b) => a.ts - b.ts), Infinity);
      const first = merged[0]!;
      let carried: Uint8Array | null = null;
      if (!first.book) {
        const inEffect = old?.carried && old.rows[0]?.ts === first.ts ? { ts: first.ts, book: old.carried } : known.has(product) ? known.get(product) : await this.bookAtOrBefore(product, first.ts - 1, trx);
        if (inEffect) carried = carryTo(inEffect, first.ts);
      }
      let newest: StoredBook | undefined = carried ? { ts: first.ts, book: carried } : undefined;
      for (let i = merged.length - 1; i >= 0; i--) {
        if (merged[i]!.book) {
          newest = { ts: merged[i]!.ts, book: merged[i]!.book! };
          break;
        }
      }
      known.set(product, newest ?? null);
      chunks.push({ product, start, first_ts: first.ts, last_ts: merged[merged.length - 1]!.ts, row_count: merged.length, payload: encodeChunk(merged, carried) });
    }
    await bulkInsert(trx, this.dialect, CHUNKS, chunks);
    return taken.length;
  }

  // ---- retention -------------------------------------------------------------------

  /**
   * Deletes the product's rows older than `cutoff` (chunks wholly before it, the older part of
   * the chunk it falls in, recent rows in statements of at most `batch` rows) and makes its
   * first kept row carry the book in effect, in one transaction (a crash never leaves the kept
   * rows without their book). Returns the rows deleted.
   */
  async deleteBefore(product: number, cutoff: number, batch: number): Promise<number> {
    return this.db.transaction().execute((trx) => this.deleteBeforeIn(trx, product, cutoff, batch));
  }

  private async deleteBeforeIn(db: Db, product: number, cutoff: number, batch: number): Promise<number> {
    const inEffect = await this.bookAtOrBefore(product, cutoff - 1, db);
    let deleted = 0;
    const whole = await db
      .selectFrom('bazaar_snapshot_chunks')
      .select((eb) => eb.fn.sum<number>('row_count').as('n'))
      .where('product', '=', product)
      .where('start', '<=', cutoff - CHUNK_MS)
      .executeTakeFirst();
    if (Number(whole?.n ?? 0) > 0) {
      await db.deleteFrom('bazaar_snapshot_chunks').where('product', '=', product).where('start', '<=', cutoff - CHUNK_MS).execute();
      deleted += Number(whole!.n);
    }
    const straddling = await db
      .selectFrom('bazaar_snapshot_chunks')
      .select(['start', 'payload'])
      .where('product', '=', product)
      .where('start', '>', cutoff - CHUNK_MS)
      .where('start', '<', cutoff)
      .executeTakeFirst();
    if (straddling) {
      const rows = decodeChunk(straddling.payload);
      const kept = rows.filter((r) => r.ts >= cutoff);
      deleted += rows.length - kept.length;
      const where = db.deleteFrom('bazaar_snapshot_chunks').where('product', '=', product).where('start', '=', Number(straddling.start));
      if (kept.length === 0) await where.execute();
      else if (kept.length < rows.length) {
        // The kept part carries the book in effect at its first row (set below from `inEffect`).
        await bulkInsert(db, this.dialect, CHUNKS, [{ product, start: Number(straddling.start), first_ts: kept[0]!.ts, last_ts: kept[kept.length - 1]!.ts, row_count: kept.length, payload: encodeChunk(kept) }]);
      }
    }
    for (;;) {
      const oldest = await db
        .selectFrom('bazaar_recent_rows')
        .select('ts')
        .where('product', '=', product)
        .where('ts', '<', cutoff)
        .orderBy('ts')
        .offset(batch - 1)
        .limit(1)
        .executeTakeFirst();
      const until = oldest ? Number(oldest.ts) + 1 : cutoff;
      const result = await db.deleteFrom('bazaar_recent_rows').where('product', '=', product).where('ts', '<', until).executeTakeFirst();
      deleted += Number(result.numDeletedRows ?? 0);
      if (!oldest) break;
    }
    if (deleted > 0 && inEffect) await this.carryToFirstRow(db, product, cutoff, inEffect);
    return deleted;
  }

  /** Products with rows older than `cutoff` (one key probe per product and table). */
  async productsWithRowsBefore(cutoff: number): Promise<number[]> {
    const rows = await sql<{ id: number }>`select p.id from bazaar_products p
      where exists (select 1 from bazaar_snapshot_chunks c where c.product = p.id and c.start < ${cutoff})
        or exists (select 1 from bazaar_recent_rows r where r.product = p.id and r.ts < ${cutoff})`.execute(this.db);
    return rows.rows.map((r) => Number(r.id));
  }

  /** Gives the product's first row at or after `cutoff` the book `inEffect` when it stores none. */
  private async carryToFirstRow(db: Db, product: number, cutoff: number, inEffect: StoredBook): Promise<void> {
    const chunk = await db.selectFrom('bazaar_snapshot_chunks').select(['start', 'payload']).where('product', '=', product).where('start', '>', cutoff - CHUNK_MS).orderBy('start').limit(1).executeTakeFirst();
    const recent = await db.selectFrom('bazaar_recent_rows').select(['ts', 'book']).where('product', '=', product).where('ts', '>=', cutoff).orderBy('ts').limit(1).executeTakeFirst();
    const packed = chunk ? decodeChunkWithCarry(chunk.payload) : undefined;
    const firstPacked = packed?.rows[0];
    if (packed && firstPacked && (!recent || firstPacked.ts <= Number(recent.ts))) {
      if (firstPacked.book || packed.carried) return;
      const last = packed.rows[packed.rows.length - 1]!;
      const payload = encodeChunk(packed.rows, carryTo(inEffect, firstPacked.ts));
      await bulkInsert(db, this.dialect, CHUNKS, [{ product, start: Number(chunk!.start), first_ts: firstPacked.ts, last_ts: last.ts, row_count: packed.rows.length, payload }]);
    } else if (recent && !recent.book) {
      await db.updateTable('bazaar_recent_rows').set({ book: carryTo(inEffect, Number(recent.ts)) }).where('product', '=', product).where('ts', '=', Number(recent.ts)).execute();
    }
  }
}

/** A stored book as a later row stores it: a full book as it is, a delta re-aged to name the same keyframe. */
export function carryTo(stored: StoredBook, ts: number): Uint8Array {
  return isFullBook(stored.book) ? stored.book : reageBookDelta(stored.book, ts - stored.ts);
}

/**
 * `bazaar_products p` joined to the chunks `c` of each product that match `where`: one
 * key-range seek per product (PostgreSQL: a LATERAL subquery behind OFFSET 0, else its planner
 * may hash-join a scan of the whole table; SQLite: CROSS JOIN keeps the products outside).
 */
function chunksPerProduct(dialect: Dialect, where: RawBuilder<unknown>): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`bazaar_products p cross join lateral (select product, payload from bazaar_snapshot_chunks c where c.product = p.id and ${where} offset 0) c`
    : sql`bazaar_products p cross join bazaar_snapshot_chunks c on c.product = p.id and ${where}`;
}

function rowKey(product: number, ts: number): string {
  return `${product}:${ts}`;
}

/** Both lists sorted by ts; the packed row wins when both hold one ts. */
function mergeByTs(packed: StoredRow[], recent: StoredRow[], limit: number): StoredRow[] {
  if (recent.length === 0) return Number.isFinite(limit) ? packed.slice(0, limit) : packed;
  if (packed.length === 0) return Number.isFinite(limit) ? recent.slice(0, limit) : recent;
  const out: StoredRow[] = [];
  let i = 0;
  let j = 0;
  while ((i < packed.length || j < recent.length) && out.length < limit) {
    const a = packed[i];
    const b = recent[j];
    if (a && (!b || a.ts <= b.ts)) {
      out.push(a);
      i++;
      if (b && b.ts === a.ts) j++;
    } else {
      out.push(b!);
      j++;
    }
  }
  return out;
}

function normalize(r: StoredRow): StoredRow {
  return {
    ts: Number(r.ts),
    buy_price: Number(r.buy_price),
    sell_price: Number(r.sell_price),
    buy_volume: Number(r.buy_volume),
    sell_volume: Number(r.sell_volume),
    buy_moving_week: Number(r.buy_moving_week),
    sell_moving_week: Number(r.sell_moving_week),
    buy_orders: Number(r.buy_orders),
    sell_orders: Number(r.sell_orders),
    product: Number(r.product),
    book: r.book ?? null,
  };
}
