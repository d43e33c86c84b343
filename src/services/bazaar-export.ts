/**
 * The bazaar export: one product's history as a JSON array, produced page by page so
 * memory stays flat whatever the range. 20-second snapshots cover the last 14 days (or
 * as far back as they are kept); 5-minute rows cover everything before. Order books
 * (stored only when they change) are carried forward row by row when requested.
 */
import { Readable } from 'node:stream';
import { decodeBook } from '../domain/bazaar-book.ts';
import { bucketStart, rawHorizon, RESOLUTION_MS } from '../domain/bazaar-history.ts';
import { EXPORT_BOOK_COLUMN, type BazaarHistoryRepository } from '../store/repositories/bazaar-history.ts';
import { RowColumns } from '../domain/bazaar-chunk.ts';
import { JsonBytes, writeSnapshotRows } from '../domain/bazaar-export-json.ts';

/** What the export reads: the product's history, page by page, and its order books. */
export interface BazaarExportReads {
  readonly bazaarHistory: Pick<BazaarHistoryRepository, 'oldestSnapshotOf' | 'bookAt' | 'exportColumns' | 'exportPage' | 'resolveExportBooks'>;
}

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

/** The export's JSON in chunks of one page each: `[`, rows separated by commas, `]` (UTF-8). */
export async function* exportJson(store: BazaarExportReads, options: ExportOptions): AsyncGenerator<Buffer> {
  const repo = store.bazaarHistory;
  // Rows with both books are ~10× larger: smaller pages keep the stream's memory similar.
  const pageSize = options.pageSize ?? (options.fullOrderBook ? 1000 : 5000);
  const head = `{"productId":${JSON.stringify(options.productId)},"timeStamp":"`;
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
      const headBytes = Buffer.from(head, 'utf8');
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
      // 20-second rows come this way only with their books (the columnar path above takes the rest).
      if (source === '20s') await repo.resolveExportBooks(options.productId, page);
      // One template per row, each price printed once, written straight into the page's Buffer
      // (no page-long string to build and flatten). Rows are ASCII: productId is a checked tag.
      const out = new JsonBytes(page.length * (options.fullOrderBook ? 4096 : 320));
      if (source === '20s') {
        for (const r of page) {
          const buy = `${r[1]}`;
          const sell = `${r[2]}`;
          const data = r[EXPORT_BOOK_COLUMN] as Uint8Array | null;
          if (data) book = bookMembers(data);
          out.text(`${separator}${head}`);
          out.reserve(27);
          out.isoTime(Number(r[0]));
          out.text(`","buyPrice":${buy},"sellPrice":${sell},"buyVolume":${r[3]},"sellVolume":${r[4]},"buyMovingWeek":${r[5]},"sellMovingWeek":${r[6]},"buyOrdersCount":${r[7]},"sellOrdersCount":${r[8]},"minBuy":${buy},"maxBuy":${buy},"minSell":${sell},"maxSell":${sell},"count":1${book}`);
          separator = ',';
        }
      } else {
        const tail = options.fullOrderBook ? noBook : '}';
        for (const r of page) {
          out.text(`${separator}${head}`);
          out.reserve(27);
          out.isoTime(Number(r[0]));
          out.text(`","buyPrice":${r[1]},"sellPrice":${r[2]},"buyVolume":${r[3]},"sellVolume":${r[4]},"buyMovingWeek":${r[5]},"sellMovingWeek":${r[6]},"buyOrdersCount":${r[7]},"sellOrdersCount":${r[8]},"minBuy":${r[10]},"maxBuy":${r[11]},"minSell":${r[12]},"maxSell":${r[13]},"count":${r[14]}${tail}`);
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
export function exportStream(store: BazaarExportReads, options: ExportOptions): Readable {
  return Readable.from(exportJson(store, options), { objectMode: false, highWaterMark: 64 * 1024 });
}
