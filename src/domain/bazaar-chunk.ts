/**
 * A chunk: one product's 20-second snapshot rows of one closed time window, packed into one
 * value (migration 011, `bazaar_snapshot_chunks`). One stored row per product per window
 * instead of one per snapshot amortises the per-row overhead of the database (PostgreSQL:
 * ~56 bytes of tuple header, line pointer and key entry per row), and column-wise deltas
 * compress what changes little from one snapshot to the next.
 *
 * Two sections, each deflated (raw deflate):
 *   columns: varint row count, varint first ts, varint ts deltas (rows are in strictly rising
 *     ts order), then per numeric column (buy_price, sell_price, buy_volume, sell_volume,
 *     buy_moving_week, sell_moving_week, buy_orders, sell_orders) a u8 mode and the values:
 *       mode 0: integers, zigzag varint deltas from the previous row's value (first from 0)
 *       mode 1: whole tenths, the same on value × 10
 *       mode 2: f64 LE each (anything else: fractions, huge values, NaN)
 *   books: per row the stored book, as it was stored in its row: varint 0 = null (unchanged
 *     since the product's previous row), else varint length + 1 and the bytes (a full book or
 *     a delta from a keyframe, domain/bazaar-book.ts and bazaar-book-delta.ts), then the book
 *     carried into the window the same way (0 = none): the book in effect at the first row when
 *     that row stores none, so the book at any time is found without reading earlier windows.
 *     It is kept apart from the rows, which read exactly as they were stored.
 * Payload, version 1: u8 1, then one deflate stream of the columns followed by the books.
 * Version 2, for chunks whose books take more than SPLIT_BOOKS bytes: u8 2, varint length of
 * the deflated columns, the deflated columns, then the deflated books. Readers that want no
 * books (history, the export without books) inflate the columns only: in a window of full
 * books the books are ~90 % of the inflated bytes and most of the inflate time. A second
 * stream costs its own Huffman tables (~40 bytes), which small book sections (calm books
 * stored as short deltas) do not earn back, so those stay in version 1.
 * Pure: no I/O.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { readVarint, writeVarint } from './bazaar-book.ts';
import { MINUTE } from './bazaar-history.ts';

/** Window length of a chunk: chunks start at multiples of it (UTC epoch ms). Changing it needs a migration. */
export const CHUNK_MS = 10 * MINUTE;

/** One deflate stream: columns, then books. */
const V1 = 1;
/** Columns and books deflated apart (see above). */
const V2 = 2;
/** Book sections up to this many bytes share the columns' deflate stream (version 1). */
export const SPLIT_BOOKS = 2048;
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
  const columns = Buffer.allocUnsafe(16 + rows.length * (10 + CHUNK_COLUMNS.length * 10));
  let at = writeVarint(columns, 0, rows.length);
  let previousTs = 0;
  for (const [i, r] of rows.entries()) {
    if (!Number.isSafeInteger(r.ts) || r.ts < 0 || (i > 0 && r.ts <= previousTs)) throw new Error('chunk rows need rising non-negative integer times');
    at = writeVarint(columns, at, r.ts - previousTs);
    previousTs = r.ts;
  }
  for (const column of CHUNK_COLUMNS) {
    const mode = columnMode(rows, column);
    columns[at++] = mode;
    let previous = 0;
    for (const r of rows) {
      const value = r[column];
      if (mode === FLOATS) {
        columns.writeDoubleLE(value, at);
        at += 8;
        continue;
      }
      const v = mode === TENTHS ? Math.round(value * 10) : value;
      const d = v - previous;
      at = writeVarint(columns, at, d >= 0 ? d * 2 : -d * 2 - 1);
      previous = v;
    }
  }
  const books = [...rows.map((r) => r.book), carried];
  let capacity = 0;
  for (const book of books) capacity += 10 + (book?.length ?? 0);
  const bookBytes = Buffer.allocUnsafe(capacity);
  let b = 0;
  for (const book of books) {
    if (!book) {
      bookBytes[b++] = 0;
      continue;
    }
    b = writeVarint(bookBytes, b, book.length + 1);
    bookBytes.set(book, b);
    b += book.length;
  }
  if (b <= SPLIT_BOOKS) {
    const packed = deflateRawSync(Buffer.concat([columns.subarray(0, at), bookBytes.subarray(0, b)]));
    return Buffer.concat([Buffer.from([V1]), packed]);
  }
  const packedColumns = deflateRawSync(columns.subarray(0, at));
  const packedBooks = deflateRawSync(bookBytes.subarray(0, b));
  const payload = Buffer.allocUnsafe(11 + packedColumns.length + packedBooks.length);
  payload[0] = V2;
  let p = writeVarint(payload, 1, packedColumns.length);
  p += packedColumns.copy(payload, p);
  p += packedBooks.copy(payload, p);
  return payload.subarray(0, p);
}

