/**
 * A chunk: one product's 20-second snapshot rows of one closed time window, packed into one
 * value (migration 011, `bazaar_snapshot_chunks`). One stored row per product per window
 * instead of one per snapshot amortises the per-row overhead of the database (PostgreSQL:
 * ~56 bytes of tuple header, line pointer and key entry per row), and column-wise deltas
 * compress what changes little from one snapshot to the next.
 *
 * Format: u8 version (1), then a raw deflate stream of
 *   varint row count, varint first ts, varint ts deltas (rows are in strictly rising ts order),
 *   then per numeric column (buy_price, sell_price, buy_volume, sell_volume, buy_moving_week,
 *   sell_moving_week, buy_orders, sell_orders) a u8 mode and the values:
 *     mode 0: integers, zigzag varint deltas from the previous row's value (first from 0)
 *     mode 1: whole tenths, the same on value × 10
 *     mode 2: f64 LE each (anything else: fractions, huge values, NaN)
 *   then per row the stored book, as it was stored in its row: varint 0 = null (unchanged
 *   since the product's previous row), else varint length + 1 and the bytes (a full book or a
 *   delta from a keyframe, domain/bazaar-book.ts and bazaar-book-delta.ts), then the book
 *   carried into the window the same way (0 = none): the book in effect at the first row when
 *   that row stores none, so the book at any time is found without reading earlier windows. It
 *   is kept apart from the rows, which read exactly as they were stored.
 * Pure: no I/O.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { readVarint, writeVarint } from './bazaar-book.ts';
import { MINUTE } from './bazaar-history.ts';

/** Window length of a chunk: chunks start at multiples of it (UTC epoch ms). Changing it needs a migration. */
export const CHUNK_MS = 10 * MINUTE;

const VERSION = 1;
const INTEGERS = 0;
const TENTHS = 1;
const FLOATS = 2;
/** Magnitude up to which deltas and their zigzag stay exact doubles. */
const SAFE = 2 ** 50;
/** Bound on a chunk's inflated size: far above a window of rows with full books. */
const MAX_INFLATED = 64 * 1024 * 1024;

export interface ChunkRow {
  ts: number;
  buy_price: number;
  sell_price: number;
  buy_volume: number;
  sell_volume: number;
  buy_moving_week: number;
  sell_moving_week: number;
  buy_orders: number;
  sell_orders: number;
  book: Uint8Array | null;
}

export const CHUNK_COLUMNS = ['buy_price', 'sell_price', 'buy_volume', 'sell_volume', 'buy_moving_week', 'sell_moving_week', 'buy_orders', 'sell_orders'] as const;

/** Start of the chunk window holding `ts`. */
export function chunkStart(ts: number): number {
  return Math.floor(ts / CHUNK_MS) * CHUNK_MS;
}

/** A chunk's rows and the book carried into its window (in effect at the first row, stored as of the first row's ts). */
export interface Chunk {
  rows: ChunkRow[];
  carried: Uint8Array | null;
}

/** Packs rows (strictly rising ts, non-negative integer ts) and the carried book into a chunk payload. */
export function encodeChunk(rows: readonly ChunkRow[], carried: Uint8Array | null = null): Buffer {
  let capacity = 26 + (carried?.length ?? 0) + rows.length * (10 + CHUNK_COLUMNS.length * 10);
  for (const r of rows) capacity += 10 + (r.book?.length ?? 0);
  const out = Buffer.allocUnsafe(capacity);
  let at = writeVarint(out, 0, rows.length);
  let previousTs = 0;
  for (const [i, r] of rows.entries()) {
    if (!Number.isSafeInteger(r.ts) || r.ts < 0 || (i > 0 && r.ts <= previousTs)) throw new Error('chunk rows need rising non-negative integer times');
    at = writeVarint(out, at, r.ts - previousTs);
    previousTs = r.ts;
  }
  for (const column of CHUNK_COLUMNS) {
    const mode = columnMode(rows, column);
    out[at++] = mode;
    let previous = 0;
    for (const r of rows) {
      const value = r[column];
      if (mode === FLOATS) {
        out.writeDoubleLE(value, at);
        at += 8;
        continue;
      }
      const v = mode === TENTHS ? Math.round(value * 10) : value;
      const d = v - previous;
      at = writeVarint(out, at, d >= 0 ? d * 2 : -d * 2 - 1);
      previous = v;
    }
  }
  for (const book of [...rows.map((r) => r.book), carried]) {
    if (!book) {
      out[at++] = 0;
      continue;
    }
    at = writeVarint(out, at, book.length + 1);
    out.set(book, at);
    at += book.length;
  }
  const packed = deflateRawSync(out.subarray(0, at));
  const payload = Buffer.allocUnsafe(1 + packed.length);
  payload[0] = VERSION;
  packed.copy(payload, 1);
  return payload;
}

