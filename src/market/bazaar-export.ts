/**
 * The bazaar export: one product's history as a JSON array, produced page by page so
 * memory stays flat whatever the range. 20-second snapshots cover the last 14 days (or
 * as far back as they are kept); 5-minute rows cover everything before. Order books
 * (stored only when they change) are carried forward row by row when requested.
 */
import { Readable } from 'node:stream';
import type { Store } from '../store/index.ts';
import { decodeBook } from '../domain/bazaar-book.ts';
import { bucketStart, DAY, rawHorizon, RESOLUTION_MS } from '../domain/bazaar-history.ts';
import { EXPORT_BOOK_COLUMN } from '../store/repositories/bazaar-history.ts';
import { RowColumns } from '../domain/bazaar-chunk.ts';
import { JsonBytes, writeSnapshotRows } from '../domain/bazaar-export-json.ts';

export interface ExportOptions {
  productId: string;
  /** inclusive, UTC ms */
  start: number;
  /** inclusive, UTC ms */
  end: number;
  now: number;
  fullOrderBook: boolean;
  /** rows per database read (5-minute rows, and 20-second rows with books) */
  pageSize?: number;
  /** chunks (10-minute windows) per page of 20-second rows without books */
  pageChunks?: number;
}

/**
 * Export rows: the StorageQuickStatus fields plus minBuy/maxBuy/minSell/maxSell and count
 * for the row's interval (count 1 for a 20-second snapshot). With fullOrderBook, `buyOrders`
 * is the instant-buy side (sell offers) and `sellOrders` the instant-sell side (buy orders);
 * null where no book is kept (5-minute rows).
 */
function bookMembers(data: Uint8Array | undefined | null): string {
  if (!data) return ',"buyOrders":null,"sellOrders":null}';
  try {
    const book = decodeBook(data);
    return `,"buyOrders":${JSON.stringify(book.sellOffers)},"sellOrders":${JSON.stringify(book.buyOrders)}}`;
  } catch {
    return ',"buyOrders":null,"sellOrders":null}';
  }
}

/** `YYYY-MM-DDTHH:MM:SS.mmmZ` like Date#toISOString, with the date part cached per UTC day (rows are seconds apart). */
function isoTimes(): (ms: number) => string {
  const two = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
  const three = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
  let dayStart = NaN;
  let day = '';
  return (ms) => {
    let t = ms - dayStart;
    if (!(t >= 0 && t < DAY)) {
      dayStart = bucketStart(ms, DAY);
      day = new Date(dayStart).toISOString().slice(0, 11);
      t = ms - dayStart;
    }
    const seconds = Math.floor(t / 1000);
    return `${day}${two[Math.floor(seconds / 3600)]}:${two[Math.floor(seconds / 60) % 60]}:${two[seconds % 60]}.${three[t % 1000]}Z`;
  };
}

