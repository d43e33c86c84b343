/**
 * Auctions: detect a new generation by page 0's lastUpdated, crawl every page, accept
 * the generation only when all pages carry that same lastUpdated (stale pages are
 * retried; a newer one restarts the crawl), diff against the active set by uuid and
 * last_updated, decode only new or changed auctions, and apply it in one transaction.
 */
import type { ActiveAuction, DepartedAuction } from '../store/repositories/auctions.ts';
import type { AuctionRowWrite, AuctionsTable, BidsTable } from '../store/schema.ts';
import { feedSource, realSleep, SkipLog, type IngestContext } from './context.ts';
import { DecodePool } from './decode-pool.ts';
import { prepareAuctionRecord, type PreparedRecord } from './prepare-auction.ts';
import { BodyBuffer } from './hypixel-client.ts';
import { linkAccountsFromBids } from './link-bids.ts';
import { scanAuctionPage, type ScannedAuction } from './page-scan.ts';
import { check, type AuctionPage } from './upstream.ts';

export interface GenerationResult {
  lastUpdated: number;
  pages: number;
  auctions: number;
  inserted: number;
  updated: number;
  departed: number;
  skipped: Record<string, number>;
  ms: number;
}

class NewerGeneration extends Error {}

/** A page whose envelope is validated and whose auctions are scanned, not yet parsed. */
type ScannedPage = Omit<AuctionPage, 'auctions'> & { auctions: ScannedAuction[] };

/** One upstream auction that is new or changed after validation: decoded, or not decodable. */
type PreparedAuction =
  | { kind: 'undecodable'; uuid: string; lastUpdated: number }
  | { kind: 'new' | 'changed'; uuid: string; lastUpdated: number; row: AuctionRowWrite; bids: BidsTable[] };

/**
 * The ingester's memory of an active auction; `seenIn` is the last crawl attempt that found it
 * unchanged. Marking the ~97 % unchanged auctions in place, rather than collecting an entry per
 * auction and a map of all of them, keeps a steady-state generation's work on the few that changed.
 */
type TrackedAuction = ActiveAuction & { seenIn?: number };

/** A page's outcome: its new or changed auctions, and how many it found unchanged. */
interface PreparedPage {
  changed: PreparedAuction[];
  unchanged: number;
}

const PAGE_ATTEMPTS = 8;
/** pages fetched or being decoded at once (their bodies are what a crawl holds) */
const PAGES_IN_FLIGHT = 6;
const CRAWL_RESTARTS = 3;
/** Decode in slices so an API in the same process keeps answering during a cold sweep. */
const YIELD_EVERY = 500;
/** A page with at least this many new or changed records is decoded in the worker pool. */
const POOL_MIN_RECORDS = 200;

export interface AuctionIngesterOptions {
  /**
   * Decode workers for pages with many new records (a cold sweep); 0 (the default) decodes on
   * the ingest thread. Off by default: on the shared 2-core machine they added CPU and did not
   * shorten the sweep (docs/performance.md); they can only help where a core is idle.
   */
  decodeWorkers?: number;
}

export class AuctionIngester {
  private active: Map<string, TrackedAuction> | undefined;
  /** numbers each crawl attempt, for TrackedAuction.seenIn */
  private attempts = 0;
  private lastGeneration = 0;
  /** page 0's body buffer while polling for a new generation */
  private probe = new BodyBuffer();
  /**
   * Records decoded by a crawl abandoned for a newer generation, by uuid: the next attempt takes
   * those whose last_updated did not move instead of decoding them again. Without it a cold sweep
   * slower than upstream's generation interval (a loaded machine) decoded everything again on
   * every restart and never finished. Emptied once a generation is applied.
   */
  private carried = new Map<string, PreparedAuction & { kind: 'new' | 'changed' }>();
  /** records taken from an abandoned crawl instead of decoded again (tests, logs) */
  carriedOver = 0;
  private readonly pool: DecodePool | undefined;

  constructor(
    private readonly ctx: IngestContext,
    options: AuctionIngesterOptions = {},
  ) {
    const workers = options.decodeWorkers ?? 0;
    this.pool = workers > 0 ? new DecodePool(workers, (err) => ctx.logger.warn({ err }, 'auction decode workers unavailable; decoding on the ingest thread')) : undefined;
  }

