/**
 * A structural scan of one raw auctions page. In a steady-state generation about 97 % of
 * the ~60,000 auctions are unchanged, and decoding plus parsing all ~90 MB of JSON cost
 * several times the rest of the cycle. The scan walks the bytes once (jumping from quote
 * to quote in native code), finds each auction's byte range and reads only its `uuid`,
 * `last_updated` and `start`; the caller parses just the auctions that are new or changed.
 *
 * The scan checks structure (balanced strings, objects and arrays, a complete page), so a
 * truncated page is still caught and retried. A record whose bytes are malformed in a way
 * the scan cannot see fails its own JSON.parse later and is skipped like any invalid record.
 */

/** One auction of a scanned page: its identity hints and a way to parse it whole. */
export class ScannedAuction {
  constructor(
    /** the page body the record lies in, at [from, to) */
    readonly body: Buffer,
    readonly from: number,
    readonly to: number,
    /** lower-case 32-hex uuid, or null when the record has none the scan could read */
    readonly uuid: string | null,
    /** `last_updated` (or null when absent or not a plain number) */
    readonly lastUpdated: number | null,
    /** `start` (or null), the fallback when `last_updated` is absent */
    readonly start: number | null,
  ) {}

  /** The record's JSON text. */
  text(): string {
    return this.body.toString('utf8', this.from, this.to);
  }

  /** Parses the record's bytes; throws SyntaxError when they are not valid JSON. */
  parse(): unknown {
    return JSON.parse(this.text()) as unknown;
  }
}

export interface ScannedPage {
  /** every top-level field except `auctions`, parsed */
  envelope: Record<string, unknown>;
  /** null when the page has no `auctions` array */
  auctions: ScannedAuction[] | null;
}

export class PageScanError extends Error {
  constructor(message: string, readonly offset: number) {
    super(`${message} at byte ${offset}`);
    this.name = 'PageScanError';
  }
}

const QUOTE = 0x22;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** Strings up to this many bytes are scanned byte by byte (see skipString). */
const SHORT_STRING = 48;

/** Scans a page body (UTF-8 JSON). Throws PageScanError when the structure is broken. */
export function scanAuctionPage(body: Buffer): ScannedPage {
  const scanner = new Scanner(body);
  const envelope: Record<string, unknown> = {};
  let auctions: ScannedAuction[] | null = null;
  let i = scanner.expect(scanner.skipWs(0), OPEN_BRACE, 'page must be a JSON object');
  i = scanner.skipWs(i);
  if (body[i] === CLOSE_BRACE) return finish(scanner, i + 1, envelope, auctions);
  for (;;) {
    const keyEnd = scanner.skipString(i);
    const key = scanner.text(i + 1, keyEnd - 1);
    i = scanner.skipWs(scanner.expect(scanner.skipWs(keyEnd), COLON, "expected ':'"));
    if (key === 'auctions' && body[i] === OPEN_BRACKET) {
      const scanned = scanner.auctionArray(i);
      auctions = scanned.auctions;
      i = scanned.end;
    } else {
      const end = scanner.skipValue(i);
      envelope[key] = scanner.json(i, end);
      i = end;
    }
    i = scanner.skipWs(i);
    if (body[i] === COMMA) {
      i = scanner.skipWs(i + 1);
      continue;
    }
    return finish(scanner, scanner.expect(i, CLOSE_BRACE, "expected ',' or '}'"), envelope, auctions);
  }
}

function finish(scanner: Scanner, end: number, envelope: Record<string, unknown>, auctions: ScannedAuction[] | null): ScannedPage {
  if (scanner.skipWs(end) !== scanner.body.length) throw new PageScanError('unexpected data after the page', end);
  return { envelope, auctions };
}

/** Nesting deeper than this inside one value is rejected as a broken page. */
const MAX_DEPTH = 1 << 16;

function deeper(stack: Uint8Array, at: number): Uint8Array {
  if (stack.length >= MAX_DEPTH) throw new PageScanError('nested too deeply', at);
  const grown = new Uint8Array(stack.length * 2);
  grown.set(stack);
  return grown;
}

class Scanner {
  /** closers expected while skipping a nested value (see skipValue) */
  private stack: Uint8Array = new Uint8Array(64);

  constructor(readonly body: Buffer) {}

  skipWs(i: number): number {
    const b = this.body;
    while (i < b.length) {
      const c = b[i];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    return i;
  }

  expect(i: number, byte: number, message: string): number {
    if (this.body[i] !== byte) throw new PageScanError(message, i);
    return i + 1;
  }

  /** `i` at an opening quote; returns the index after the closing quote. */
  skipString(i: number): number {
    const b = this.body;
    if (b[i] !== QUOTE) throw new PageScanError('expected a string', i);
    // Most strings (keys, names, ids) are short: a byte loop beats a native indexOf call,
    // ~35 of which per auction were most of a steady-state scan. Long ones go native.
    const shortEnd = Math.min(b.length, i + 1 + SHORT_STRING);
    for (let k = i + 1; k < shortEnd; k++) {
      const c = b[k];
      if (c === QUOTE) return k + 1;
      if (c === BACKSLASH) break;
    }
    let from = i + 1;
    for (;;) {
      const q = b.indexOf(QUOTE, from);
      if (q < 0) throw new PageScanError('unterminated string', i);
      // The quote is escaped when an odd number of backslashes precede it.
      let slashes = 0;
      for (let k = q - 1; k > i && b[k] === BACKSLASH; k--) slashes++;
      if (slashes % 2 === 0) return q + 1;
      from = q + 1;
    }
  }

  /** Returns the index after the value starting at `i`. */
  skipValue(i: number): number {
    const b = this.body;
    const c = b[i];
    if (c === QUOTE) return this.skipString(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      // The closers still expected, on a stack the scanner keeps (no array per value).
      let stack = this.stack;
      let depth = 0;
      stack[depth++] = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
      let k = i + 1;
      while (depth > 0) {
        if (k >= b.length) throw new PageScanError('unterminated object or array', i);
        const d = b[k]!;
        if (d === QUOTE) {
          k = this.skipString(k);
          continue;
        }
        if (d === OPEN_BRACE || d === OPEN_BRACKET) {
          if (depth === stack.length) stack = this.stack = deeper(stack, k);
          stack[depth++] = d === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
        } else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
          if (stack[--depth] !== d) throw new PageScanError('mismatched bracket', k);
        }
        k++;
      }
      return k;
    }
    // number, true, false, null: up to the next delimiter
    let k = i;
    while (k < b.length) {
      const d = b[k];
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
      k++;
    }
    if (k === i) throw new PageScanError('expected a value', i);
    return k;
  }

