/**
 * An order book stored as the difference from its product's keyframe: the last full book
 * written to `bazaar_book_keyframes`. Every delta refers to a keyframe directly (never to
 * another delta), so resolving any stored book reads at most one keyframe and one delta.
 *
 * Between 20-second polls most of a real book stays put: the top levels are filled, amended
 * or undercut, deeper levels mostly keep their price, amount and order count. Levels are
 * matched by price, so an order inserted at the top (which shifts every index) costs one
 * inserted level, not a rewrite of the side.
 *
 * Format: u8 0xF7, u8 flags (bit 0: inserted prices are whole tenths), varint milliseconds
 * from the keyframe to this book, then per side (buy orders, then sell offers) a list of ops,
 * each a varint `(n << 2) | code`:
 *   code 0 COPY n:   the next n keyframe levels, unchanged
 *   code 1 SKIP n:   drop the next n keyframe levels; SKIP 0 ends the side (the rest is dropped)
 *   code 2 AMEND:    the next keyframe level's price with a new amount and order count (2 varints)
 *   code 3 INSERT n: n new levels, each price (tenths: zigzag varint delta from the previous
 *                    price written in this side; else f64 LE), varint amount, varint orders
 */
import { DELTA_MARKER, readVarint, scratchBuffer, writeVarint, type BookLevel, type OrderBook } from './bazaar-book.ts';

const COPY = 0;
const SKIP = 1;
const AMEND = 2;
const INSERT = 3;
const TENTHS = 1;
const MAX_LEVELS = 255;
const U32_MAX = 0xffff_ffff;
const U16_MAX = 0xffff;

/** `book` as a delta from `keyframe`, stored `ageMs` after it. */
export function encodeBookDelta(keyframe: OrderBook, book: OrderBook, ageMs: number): Buffer;
/** …or undefined as soon as the delta would exceed `maxBytes` (the caller then stores the full book). */
export function encodeBookDelta(keyframe: OrderBook, book: OrderBook, ageMs: number, maxBytes: number): Buffer | undefined;
export function encodeBookDelta(keyframe: OrderBook, book: OrderBook, ageMs: number, maxBytes = Infinity): Buffer | undefined {
  // No copies or callbacks: this runs for every changed book of every snapshot.
  const buy = book.buyOrders.length > MAX_LEVELS ? book.buyOrders.slice(0, MAX_LEVELS) : book.buyOrders;
  const sell = book.sellOffers.length > MAX_LEVELS ? book.sellOffers.slice(0, MAX_LEVELS) : book.sellOffers;
  const tenths = allTenths(buy) && allTenths(sell);
  const out = scratchBuffer(16 + (buy.length + sell.length) * (tenths ? 32 : 40) + 2 * 2 * MAX_LEVELS);
  let at = 0;
  out[at++] = DELTA_MARKER;
  out[at++] = tenths ? TENTHS : 0;
  at = writeVarint(out, at, Math.max(0, Math.round(ageMs)));
  at = encodeSide(out, at, keyframe.buyOrders, buy, tenths, maxBytes);
  if (at < 0) return undefined;
  at = encodeSide(out, at, keyframe.sellOffers, sell, tenths, maxBytes);
  if (at < 0 || at > maxBytes) return undefined;
  return Buffer.from(out.subarray(0, at));
}

/** Milliseconds from the delta's keyframe to the delta (the keyframe is at `ts - deltaAge`). */
export function deltaAge(data: Uint8Array): number {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (view.length < 3 || view[0] !== DELTA_MARKER) throw new Error('not an order book delta');
  return readVarint(view, { at: 2 });
}

/**
 * The same delta stored `laterMs` later (a book carried forward to a later row): the ops do
 * not depend on the age, so only the age field changes and it still names the same keyframe.
 */
export function reageBookDelta(data: Uint8Array, laterMs: number): Buffer {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const pos = { at: 2 };
  const age = deltaAge(view);
  readVarint(view, pos);
  const out = Buffer.allocUnsafe(view.length + 10);
  out[0] = view[0]!;
  out[1] = view[1]!;
  let at = writeVarint(out, 2, age + Math.max(0, Math.round(laterMs)));
  at += view.copy(out, at, pos.at);
  return Buffer.from(out.subarray(0, at));
}

/** The book a delta describes, given its keyframe. Throws on corrupt or mismatched data. */
export function applyBookDelta(keyframe: OrderBook, data: Uint8Array): OrderBook {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (view.length < 3 || view[0] !== DELTA_MARKER) throw new Error('not an order book delta');
  const tenths = (view[1]! & TENTHS) !== 0;
  const pos = { at: 2 };
  readVarint(view, pos);
  const buyOrders = decodeSide(view, pos, keyframe.buyOrders, tenths);
  const sellOffers = decodeSide(view, pos, keyframe.sellOffers, tenths);
  if (pos.at !== view.length) throw new Error('corrupt order book delta: trailing bytes');
  return { buyOrders, sellOffers };
}

function allTenths(levels: readonly BookLevel[]): boolean {
  for (let i = 0; i < levels.length; i++) if (!isTenths(levels[i]!)) return false;
  return true;
}

function isTenths(level: BookLevel): boolean {
  const t = Math.round(level.pricePerUnit * 10);
  return t / 10 === level.pricePerUnit && Math.abs(t) <= Number.MAX_SAFE_INTEGER / 4;
}