  /** Fetches and applies the current generation if it is new; 'unchanged' otherwise. */
  async pollOnce(): Promise<GenerationResult | 'unchanged'> {
    try {
      return await this.poll();
    } finally {
      // Workers live for one generation at most: an idle service holds no extra threads.
      await this.pool?.close();
    }
  }

  private async poll(): Promise<GenerationResult | 'unchanged'> {
    const started = performance.now();
    if (!this.active) {
      this.active = await this.ctx.store.auctions.activeIndex();
      this.lastGeneration = (await this.ctx.store.feeds.get('auctions'))?.lastUpdated ?? 0;
    }
    const active = this.active;
    const skips = new SkipLog(this.ctx, 'auctions');
    // Each page is validated and its new or changed auctions decoded as soon as it arrives,
    // overlapping the CPU work with the wait for the other pages.
    const crawl = await this.crawl(
      (page, attempt) => this.preparePage(page, active, skips, attempt),
      (pages) => {
        for (const page of pages) for (const entry of page?.changed ?? []) if (entry.kind !== 'undecodable') this.carried.set(entry.uuid, entry);
      },
    );
    if (crawl === 'unchanged') {
      this.ctx.metrics.cycles.inc({ feed: 'auctions', outcome: 'unchanged' });
      return 'unchanged';
    }

    // Merge the pages. During a swap an auction can sit on two pages: keep its newest state
    // (an unchanged copy is the state already stored).
    const seen = new Map<string, PreparedAuction>();
    let unchanged = 0;
    for (const page of crawl.pages) {
      unchanged += page.unchanged;
      for (const entry of page.changed) {
        const known = active.get(entry.uuid);
        if (known && known.seenIn === crawl.attempt && known.lastUpdated >= entry.lastUpdated) continue;
        const previous = seen.get(entry.uuid);
        if (!previous || entry.lastUpdated > previous.lastUpdated) seen.set(entry.uuid, entry);
      }
    }
    const listings: AuctionRowWrite[] = [];
    const bids: BidsTable[] = [];
    let inserted = 0;
    let updated = 0;
    let undecodable = 0;
    for (const entry of seen.values()) {
      if (entry.kind === 'undecodable') {
        undecodable++;
        continue;
      }
      // An auction found unchanged on one page and changed on another is counted once, as changed.
      const known = active.get(entry.uuid);
      if (known?.seenIn === crawl.attempt) unchanged--;
      listings.push(entry.row);
      for (const bid of entry.bids) bids.push(bid);
      if (entry.kind === 'changed') updated++;
      else inserted++;
    }

    const departed: DepartedAuction[] = [];
    for (const [uuid, entry] of active) {
      if (entry.seenIn === crawl.attempt || seen.has(uuid)) continue;
      const endedWithBids = !entry.bin && entry.highestBid > 0 && entry.endAt <= crawl.lastUpdated && entry.topBidder;
      departed.push(endedWithBids ? { uuid, sale: { price: entry.highestBid, buyer: entry.topBidder!, at: entry.endAt } } : { uuid });
    }

    // Marks the start of the write window (crash-consistency tests kill the process after it).
    this.ctx.logger.debug({ feed: 'auctions', lastUpdated: crawl.lastUpdated, listings: listings.length, departed: departed.length }, 'writing auctions generation');
    await this.ctx.store.auctions.applyGeneration({
      listings,
      bids,
      departed,
      feed: {
        name: 'auctions',
        lastUpdated: crawl.lastUpdated,
        storedAt: this.ctx.clock.now(),
        records: unchanged + listings.length,
        source: feedSource(this.ctx),
      },
    });
    await linkAccountsFromBids(this.ctx, bids);

    // Only after the commit: the in-memory base follows the store.
    const topBidders = new Map<string, { amount: number; bidder: string }>();
    for (const b of bids) {
      const top = topBidders.get(b.auction_uuid);
      if (!top || b.amount > top.amount) topBidders.set(b.auction_uuid, { amount: b.amount, bidder: b.bidder });
    }
    for (const row of listings) {
      const topBid = topBidders.get(row.uuid);
      active.set(row.uuid, {
        lastUpdated: row.last_updated,
        endAt: row.end_at,
        highestBid: row.highest_bid,
        bin: Boolean(row.bin),
        topBidder: topBid?.bidder ?? active.get(row.uuid)?.topBidder ?? null,
      });
    }
    for (const d of departed) active.delete(d.uuid);
    this.lastGeneration = crawl.lastUpdated;
    this.carried.clear();

    const { metrics } = this.ctx;
    metrics.records.inc({ feed: 'auctions', outcome: 'stored' }, listings.length);
    metrics.records.inc({ feed: 'auctions', outcome: 'unchanged' }, unchanged);
    metrics.cycles.inc({ feed: 'auctions', outcome: 'applied' });
    const ms = performance.now() - started;
    metrics.cycleSeconds.observe({ feed: 'auctions' }, ms / 1000);
    metrics.lastSuccess.set({ feed: 'auctions' }, this.ctx.clock.now() / 1000);
    const result: GenerationResult = {
      lastUpdated: crawl.lastUpdated,
      pages: crawl.pages.length,
      auctions: unchanged + seen.size,
      inserted,
      updated,
      departed: departed.length,
      skipped: skips.counts,
      ms: Math.round(ms),
    };
    this.ctx.logger.info({ feed: 'auctions', ...result }, 'auctions generation applied');
    return result;
  }