  /** `i` at '['; scans each element, reading the identity fields of object elements. */
  auctionArray(i: number): { auctions: ScannedAuction[]; end: number } {
    const b = this.body;
    const auctions: ScannedAuction[] = [];
    i = this.skipWs(i + 1);
    if (b[i] === CLOSE_BRACKET) return { auctions, end: i + 1 };
    for (;;) {
      const end = b[i] === OPEN_BRACE ? this.auctionObject(i, auctions) : this.opaque(i, auctions);
      i = this.skipWs(end);
      if (b[i] === COMMA) {
        i = this.skipWs(i + 1);
        continue;
      }
      return { auctions, end: this.expect(i, CLOSE_BRACKET, "expected ',' or ']' in auctions") };
    }
  }

  /** A non-object element: kept so that the caller counts it as an invalid record. */
  private opaque(i: number, out: ScannedAuction[]): number {
    const end = this.skipValue(i);
    out.push(this.entry(i, end, null, null, null));
    return end;
  }

  /** `i` at '{' of one auction; reads uuid, last_updated and start at its top level. */
  private auctionObject(i: number, out: ScannedAuction[]): number {
    const b = this.body;
    const start = i;
    let uuid: string | null = null;
    let lastUpdated: number | null = null;
    let begun: number | null = null;
    i = this.skipWs(i + 1);
    if (b[i] !== CLOSE_BRACE) {
      for (;;) {
        const keyEnd = this.skipString(i);
        const keyLength = keyEnd - i - 2;
        const keyAt = i + 1;
        // Upstream pages have no whitespace between tokens: the checks for it are skipped then.
        i = b[keyEnd] === COLON ? keyEnd + 1 : this.expect(this.skipWs(keyEnd), COLON, "expected ':' in an auction");
        if (b[i] !== QUOTE && isWs(b[i]!)) i = this.skipWs(i);
        const valueEnd = b[i] === QUOTE ? this.skipString(i) : this.skipValue(i);
        // Only the three fields the diff needs are read; everything else is skipped unread.
        if (keyLength === 4 && this.is(keyAt, 'uuid') && b[i] === QUOTE) {
          uuid = this.hex32(i + 1, valueEnd - 1);
        } else if (keyLength === 12 && this.is(keyAt, 'last_updated')) {
          lastUpdated = this.number(i, valueEnd);
        } else if (keyLength === 5 && this.is(keyAt, 'start')) {
          begun = this.number(i, valueEnd);
        }
        i = b[valueEnd] === COMMA ? valueEnd : this.skipWs(valueEnd);
        if (b[i] === COMMA) {
          i = b[i + 1] === QUOTE ? i + 1 : this.skipWs(i + 1);
          continue;
        }
        break;
      }
    }
    const end = this.expect(i, CLOSE_BRACE, "expected ',' or '}' in an auction");
    out.push(this.entry(start, end, uuid, lastUpdated, begun));
    return end;
  }

  // One object per auction and no closure: 60,000 of them per generation.
  private entry(start: number, end: number, uuid: string | null, lastUpdated: number | null, begun: number | null): ScannedAuction {
    return new ScannedAuction(this.body, start, end, uuid, lastUpdated, begun);
  }

  private is(at: number, ascii: string): boolean {
    for (let k = 0; k < ascii.length; k++) if (this.body[at + k] !== ascii.charCodeAt(k)) return false;
    return true;
  }

  /** The bytes as a lower-case uuid when they are exactly 32 hex digits, else null. */
  private hex32(start: number, end: number): string | null {
    if (end - start !== 32) return null;
    const b = this.body;
    let upper = false;
    for (let k = start; k < end; k++) {
      const c = b[k]!;
      if ((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66)) continue;
      if (c >= 0x41 && c <= 0x46) upper = true;
      else return null;
    }
    const text = this.text(start, end);
    return upper ? text.toLowerCase() : text;
  }

  private number(start: number, end: number): number | null {
    // Plain non-negative integers (timestamps) without building a string; anything else through Number().
    const b = this.body;
    if (end - start > 0 && end - start <= 15) {
      let value = 0;
      let k = start;
      for (; k < end; k++) {
        const d = b[k]! - 0x30;
        if (d < 0 || d > 9) break;
        value = value * 10 + d;
      }
      if (k === end && (b[start] !== 0x30 || end - start === 1)) return value;
    }
    const value = Number(this.text(start, end));
    return Number.isFinite(value) && b[start] !== QUOTE ? value : null;
  }

  text(start: number, end: number): string {
    return this.body.toString('latin1', start, end);
  }

  json(start: number, end: number): unknown {
    try {
      return JSON.parse(this.body.toString('utf8', start, end)) as unknown;
    } catch {
      throw new PageScanError('invalid JSON value', start);
    }
  }
}
