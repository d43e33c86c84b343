/** Real data from ../shared/data for tests; absent fixtures make the tests that need them skip visibly. */
import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export const SHARED_DATA = new URL('../../../shared/data/', import.meta.url);
const AUCTION_PAGES = new URL('auctions/hypixel-auction-pages-2022-09-29.ndjson.gz', SHARED_DATA);

export const hasAuctionPages = existsSync(AUCTION_PAGES);

export interface RealAuctionPage {
  success: boolean;
  page: number;
  totalPages: number;
  totalAuctions: number;
  lastUpdated: number;
  auctions: Array<Record<string, unknown> & { uuid: string; start: number; end: number; last_updated: number }>;
}

/** The three real pages (page 0 twice, page 2), as Hypixel sent them in 2022. */
export function realAuctionPages(): RealAuctionPage[] {
  return gunzipSync(readFileSync(AUCTION_PAGES))
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as RealAuctionPage);
}

/**
 * The real pages as one two-page generation whose timestamps are shifted so the
 * newest auction started `now`: page 0, then page 2 as page 1.
 */
export function realGeneration(now: number): RealAuctionPage[] {
  const all = realAuctionPages();
  const first = all.find((p) => p.page === 0)!;
  const second = all.find((p) => p.page === 2)!;
  const shift = now - first.lastUpdated;
  return [first, second].map((p, index) => ({
    ...p,
    page: index,
    totalPages: 2,
    totalAuctions: 2000,
    lastUpdated: first.lastUpdated + shift,
    auctions: p.auctions.map((a) => {
      const bids = (a.bids as Array<Record<string, number>> | undefined) ?? [];
      return {
        ...a,
        start: a.start + shift,
        end: a.end + shift,
        last_updated: a.last_updated + shift,
        bids: bids.map((b) => ({ ...b, timestamp: b.timestamp! + shift })),
      };
    }),
  }));
}
