import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import type { StatisticsRepository } from './statistics.ts';
import type { AuctionRowWrite, AuctionsTable, BidsTable, Database } from '../schema.ts';
import { withSaleBid } from '../auction-encoding.ts';
import { ACTIVE, changedRecordOf } from './auction-queries.ts';
import type { InProcessSpine } from '../../spine/in-process.ts';
import { auctionMonth, auctionPartition, nextMonth } from '../auction-months.ts';
import type { FeedRepository, FeedState } from './feeds.ts';

const AUCTION_COLUMNS: BulkSpec<AuctionsTable>['columns'] = {
  uuid: 'text',
  tag: 'text',
  item_name: 'text',
  count: 'int4',
  seller: 'text',
  profile_id: 'text',
  coop: 'text',
  start_at: 'int8',
  end_at: 'int8',
  starting_bid: 'int8',
  highest_bid: 'int8',
  bin: 'bool',
  tier: 'text',
  category: 'text',
  reforge: 'text',
  item_uid: 'text',
  item_created_at: 'int8',
  enchantments: 'jsonb',
  flat_nbt: 'jsonb',
  item_bytes: 'bytea',
  state: 'text',
  last_updated: 'int8',
  sold_price: 'int8',
  buyer: 'text',
  sold_at: 'int8',
  buyer_profile: 'text',
};

/** A listing seen in an auctions generation: new ones insert, changed ones refresh, sold ones stay sold. */
const LISTINGS: BulkSpec<AuctionRowWrite> = {
  table: 'auctions',
  columns: AUCTION_COLUMNS,
  conflict: {
    target: ['uuid'],
    update: ['highest_bid', 'end_at', 'last_updated', 'state', 'item_name', 'starting_bid'],
    // A stale page must never re-activate an auction the ended feed already sold.
    where: sql`auctions.state <> 'sold'`,
  },
};

/**
 * A sale from auctions_ended: inserts the auction if unseen, otherwise marks it sold and stores
 * its item bytes in the sale's compact form (store/auction-encoding.ts) over the listing's gzip
 * (idempotent).
 */
const SALES: BulkSpec<AuctionRowWrite> = {
  table: 'auctions',
  columns: AUCTION_COLUMNS,
  conflict: { target: ['uuid'], update: ['state', 'sold_price', 'buyer', 'sold_at', 'highest_bid', 'bin', 'item_bytes', 'buyer_profile'] },
};

/**
 * PostgreSQL since migration 019: `auctions` is partitioned by `month` and its key is (uuid,
 * month); each row is written with the month `auction_keys` holds for its uuid (fixed at first sight), so
 * both feeds' rows for one auction meet on the same key and the guards above hold unchanged.
 */
type Keyed = { month: number };
type KeyedRow = AuctionRowWrite & Keyed;
const KEYED_COLUMNS: BulkSpec<KeyedRow>['columns'] = { ...AUCTION_COLUMNS, month: 'int4' };
const KEYED_LISTINGS: BulkSpec<KeyedRow> = { ...LISTINGS, columns: KEYED_COLUMNS, conflict: { ...LISTINGS.conflict!, target: ['uuid', 'month'] } };
const KEYED_SALES: BulkSpec<KeyedRow> = { ...SALES, columns: KEYED_COLUMNS, conflict: { ...SALES.conflict!, target: ['uuid', 'month'] } };
/** uuids per statement when filing keys */
const KEYS_CHUNK = 10_000;

const BIDS: BulkSpec<BidsTable> = {
  table: 'bids',
  columns: { auction_uuid: 'text', amount: 'int8', bidder: 'text', profile_id: 'text', placed_at: 'int8' },
  conflict: { target: ['auction_uuid', 'amount'], update: 'nothing' },
};

/** A generation at least this large into an empty auctions table builds its indexes after the load. */
const BULK_LOAD_ROWS = 5_000;
/** departed auctions per SQLite statement (4 parameters each for a sale, well under the 32,766 limit) */
const SQLITE_DEPARTED_CHUNK = 5_000;

/** An auction that left the listings: sold through its bids, or expired/cancelled/bought (the ended feed upgrades those to sold). */
export interface DepartedAuction {
  uuid: string;
  /** set when the auction ended with bids: its price, buyer and end time */
  sale?: { price: number; buyer: string; at: number };
}

/** What the ingester remembers of an active auction between generations. */
export interface ActiveAuction {
  lastUpdated: number;
  endAt: number;
  highestBid: number;
  bin: boolean;
  topBidder: string | null;
}

export interface GenerationWrite {
  listings: AuctionRowWrite[];
  bids: BidsTable[];
  departed: DepartedAuction[];
  feed: FeedState;
}

/** A sale as a change reports it (domain/market-change.ts). */
export type { SaleNote } from '../../domain/market-change.ts';

