/**
 * The unfiltered first lowest-BIN page of each tag, serialised once (the JSON bytes of its
 * SaveAuctions) and kept until the active listings change or one of the page's listings ends,
 * either of which could change the page. The route's hot path and the stored-response fast path
 * (http/stored-responses.ts) send these bytes as they are.
 */
import type { Clock } from '../clock.ts';
import { saveAuctionWire } from '../domain/auction-wire.ts';
import type { ActiveAuctionsView } from './active-auctions.ts';
import type { AuctionNbt } from './auction-nbt.ts';

/** Listings on a lowest-BIN page. */
export const LOWEST_BIN_COUNT = 10;
/** Tags whose page is kept; past it the pages start over. */
const MAX_PAGES = 20_000;

const anyListing = () => true;

export class LowestBinPages {
  private readonly pages = new Map<string, { version: number; validUntil: number; body: Buffer }>();

  constructor(
    private readonly view: ActiveAuctionsView,
    private readonly nbt: AuctionNbt,
    private readonly clock: Clock,
  ) {}

  /**
   * The page of a tag the loaded view lists, when its stored bytes are still current; else
   * undefined (`page()` builds it). Synchronous: the hot paths call it on every request.
   */
  current(tag: string): Buffer | undefined {
    return this.view.isReady() && this.view.hasTag(tag) ? this.stored(tag) : undefined;
  }

  /** The page's bytes, built when none are current (`[]` for a tag without active BINs). */
  async page(tag: string): Promise<Buffer> {
    const current = this.stored(tag);
    if (current) return current;
    const version = this.view.version;
    const found = this.view.lowestBin(tag, anyListing, LOWEST_BIN_COUNT);
    const validUntil = found.reduce((min, l) => Math.min(min, l.end), Number.POSITIVE_INFINITY);
    const nbt = await this.nbt.of(found.map((l) => l.uuid));
    const body = Buffer.from(JSON.stringify(found.map((l) => saveAuctionWire(l, [], nbt.get(l.uuid) ?? {}))));
    if (this.pages.size > MAX_PAGES) this.pages.clear();
    this.pages.set(tag, { version, validUntil, body });
    return body;
  }

  private stored(tag: string): Buffer | undefined {
    const page = this.pages.get(tag);
    return page && page.version === this.view.version && this.clock.now() < page.validUntil ? page.body : undefined;
  }
}