  /** Forgets the active set after the store was changed behind the ingester's back (tests, recovery). */
  reset(): void {
    this.active = undefined;
  }

  /** A removed auction (sold through auctions_ended): it must not be expired by the next generation. */
  forget(uuid: string): void {
    this.active?.delete(uuid);
  }

  private async crawl<T>(
    prepare: (page: ScannedPage, attempt: number) => Promise<T>,
    /** the pages an attempt prepared before a newer generation made it restart (holes: pages never prepared) */
    abandoned: (pages: ReadonlyArray<T | undefined>) => void,
  ): Promise<{ lastUpdated: number; attempt: number; pages: T[] } | 'unchanged'> {
    for (let restart = 0; restart < CRAWL_RESTARTS; restart++) {
      const probe = this.probe;
      const first = await this.fetchPage(0, undefined, probe);
      if (first.lastUpdated <= this.lastGeneration) return 'unchanged';
      // Each attempt marks with its own number and reads its own body buffers, which a later
      // attempt never reuses. Page 0's buffer goes with this attempt; the next probe gets a new one.
      this.probe = new BodyBuffer();
      const attempt = ++this.attempts;
      const pageBytes = Math.ceil(probe.length * 1.25);
      // A few workers each fetch a page and prepare it before fetching the next. Fetching
      // every page at once let bodies pile up faster than they were decoded: on a cold
      // sweep all ~90 MB of page bodies were alive together.
      const pages = new Array<T>(first.totalPages);
      let next = 1;
      let failed = false;
      const worker = async (): Promise<void> => {
        // One body buffer per worker, reused for each of its pages once the page is prepared.
        const body = new BodyBuffer(pageBytes);
        while (!failed && next < first.totalPages) {
          const page = next++;
          try {
            pages[page] = await prepare(await this.fetchPage(page, first.lastUpdated, body), attempt);
          } catch (err) {
            failed = true;
            throw err;
          }
        }
      };
      // Every page in preparation settles before the attempt ends (a failure stops the workers
      // after their current page): an abandoned attempt's pages are then complete, and kept.
      const settled = await Promise.allSettled([
        prepare(first, attempt).then((p) => (pages[0] = p)),
        ...Array.from({ length: Math.min(PAGES_IN_FLIGHT, Math.max(0, first.totalPages - 1)) }, worker),
      ]);
      const failure = settled.find((r) => r.status === 'rejected');
      if (failure) {
        const newer = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected' && r.reason instanceof NewerGeneration);
        if (newer) {
          abandoned(pages);
          this.ctx.logger.info({ restart, carried: this.carried.size }, 'a newer auctions generation appeared mid-crawl; restarting (records decoded so far are kept)');
          continue;
        }
        throw failure.reason;
      }
      return { lastUpdated: first.lastUpdated, attempt, pages };
    }
    throw new Error(`auctions generation kept changing during ${CRAWL_RESTARTS} crawls`);
  }

