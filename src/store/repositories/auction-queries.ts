/**
 * Read side of the auctions table for the auction endpoints: active listings for the
 * in-memory view, sold history by tag / item uid, auction detail. Writes stay in
 * AuctionRepository (ingestion).
 */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Dialect } from '../db.ts';
import { coopOf, itemNbtOf, withSaleBid } from '../auction-encoding.ts';
import type { AuctionRecord, ItemSaleRow } from '../../domain/auction-records.ts';
import type { AnalysisSale } from '../../domain/analysis.ts';
import type { AuctionsTable, BidsTable, Database } from '../schema.ts';

export type { AuctionRecord, ItemSaleRow } from '../../domain/auction-records.ts';

export const RECORD_COLUMNS = [
  'uuid',
  'tag',
  'item_name',
  'count',
  'seller',
  'profile_id',
  'coop',
  'start_at',
  'end_at',
  'starting_bid',
  'highest_bid',
  'bin',
  'tier',
  'category',
  'reforge',
  'item_uid',
  'item_created_at',
  'enchantments',
  'flat_nbt',
  'state',
  'last_updated',
  'sold_price',
  'buyer',
  'sold_at',
] as const;

type RecordRow = Pick<AuctionsTable, (typeof RECORD_COLUMNS)[number]>;

/**
 * States as literals, not bound parameters: the partial indexes (auctions_tag_sold_at WHERE
 * state = 'sold'; since migration 013 auctions_active_* WHERE state = 'active' and
 * auctions_expired_tag WHERE state = 'expired') are only usable on SQLite when the planner
 * sees the literal.
 */
export const SOLD = sql<AuctionsTable['state']>`'sold'`;
export const ACTIVE = sql<AuctionsTable['state']>`'active'`;
export const EXPIRED = sql<AuctionsTable['state']>`'expired'`;

function json<T>(v: unknown, empty: T): T {
  if (v === null || v === undefined) return empty;
  if (typeof v === 'string') {
    try {
      return JSON.parse(v) as T;
    } catch {
      return empty;
    }
  }
  return v as T;
}

/** The cursor just after this sold record. */
export function cursorOf(r: AuctionRecord): SoldCursor {
  return { soldAt: r.soldAt ?? r.end, uuid: r.uuid };
}

export function toRecord(r: RecordRow): AuctionRecord {
  return recordOf(r, false);
}

/** A row as a record; `skipMaps`: the caller sets the maps (changedRecordOf). */
function recordOf(r: RecordRow, skipMaps: boolean): AuctionRecord {
  return {
    uuid: r.uuid,
    tag: r.tag,
    itemName: r.item_name,
    count: r.count,
    seller: r.seller,
    profileId: r.profile_id,
    coop: coopOf(r.coop, r.seller),
    start: r.start_at === null ? null : Number(r.start_at),
    end: Number(r.end_at),
    startingBid: Number(r.starting_bid),
    highestBid: Number(r.highest_bid),
    bin: Boolean(r.bin),
    tier: r.tier,
    category: r.category,
    reforge: r.reforge,
    itemUid: r.item_uid,
    itemCreatedAt: r.item_created_at === null ? null : Number(r.item_created_at),
    enchantments: skipMaps ? EMPTY_PLACEHOLDER : json<Record<string, number>>(r.enchantments, {}),
    flatNbt: skipMaps ? EMPTY_PLACEHOLDER : json<Record<string, string>>(r.flat_nbt, {}),
    state: r.state,
    lastUpdated: Number(r.last_updated),
    soldPrice: r.sold_price === null ? null : Number(r.sold_price),
    buyer: r.buyer,
    soldAt: r.sold_at === null ? null : Number(r.sold_at),
  };
}

/**
 * Cold-generation cost (issue 41): a generation's change carries 60,000 records whose enchantment
 * and flat NBT maps repeat (~780 and ~1,100 distinct in the simulator). Each map is shared by its
 * JSON text, the text SQLite stores (the repository writes it once and passes it here; otherwise
 * it is stringified here), and frozen: the active-auctions view (market/active-auctions.ts
 * `listingOf`) and the live feeds' index keep a frozen map as it is, where the view used to
 * `JSON.stringify` every map again to find its shared copy. A text is parsed only the first time
 * it is met. Bounded like the view's pools: dropped whole past its cap; maps with a value of 32+
 * characters (pets' uuids) are unique and not pooled.
 */