/** Bytes of writeVarint(value). */
function varintBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x20_0000 ? 3 : value < 0x1000_0000 ? 4 : 5;
}

function clampInt(value: number, max: number): number {
  return Math.min(max, Math.max(0, Math.round(value)));
}

/** Writes one side's ops; returns the position after them, or -1 once past `maxBytes`. */
function encodeSide(out: Buffer, at: number, base: readonly BookLevel[], levels: readonly BookLevel[], tenths: boolean, maxBytes: number): number {
  let b = 0; // next keyframe level
  let copies = 0;
  let insertFrom = -1; // first level of a pending INSERT run (they are consecutive in `levels`)
  let previousTenths = 0;
  // A lower bound on the bytes the pending INSERT run will take: a rewritten book is given up
  // as soon as it cannot fit, not after matching every level (the worst case of ingestion).
  let pendingBytes = 0;
  // No closures here: this runs for every changed book of every snapshot.
  for (let i = 0; i <= levels.length; i++) {
    if (at + pendingBytes > maxBytes) return -1;
    const level = levels[i];
    // The keyframe level with this price, at or after the current one (books are short: a scan is cheap).
    let match = -1;
    if (level) {
      for (let k = b; k < base.length; k++) {
        if (base[k]!.pricePerUnit === level.pricePerUnit) {
          match = k;
          break;
        }
      }
      if (match < 0) {
        if (copies > 0) at = writeVarint(out, at, (copies << 2) | COPY);
        copies = 0;
        if (insertFrom < 0) insertFrom = i;
        // price (at least 1 byte as a tenths delta), amount, orders (at least 1 byte)
        pendingBytes += (tenths ? 1 : 8) + varintBytes(clampInt(level.amount, U32_MAX)) + 1;
        continue;
      }
    }
    if (insertFrom >= 0) {
      at = writeVarint(out, at, ((i - insertFrom) << 2) | INSERT);
      for (let j = insertFrom; j < i; j++) {
        const inserted = levels[j]!;
        if (tenths) {
          const t = Math.round(inserted.pricePerUnit * 10);
          const d = t - previousTenths;
          at = writeVarint(out, at, d >= 0 ? d * 2 : -d * 2 - 1);
          previousTenths = t;
        } else {
          out.writeDoubleLE(inserted.pricePerUnit, at);
          at += 8;
        }
        at = writeVarint(out, at, clampInt(inserted.amount, U32_MAX));
        at = writeVarint(out, at, clampInt(inserted.orders, U16_MAX));
      }
      insertFrom = -1;
      pendingBytes = 0;
    }
    if (!level) break;
    if (match > b) {
      if (copies > 0) at = writeVarint(out, at, (copies << 2) | COPY);
      copies = 0;
      at = writeVarint(out, at, ((match - b) << 2) | SKIP);
    }
    const kept = base[match]!;
    const amount = clampInt(level.amount, U32_MAX);
    const orders = clampInt(level.orders, U16_MAX);
    if (kept.amount === amount && kept.orders === orders) copies++;
    else {
      if (copies > 0) at = writeVarint(out, at, (copies << 2) | COPY);
      copies = 0;
      at = writeVarint(out, at, AMEND);
      at = writeVarint(out, at, amount);
      at = writeVarint(out, at, orders);
    }
    if (tenths) previousTenths = Math.round(kept.pricePerUnit * 10);
    b = match + 1;
  }
  if (copies > 0) at = writeVarint(out, at, (copies << 2) | COPY);
  return writeVarint(out, at, SKIP); // SKIP 0: end of side
}

function decodeSide(view: Buffer, pos: { at: number }, base: readonly BookLevel[], tenths: boolean): BookLevel[] {
  const levels: BookLevel[] = [];
  let b = 0;
  let previousTenths = 0;
  for (;;) {
    const op = readVarint(view, pos);
    const code = op % 4;
    const n = Math.floor(op / 4);
    if (code === SKIP && n === 0) return levels;
    if (code === SKIP) {
      b += n;
      if (b > base.length) throw new Error('corrupt order book delta: skips past its keyframe');
      continue;
    }
    if (code === COPY || code === AMEND) {
      const count = code === COPY ? n : 1;
      if (b + count > base.length) throw new Error('corrupt order book delta: reads past its keyframe');
      for (let i = 0; i < count; i++) {
        const kept = base[b++]!;
        const level = code === COPY ? { amount: kept.amount, pricePerUnit: kept.pricePerUnit, orders: kept.orders } : { amount: readVarint(view, pos), pricePerUnit: kept.pricePerUnit, orders: readVarint(view, pos) };
        levels.push(level);
        if (tenths) previousTenths = Math.round(kept.pricePerUnit * 10);
      }
    } else {
      for (let i = 0; i < n; i++) {
        let pricePerUnit: number;
        if (tenths) {
          const z = readVarint(view, pos);
          previousTenths += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
          pricePerUnit = previousTenths / 10;
        } else {
          if (pos.at + 8 > view.length) throw new Error('truncated order book delta');
          pricePerUnit = view.readDoubleLE(pos.at);
          pos.at += 8;
        }
        levels.push({ amount: readVarint(view, pos), pricePerUnit, orders: readVarint(view, pos) });
      }
    }
    if (levels.length > MAX_LEVELS) throw new Error('corrupt order book delta: too many levels');
  }
}