/**
 * The rows of a chunk payload, oldest first; `withBooks` false leaves every book null (saves
 * copying them out when the reader does not want them). Throws on corrupt data.
 */
export function decodeChunk(payload: Uint8Array, withBooks = true): ChunkRow[] {
  return decodeChunkWithCarry(payload, withBooks).rows;
}

/**
 * Only the times and prices of a chunk's rows (the other columns read as 0, books as null): for
 * readers of long ranges that need nothing else, at a fraction of the decoding.
 */
export function decodeChunkPrices(payload: Uint8Array): ChunkRow[] {
  return decodeChunkWithCarry(payload, false, 2).rows;
}

/**
 * The rows of a chunk payload and the book carried into its window. Throws on corrupt data.
 * `columns` < all stops after the first `columns` numeric columns (books are then not read).
 */
export function decodeChunkWithCarry(payload: Uint8Array, withBooks = true, columns: number = CHUNK_COLUMNS.length): Chunk {
  if (payload.length < 2 || payload[0] !== VERSION) throw new Error('unknown bazaar chunk encoding');
  const view = inflateRawSync(payload.subarray(1), { maxOutputLength: MAX_INFLATED });
  const pos = { at: 0 };
  const count = readVarint(view, pos);
  if (count > view.length) throw new Error('corrupt bazaar chunk');
  const rows: ChunkRow[] = new Array(count);
  let ts = 0;
  for (let i = 0; i < count; i++) {
    ts += readVarint(view, pos);
    rows[i] = { ts, buy_price: 0, sell_price: 0, buy_volume: 0, sell_volume: 0, buy_moving_week: 0, sell_moving_week: 0, buy_orders: 0, sell_orders: 0, book: null };
  }
  for (const column of CHUNK_COLUMNS.slice(0, columns)) {
    if (pos.at >= view.length) throw new Error('truncated bazaar chunk');
    const mode = view[pos.at++]!;
    if (mode > FLOATS) throw new Error('corrupt bazaar chunk: column mode');
    let previous = 0;
    for (const r of rows) {
      if (mode === FLOATS) {
        if (pos.at + 8 > view.length) throw new Error('truncated bazaar chunk');
        r[column] = view.readDoubleLE(pos.at);
        pos.at += 8;
        continue;
      }
      const z = readVarint(view, pos);
      previous += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      r[column] = mode === TENTHS ? previous / 10 : previous;
    }
  }
  if (columns < CHUNK_COLUMNS.length) return { rows, carried: null };
  const readBook = (): Uint8Array | null => {
    const length = readVarint(view, pos);
    if (length === 0) return null;
    if (pos.at + length - 1 > view.length) throw new Error('truncated bazaar chunk');
    const book = withBooks ? Buffer.from(view.subarray(pos.at, pos.at + length - 1)) : null;
    pos.at += length - 1;
    return book;
  };
  for (const r of rows) r.book = readBook();
  const carried = readBook();
  if (pos.at !== view.length) throw new Error('corrupt bazaar chunk: trailing bytes');
  return { rows, carried };
}

function columnMode(rows: readonly ChunkRow[], column: (typeof CHUNK_COLUMNS)[number]): number {
  let integers = true;
  let tenths = true;
  for (const r of rows) {
    const v = r[column];
    if (integers && !(Number.isSafeInteger(v) && Math.abs(v) <= SAFE / 2)) integers = false;
    if (tenths) {
      const t = Math.round(v * 10);
      if (!(Number.isFinite(v) && t / 10 === v && Math.abs(t) <= SAFE / 2)) tenths = false;
    }
    if (!integers && !tenths) return FLOATS;
  }
  return integers ? INTEGERS : TENTHS;
}
