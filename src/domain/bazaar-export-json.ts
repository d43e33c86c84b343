/**
 * The bazaar export's 20-second rows as JSON bytes, written straight from decoded chunk columns
 * into a Buffer: no object, template string or number string per row. Numbers print exactly as
 * JavaScript prints them (`${n}`), times as Date#toISOString: integers and whole tenths (every
 * price and count the bazaar stores) are written digit by digit, anything else falls back to
 * String(n). Pure: no I/O.
 */
import { CHUNK_COLUMNS, type RowColumns } from './bazaar-chunk.ts';
import { bucketStart, DAY } from './bazaar-history.ts';

/** Longest output of String(n) for a double, e.g. `-2.2250738585072014e-308`. */
const MAX_NUMBER_CHARS = 25;
/** Date#toISOString keeps the `YYYY-MM-DDTHH:MM:SS.mmmZ` form for years 0000–9999. */
const MIN_FOUR_DIGIT_YEAR = Date.parse('0000-01-01T00:00:00.000Z');
const MAX_FOUR_DIGIT_YEAR = Date.parse('+010000-01-01T00:00:00.000Z');
/** |t| below this keeps t / 10 printing as `${t / 10}` (`X.Y`): doubles there are far closer than 0.1 apart. */
const TENTHS_LIMIT = 2 ** 49;
const ZERO = 0x30;

/** A growable byte buffer for one page of the export's JSON. */
export class JsonBytes {
  /** a Uint8Array over `buffer`: one element type for every write (Buffer and Uint8Array mixed made stores polymorphic) */
  bytes: Uint8Array;
  private buffer: Buffer;
  at = 0;
  /** the UTC day whose `YYYY-MM-DDT` is cached, and those bytes */
  private dayStart = NaN;
  readonly day = new Uint8Array(11);

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, capacity));
    this.bytes = new Uint8Array(this.buffer.buffer, this.buffer.byteOffset, this.buffer.length);
  }

  /** Room for `bytes` more bytes: writes after it need no bounds checks. */
  reserve(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(bigger, 0, 0, this.at);
    this.buffer = bigger;
    this.bytes = new Uint8Array(bigger.buffer, bigger.byteOffset, bigger.length);
  }

  /** A string as UTF-8, growing the buffer as needed (the rows built from template strings). */
  text(text: string): void {
    // UTF-8 is at most 3 bytes per UTF-16 unit.
    this.reserve(text.length * 3);
    this.at += this.buffer.write(text, this.at, 'utf8');
  }

  /** Pre-encoded ASCII bytes (within reserved room). */
  write(data: Uint8Array): void {
    this.at = copy(this.bytes, this.at, data);
  }

  /** `${n}` (within reserved room: at most MAX_NUMBER_CHARS). */
  number(n: number): void {
    this.at = writeNumber(this.bytes, this.at, n);
  }

  /** Date#toISOString of `ms` (within reserved room: at most 27 bytes). */
  isoTime(ms: number): void {
    if (!(ms >= MIN_FOUR_DIGIT_YEAR && ms < MAX_FOUR_DIGIT_YEAR && Number.isInteger(ms))) {
      this.at += this.buffer.write(new Date(ms).toISOString(), this.at, 'latin1');
      return;
    }
    if (!(ms - this.dayStart >= 0 && ms - this.dayStart < DAY)) {
      this.dayStart = bucketStart(ms, DAY);
      this.day.set(Buffer.from(new Date(this.dayStart).toISOString().slice(0, 11), 'latin1'));
    }
    this.at = writeTime(this.bytes, copy(this.bytes, this.at, this.day), ms - this.dayStart);
  }

  /** The bytes written so far (the buffer is not reused: the caller keeps them). */
  done(): Buffer {
    return this.buffer.subarray(0, this.at);
  }
}

/* Writers below take the output and a position and return the position after what they wrote. */

function copy(out: Uint8Array, at: number, data: Uint8Array): number {
  // Fragments are short: a loop beats TypedArray#set's call overhead.
  for (let i = 0; i < data.length; i++) out[at++] = data[i]!;
  return at;
}

/** The bytes from `start` to `end` written earlier, once more (a number printed twice). */
function again(out: Uint8Array, at: number, start: number, end: number): number {
  for (let i = start; i < end; i++) out[at++] = out[i]!;
  return at;
}

/** `${n}` for any double. */
function writeNumber(out: Uint8Array, at: number, n: number): number {
  if (Number.isInteger(n)) {
    if (n <= Number.MAX_SAFE_INTEGER && n >= -Number.MAX_SAFE_INTEGER) return n < 0 ? writeDigits(out, writeMinus(out, at), -n) : writeDigits(out, at, n);
  } else {
    const t = Math.round(n * 10);
    if (t / 10 === n && t < TENTHS_LIMIT && t > -TENTHS_LIMIT) {
      // t is no multiple of 10 here: `X.Y`.
      const v = t < 0 ? -t : t;
      const whole = Math.floor(v / 10);
      let p = writeDigits(out, t < 0 ? writeMinus(out, at) : at, whole);
      out[p++] = 0x2e;
      out[p++] = ZERO + (v - whole * 10);
      return p;
    }
  }
  const text = String(n);
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}

