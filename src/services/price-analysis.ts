/**
 * The price analysis of an item over its recent sales: read newest first in keyset chunks under
 * one deadline and added to the analysis chunk by chunk, so other requests run between chunks
 * and a hung query cannot hold the request past the deadline.
 */
import type { SellerNames } from './auction-filters.ts';
import type { Clock } from '../clock.ts';
import { analysisIgnoresFilters, SalesAnalysis, type AnalysisResult } from '../domain/analysis.ts';
import type { AuctionQueryRepository } from '../store/repositories/auction-queries.ts';
import type { AuctionRecord } from '../domain/auction-records.ts';
import type { LeanSale } from '../store/repositories/auction-queries.ts';
import { compileAuctionFilters, type KnownTags } from './auction-filters.ts';
import { soldSubject } from './auctions.ts';
import { DeadlineExceeded, withDeadline } from './deadline.ts';

const DAY = 86_400_000;
export const ANALYSIS_MAX_SALES = 50_000;
/** The analysis gives up after this long (the reference's 20 s database timeout): DeadlineExceeded. */
export const ANALYSIS_TIMEOUT_MS = 20_000;

/** What the analysis reads: sold auctions in chunks (and the filters' seller names). */
export type PriceAnalysisStore = SellerNames & {
  readonly auctionQueries: Pick<AuctionQueryRepository, 'soldChunks' | 'soldLeanChunks'>;
};

export interface PriceAnalysisDeps {
  store: PriceAnalysisStore;
  clock: Clock;
  knownTags: KnownTags;
}

export interface PriceAnalysis {
  result: AnalysisResult;
  /** true when filters were given but not applied (multi-enchantment books over more than 7 days) */
  filtersIgnored: boolean;
}

export class PriceAnalysisService {
  constructor(private readonly deps: PriceAnalysisDeps) {}

  /**
   * The analysis of a known tag's sales of the last `days` days matching the filters (FilterError
   * when one is bad, UnknownTagError, DeadlineExceeded after ANALYSIS_TIMEOUT_MS).
   */
  async analyse(tag: string, days: number, filters: Record<string, string>): Promise<PriceAnalysis> {
    const { store, clock, knownTags } = this.deps;
    const filter = await compileAuctionFilters(store, filters);
    await knownTags.require(tag);
    const since = clock.now() - days * DAY;
    // ENCHANTED_BOOK beyond 7 days ignores the filters (they were still validated above).
    const filtersIgnored = filter.names.length > 0 && analysisIgnoresFilters(tag, days);
    const applied = filtersIgnored || filter.names.length === 0 ? null : filter;
    // One deadline: elapsed time by the app clock or the real one, whichever is further; a query
    // that hangs is cut by withDeadline.
    const startClock = clock.now();
    const startReal = performance.now();
    const remaining = () => ANALYSIS_TIMEOUT_MS - Math.max(clock.now() - startClock, performance.now() - startReal);
    const analysis = new SalesAnalysis();
    const chunks: AsyncGenerator<ReadonlyArray<LeanSale | AuctionRecord>> =
      applied === null
        ? // Without filters only the price columns are read (no NBT to parse).
          store.auctionQueries.soldLeanChunks(tag, since, { max: ANALYSIS_MAX_SALES })
        : store.auctionQueries.soldChunks({ tag, since }, { max: ANALYSIS_MAX_SALES });
    try {
      for (;;) {
        const next = await withDeadline(chunks.next(), remaining());
        if (next.done) break;
        if (applied === null) for (const row of next.value as LeanSale[]) analysis.add(row);
        else {
          for (const row of next.value as AuctionRecord[]) {
            const s = soldSubject(row);
            if (applied.test(s)) analysis.add({ price: s.highestBid, count: s.count, start: s.start, end: s.end, bin: s.bin, seller: s.seller });
          }
        }
        if (remaining() <= 0) throw new DeadlineExceeded(ANALYSIS_TIMEOUT_MS);
      }
    } finally {
      // Stops the read after a timeout (a pending query finishes on its own).
      void chunks.return(undefined).catch(() => undefined);
    }
    return { result: analysis.result(days), filtersIgnored };
  }
}
