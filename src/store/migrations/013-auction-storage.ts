/**
 * Smaller auction rows (issue 29, part 4; measured with `npm run bench -- storage-sales`,
 * docs/performance.md):
 *
 * - `item_bytes` holds bytes instead of upstream's base64 text: a sold auction's item as its NBT
 *   deflated with a preset dictionary of real items (format 1, ~60 % smaller than the gzip), any
 *   other auction's as the gzipped NBT upstream sent (−25 % against the base64); see
 *   store/auction-encoding.ts. PostgreSQL: a `bytea` column stored EXTERNAL (neither compresses
 *   again); SQLite keeps the column's declared type (its TEXT affinity stores blobs as blobs) so
 *   the rows are converted in place rather than copied into a new table.
 * - `coop` is stored compactly: members joined by `,`, the seller as an empty entry (a solo
 *   profile's list becomes `''`); a list that does not fit that form stays a JSON array
 *   (store/auction-encoding.ts reads both). PostgreSQL: `text` instead of `jsonb`.
 * - `item_uuid` is gone: no reader used it, `item_uid` (the lookup id) stays, and the full uuid
 *   is in the item bytes. SQLite keeps the column, NULL in every row (SQLite's DROP COLUMN
 *   rewrites the whole table in one transaction); nothing reads or writes it.
 * - A sale's winning bid recorded from auctions_ended is no longer a row of `bids` repeating the
 *   auction's buyer, price and time: the new column `buyer_profile` keeps the one value it added
 *   ('' for none), and readers add the bid back (store/auction-encoding.ts `withSaleBid`). Stored
 *   bids that match a sale exactly (amount = sold_price, bidder = buyer, placed_at = sold_at) move
 *   into the row; a bid with an empty-string profile stays (the marker could not tell it apart).
 * - Indexes that only active-auction reads use become partial indexes over active rows, so a
 *   sale no longer pays for them: (tag, state, starting_bid) → (tag, starting_bid), (state,
 *   end_at) → (end_at), (seller) → (seller), each `where state = 'active'`; expired rows keep a
 *   (tag) index for the tag-exists check. `bids_bidder` is dropped: no query reads bids by bidder.
 *
 * Existing rows are converted in batches of BATCH rows (keyset by rowid on SQLite, each batch its
 * own transaction, so the migration can stop and resume; by uuid on PostgreSQL, where Kysely runs
 * the migration in one transaction): memory stays bounded by one batch. Deflating a sold row's
 * item costs ~0.1 ms of CPU: ~10 minutes per 5 million sales. The conversion code is inlined so
 * this migration keeps doing what it did when the encoding helpers change; down restores base64
 * text (of a fresh gzip for format 1 rows: the same NBT, not upstream's exact bytes).
 * Space freed inside the database is reused by new rows; `VACUUM` (SQLite) or `VACUUM FULL`
 * (PostgreSQL) returns it to the file system.
 */
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { postgresArray } from '../bulk.ts';
import { ITEM_DICTIONARY_V1 } from '../item-dictionary.ts';
import { decodeAuctionItem, ItemDecodeError } from '../../domain/nbt.ts';
import type { AnyDb } from './column-types.ts';

const BATCH = 2_000;

/** Indexes of migration 002 replaced by partial ones. */
const OLD_INDEXES = ['auctions_tag_state_price', 'auctions_state_end', 'auctions_seller', 'bids_bidder'];
const NEW_INDEXES = ['auctions_active_tag_price', 'auctions_active_end', 'auctions_active_seller', 'auctions_expired_tag'];

/** The compact coop form (store/auction-encoding.ts `coopColumn` as of this migration). */
function compactCoop(coop: unknown, seller: string): string | null {
  let list: unknown = coop;
  if (typeof coop === 'string') {
    try {
      list = JSON.parse(coop);
    } catch {
      return coop;
    }
  }
  if (!Array.isArray(list) || list.length === 0) return null;
  const members = list.map(String);
  if (members.some((m) => m === '' || m.includes(',')) || members[0]!.startsWith('[')) return JSON.stringify(members);
  return members.map((m) => (m === seller ? '' : m)).join(',');
}

/** The JSON coop form of migration 002. */
function jsonCoop(stored: string | null, seller: string): string | null {
  if (stored === null) return null;
  if (stored.startsWith('[')) return stored;
  return JSON.stringify(stored.split(',').map((m) => (m === '' ? seller : m)));
}

/** Item uuid as migration 002 stored it (32 hex, lower case), from the item's NBT; null when it has none. */
function itemUuidOf(base64: string): string | null {
  try {
    const hex = decodeAuctionItem(base64).itemUuid?.replace(/-/g, '').toLowerCase();
    return hex && /^[0-9a-f]{32}$/.test(hex) ? hex : null;
  } catch (err) {
    if (err instanceof ItemDecodeError) return null;
    throw err;
  }
}

/**
 * Stored item bytes from migration 002's base64 text (store/auction-encoding.ts as of this
 * migration): format 1 for a sold auction (0x01, the NBT deflated with ITEM_DICTIONARY_V1) when
 * that is smaller, else the gzip bytes.
 */