/** A payload's inflated column section (positioned at its start) and a reader of its book section. */
interface Opened {
  view: Buffer;
  pos: { at: number };
  /** the inflated book section and where it starts; null: the chunk stores no book */
  books(): { view: Buffer; pos: { at: number } } | null;
}

function openChunk(payload: Uint8Array): Opened {
  if (payload.length < 2 || (payload[0] !== V1 && payload[0] !== V2)) throw new Error('unknown bazaar chunk encoding');
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (payload[0] === V1) {
    const view = inflateRawSync(bytes.subarray(1), { maxOutputLength: MAX_INFLATED });
    const pos = { at: 0 };
    // The books follow the columns in the same stream.
    return { view, pos, books: () => ({ view, pos }) };
  }
  const head = { at: 1 };
  const length = readVarint(bytes, head);
  if (head.at + length > bytes.length) throw new Error('truncated bazaar chunk');
  const view = inflateRawSync(bytes.subarray(head.at, head.at + length), { maxOutputLength: MAX_INFLATED });
  return {
    view,
    pos: { at: 0 },
    books: () => (head.at + length === bytes.length ? null : { view: inflateRawSync(bytes.subarray(head.at + length), { maxOutputLength: MAX_INFLATED }), pos: { at: 0 } }),
  };
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
  const opened = openChunk(payload);
  const { view, pos } = opened;
  const count = readVarint(view, pos);
  if (count > view.length) throw new Error('corrupt bazaar chunk');
  const rows: ChunkRow[] = new Array(count);
  let ts = 0;
  for (let i = 0; i < count; i++) {
    ts += readVarint(view, pos);
    rows[i] = { ts, buy_price: 0, sell_price: 0, buy_volume: 0, sell_volume: 0, buy_moving_week: 0, sell_moving_week: 0, buy_orders: 0, sell_orders: 0, book: null };
  }
  const values = new Array<number>(count);
  for (const column of CHUNK_COLUMNS.slice(0, columns)) {
    readColumn(view, pos, values, 0, count);
    for (let i = 0; i < count; i++) rows[i]![column] = values[i]!;
  }
  if (columns < CHUNK_COLUMNS.length) return { rows, carried: null };
  if (payload[0] === V2) {
    if (pos.at !== view.length) throw new Error('corrupt bazaar chunk: trailing bytes');
    // Without books wanted, the book section is not even inflated.
    if (!withBooks) return { rows, carried: null };
  }
  const section = opened.books();
  if (!section) return { rows, carried: null };
  const readBook = (): Uint8Array | null => {
    const length = readVarint(section.view, section.pos);
    if (length === 0) return null;
    if (section.pos.at + length - 1 > section.view.length) throw new Error('truncated bazaar chunk');
    const book = withBooks ? Buffer.from(section.view.subarray(section.pos.at, section.pos.at + length - 1)) : null;
    section.pos.at += length - 1;
    return book;
  };
  for (const r of rows) r.book = readBook();
  const carried = readBook();
  if (section.pos.at !== section.view.length) throw new Error('corrupt bazaar chunk: trailing bytes');
  return { rows, carried };
}

/**
 * Rows held column by column (no books), in growable typed arrays: the export's pages, where
 * an object per row cost more than decoding the chunk.
 */
export class RowColumns {
  length = 0;
  ts: Float64Array;
  /** one array per CHUNK_COLUMNS entry, in that order */
  values: Float64Array[];

  constructor(capacity = 1024) {
    this.ts = new Float64Array(capacity);
    this.values = CHUNK_COLUMNS.map(() => new Float64Array(capacity));
  }

