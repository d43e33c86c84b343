/**
 * Compact binary encoding of a bazaar order book (up to 255 levels per side), for storing
 * every 20-second snapshot.
 *
 * Version 2 (written now), no compression step, ~5 bytes per level:
 *   u8 0xF6 marker, u8 flags (bit 0: prices are whole tenths of a coin),
 *   varint buy-order levels, varint sell-offer levels,
 *   per level: price (tenths: zigzag varint delta from the previous level; else f64 LE),
 *              varint amount, varint orders
 * 0xF6 can never start a raw deflate stream (its block type bits are the reserved 11), so
 * version 1 books (deflated: u8 1, u8 buy levels, u8 sell levels, per level f64 price,
 * u32 amount, u16 orders) stored earlier still decode. Version 2 avoids a zlib call per
 * book, which dominated the CPU of ingesting a snapshot.
 *
 * `buyOrders` are standing buy orders (upstream sell_summary, highest price first);
 * `sellOffers` are standing sell offers (upstream buy_summary, lowest price first).
 */
import { inflateRawSync } from 'node:zlib';

export interface BookLevel {
  amount: number;
  pricePerUnit: number;
  orders: number;
}

export interface OrderBook {
  buyOrders: BookLevel[];
  sellOffers: BookLevel[];
}

const VERSION = 1;
const LEVEL_BYTES = 14;
const MAX_LEVELS = 255;
const U32_MAX = 0xffff_ffff;
const U16_MAX = 0xffff;

const V2_MARKER = 0xf6;
const TENTHS = 1;

export function encodeBook(book: OrderBook): Buffer {
  const buy = book.buyOrders.slice(0, MAX_LEVELS);
  const sell = book.sellOffers.slice(0, MAX_LEVELS);
  const levels = buy.concat(sell);
  const tenths = levels.every((l) => {
    const t = Math.round(l.pricePerUnit * 10);
    return t / 10 === l.pricePerUnit && Math.abs(t) <= Number.MAX_SAFE_INTEGER / 4;
  });
  const out = scratchBuffer(4 + levels.length * (tenths ? 3 * 10 : 8 + 2 * 10));
  let at = 0;
  out[at++] = V2_MARKER;
  out[at++] = tenths ? TENTHS : 0;
  at = writeVarint(out, at, buy.length);
  at = writeVarint(out, at, sell.length);
  let previous = 0;
  for (const level of levels) {
    if (tenths) {
      const t = Math.round(level.pricePerUnit * 10);
      const delta = t - previous;
      at = writeVarint(out, at, delta >= 0 ? delta * 2 : -delta * 2 - 1);
      previous = t;
    } else {
      out.writeDoubleLE(level.pricePerUnit, at);
      at += 8;
    }
    at = writeVarint(out, at, Math.min(U32_MAX, Math.max(0, Math.round(level.amount))));
    at = writeVarint(out, at, Math.min(U16_MAX, Math.max(0, Math.round(level.orders))));
  }
  return Buffer.from(out.subarray(0, at));
}

let scratch = Buffer.allocUnsafe(16 * 1024);

/**
 * A reusable buffer of at least `bytes` for an encoder to write into before copying out its
 * result: one allocation instead of a fresh few-KB buffer per book (encoders are synchronous).
 */
export function scratchBuffer(bytes: number): Buffer {
  if (scratch.length < bytes) scratch = Buffer.allocUnsafe(Math.max(bytes, scratch.length * 2));
  return scratch;
}

/** True for a full book (version 1 or 2), false for a delta (bazaar-book-delta.ts). */
export function isFullBook(data: Uint8Array): boolean {
  return data[0] !== DELTA_MARKER;
}

/** First byte of a book delta (bazaar-book-delta.ts); like 0xF6, never the start of a raw deflate stream. */
export const DELTA_MARKER = 0xf7;

export function decodeBook(data: Uint8Array): OrderBook {
  if (data[0] === DELTA_MARKER) throw new Error('a book delta needs its keyframe: use applyBookDelta');
  if (data[0] === V2_MARKER) return decodeV2(data);
  return decodeV1(data);
}

function decodeV2(data: Uint8Array): OrderBook {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const pos = { at: 2 };
  if (view.length < 4) throw new Error('truncated order book');
  const tenths = (view[1]! & TENTHS) !== 0;
  const buyCount = readVarint(view, pos);
  const sellCount = readVarint(view, pos);
  if (buyCount > MAX_LEVELS || sellCount > MAX_LEVELS) throw new Error('corrupt order book');
  const levels: BookLevel[] = [];
  let previous = 0;
  for (let i = 0; i < buyCount + sellCount; i++) {
    let pricePerUnit: number;
    if (tenths) {
      const z = readVarint(view, pos);
      previous += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      pricePerUnit = previous / 10;
    } else {
      if (pos.at + 8 > view.length) throw new Error('truncated order book');
      pricePerUnit = view.readDoubleLE(pos.at);
      pos.at += 8;
    }
    const amount = readVarint(view, pos);
    const orders = readVarint(view, pos);
    levels.push({ amount, pricePerUnit, orders });
  }
  if (pos.at !== view.length) throw new Error('corrupt order book: trailing bytes');
  return { buyOrders: levels.slice(0, buyCount), sellOffers: levels.slice(buyCount) };
}

/** Unsigned LEB128 varint of a non-negative integer up to 2^53; returns the position after it. */
export function writeVarint(out: Buffer, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    out[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[at++] = v;
  return at;
}

export function readVarint(view: Buffer, pos: { at: number }): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 8; i++) {
    if (pos.at >= view.length) throw new Error('truncated order book');
    const byte = view[pos.at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 0x80;
  }
  throw new Error('corrupt order book: varint too long');
}

/** Version 1: deflated fixed-width levels (books stored before version 2). */
function decodeV1(data: Uint8Array): OrderBook {
  const raw = inflateRawSync(data, { maxOutputLength: 3 + 2 * MAX_LEVELS * LEVEL_BYTES });
  if (raw.length < 3 || raw.readUInt8(0) !== VERSION) throw new Error('unknown order book encoding');
  const buyCount = raw.readUInt8(1);
  const sellCount = raw.readUInt8(2);
  if (raw.length !== 3 + (buyCount + sellCount) * LEVEL_BYTES) throw new Error('truncated order book');
  const levels: BookLevel[] = [];
  for (let offset = 3; offset < raw.length; offset += LEVEL_BYTES) {
    levels.push({
      pricePerUnit: raw.readDoubleLE(offset),
      amount: raw.readUInt32LE(offset + 8),
      orders: raw.readUInt16LE(offset + 12),
    });
  }
  return { buyOrders: levels.slice(0, buyCount), sellOffers: levels.slice(buyCount) };
}

/** True when two books hold the same levels (so the later one need not be stored). */
export function sameBook(a: OrderBook, b: OrderBook): boolean {
  return sameLevels(a.buyOrders, b.buyOrders) && sameLevels(a.sellOffers, b.sellOffers);
}

function sameLevels(a: BookLevel[], b: BookLevel[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.amount !== y.amount || x.pricePerUnit !== y.pricePerUnit || x.orders !== y.orders) return false;
  }
  return true;
}