function toBytes(v: unknown, sold: boolean): Buffer {
  const gzip = typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.from(v as Uint8Array);
  if (!sold || gzip[0] !== 0x1f || gzip[1] !== 0x8b) return gzip;
  let nbt: Buffer;
  try {
    nbt = gunzipSync(gzip, { maxOutputLength: 2 * 1024 * 1024 });
  } catch {
    return gzip;
  }
  const deflated = deflateRawSync(nbt, { dictionary: ITEM_DICTIONARY_V1, chunkSize: 4096 });
  return deflated.length + 1 < gzip.length ? Buffer.concat([Buffer.of(0x01), deflated]) : gzip;
}

/** Base64 text of stored item bytes (format 1 re-gzipped). */
function toBase64(v: unknown): string {
  if (typeof v === 'string') return v;
  const bytes = Buffer.from(v as Uint8Array);
  if (bytes[0] !== 0x01) return bytes.toString('base64');
  return gzipSync(inflateRawSync(bytes.subarray(1), { dictionary: ITEM_DICTIONARY_V1 })).toString('base64');
}

export function m013AuctionStorage(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      for (const name of OLD_INDEXES) await sql`drop index if exists ${sql.ref(name)}`.execute(db);
      if (dialect === 'sqlite') await upSqlite(db);
      else await upPostgres(db);
      await sql`create index if not exists auctions_active_tag_price on auctions (tag, starting_bid) where state = 'active'`.execute(db);
      await sql`create index if not exists auctions_active_end on auctions (end_at) where state = 'active'`.execute(db);
      await sql`create index if not exists auctions_active_seller on auctions (seller) where state = 'active'`.execute(db);
      await sql`create index if not exists auctions_expired_tag on auctions (tag) where state = 'expired'`.execute(db);
    },
    async down(db: AnyDb) {
      for (const name of NEW_INDEXES) await sql`drop index if exists ${sql.ref(name)}`.execute(db);
      if (dialect === 'sqlite') await downSqlite(db);
      else await downPostgres(db);
      await db.schema.createIndex('auctions_tag_state_price').on('auctions').columns(['tag', 'state', 'starting_bid']).execute();
      await db.schema.createIndex('auctions_state_end').on('auctions').columns(['state', 'end_at']).execute();
      await db.schema.createIndex('auctions_seller').on('auctions').column('seller').execute();
      await db.schema.createIndex('bids_bidder').on('bids').column('bidder').execute();
    },
  };
}

/**
 * The profile of a sold auction's stored winning bid (the bid at its price, by its buyer, at its
 * sale time), '' for none; NULL when it has no such bid (or the bid's profile is '').
 */
const SALE_BID_PROFILE = (a: string) =>
  sql.raw(`(select coalesce(b.profile_id, '') from bids b where b.auction_uuid = ${a}.uuid and b.amount = ${a}.sold_price
    and b.bidder = ${a}.buyer and b.placed_at = ${a}.sold_at and (b.profile_id is null or b.profile_id <> '') and ${a}.state = 'sold')`);

/**
 * Deletes the stored winning bids of the sales in a key range of auctions whose row now holds
 * them, driven from that range (each bid found by its primary key).
 */
const DELETE_SALE_BIDS = (dialect: Dialect, range: ReturnType<typeof sql>) => {
  const match = sql`a.state = 'sold' and a.buyer_profile is not null and b.auction_uuid = a.uuid and b.amount = a.sold_price
    and b.bidder = a.buyer and b.placed_at = a.sold_at and coalesce(b.profile_id, '') = a.buyer_profile`;
  return dialect === 'sqlite'
    ? sql`delete from bids where rowid in (select b.rowid from auctions a join bids b on b.auction_uuid = a.uuid and b.amount = a.sold_price where ${range} and ${match})`
    : sql`delete from bids b using auctions a where ${range} and ${match}`;
};

/** Puts back the bid rows of sales whose winning bid the row holds (down). */
const INSERT_SALE_BIDS = sql`insert into bids (auction_uuid, amount, bidder, profile_id, placed_at)
  select a.uuid, a.sold_price, a.buyer, nullif(a.buyer_profile, ''), a.sold_at from auctions a
  where a.state = 'sold' and a.buyer_profile is not null and a.sold_price is not null and a.buyer is not null and a.sold_at is not null
    and not exists (select 1 from bids b where b.auction_uuid = a.uuid and b.amount = a.sold_price)`;

/**
 * SQLite, in place: each batch converts the rows still holding base64 text, in its own
 * transaction, so an interrupted migration resumes where it stopped.
 */
