/**
 * Sold auctions from auctions_ended (the last ~60 s): every sale is stored once,
 * keyed by auction uuid, so overlapping polls and restarts never duplicate a sale.
 */
import { ItemDecodeError } from '../domain/nbt.ts';
import type { AuctionsTable, BidsTable } from '../store/schema.ts';
import { feedSource, SkipLog, type IngestContext } from './context.ts';
import { decodeAuctionItem, saleBid, saleRow, saleStart } from './records.ts';
import { check } from './upstream.ts';

export interface SalesResult {
  lastUpdated: number;
  sales: number;
  skipped: Record<string, number>;
}

/** Auctions scans remembered to bound the start of sales seen only in auctions_ended (records.ts saleStart). */
const SCANS_KEPT = 16;

export class EndedIngester {
  private lastUpdated = 0;
  /** `lastUpdated` of the auctions generations seen stored, oldest first */
  private readonly scans: number[] = [];

  constructor(
    private readonly ctx: IngestContext,
    /** told about every sale so the auctions ingester does not expire it later */
    private readonly onSold: (uuid: string) => void = () => {},
    /** told about the rows of every stored page (the history replay records its lowest BINs from them) */
    private readonly onStored: (rows: readonly AuctionsTable[]) => void = () => {},
  ) {}

  async pollOnce(): Promise<SalesResult | 'unchanged'> {
    const res = await this.ctx.client.getJson('/v2/skyblock/auctions_ended');
    return this.apply(res.body);
  }

  /** Stores one auctions_ended payload (fetched live, or replayed history). */
  async apply(body: unknown): Promise<SalesResult | 'unchanged'> {
    if (!check.endedPage.Check(body)) throw new Error('auctions_ended: malformed envelope');
    const page = body;
    if (page.lastUpdated <= this.lastUpdated) {
      this.ctx.metrics.cycles.inc({ feed: 'auctions_ended', outcome: 'unchanged' });
      return 'unchanged';
    }
    const scan = (await this.ctx.store.feeds.get('auctions'))?.lastUpdated;
    if (scan !== undefined && scan !== this.scans.at(-1)) {
      this.scans.push(scan);
      if (this.scans.length > SCANS_KEPT) this.scans.shift();
    }
    const skips = new SkipLog(this.ctx, 'auctions_ended');
    const rows = new Map<string, AuctionsTable>();
    const bids: BidsTable[] = [];
    for (const raw of page.auctions) {
      if (!check.sale.Check(raw)) {
        skips.skip('invalid', { uuid: (raw as { auction_id?: unknown })?.auction_id });
        continue;
      }
      try {
        const row = saleRow(raw, decodeAuctionItem(raw.item_bytes), saleStart(raw, this.scans));
        // The winning bid lives in the auction row (buyer_profile), except with an empty profile string.
        if (!rows.has(row.uuid) && raw.buyer_profile === '') bids.push(saleBid(raw));
        rows.set(row.uuid, row);
      } catch (err) {
        if (!(err instanceof ItemDecodeError)) throw err;
        skips.skip('undecodable', { uuid: raw.auction_id, reason: err.reason });
      }
    }
    await this.ctx.store.auctions.recordSales([...rows.values()], bids, {
      name: 'auctions_ended',
      lastUpdated: page.lastUpdated,
      storedAt: this.ctx.clock.now(),
      records: rows.size,
      source: feedSource(this.ctx),
    });
    for (const uuid of rows.keys()) this.onSold(uuid);
    this.onStored([...rows.values()]);
    this.lastUpdated = page.lastUpdated;
    this.ctx.metrics.records.inc({ feed: 'auctions_ended', outcome: 'stored' }, rows.size);
    this.ctx.metrics.cycles.inc({ feed: 'auctions_ended', outcome: 'applied' });
    this.ctx.metrics.lastSuccess.set({ feed: 'auctions_ended' }, this.ctx.clock.now() / 1000);
    return { lastUpdated: page.lastUpdated, sales: rows.size, skipped: skips.counts };
  }
}