export class AuctionRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly feeds: FeedRepository,
    /** the spine: each committed generation and batch of sales is published to it (domain/market-change.ts) */
    private readonly changes: InProcessSpine,
    private readonly statistics?: StatisticsRepository,
  ) {}

  /** Every active auction's diff-relevant state: the ingester's base for the next generation. */
  async activeIndex(): Promise<Map<string, ActiveAuction>> {
    const rows = await this.db
      .selectFrom('auctions as a')
      .select(['a.uuid', 'a.last_updated', 'a.end_at', 'a.highest_bid', 'a.bin'])
      .select((eb) =>
        eb
          .selectFrom('bids as b')
          .select('b.bidder')
          .whereRef('b.auction_uuid', '=', 'a.uuid')
          .orderBy('b.amount', 'desc')
          .limit(1)
          .as('top_bidder'),
      )
      .where('a.state', '=', ACTIVE)
      .execute();
    return new Map(
      rows.map((r) => [
        r.uuid,
        { lastUpdated: r.last_updated, endAt: r.end_at, highestBid: r.highest_bid, bin: Boolean(r.bin), topBidder: r.top_bidder ?? null },
      ]),
    );
  }

  /** Applies one auctions generation atomically: readers see all of it or none. */
  async applyGeneration(write: GenerationWrite): Promise<void> {
    // In primary-key order, each statement's rows land in neighbouring b-tree pages.
    const order = write.listings.map((_, i) => i).sort((a, b) => (write.listings[a]!.uuid < write.listings[b]!.uuid ? -1 : write.listings[a]!.uuid > write.listings[b]!.uuid ? 1 : 0));
    const listings = order.map((i) => write.listings[i]!);
    // SQLite stores the maps as JSON text: written once here, the same text is what the change's
    // records share their maps by (changedRecordOf), where the view used to stringify them again.
    const texts = this.dialect === 'sqlite' ? { enchantments: write.listings.map((l) => jsonText(l.enchantments)), flat_nbt: write.listings.map((l) => jsonText(l.flat_nbt)) } : undefined;
    let bulkLoad = false;
    const keyed = await this.partitioned(listings);
    await this.db.transaction().execute(async (trx) => {
      // Into an (almost) empty table, a cold start, building the secondary indexes once after
      // the load costs far less than maintaining them row by row; DDL is transactional on both.
      // Sales stored just before the first generation do not rule it out.
      bulkLoad = listings.length >= BULK_LOAD_ROWS && (await this.rowsUpTo(trx, listings.length / 4)) < listings.length / 4;
      const deferred = bulkLoad ? await this.dropSecondaryIndexes(trx) : [];
      if (keyed) await bulkInsert<AuctionRowWrite, Keyed>(trx, this.dialect, KEYED_LISTINGS, listings, { month: await this.monthsOf(trx, listings) });
      else await bulkInsert(trx, this.dialect, LISTINGS, listings, texts && { enchantments: order.map((i) => texts.enchantments[i]!), flat_nbt: order.map((i) => texts.flat_nbt[i]!) });
      for (const definition of deferred) await sql.raw(definition).execute(trx);
      await bulkInsert(trx, this.dialect, BIDS, write.bids);
      await this.markDeparted(trx, write.departed, keyed);
      await this.feeds.record(write.feed, trx);
    });
    // The table went from (almost) empty to a generation: statistics from the empty table would
    // mislead the planner until autovacuum comes round (PostgreSQL).
    if (bulkLoad) await this.statistics?.analyze(['auctions', 'bids']);
    if (this.changes.subscribers === 0) return;
    // Decoded once here, for every follower (in this process, or over Redis in the others).
    this.changes.publish({
      kind: 'auctions',
      lastUpdated: write.feed.lastUpdated,
      upserted: write.listings.map((row, i) => changedRecordOf(row, texts?.enchantments[i], texts?.flat_nbt[i])),
      removed: write.departed.map((d) => d.uuid),
      sales: write.departed.flatMap((d) => (d.sale ? [{ uuid: d.uuid, price: d.sale.price, buyer: d.sale.buyer, at: d.sale.at }] : [])),
    });
  }

  /**
   * Departed auctions leave the active state in a few set-based statements: sold ones (ended
   * with bids) with their price, buyer and time, the rest expired. One statement per sold
   * auction, and a query builder node per uuid, had cost ~100–250 ms per generation.
   */
  private async markDeparted(trx: Kysely<Database>, departed: readonly DepartedAuction[], keyed: boolean): Promise<void> {
    const sold = departed.filter((d) => d.sale);
    const gone = departed.filter((d) => !d.sale).map((d) => d.uuid);
    if (this.dialect === 'postgres') {
      // Partitioned (migration 019): each row found by its whole key, the month from auction_keys,
      // then one partition's primary key (rather than a probe of every partition's index by uuid).
      const byKey = keyed ? sql`join auction_keys k on k.uuid = v.uuid` : sql``;
      const inMonth = keyed ? sql`and a.month = k.month` : sql``;
      if (sold.length > 0) {
        await sql`update auctions a set state = 'sold', sold_price = v.price, buyer = v.buyer, sold_at = v.at
          from unnest(${sold.map((d) => d.uuid)}::text[], ${sold.map((d) => d.sale!.price)}::int8[], ${sold.map((d) => d.sale!.buyer)}::text[], ${sold.map((d) => d.sale!.at)}::int8[]) as v(uuid, price, buyer, at) ${byKey}
          where a.uuid = v.uuid ${inMonth} and a.state = 'active'`.execute(trx);
      }
      if (gone.length > 0) {
        await sql`update auctions a set state = 'expired' from unnest(${gone}::text[]) as v(uuid) ${byKey}
          where a.uuid = v.uuid ${inMonth} and a.state = 'active'`.execute(trx);
      }
      return;
    }
    // SQLite: statement text built directly, chunked under the bound-parameter limit. `+state`
    // keeps the planner on the primary key (without statistics it would pick an index over the
    // active auctions, since migration 013 the partial auctions_active_end, and walk every active
    // auction for a few hundred uuids).
    for (let i = 0; i < sold.length; i += SQLITE_DEPARTED_CHUNK) {
      const chunk = sold.slice(i, i + SQLITE_DEPARTED_CHUNK);
      const parameters: unknown[] = [];
      for (const d of chunk) parameters.push(d.uuid, d.sale!.price, d.sale!.buyer, d.sale!.at);
      const values = new Array<string>(chunk.length).fill('(?, ?, ?, ?)').join(', ');
      await trx.executeQuery(
        CompiledQuery.raw(
          `update auctions set state = 'sold', sold_price = v.column2, buyer = v.column3, sold_at = v.column4
           from (values ${values}) as v where auctions.uuid = v.column1 and +auctions.state = 'active'`,
          parameters,
        ),
      );
    }
    for (let i = 0; i < gone.length; i += SQLITE_DEPARTED_CHUNK) {
      const chunk = gone.slice(i, i + SQLITE_DEPARTED_CHUNK);
      const list = new Array<string>(chunk.length).fill('?').join(', ');
      await trx.executeQuery(CompiledQuery.raw(`update auctions set state = 'expired' where uuid in (${list}) and +state = 'active'`, chunk));
    }
  }

  /** How many auctions are stored, counting no further than `limit`. */
  private async rowsUpTo(trx: Kysely<Database>, limit: number): Promise<number> {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from (select 1 from auctions limit ${Math.ceil(limit)}) t`.execute(trx);
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * Drops the auctions table's secondary indexes and returns the statements that recreate
   * them, read from the catalog so they stay exactly what the migrations created.
   */
  private async dropSecondaryIndexes(trx: Kysely<Database>): Promise<string[]> {
    const indexes =
      this.dialect === 'sqlite'
        ? (
            await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
              where type = 'index' and tbl_name = 'auctions' and sql is not null and sql not like 'create unique%'`.execute(trx)
          ).rows
        : (
            await sql<{ name: string; definition: string }>`select i.indexname as name, i.indexdef as definition from pg_indexes i
              join pg_class c on c.relname = i.indexname and c.relnamespace = (select oid from pg_namespace where nspname = i.schemaname)
              join pg_index x on x.indexrelid = c.oid
              where i.schemaname = current_schema() and i.tablename = 'auctions' and not x.indisprimary and not x.indisunique`.execute(trx)
          ).rows;
    for (const index of indexes) await sql`drop index ${sql.ref(index.name)}`.execute(trx);
    // A partitioned table's index reads `ON ONLY auctions` in the catalog: as written it would be
    // built on no partition (and stay invalid).
    return indexes.map((i) => i.definition.replace(/ ON ONLY /, ' ON '));
  }

  /**
   * Whether `auctions` is partitioned by month (PostgreSQL from migration 019 on; asked per write,
   * so a store opened on an older schema, as the migration tests do, writes what that schema
   * holds). When it is, creates the partitions of the months `rows` would be filed under that do
   * not exist yet, each in its own statement before the write's transaction (a new month's first
   * write takes the parent's lock for a moment, once a month).
   */
  private async partitioned(rows: readonly AuctionRowWrite[]): Promise<boolean> {
    if (this.dialect !== 'postgres') return false;
    const { rows: found } = await sql<{ keyed: boolean }>`select to_regclass('auction_keys') is not null as keyed`.execute(this.db);
    if (!found[0]?.keyed) return false;
    const months = new Set<number>();
    for (const row of rows) {
      const month = auctionMonth(row);
      if (!this.partitions.has(month)) months.add(month);
    }
    for (const month of months) await this.createPartition(month);
    return true;
  }

  /** months whose partition this process has seen exist */
  private readonly partitions = new Set<number>();

  /**
   * Creates the partition of `month` unless it exists. Another process creating it at the same
   * moment is not an error. A month whose rows already sit in the default partition (written while
   * its partition was missing) cannot get one (PostgreSQL refuses to create it): its rows stay
   * there, found by the same indexes.
   */
  private async createPartition(month: number): Promise<void> {
    const name = auctionPartition(month);
    const exists = async () => (await sql<{ found: boolean }>`select to_regclass(${name}) is not null as found`.execute(this.db)).rows[0]?.found === true;
    if (!(await exists())) {
      try {
        await sql`create table if not exists ${sql.table(name)} partition of auctions for values from (${sql.lit(month)}) to (${sql.lit(nextMonth(month))})`.execute(this.db);
      } catch (err) {
        const code = (err as { code?: string }).code;
        // 23514: the default partition holds rows of this month; 42P07/23505: created concurrently.
        if (code !== '23514' && !((code === '42P07' || code === '23505') && (await exists()))) throw err;
      }
    }
    this.partitions.add(month);
  }

  /**
   * Files the uuids of `rows` in auction_keys (new ones under their own month, existing ones
   * untouched) and returns the month each uuid is filed under, by row index. Within the write's
   * transaction; a uuid filed by a concurrent transaction is read once that one commits (the
   * second statement's snapshot is taken after the first waited for it). Only the keys filed under
   * another month than the row's own come back: none on a cold start, few in a steady generation.
   */
  private async monthsOf(trx: Kysely<Database>, rows: readonly AuctionRowWrite[]): Promise<number[]> {
    const own = rows.map(auctionMonth);
    const filed = new Map<string, number>();
    for (let start = 0; start < rows.length; start += KEYS_CHUNK) {
      const uuids = rows.slice(start, start + KEYS_CHUNK).map((r) => r.uuid);
      const months = own.slice(start, start + KEYS_CHUNK);
      await sql`insert into auction_keys (uuid, month) select * from unnest(${uuids}::text[], ${months}::int4[])
        on conflict (uuid) do nothing`.execute(trx);
      const { rows: other } = await sql<{ uuid: string; month: number }>`select k.uuid, k.month
        from unnest(${uuids}::text[], ${months}::int4[]) as v(uuid, month) join auction_keys k on k.uuid = v.uuid
        where k.month <> v.month`.execute(trx);
      for (const k of other) filed.set(k.uuid, k.month);
    }
    return rows.map((r, i) => filed.get(r.uuid) ?? own[i]!);
  }

  /** Records sales from auctions_ended; storing the same sale twice changes nothing. */
  async recordSales(rows: AuctionRowWrite[], bids: BidsTable[], feed: FeedState): Promise<void> {
    const keyed = await this.partitioned(rows);
    await this.db.transaction().execute(async (trx) => {
      if (keyed) await bulkInsert<AuctionRowWrite, Keyed>(trx, this.dialect, KEYED_SALES, rows, { month: await this.monthsOf(trx, rows) });
      else await bulkInsert(trx, this.dialect, SALES, rows);
      await bulkInsert(trx, this.dialect, BIDS, bids);
      await this.feeds.record(feed, trx);
    });
    if (this.changes.subscribers === 0) return;
    this.changes.publish({
      kind: 'auctions_ended',
      lastUpdated: feed.lastUpdated,
      upserted: [],
      removed: rows.map((r) => r.uuid),
      sales: rows.map((r) => ({ uuid: r.uuid, price: r.sold_price ?? r.highest_bid, buyer: r.buyer ?? '', at: r.sold_at ?? feed.lastUpdated, tag: r.tag, seller: r.seller, bin: Boolean(r.bin) })),
    });
  }

  async get(uuid: string): Promise<AuctionsTable | undefined> {
    return this.db.selectFrom('auctions').selectAll().where('uuid', '=', uuid).executeTakeFirst();
  }

  /** The auction's bids, lowest first, a sale's winning bid included (store/auction-encoding.ts withSaleBid). */
  async bidsOf(uuid: string): Promise<BidsTable[]> {
    const stored = await this.db.selectFrom('bids').selectAll().where('auction_uuid', '=', uuid).orderBy('amount').execute();
    const sale = await this.db.selectFrom('auctions').select(['uuid', 'state', 'sold_price', 'buyer', 'sold_at', 'buyer_profile']).where('uuid', '=', uuid).executeTakeFirst();
    return withSaleBid(stored, sale);
  }

  async countByState(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('auctions')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('state')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }
}

/** A JSON column's stored text (as store/bulk.ts writes it on SQLite); null for none. */
function jsonText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}