function writeMinus(out: Uint8Array, at: number): number {
  out[at] = 0x2d;
  return at + 1;
}

/** The digits of a safe non-negative integer (-0 prints as 0, as String does). */
function writeDigits(out: Uint8Array, at: number, n: number): number {
  if (n < 10) {
    out[at] = ZERO + n;
    return at + 1;
  }
  let digits = 2;
  for (let p = 100; p <= n && digits < 16; p *= 10) digits++;
  let i = at + digits;
  let v = n;
  // Integer maths below 2^31, floating-point division above (exact for safe integers).
  while (v >= 0x80000000) {
    const q = Math.floor(v / 10);
    out[--i] = ZERO + (v - q * 10);
    v = q;
  }
  while (v > 0) {
    const q = (v / 10) | 0;
    out[--i] = ZERO + (v - q * 10);
    v = q;
  }
  return at + digits;
}

/** `HH:MM:SS.mmmZ` of `t` ms into a UTC day. */
function writeTime(out: Uint8Array, at: number, t: number): number {
  const millis = t % 1000;
  const seconds = (t - millis) / 1000;
  const hours = (seconds / 3600) | 0;
  const minutes = ((seconds / 60) | 0) % 60;
  const secs = seconds % 60;
  out[at] = ZERO + ((hours / 10) | 0);
  out[at + 1] = ZERO + (hours % 10);
  out[at + 2] = 0x3a;
  out[at + 3] = ZERO + ((minutes / 10) | 0);
  out[at + 4] = ZERO + (minutes % 10);
  out[at + 5] = 0x3a;
  out[at + 6] = ZERO + ((secs / 10) | 0);
  out[at + 7] = ZERO + (secs % 10);
  out[at + 8] = 0x2e;
  out[at + 9] = ZERO + ((millis / 100) | 0);
  out[at + 10] = ZERO + (((millis / 10) | 0) % 10);
  out[at + 11] = ZERO + (millis % 10);
  out[at + 12] = 0x5a;
  return at + 13;
}

const ascii = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
const FIELDS = ['buyPrice', 'sellPrice', 'buyVolume', 'sellVolume', 'buyMovingWeek', 'sellMovingWeek', 'buyOrdersCount', 'sellOrdersCount'] as const;
// `","buyPrice":` after the time, then `,"sellPrice":` and so on, in CHUNK_COLUMNS order.
const BEFORE = FIELDS.map((f, i) => ascii(`${i === 0 ? '"' : ''},"${f}":`));
const MIN_BUY = ascii(',"minBuy":');
const MAX_BUY = ascii(',"maxBuy":');
const MIN_SELL = ascii(',"minSell":');
const MAX_SELL = ascii(',"maxSell":');
const COUNT_ONE = ascii(',"count":1}');
const COMMA = ascii(',');
const FIXED_BYTES = [...BEFORE, MIN_BUY, MAX_BUY, MIN_SELL, MAX_SELL, COUNT_ONE, COMMA].reduce((n, b) => n + b.length, 0);

/**
 * Writes rows [from, to) of `rows` as export rows without books: `{"productId":…,"timeStamp":…,
 * "buyPrice":…,…,"minBuy":buy,"maxBuy":buy,"minSell":sell,"maxSell":sell,"count":1}` (a
 * snapshot is its own min and max), each preceded by a comma but the first when `first`.
 * `head` is `{"productId":"<id>","timeStamp":"` as bytes. Field order is bazaar-export.ts's.
 */
export function writeSnapshotRows(json: JsonBytes, rows: RowColumns, from: number, to: number, head: Uint8Array, first: boolean): void {
  const perRow = head.length + 27 + FIXED_BYTES + (CHUNK_COLUMNS.length + 4) * MAX_NUMBER_CHARS;
  const times = rows.ts;
  const values = rows.values;
  const headBytes = new Uint8Array(head);
  for (let i = from; i < to; i++) {
    // perRow counts the separating comma too.
    json.reserve(perRow);
    if (!first || i > from) json.write(COMMA);
    // The longest fragment: one memcpy.
    json.bytes.set(headBytes, json.at);
    json.at += headBytes.length;
    json.isoTime(times[i]!);
    const out = json.bytes;
    let at = copy(out, json.at, BEFORE[0]!);
    const buyAt = at;
    at = writeNumber(out, at, values[0]![i]!);
    const buyEnd = at;
    at = copy(out, at, BEFORE[1]!);
    const sellAt = at;
    at = writeNumber(out, at, values[1]![i]!);
    const sellEnd = at;
    for (let c = 2; c < CHUNK_COLUMNS.length; c++) {
      at = copy(out, at, BEFORE[c]!);
      at = writeNumber(out, at, values[c]![i]!);
    }
    at = again(out, copy(out, at, MIN_BUY), buyAt, buyEnd);
    at = again(out, copy(out, at, MAX_BUY), buyAt, buyEnd);
    at = again(out, copy(out, at, MIN_SELL), sellAt, sellEnd);
    at = again(out, copy(out, at, MAX_SELL), sellAt, sellEnd);
    json.at = copy(out, at, COUNT_ONE);
  }
}