const PARSED_MAX = 50_000;
const UNIQUE_VALUE_LENGTH = 32;
let parsedMaps = new Map<string, object>();
const FROZEN_EMPTY = Object.freeze({});

const EMPTY_PLACEHOLDER = FROZEN_EMPTY as Record<string, never>;

/** The pool's frozen map for a JSON column's text (or object, stringified once for its key). */
function sharedMap<T extends object>(column: unknown): T {
  if (column === null || column === undefined) return FROZEN_EMPTY as T;
  const v = typeof column === 'string' ? column : JSON.stringify(column);
  if (v === '{}' || v === '') return FROZEN_EMPTY as T;
  const known = parsedMaps.get(v);
  if (known !== undefined) return known as T;
  const parsed = typeof column === 'string' ? json<T>(v, {} as T) : (column as T);
  if (typeof parsed !== 'object' || parsed === null) return FROZEN_EMPTY as T;
  Object.freeze(parsed);
  for (const key in parsed) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.length >= UNIQUE_VALUE_LENGTH) return parsed;
  }
  if (parsedMaps.size >= PARSED_MAX) parsedMaps = new Map();
  parsedMaps.set(v, parsed);
  return parsed;
}

/**
 * A written row as the spine's change carries it: toRecord's fields, with the enchantment and
 * flat NBT maps shared and frozen (read-only for every follower); `*Text`: the maps' stored JSON text.
 */
export function changedRecordOf(r: RecordRow, enchantmentsText?: string | null, flatNbtText?: string | null): AuctionRecord {
  const record = recordOf(r, true);
  record.enchantments = sharedMap(enchantmentsText !== undefined ? enchantmentsText : r.enchantments);
  record.flatNbt = sharedMap(flatNbtText !== undefined ? flatNbtText : r.flat_nbt);
  return record;
}

/**
 * Where a newest-first read of sold auctions stopped: the last row's sale time and uuid.
 * Sold reads are ordered by sale time descending, then uuid ascending; the next chunk starts
 * right after the cursor (keyset pagination), so reading chunk k costs what chunk 1 does,
 * where LIMIT/OFFSET walked all k - 1 earlier chunks again.
 */
export interface SoldCursor {
  soldAt: number;
  uuid: string;
}

export interface SoldRange {
  tag: string;
  /** only sales at or after this time (epoch ms) */
  since: number;
  /** only sales before this time (epoch ms); default: no bound */
  until?: number;
  /** only sales after this one in the order (newest first, then uuid) */
  after?: SoldCursor;
}

function toItemSale(r: Pick<AuctionsTable, 'uuid' | 'tag' | 'item_uid' | 'seller' | 'buyer' | 'sold_price' | 'highest_bid' | 'sold_at' | 'end_at'>): ItemSaleRow {
  return {
    uuid: r.uuid,
    tag: r.tag,
    itemUid: r.item_uid,
    seller: r.seller,
    buyer: r.buyer,
    price: Number(r.sold_price ?? r.highest_bid),
    at: Number(r.sold_at ?? r.end_at),
  };
}

/** `soldFingerprint`: count, sum and newest of the sale times of a tag's sales in a window. */
export interface SoldFingerprint {
  count: number;
  /** the sum of the sale times after `since` (ms; small enough to stay exact): changes when a sale's time is rewritten */
  timeSum: number;
  newest: number | null;
}

export interface SoldQuery extends SoldRange {
  limit: number;
}

/** A sale as the valuation compares it (soldForValuation); `price` is the whole auction's. */
export interface ValuationSale {
  uuid: string;
  tag: string;
  price: number;
  count: number;
  at: number;
  tier: string | null;
  category: string | null;
  enchantments: Record<string, number>;
  flatNbt: Record<string, string>;
}

/** The columns of a sale the price analysis needs, with its cursor fields (`end` and `uuid`). */
export interface LeanSale extends AnalysisSale {
  uuid: string;
}

/**
 * Rows per chunk of the chunked sold reads: on SQLite a chunk's query and handling hold the event
 * loop ~3–6 ms of CPU on the project's 2-core machine under load (average ~7–10): full records
 * (JSON columns parsed) ~25 µs each, the analysis's lean rows ~7 µs, keys ~4 µs. Halving the lean
 * chunk from 1,000 costs ~20 % more CPU per analysis (per-query overhead) and halves the hold.
 */
