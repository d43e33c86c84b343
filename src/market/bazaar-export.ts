/**
 * The bazaar export: one product's history as a JSON array, produced page by page so
 * memory stays flat whatever the range. 20-second snapshots cover the last 14 days (or
 * as far back as they are kept); 5-minute rows cover everything before. Order books
 * (stored only when they change) are carried forward row by row when requested.
 */
import { Readable } from 'node:stream';
import type { Store } from '../store/index.ts';
import { decodeBook } from '../domain/bazaar-book.ts';
import { bucketStart, rawHorizon, RESOLUTION_MS } from '../domain/bazaar-history.ts';

export interface ExportOptions {
  productId: string;
  /** inclusive, UTC ms */
  start: number;
  /** inclusive, UTC ms */
  end: number;
  now: number;
  fullOrderBook: boolean;
  /** rows per database read */
  pageSize?: number;
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

/** The export's JSON text in chunks of one page each: `[`, rows separated by commas, `]`. */
export async function* exportJson(store: Store, options: ExportOptions): AsyncGenerator<string> {
  const repo = store.bazaarHistory;
  // Rows with both books are ~10× larger: smaller pages keep the stream's memory similar.
  const pageSize = options.pageSize ?? (options.fullOrderBook ? 1000 : 5000);
  const head = `{"productId":${JSON.stringify(options.productId)},"timeStamp":"`;
  const to = options.end + 1;
  // Where 20-second rows take over: the retention horizon, or the product's oldest kept snapshot.
  const oldestRaw = await repo.oldestSnapshotOf(options.productId);
  const switchAt = oldestRaw === undefined ? to : bucketStart(Math.max(rawHorizon(options.now), oldestRaw), RESOLUTION_MS['5m']);

  yield '[';
  let first = true;
  let book: string | undefined = options.fullOrderBook ? bookMembers(undefined) : undefined;
  if (options.fullOrderBook && switchAt < to) book = bookMembers(await repo.bookAt(options.productId, Math.max(options.start, switchAt) - 1));

  // 5-minute rows before the switch (no order books are kept for them), then 20-second rows.
  const segments: Array<['5m' | '20s', number, number]> = [
    ['5m', options.start - 1, Math.min(to, switchAt)],
    ['20s', Math.max(options.start, switchAt) - 1, to],
  ];
  for (const [source, from, until] of segments) {
    let after = from;
    while (after < until - 1) {
      const page = await repo.exportPage(source, options.productId, after, until, pageSize, options.fullOrderBook);
      if (page.length === 0) break;
      let chunk = '';
      for (const row of page) {
        let tail = '}';
        if (options.fullOrderBook) {
          if (row.book) book = bookMembers(row.book);
          tail = source === '5m' ? bookMembers(undefined) : book!;
        }
        chunk += (first ? '' : ',') + head + new Date(Number(row.ts)).toISOString() + '",' + row.json + tail;
        first = false;
      }
      yield chunk;
      after = Number(page[page.length - 1]!.ts);
      if (page.length < pageSize) break;
    }
  }
  yield ']';
}

/** The export as a byte stream that reads the next page only when the consumer wants more. */
export function exportStream(store: Store, options: ExportOptions): Readable {
  return Readable.from(exportJson(store, options), { objectMode: false, highWaterMark: 64 * 1024 });
}