  /**
   * Finds the page's new or changed auctions by uuid and last_updated (read by the scan,
   * without parsing the record), then parses, validates and decodes only those. An
   * unchanged record was validated when it was first seen with this last_updated.
   */
  private async preparePage(page: ScannedPage, active: Map<string, TrackedAuction>, skips: SkipLog, attempt: number): Promise<PreparedPage> {
    const out: PreparedAuction[] = [];
    const changed: ScannedAuction[] = [];
    let unchanged = 0;
    const markUnchanged = (known: TrackedAuction) => {
      if (known.seenIn !== attempt) unchanged++;
      known.seenIn = attempt;
    };
    for (const scanned of page.auctions) {
      const hint = scanned.lastUpdated ?? scanned.start;
      const known = scanned.uuid !== null && hint !== null ? active.get(scanned.uuid) : undefined;
      if (known && known.lastUpdated === hint) {
        markUnchanged(known);
        continue;
      }
      const carried = scanned.uuid !== null && hint !== null ? this.carried.get(scanned.uuid) : undefined;
      if (carried && carried.lastUpdated === hint) {
        out.push(carried);
        this.carriedOver++;
      } else changed.push(scanned);
    }
    for (const record of await this.prepareRecords(changed)) {
      if (record.kind === 'invalid') {
        skips.skip('invalid', { page: page.page, uuid: record.uuid, reason: record.reason });
      } else if (record.kind === 'undecodable') {
        skips.skip('undecodable', { uuid: record.uuid, reason: record.reason });
        out.push({ kind: 'undecodable', uuid: record.uuid, lastUpdated: record.lastUpdated });
      } else {
        // Unchanged here only when the scan could not read the uuid or last_updated.
        const known = active.get(record.uuid);
        if (known && known.lastUpdated === record.lastUpdated) markUnchanged(known);
        else out.push({ kind: known ? 'changed' : 'new', uuid: record.uuid, lastUpdated: record.lastUpdated, row: record.row, bids: record.bids });
      }
    }
    return { changed: out, unchanged };
  }

  /** Parses, validates and decodes records, yielding now and then so the API keeps answering. */
  private async prepareRecords(records: ScannedAuction[]): Promise<PreparedRecord[]> {
    // Many new records (a cold sweep): a free decode worker takes the page (its records share
    // the page's body); when none is free, this thread decodes it.
    if (this.pool && records.length >= POOL_MIN_RECORDS) {
      const decoded = this.pool.tryDecode({ body: records[0]!.body, ranges: records });
      // A worker that dies takes no record with it: its page is decoded here instead.
      if (decoded) return decoded.catch(() => this.prepareInline(records));
    }
    return this.prepareInline(records);
  }

  private async prepareInline(records: ScannedAuction[]): Promise<PreparedRecord[]> {
    const out: PreparedRecord[] = [];
    for (let i = 0; i < records.length; i++) {
      if (i > 0 && i % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      out.push(prepareAuctionRecord(records[i]!.text()));
    }
    return out;
  }

  /**
   * One page of generation `expected` (any generation for page 0), received into `body`:
   * the page's scanned auctions read that buffer, so it must not be reused until they are prepared.
   */
  private async fetchPage(page: number, expected: number | undefined, body: BodyBuffer): Promise<ScannedPage> {
    const sleep = this.ctx.sleep ?? realSleep;
    let problem = '';
    for (let attempt = 1; attempt <= PAGE_ATTEMPTS; attempt++) {
      // The body is scanned rather than parsed (page-scan.ts); a broken structure is retried as bad JSON.
      const res = await this.ctx.client.getWith(`/v2/skyblock/auctions?page=${page}`, [404], scanAuctionPage, body);
      const { envelope, auctions } = res.body;
      if (res.status === 404) {
        problem = 'not found (generation swap in progress?)';
      } else if (auctions === null || !check.auctionPage.Check({ ...envelope, auctions: [] })) {
        problem = 'malformed page envelope';
      } else {
        const scanned = { ...(envelope as Omit<AuctionPage, 'auctions'>), auctions };
        if (expected === undefined || scanned.lastUpdated === expected) return scanned;
        if (scanned.lastUpdated > expected) throw new NewerGeneration();
        problem = `stale page from generation ${scanned.lastUpdated}`;
      }
      this.ctx.logger.debug({ page, attempt, problem }, 'auctions page not usable yet');
      await sleep(Math.min(4000, 250 * attempt));
    }
    throw new Error(`auctions page ${page}: ${problem} after ${PAGE_ATTEMPTS} attempts`);
  }
}