/** A growable byte buffer for one page of rows. */
class PageBuffer {
  private buffer: Buffer;
  private length = 0;
  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(capacity);
  }
  write(text: string): void {
    // UTF-8 is at most 3 bytes per UTF-16 unit.
    if (this.length + text.length * 3 > this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + text.length * 3));
      this.buffer.copy(bigger, 0, 0, this.length);
      this.buffer = bigger;
    }
    this.length += this.buffer.write(text, this.length, 'utf8');
  }
  done(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** The export's JSON in chunks of one page each: `[`, rows separated by commas, `]` (UTF-8). */
export async function* exportJson(store: Store, options: ExportOptions): AsyncGenerator<Buffer> {
  const repo = store.bazaarHistory;
  // Rows with both books are ~10× larger: smaller pages keep the stream's memory similar.
  const pageSize = options.pageSize ?? (options.fullOrderBook ? 1000 : 5000);
  const head = `{"productId":${JSON.stringify(options.productId)},"timeStamp":"`;
  const iso = isoTimes();
  const to = options.end + 1;
  // Where 20-second rows take over: the retention horizon, or the product's oldest kept snapshot.
  const oldestRaw = await repo.oldestSnapshotOf(options.productId);
  const switchAt = oldestRaw === undefined ? to : bucketStart(Math.max(rawHorizon(options.now), oldestRaw), RESOLUTION_MS['5m']);

  yield Buffer.from('[');
  let separator = '';
  const noBook = bookMembers(undefined);
  let book = noBook;
  if (options.fullOrderBook && switchAt < to) book = bookMembers(await repo.bookAt(options.productId, Math.max(options.start, switchAt) - 1));

  // 5-minute rows before the switch (no order books are kept for them), then 20-second rows.
  const segments: Array<['5m' | '20s', number, number]> = [
    ['5m', options.start - 1, Math.min(to, switchAt)],
    ['20s', Math.max(options.start, switchAt) - 1, to],
  ];
  for (const [source, from, until] of segments) {
    if (source === '20s' && !options.fullOrderBook) {
      // Decoded chunk columns written straight as JSON bytes (domain/bazaar-export-json.ts). A page
      // of 200 chunks (~6,000 rows, ~1.8 MB of JSON) takes two reads: fewer round trips on PostgreSQL.
      const chunks = options.pageChunks ?? 200;
      const columns = new RowColumns(chunks * 32);
      const headBytes = Buffer.from(`{"productId":${JSON.stringify(options.productId)},"timeStamp":"`, 'utf8');
      let cursor = from + 1;
      while (cursor < until) {
        columns.clear();
        cursor = await repo.exportColumns(options.productId, cursor, until, columns, chunks, chunks * 30);
        if (columns.length === 0) continue;
        const out = new JsonBytes(columns.length * 300);
        writeSnapshotRows(out, columns, 0, columns.length, headBytes, separator === '');
        separator = ',';
        yield out.done();
      }
      continue;
    }
    let after = from;
    while (after < until - 1) {
      const page = await repo.exportPage(source, options.productId, after, until, pageSize, options.fullOrderBook);
      if (page.length === 0) break;
      if (source === '20s' && options.fullOrderBook) await repo.resolveExportBooks(options.productId, page);
      // One template per row, each price printed once, written straight into the page's Buffer
      // (no page-long string to build and flatten). Rows are ASCII: productId is a checked tag.
      const out = new PageBuffer(page.length * (options.fullOrderBook ? 4096 : 320));
      if (source === '20s') {
        for (const r of page) {
          const buy = `${r[1]}`;
          const sell = `${r[2]}`;
          let tail = '}';
          if (options.fullOrderBook) {
            const data = r[EXPORT_BOOK_COLUMN] as Uint8Array | null;
            if (data) book = bookMembers(data);
            tail = book;
          }
          out.write(`${separator}${head}${iso(Number(r[0]))}","buyPrice":${buy},"sellPrice":${sell},"buyVolume":${r[3]},"sellVolume":${r[4]},"buyMovingWeek":${r[5]},"sellMovingWeek":${r[6]},"buyOrdersCount":${r[7]},"sellOrdersCount":${r[8]},"minBuy":${buy},"maxBuy":${buy},"minSell":${sell},"maxSell":${sell},"count":1${tail}`);
          separator = ',';
        }
      } else {
        const tail = options.fullOrderBook ? noBook : '}';
        for (const r of page) {
          out.write(`${separator}${head}${iso(Number(r[0]))}","buyPrice":${r[1]},"sellPrice":${r[2]},"buyVolume":${r[3]},"sellVolume":${r[4]},"buyMovingWeek":${r[5]},"sellMovingWeek":${r[6]},"buyOrdersCount":${r[7]},"sellOrdersCount":${r[8]},"minBuy":${r[10]},"maxBuy":${r[11]},"minSell":${r[12]},"maxSell":${r[13]},"count":${r[14]}${tail}`);
          separator = ',';
        }
      }
      yield out.done();
      after = Number(page[page.length - 1]![0]);
      if (page.length < pageSize) break;
    }
  }
  yield Buffer.from(']');
}

/** The export as a byte stream that reads the next page only when the consumer wants more. */
export function exportStream(store: Store, options: ExportOptions): Readable {
  return Readable.from(exportJson(store, options), { objectMode: false, highWaterMark: 64 * 1024 });
}