export const SOLD_RECORD_CHUNK = 250;
export const SOLD_LEAN_CHUNK = 500;
const SOLD_KEY_CHUNK = 1000;
/** Rows per chunk of the active listings' read (the view's load): ~2,000 records hold the loop a few ms. */
const ACTIVE_CHUNK = 2000;

export class AuctionQueryRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Every active listing in chunks of `chunk`, by end time then uuid (keyset on the partial
   * active-end index), letting the event loop run between chunks on SQLite. A caller that turns
   * each chunk into its own objects at once holds one chunk of rows at a time: loading 60,000
   * listings in one array of rows was the largest peak of a restart (~120 MB of rows beside the
   * cold sweep's pages).
   */
  async *activeListingChunks(chunk = ACTIVE_CHUNK): AsyncGenerator<AuctionRecord[]> {
    let after: { end: number; uuid: string } | undefined;
    for (let first = true; ; first = false) {
      if (!first) await this.breathe();
      let query = this.db.selectFrom('auctions').select(RECORD_COLUMNS).where('state', '=', ACTIVE);
      if (after) {
        const { end, uuid } = after;
        query = query.where('end_at', '>=', end).where((eb) => eb.or([eb('end_at', '>', end), eb('uuid', '>', uuid)]));
      }
      const rows = await query.orderBy('end_at').orderBy('uuid').limit(chunk).execute();
      if (rows.length > 0) yield rows.map(toRecord);
      if (rows.length < chunk) return;
      const last = rows[rows.length - 1]!;
      after = { end: Number(last.end_at), uuid: last.uuid };
    }
  }

  /** Active listings with these uuids (the view's incremental refresh). */
  async listingsByUuid(uuids: readonly string[]): Promise<AuctionRecord[]> {
    const out: AuctionRecord[] = [];
    for (let i = 0; i < uuids.length; i += 5000) {
      const rows = await this.db
        .selectFrom('auctions')
        .select(RECORD_COLUMNS)
        .where('uuid', 'in', uuids.slice(i, i + 5000))
        .execute();
      out.push(...rows.map(toRecord));
    }
    return out;
  }

  /** One auction in any state, with its item's NBT (decompressed; null when the stored bytes do not inflate). */
  async detail(uuid: string): Promise<{ record: AuctionRecord; itemNbt: Uint8Array | null; bids: BidsTable[] } | undefined> {
    const row = await this.db.selectFrom('auctions').select([...RECORD_COLUMNS, 'item_bytes', 'buyer_profile']).where('uuid', '=', uuid).executeTakeFirst();
    if (!row) return undefined;
    const bids = await this.db.selectFrom('bids').selectAll().where('auction_uuid', '=', uuid).orderBy('amount').execute();
    return { record: toRecord(row), itemNbt: itemNbtOf(row.item_bytes), bids: withSaleBid(bids, row) };
  }

  /** The items' NBT (decompressed; null when the stored bytes do not inflate) of these auctions, by uuid. */
  async itemNbtOf(uuids: readonly string[]): Promise<Map<string, Uint8Array | null>> {
    const out = new Map<string, Uint8Array | null>();
    for (let i = 0; i < uuids.length; i += 1000) {
      const rows = await this.db
        .selectFrom('auctions')
        .select(['uuid', 'item_bytes'])
        .where('uuid', 'in', uuids.slice(i, i + 1000))
        .execute();
      for (const r of rows) out.set(r.uuid, itemNbtOf(r.item_bytes));
    }
    return out;
  }

  /**
   * Sold auctions of a tag, newest first, then by uuid (uses the auctions_tag_sold_at index);
   * `after` continues a previous read. One query: for long reads use soldChunks.
   */
  async sold(q: SoldQuery): Promise<AuctionRecord[]> {
    const rows = await this.soldRange(this.db.selectFrom('auctions').select(RECORD_COLUMNS), q)
      .limit(q.limit)
      .execute();
    return rows.map(toRecord);
  }

  /** Sales of a tag since `since`, newest first, only the columns the price analysis needs (no JSON to parse). */
  async soldLean(tag: string, since: number, limit: number, after?: SoldCursor): Promise<LeanSale[]> {
    const rows = await this.soldRange(
      this.db.selectFrom('auctions').select(['uuid', 'sold_price', 'highest_bid', 'count', 'start_at', 'sold_at', 'end_at', 'bin', 'seller']),
      { tag, since, ...(after ? { after } : {}) },
    )
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      uuid: r.uuid,
      price: Number(r.sold_price ?? r.highest_bid),
      count: r.count,
      start: r.start_at === null ? null : Number(r.start_at),
      end: Number(r.sold_at ?? r.end_at),
      bin: Boolean(r.bin),
      seller: r.seller,
    }));
  }

  /**
   * A fingerprint of a tag's sales at or after `since`: how many, the sum (after `since`) and the newest
   * of their sale times. Read from the (tag, sold_at) index alone (no row is visited on SQLite): a cache of
   * those sales is current when it holds as many with the same times (market/open-hours.ts).
   */
  async soldFingerprint(tag: string, since: number): Promise<SoldFingerprint> {
    const r = await this.db
      .selectFrom('auctions')
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string | null>(sql<number>`sold_at - ${since}`).as('total'), eb.fn.max<number | string | null>('sold_at').as('newest')])
      .where('state', '=', SOLD)
      .where('tag', '=', tag)
      .where('sold_at', '>=', since)
      .executeTakeFirstOrThrow();
    return { count: Number(r.n), timeSum: Number(r.total ?? 0), newest: r.newest === null ? null : Number(r.newest) };
  }

  /**
   * A tag's sales since `since` (before `until` when given), newest first, with what the valuation
   * compares (rarity, category, enchantments, flattened NBT): the (tag, sold_at) index bounds the read
   * to the window asked, whatever the history's length (docs/valuation.md, "Storage").
   */
  async soldForValuation(tag: string, since: number, limit: number, until?: number): Promise<ValuationSale[]> {
    const rows = await this.soldRange(
      this.db.selectFrom('auctions').select(['uuid', 'sold_price', 'highest_bid', 'count', 'sold_at', 'end_at', 'tier', 'category', 'enchantments', 'flat_nbt']),
      { tag, since, ...(until !== undefined ? { until } : {}) },
    )
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      uuid: r.uuid,
      tag,
      price: Number(r.sold_price ?? r.highest_bid),
      count: r.count,
      at: Number(r.sold_at ?? r.end_at),
      tier: r.tier,
      category: r.category,
      enchantments: json<Record<string, number>>(r.enchantments, {}),
      flatNbt: json<Record<string, string>>(r.flat_nbt, {}),
    }));
  }

  /** Only the cursor fields of sold auctions, in the same order: to skip to a page. */
  async soldKeys(q: SoldQuery): Promise<SoldCursor[]> {
    const rows = await this.soldRange(this.db.selectFrom('auctions').select(['sold_at', 'uuid']), q)
      .limit(q.limit)
      .execute();
    return rows.map((r) => ({ soldAt: Number(r.sold_at), uuid: r.uuid }));
  }

  /**
   * Sold auctions of a tag, newest first, in chunks of `chunk` rows read by keyset, at most
   * `max` rows in all. Between chunks the event loop runs other work on SQLite, whose reads are
   * synchronous: a long read no longer holds every other request for its whole length.
   */
  async *soldChunks(range: SoldRange, options: { chunk?: number; max?: number } = {}): AsyncGenerator<AuctionRecord[]> {
    const chunk = options.chunk ?? SOLD_RECORD_CHUNK;
    let left = options.max ?? Number.POSITIVE_INFINITY;
    let after = range.after;
    for (let first = true; left > 0; first = false) {
      if (!first) await this.breathe();
      const limit = Math.min(chunk, left);
      const rows = await this.sold({ ...range, limit, ...(after ? { after } : {}) });
      if (rows.length > 0) yield rows;
      if (rows.length < limit) return;
      left -= rows.length;
      after = cursorOf(rows[rows.length - 1]!);
    }
  }

  /** soldLean in keyset chunks, at most `max` rows in all, letting the event loop run between chunks (SQLite). */
  async *soldLeanChunks(tag: string, since: number, options: { chunk?: number; max?: number } = {}): AsyncGenerator<LeanSale[]> {
    const chunk = options.chunk ?? SOLD_LEAN_CHUNK;
    let left = options.max ?? Number.POSITIVE_INFINITY;
    let after: SoldCursor | undefined;
    for (let first = true; left > 0; first = false) {
      if (!first) await this.breathe();
      const limit = Math.min(chunk, left);
      const rows = await this.soldLean(tag, since, limit, after);
      if (rows.length > 0) yield rows;
      if (rows.length < limit) return;
      left -= rows.length;
      const last = rows[rows.length - 1]!;
      after = { soldAt: last.end, uuid: last.uuid };
    }
  }

  /**
   * One page of sold auctions: `take` rows after the first `skip` of the range, newest first.
   * The skipped rows are walked by their keys only, in chunks; the page is read in chunks.
   */
  async soldPage(range: SoldRange, skip: number, take: number): Promise<AuctionRecord[]> {
    let after = range.after;
    while (skip > 0) {
      const limit = Math.min(SOLD_KEY_CHUNK, skip);
      const keys = await this.soldKeys({ ...range, limit, ...(after ? { after } : {}) });
      if (keys.length < limit) return [];
      skip -= keys.length;
      after = keys[keys.length - 1]!;
      await this.breathe();
    }
    const out: AuctionRecord[] = [];
    for await (const rows of this.soldChunks({ ...range, ...(after ? { after } : {}) }, { max: take })) out.push(...rows);
    return out;
  }

  /** The WHERE and ORDER BY shared by the sold reads: state sold, tag, time window, keyset cursor. */
  private soldRange<QB extends SelectQueryBuilder<Database, 'auctions', object>>(query: QB, q: SoldRange): QB {
    let out = query.where('state', '=', SOLD).where('tag', '=', q.tag).where('sold_at', '>=', q.since);
    if (q.until !== undefined) out = out.where('sold_at', '<', q.until);
    const after = q.after;
    if (after !== undefined) {
      // (sold_at < t) or (sold_at = t and uuid > u), written so the index range ends at t.
      out = out.where('sold_at', '<=', after.soldAt).where((eb) => eb.or([eb('sold_at', '<', after.soldAt), eb('uuid', '>', after.uuid)]));
    }
    return out.orderBy('sold_at', 'desc').orderBy('uuid') as QB;
  }

  /** Lets other callbacks run (SQLite only: there a query blocks the event loop while it runs). */
  private async breathe(): Promise<void> {
    if (this.dialect === 'sqlite') await new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * One page of the sales of one item (its uid: the last 12 hex characters of the item uuid),
   * newest first, then by auction uuid. LIMIT/OFFSET is right here: the item_uid index gives
   * all of one item's rows (a few, or a few thousand for the most traded) and they are sorted
   * whatever the page.
   */
  async salesOfItem(uid: string, limit: number, offset: number): Promise<ItemSaleRow[]> {
    const rows = await this.db
      .selectFrom('auctions')
      .select(['uuid', 'tag', 'item_uid', 'seller', 'buyer', 'sold_price', 'highest_bid', 'sold_at', 'end_at'])
      .where('item_uid', '=', uid)
      .where('state', '=', SOLD)
      .orderBy('sold_at', 'desc')
      .orderBy('uuid')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toItemSale);
  }

  /** Every sale of the items with these uids (last 12 hex characters of the item uuid). */
  async salesByItemUid(uids: readonly string[]): Promise<ItemSaleRow[]> {
    if (uids.length === 0) return [];
    const rows = await this.db
      .selectFrom('auctions')
      .select(['uuid', 'tag', 'item_uid', 'seller', 'buyer', 'sold_price', 'highest_bid', 'sold_at', 'end_at'])
      .where('item_uid', 'in', [...uids])
      .where('state', '=', SOLD)
      .orderBy('sold_at', 'desc')
      .execute();
    return rows.map(toItemSale);
  }

  /** Which of these item uids (last 12 hex characters) are listed on the auction house right now. */
  async activeItemUids(uids: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const distinct = [...new Set(uids)];
    for (let i = 0; i < distinct.length; i += 1000) {
      const rows = await this.db
        .selectFrom('auctions')
        .select('item_uid')
        .where('item_uid', 'in', distinct.slice(i, i + 1000))
        .where('state', '=', ACTIVE)
        .execute();
      for (const r of rows) if (r.item_uid) out.add(r.item_uid);
    }
    return out;
  }

  /** How many sales each tag had since `since` (epoch ms). */
  async saleCounts(since: number): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('auctions')
      .select(['tag', (eb) => eb.fn.countAll<number>().as('n')])
      .where('state', '=', SOLD)
      .where('sold_at', '>=', since)
      .groupBy('tag')
      .execute();
    return new Map(rows.map((r) => [r.tag, Number(r.n)]));
  }

  /** Median unit sale price of each given tag since `since` (upper middle), 0 when none. */
  async medianPrices(tags: readonly string[], since: number): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (tags.length === 0) return out;
    const rows = await this.db
      .selectFrom('auctions')
      .select(['tag', 'sold_price', 'highest_bid', 'count'])
      .where('state', '=', SOLD)
      .where('sold_at', '>=', since)
      .where('tag', 'in', [...tags])
      .execute();
    const byTag = new Map<string, number[]>();
    for (const r of rows) {
      const list = byTag.get(r.tag) ?? [];
      list.push(Number(r.sold_price ?? r.highest_bid) / Math.max(1, r.count));
      byTag.set(r.tag, list);
    }
    for (const [tag, prices] of byTag) {
      prices.sort((a, b) => a - b);
      out.set(tag, Math.round(prices[Math.floor(prices.length / 2)]!));
    }
    return out;
  }

  /** True when any auction (in any state) has this tag: one probe per state, each on its partial index. */
  async tagExists(tag: string): Promise<boolean> {
    for (const state of [ACTIVE, SOLD, EXPIRED]) {
      const row = await this.db.selectFrom('auctions').select('uuid').where('state', '=', state).where('tag', '=', tag).limit(1).executeTakeFirst();
      if (row) return true;
    }
    const item = await this.db.selectFrom('items').select('tag').where('tag', '=', tag).limit(1).executeTakeFirst();
    return item !== undefined;
  }

  /** Bids of these auctions, by auction uuid, lowest first (a sale's winning bid included, see withSaleBid). */
  async bidsFor(uuids: readonly string[]): Promise<Map<string, BidsTable[]>> {
    const out = new Map<string, BidsTable[]>();
    for (let i = 0; i < uuids.length; i += 5000) {
      const chunk = uuids.slice(i, i + 5000);
      const rows = await this.db.selectFrom('bids').selectAll().where('auction_uuid', 'in', chunk).orderBy('auction_uuid').orderBy('amount').execute();
      const stored = new Map<string, BidsTable[]>();
      for (const b of rows) {
        const list = stored.get(b.auction_uuid) ?? [];
        list.push(b);
        stored.set(b.auction_uuid, list);
      }
      const sales = await this.db
        .selectFrom('auctions')
        .select(['uuid', 'state', 'sold_price', 'buyer', 'sold_at', 'buyer_profile'])
        .where('uuid', 'in', chunk)
        .where('buyer_profile', 'is not', null)
        .execute();
      const saleOf = new Map(sales.map((s) => [s.uuid, s]));
      for (const uuid of chunk) {
        const bids = withSaleBid(stored.get(uuid) ?? [], saleOf.get(uuid));
        if (bids.length > 0) out.set(uuid, bids);
      }
    }
    return out;
  }

  /** Unit sale prices between `since` and `until` (epoch ms), optionally of one tag: the batch export. */
  async salePricesBetween(since: number, until: number, tag?: string): Promise<Array<{ tag: string; unitPrice: number }>> {
    let q = this.db
      .selectFrom('auctions')
      .select(['tag', 'sold_price', 'highest_bid', 'count'])
      .where('state', '=', SOLD)
      .where('sold_at', '>=', since)
      .where('sold_at', '<', until);
    if (tag !== undefined) q = q.where('tag', '=', tag);
    const rows = await q.limit(500_000).execute();
    return rows.map((r) => ({ tag: r.tag, unitPrice: Number(r.sold_price ?? r.highest_bid) / Math.max(1, r.count) }));
  }

  async countActive(): Promise<number> {
    const row = await this.db
      .selectFrom('auctions')
      .select(sql<number>`count(*)`.as('n'))
      .where('state', '=', ACTIVE)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