async function upSqlite(db: AnyDb): Promise<void> {
  const columns = await sql<{ name: string }>`select name from pragma_table_info('auctions')`.execute(db);
  if (!columns.rows.some((c) => c.name === 'buyer_profile')) await sql`alter table auctions add column buyer_profile text`.execute(db);
  let after = -1;
  for (;;) {
    const { rows } = await sql<{ id: number; item_bytes: unknown; coop: string | null; seller: string; item_uuid: string | null; state: string }>`
      select rowid as id, item_bytes, coop, seller, item_uuid, state from auctions where rowid > ${after} order by rowid limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    const from = after;
    after = Number(rows[rows.length - 1]!.id);
    const todo = rows.filter((r) => typeof r.item_bytes === 'string');
    if (todo.length === 0) continue;
    const values = sql.join(todo.map((r) => sql`(${r.id}, ${toBytes(r.item_bytes, r.state === 'sold')}, ${compactCoop(r.coop, r.seller)})`));
    await db.transaction().execute(async (trx) => {
      await sql`update auctions set item_bytes = v.column2, coop = v.column3, item_uuid = null, buyer_profile = ${SALE_BID_PROFILE('auctions')}
        from (values ${values}) as v where auctions.rowid = v.column1`.execute(trx);
      await DELETE_SALE_BIDS('sqlite', sql`a.rowid > ${from} and a.rowid <= ${after}`).execute(trx);
    });
  }
}

async function downSqlite(db: AnyDb): Promise<void> {
  await INSERT_SALE_BIDS.execute(db);
  await sql`alter table auctions drop column buyer_profile`.execute(db);
  let after = -1;
  for (;;) {
    const { rows } = await sql<{ id: number; item_bytes: unknown; coop: string | null; seller: string }>`
      select rowid as id, item_bytes, coop, seller from auctions where rowid > ${after} order by rowid limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1]!.id);
    const todo = rows.filter((r) => typeof r.item_bytes !== 'string');
    if (todo.length === 0) continue;
    const values = sql.join(
      todo.map((r) => {
        const base64 = toBase64(r.item_bytes);
        return sql`(${r.id}, ${base64}, ${jsonCoop(r.coop, r.seller)}, ${itemUuidOf(base64)})`;
      }),
    );
    await db.transaction().execute(async (trx) => {
      await sql`update auctions set item_bytes = v.column2, coop = v.column3, item_uuid = v.column4
        from (values ${values}) as v where auctions.rowid = v.column1`.execute(trx);
    });
  }
}

/** PostgreSQL: new columns filled batch by batch (keyset by uuid), then swapped in. */
async function upPostgres(db: AnyDb): Promise<void> {
  await sql`alter table auctions add column item bytea, add column coop_list text, add column buyer_profile text`.execute(db);
  let after = '';
  for (;;) {
    const { rows } = await sql<{ uuid: string; item_bytes: string; coop: unknown; seller: string; state: string }>`
      select uuid, item_bytes, coop, seller, state from auctions where uuid > ${after} order by uuid limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    const from = after;
    after = rows[rows.length - 1]!.uuid;
    const items = postgresArray(rows.map((r) => toBytes(r.item_bytes, r.state === 'sold')), 'bytea');
    const coops = rows.map((r) => compactCoop(r.coop, r.seller));
    await sql`update auctions a set item = v.item, coop_list = v.coop, buyer_profile = ${SALE_BID_PROFILE('a')}
      from unnest(${rows.map((r) => r.uuid)}::text[], ${items}::bytea[], ${coops}::text[]) as v(uuid, item, coop)
      where a.uuid = v.uuid`.execute(db);
    await DELETE_SALE_BIDS('postgres', sql`a.uuid > ${from} and a.uuid <= ${after}`).execute(db);
  }
  await sql`alter table auctions drop column item_bytes, drop column coop, drop column item_uuid`.execute(db);
  await sql`alter table auctions rename column item to item_bytes`.execute(db);
  await sql`alter table auctions rename column coop_list to coop`.execute(db);
  await sql`alter table auctions alter column item_bytes set not null, alter column item_bytes set storage external`.execute(db);
}

async function downPostgres(db: AnyDb): Promise<void> {
  await INSERT_SALE_BIDS.execute(db);
  await sql`alter table auctions drop column buyer_profile`.execute(db);
  await sql`alter table auctions add column item_text text, add column coop_json jsonb, add column item_uuid text`.execute(db);
  let after = '';
  for (;;) {
    const { rows } = await sql<{ uuid: string; item_bytes: Uint8Array; coop: string | null; seller: string }>`
      select uuid, item_bytes, coop, seller from auctions where uuid > ${after} order by uuid limit ${BATCH}`.execute(db);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.uuid;
    const items = rows.map((r) => toBase64(r.item_bytes));
    await sql`update auctions a set item_text = v.item, coop_json = v.coop::jsonb, item_uuid = v.item_uuid
      from unnest(${rows.map((r) => r.uuid)}::text[], ${items}::text[], ${rows.map((r) => jsonCoop(r.coop, r.seller))}::text[],
        ${items.map(itemUuidOf)}::text[]) as v(uuid, item, coop, item_uuid)
      where a.uuid = v.uuid`.execute(db);
  }
  await sql`alter table auctions drop column item_bytes, drop column coop`.execute(db);
  await sql`alter table auctions rename column item_text to item_bytes`.execute(db);
  await sql`alter table auctions rename column coop_json to coop`.execute(db);
  await sql`alter table auctions alter column item_bytes set not null`.execute(db);
}
