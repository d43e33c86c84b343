/**
 * Long-term auction data: the archive overview of sold auctions in a time window, the queued
 * CSV exports of it (run by jobs/archive-export.ts), and partners' per-tag item values of an
 * hour. Transport-free: an unknown tag throws UnknownTagError and a bad filter FilterError.
 */
import type { SellerNames } from './auction-filters.ts';
import { sleepOn, type Clock } from '../clock.ts';
import { upperMedian } from '../domain/analysis.ts';
import type { Market } from '../market/index.ts';
import type { AuctionQueryRepository } from '../store/repositories/auction-queries.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';
import type { AuctionRecord } from '../domain/auction-records.ts';
import type { NewExportJob, ExportJobRepository } from '../store/repositories/export-jobs.ts';
import type { ExportJob } from '../domain/export-jobs.ts';
import { compileAuctionFilters, type KnownTags } from './auction-filters.ts';
import { soldSubject, withSellerNames, type Previews } from './auctions.ts';

/** Every archive overview answers after this delay (it scans much history: scraping it costs time). */
export const ARCHIVE_DELAY_MS = 2000;
/** Sold auctions the overview scans at most per request; beyond it the answer is Partial. */
export const ARCHIVE_SCAN_LIMIT = 100_000;
const HOUR = 3_600_000;

/** What the archive reads and queues: sold auctions, export jobs, seller names (and the filters'). */
export type ArchiveStore = SellerNames & {
  readonly auctionQueries: Pick<AuctionQueryRepository, 'soldChunks' | 'salePricesBetween'>;
  readonly exportJobs: Pick<ExportJobRepository, 'abort' | 'countQueued' | 'create' | 'delete' | 'forAccount' | 'get'>;
  readonly playerNames: Pick<PlayerNameRepository, 'namesOf'>;
};

export interface AuctionArchiveDeps {
  store: ArchiveStore;
  clock: Clock;
  market: { readonly activeAuctions: Pick<Market['activeAuctions'], 'ready' | 'lowestBin' | 'activeOf'> };
  knownTags: KnownTags;
  config: { exportLeaseSeconds: number };
}

export interface ArchivePage extends Previews {
  /** true when ARCHIVE_SCAN_LIMIT sales were scanned before the page was full */
  partial: boolean;
}

export interface HourValues {
  /** hour index (unix hours) */
  hour: number;
  from: number;
  to: number;
  items: Array<{ tag: string; volume: number; median: number; min: number; max: number; lowestBin: number | null; activeListings: number }>;
}

export class AuctionArchive {
  constructor(private readonly deps: AuctionArchiveDeps) {}

  /** Sold auctions of a known tag that ended in [after, before] and match the filters, newest first, one page. */
  async overview(tag: string, filters: Record<string, string>, window: { after: number; before: number }, page: number, pageSize: number): Promise<ArchivePage> {
    const { store, clock, knownTags } = this.deps;
    const filter = await compileAuctionFilters(store, filters);
    await knownTags.require(tag);
    await sleepOn(clock, ARCHIVE_DELAY_MS);
    const want = (page + 1) * pageSize;
    const found: AuctionRecord[] = [];
    // At most ARCHIVE_SCAN_LIMIT sales, newest first, in keyset chunks; stops once the page is full.
    let scanned = 0;
    for await (const chunk of store.auctionQueries.soldChunks({ tag, since: window.after, until: window.before }, { max: ARCHIVE_SCAN_LIMIT })) {
      scanned += chunk.length;
      for (const r of chunk) if (filter.test(soldSubject(r))) found.push(r);
      if (found.length >= want) break;
    }
    const partial = found.length < want && scanned >= ARCHIVE_SCAN_LIMIT;
    return { ...(await withSellerNames(store, found.slice(page * pageSize, want))), partial };
  }

  /**
   * Queues an export of a known tag's sales for an account. `admit` sees how many of the
   * account's jobs are queued already and throws to refuse another.
   */
  async queueExport(job: Omit<NewExportJob, 'requestedAt'>, admit: (queued: number) => void): Promise<ExportJob> {
    const { store, clock, knownTags, config } = this.deps;
    await compileAuctionFilters(store, job.filters);
    await knownTags.require(job.itemTag);
    admit(await store.exportJobs.countQueued(job.accountId, clock.now(), config.exportLeaseSeconds * 1000));
    return store.exportJobs.create({ ...job, requestedAt: clock.now() });
  }

  /** An account's export jobs, newest first. */
  exports(accountId: number): Promise<ExportJob[]> {
    return this.deps.store.exportJobs.forAccount(accountId);
  }

  /** The account's job `id`; undefined when there is none or it is another account's. */
  async ownExport(accountId: number, id: number): Promise<ExportJob | undefined> {
    const job = await this.deps.store.exportJobs.get(id);
    return job && job.accountId === accountId ? job : undefined;
  }

  /** Aborts a queued or running job of the account: the job after the attempt, and whether it was aborted. */
  async abortExport(accountId: number, id: number): Promise<{ job: ExportJob | undefined; aborted: boolean }> {
    if (!(await this.ownExport(accountId, id))) return { job: undefined, aborted: false };
    const aborted = await this.deps.store.exportJobs.abort(id, accountId, this.deps.clock.now());
    return { job: await this.ownExport(accountId, id), aborted };
  }

  /** Deletes a job of the account in any state; false when it has no such job. */
  async deleteExport(accountId: number, id: number): Promise<boolean> {
    if (!(await this.ownExport(accountId, id))) return false;
    return this.deps.store.exportJobs.delete(id, accountId);
  }

  /** The last complete UTC hour by the clock, as an hour index. */
  lastCompleteHour(): number {
    return Math.floor(this.deps.clock.now() / HOUR) - 1;
  }

  /** Per-tag sale volume, median, min and max of one hour (`count` tags, most sales first), with the current lowest BIN. */
  async hourValues(hour: number, tag: string | undefined, count: number): Promise<HourValues> {
    const { store, market } = this.deps;
    const from = hour * HOUR;
    const to = from + HOUR;
    const sales = await store.auctionQueries.salePricesBetween(from, to, tag);
    const byTag = new Map<string, number[]>();
    for (const s of sales) {
      const list = byTag.get(s.tag) ?? [];
      list.push(s.unitPrice);
      byTag.set(s.tag, list);
    }
    const view = market.activeAuctions;
    await view.ready();
    const all = () => true;
    const items = [...byTag.entries()]
      .sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))
      .slice(0, count)
      .map(([t, prices]) => {
        prices.sort((a, b) => a - b);
        const lowest = view.lowestBin(t, all, 1)[0];
        return {
          tag: t,
          volume: prices.length,
          median: Math.round(upperMedian(prices)),
          min: Math.round(prices[0]!),
          max: Math.round(prices[prices.length - 1]!),
          lowestBin: lowest ? lowest.startingBid : null,
          activeListings: view.activeOf(t, all).length,
        };
      });
    return { hour, from, to, items };
  }
}
