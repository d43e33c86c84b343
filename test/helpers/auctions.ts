/** Auction rows for view and route tests: synthetic listings and the real 2022 pages, decoded as ingestion does. */
import { randomBytes } from 'node:crypto';
import { bidRows, decodeAuctionItem, listingRow } from '../../src/ingest/records.ts';
import type { UpstreamAuction } from '../../src/ingest/upstream.ts';
import type { Store } from '../../src/store/index.ts';
import type { AuctionQueryRepository, AuctionRecord } from '../../src/store/repositories/auction-queries.ts';
import type { AuctionRowWrite, AuctionsTable, BidsTable } from '../../src/store/schema.ts';
import { realGeneration } from './fixtures.ts';

export const hex32 = () => randomBytes(16).toString('hex');

/** Every active listing in one array (the view reads them chunk by chunk). */
export async function activeListings(queries: AuctionQueryRepository): Promise<AuctionRecord[]> {
  const out: AuctionRecord[] = [];
  for await (const chunk of queries.activeListingChunks()) out.push(...chunk);
  return out;
}

/** A listing row with sensible defaults (BIN, legendary Hyperion, ends in a day). */
export function listing(now: number, over: Partial<AuctionsTable> = {}): AuctionsTable {
  const itemUid = hex32().slice(-12);
  return {
    uuid: hex32(),
    tag: 'HYPERION',
    item_name: 'Hyperion',
    count: 1,
    seller: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    profile_id: 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    coop: null,
    start_at: now - 3_600_000,
    end_at: now + 86_400_000,
    starting_bid: 1_000_000,
    highest_bid: 0,
    bin: true,
    tier: 'LEGENDARY',
    category: 'WEAPON',
    reforge: null,
    item_uid: itemUid,
    item_created_at: now - 86_400_000 * 30,
    enchantments: { sharpness: 5 },
    flat_nbt: {},
    item_bytes: Buffer.from('H4sIAAAAAAAA/wMAAAAAAAAAAAA=', 'base64'),
    state: 'active',
    last_updated: now - 3_600_000,
    sold_price: null,
    buyer: null,
    sold_at: null,
    buyer_profile: null,
    ...over,
  };
}

/** A sold row (state sold) `agoMs` before `now`. */
export function sale(now: number, agoMs: number, over: Partial<AuctionsTable> = {}): AuctionsTable {
  const price = over.sold_price ?? over.highest_bid ?? 1_000_000;
  return listing(now, {
    start_at: now - agoMs - 600_000,
    end_at: now - agoMs,
    highest_bid: price,
    state: 'sold',
    sold_price: price,
    buyer: 'cccccccccccccccccccccccccccccccc',
    sold_at: now - agoMs,
    last_updated: now - agoMs,
    ...over,
  });
}

/** Stores listings as one auctions generation (emits the store's change event). */
export async function storeGeneration(store: Store, lastUpdated: number, listings: AuctionRowWrite[], bids: BidsTable[] = [], departed: string[] = []) {
  await store.auctions.applyGeneration({
    listings,
    bids,
    departed: departed.map((uuid) => ({ uuid })),
    feed: { name: 'auctions', lastUpdated, storedAt: lastUpdated, records: listings.length, source: 'upstream' },
  });
}

/** Stores sold rows as an auctions_ended batch. */
export async function storeSales(store: Store, lastUpdated: number, rows: AuctionRowWrite[]) {
  await store.auctions.recordSales(rows, [], { name: 'auctions_ended', lastUpdated, storedAt: lastUpdated, records: rows.length, source: 'upstream' });
}

/** The real 2022 generation shifted to `now`, decoded into rows exactly as the ingester does. */
export function realRows(now: number): { listings: AuctionRowWrite[]; bids: BidsTable[]; raw: UpstreamAuction[] } {
  const pages = realGeneration(now);
  const listings: AuctionRowWrite[] = [];
  const bids: BidsTable[] = [];
  const raw: UpstreamAuction[] = [];
  const seen = new Set<string>();
  for (const page of pages) {
    for (const a of page.auctions as unknown as UpstreamAuction[]) {
      if (seen.has(a.uuid)) continue;
      seen.add(a.uuid);
      raw.push(a);
      listings.push(listingRow(a, decodeAuctionItem(a.item_bytes)));
      bids.push(...bidRows(a));
    }
  }
  return { listings, bids, raw };
}