  clear(): void {
    this.length = 0;
  }

  /** Room for `more` rows after the current ones. */
  reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.ts.length) return;
    const capacity = Math.max(need, this.ts.length * 2);
    const grow = (a: Float64Array) => {
      const b = new Float64Array(capacity);
      b.set(a.subarray(0, this.length));
      return b;
    };
    this.ts = grow(this.ts);
    this.values = this.values.map(grow);
  }

  /** Drops the rows from index `from` on. */
  truncate(from: number): void {
    this.length = Math.min(this.length, Math.max(0, from));
  }

  /**
   * Merges `rows` (rising ts) into the rows from index `from` on (rising ts too); a row whose
   * ts is already there is left out (the row already held wins).
   */
  merge(rows: readonly ChunkRow[], from: number): void {
    if (rows.length === 0) return;
    const held = this.length - from;
    // The usual case: the new rows all come after the held ones.
    if (held === 0 || rows[0]!.ts > this.ts[this.length - 1]!) {
      this.reserve(rows.length);
      for (const r of rows) this.set(this.length++, r);
      return;
    }
    const old = { ts: this.ts.slice(from, this.length), values: this.values.map((v) => v.slice(from, this.length)) };
    this.reserve(rows.length);
    let i = 0;
    let j = 0;
    let at = from;
    while (i < held || j < rows.length) {
      const r = rows[j];
      if (i < held && (!r || old.ts[i]! <= r.ts)) {
        if (r && old.ts[i] === r.ts) j++;
        this.ts[at] = old.ts[i]!;
        for (let c = 0; c < CHUNK_COLUMNS.length; c++) this.values[c]![at] = old.values[c]![i]!;
        i++;
      } else {
        this.set(at, r!);
        j++;
      }
      at++;
    }
    this.length = at;
  }

  private set(at: number, r: ChunkRow): void {
    this.ts[at] = r.ts;
    for (let c = 0; c < CHUNK_COLUMNS.length; c++) this.values[c]![at] = r[CHUNK_COLUMNS[c]!];
  }
}

/** Reads one numeric column of `count` values into `into` from `offset` (zig-zag deltas, tenths, or raw doubles). */
function readColumn(view: Buffer, pos: { at: number }, into: { [i: number]: number }, offset: number, count: number): void {
  if (pos.at >= view.length) throw new Error('truncated bazaar chunk');
  const mode = view[pos.at++]!;
  if (mode > FLOATS) throw new Error('corrupt bazaar chunk: column mode');
  let previous = 0;
  for (let i = offset; i < offset + count; i++) {
    if (mode === FLOATS) {
      if (pos.at + 8 > view.length) throw new Error('truncated bazaar chunk');
      into[i] = view.readDoubleLE(pos.at);
      pos.at += 8;
      continue;
    }
    const z = readVarint(view, pos);
    previous += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    into[i] = mode === TENTHS ? previous / 10 : previous;
  }
}

/**
 * Appends the chunk's rows with `from` <= ts < `to` to `out`, without books (a version 2 chunk's
 * books are not inflated). Throws on corrupt data.
 */
export function decodeChunkColumns(payload: Uint8Array, out: RowColumns, from = -Infinity, to = Infinity): void {
  const { view, pos } = openChunk(payload);
  const count = readVarint(view, pos);
  if (count > view.length) throw new Error('corrupt bazaar chunk');
  out.reserve(count);
  const base = out.length;
  const times = out.ts;
  let ts = 0;
  for (let i = 0; i < count; i++) {
    ts += readVarint(view, pos);
    times[base + i] = ts;
  }
  for (let c = 0; c < CHUNK_COLUMNS.length; c++) {
    readColumn(view, pos, out.values[c]!, base, count);
  }
  if (payload[0] === V2 && pos.at !== view.length) throw new Error('corrupt bazaar chunk: trailing bytes');
  // Rows outside [from, to) can only be a prefix and a suffix (rising ts).
  let first = base;
  while (first < base + count && times[first]! < from) first++;
  let end = base + count;
  while (end > first && times[end - 1]! >= to) end--;
  if (first > base) {
    times.copyWithin(base, first, end);
    for (const column of out.values) column.copyWithin(base, first, end);
  }
  out.length = base + (end - first);
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
