/**
 * Compact binary encoding of a bazaar order book (up to 30 levels per side), for
 * storing every 20-second snapshot. Layout, little-endian, then deflated:
 *   u8 version, u8 buy-order levels, u8 sell-offer levels,
 *   per level: f64 pricePerUnit, u32 amount, u16 orders
 * `buyOrders` are standing buy orders (upstream sell_summary, highest price first);
 * `sellOffers` are standing sell offers (upstream buy_summary, lowest price first).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';

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

export function encodeBook(book: OrderBook): Buffer {
  const buy = book.buyOrders.slice(0, MAX_LEVELS);
  const sell = book.sellOffers.slice(0, MAX_LEVELS);
  const out = Buffer.allocUnsafe(3 + (buy.length + sell.length) * LEVEL_BYTES);
  out.writeUInt8(VERSION, 0);
  out.writeUInt8(buy.length, 1);
  out.writeUInt8(sell.length, 2);
  let offset = 3;
  for (const level of [...buy, ...sell]) {
    out.writeDoubleLE(level.pricePerUnit, offset);
    out.writeUInt32LE(Math.min(U32_MAX, Math.max(0, Math.round(level.amount))), offset + 8);
    out.writeUInt16LE(Math.min(U16_MAX, Math.max(0, Math.round(level.orders))), offset + 12);
    offset += LEVEL_BYTES;
  }
  return deflateRawSync(out, { level: 6 });
}

export function decodeBook(data: Uint8Array): OrderBook {
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
