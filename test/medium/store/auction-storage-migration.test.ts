/**
 * Migration 013 (smaller auction rows) on stores filled in the old layout (migration 011): item
 * bytes base64 text → raw bytes (a sale's deflated with the preset dictionary), coop JSON →
 * compact text, item_uuid dropped, partial indexes.
 * Every read gives what the old layout gave: the records, the wire shapes built from them
 * (SaveAuction with `nbtData` decoded from the item bytes, ColorSaveAuction, SoldAuction), item
 * uid sales and bids; rows stored after the migration read the same as migrated ones; down
 * restores the old layout. More rows than one conversion batch (2,000), on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { soldAuction } from '../../../src/api/auction-shapes.ts';
import { colorSaveAuctionWire, nbtDataOf, saveAuctionWire } from '../../../src/domain/auction-wire.ts';
import { auctionExtraAttributes, decodeAuctionItem, ItemDecodeError } from '../../../src/domain/nbt.ts';
import { compactUuid, listingRow } from '../../../src/ingest/records.ts';
import { itemNbtOf } from '../../../src/store/auction-encoding.ts';
import { m013AuctionStorage } from '../../../src/store/migrations/013-auction-storage.ts';
import type { AuctionRecord } from '../../../src/store/repositories/auction-queries.ts';
import type { AuctionsTable, BidsTable } from '../../../src/store/schema.ts';
import { Market } from '../../../src/simulator/market.ts';
import type { HypixelAuction } from '../../../src/simulator/wire.ts';
import { bidFacts } from '../../../src/services/auctions.ts';
import { activeListings } from '../../helpers/auctions.ts';
import { IN_CI, migrateTo, openUnmigratedStore, postgresUnavailable } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const AUCTIONS = 4_500;

/** A row as migrations 002–011 stored it (the ingester before migration 013). */
type OldRow = Omit<AuctionsTable, 'item_bytes' | 'coop' | 'enchantments' | 'flat_nbt' | 'buyer_profile'> & {
  item_bytes: string;
  coop: string | null;
  item_uuid: string | null;
  enchantments: string | null;
  flat_nbt: string | null;
};

function oldRow(a: HypixelAuction, i: number): OldRow {
  const item = decodeAuctionItem(a.item_bytes);
  const { buyer_profile: _, ...row } = listingRow(a, item);
  const state = (['active', 'sold', 'expired'] as const)[i % 3]!;
  const sold = state === 'sold';
  return {
    ...row,
    item_bytes: a.item_bytes,
    coop: a.coop && a.coop.length ? JSON.stringify(a.coop) : null,
    item_uuid: compactUuid(item.itemUuid),
    enchantments: row.enchantments === null ? null : JSON.stringify(row.enchantments),
    flat_nbt: row.flat_nbt === null ? null : JSON.stringify(row.flat_nbt),
    state,
    sold_price: sold ? a.starting_bid : null,
    buyer: sold ? 'b'.repeat(32) : null,
    sold_at: sold ? a.end - 1000 : null,
  };
}

/** The old reader: toRecord over the old columns (coop and the JSON columns parsed as JSON). */
function oldRecord(r: OldRow): AuctionRecord {
  const json = <T>(v: unknown, empty: T): T => (v === null || v === undefined ? empty : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
  return {
    uuid: r.uuid,
    tag: r.tag,
    itemName: r.item_name,
    count: r.count,
    seller: r.seller,
    profileId: r.profile_id,
    coop: json<string[]>(r.coop, []),
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
    enchantments: json<Record<string, number>>(r.enchantments, {}),
    flatNbt: json<Record<string, string>>(r.flat_nbt, {}),
    state: r.state,
    lastUpdated: Number(r.last_updated),
    soldPrice: r.sold_price === null ? null : Number(r.sold_price),
    buyer: r.buyer,
    soldAt: r.sold_at === null ? null : Number(r.sold_at),
  };
}

/** The old `nbtData`: ExtraAttributes decoded from the base64 item bytes. */
function oldNbtData(base64: string): { data?: Record<string, unknown> } {
  try {
    return { data: auctionExtraAttributes(base64) };
  } catch (err) {
    if (err instanceof ItemDecodeError) return {};
    throw err;
  }
}

/** Simulator auctions plus rows that exercise the encodings' edges. */
function oldRows(): OldRow[] {
  const market = new Market({ seed: 13, auctions: AUCTIONS, generationSeconds: 60, bazaarSeconds: 20 }, NOW);
  market.populate();
  const auctions = market.generation().auctions.slice(0, AUCTIONS);
  assert.ok(auctions.length >= 2_001, 'more rows than one conversion batch');
  const rows = auctions.map(oldRow);
  const [a, b, c, d, e, f] = rows;
  const seller = (r: OldRow) => r.seller;
  a!.coop = JSON.stringify([seller(a!)]); // solo profile
  b!.coop = JSON.stringify(['c'.repeat(32), seller(b!), 'd'.repeat(32)]); // seller in the middle
  c!.coop = JSON.stringify(['x,y', seller(c!)]); // a member with a comma: stays JSON
  d!.coop = JSON.stringify(['[odd', seller(d!)]); // first member starting with '[': stays JSON
  e!.coop = JSON.stringify(['', seller(e!)]); // an empty member: stays JSON
  f!.coop = JSON.stringify(['e'.repeat(32)]); // seller not listed
  // URL-safe base64 (accepted by the ingester's decoder): converted to the bytes it encodes.
  const urlSafe = rows.find((r) => /[+/]/.test(r.item_bytes))!;
  urlSafe.item_bytes = urlSafe.item_bytes.replace(/\+/g, '-').replace(/\//g, '_');
  return rows;
}

async function insertOld(db: import('kysely').Kysely<any>, rows: OldRow[], bids: BidsTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db.insertInto('auctions').values(rows.slice(i, i + 200)).execute();
  }
  for (let i = 0; i < bids.length; i += 500) await db.insertInto('bids').values(bids.slice(i, i + 500)).execute();
}

for (const backend of ['sqlite', 'postgres'] as const) {
  const skip = backend === 'postgres' && postgresUnavailable && !IN_CI ? `PostgreSQL unreachable (${postgresUnavailable})` : false;
  describe(`migration 013 converts stored auctions [${backend}]`, { skip }, () => {
    it('reads give the old answers after the conversion, new rows read the same, down restores the old layout', async () => {
      const { store, migrator, close } = await openUnmigratedStore(backend, 'm013');
      try {
        assert.equal((await migrateTo(migrator, '011-bazaar-chunks')).error, undefined);
        const rows = oldRows().map((r) => (backend === 'sqlite' ? { ...r, bin: r.bin ? 1 : 0 } : r)) as OldRow[];
        // Listing bids on every fifth auction; every sale the old ended ingester recorded has its
        // winning bid stored too (profile, none, or an empty string), unless a listing bid had
        // its amount (ON CONFLICT DO NOTHING): one sale's price is set to such a bid's.
        const bids: BidsTable[] = rows
          .filter((_, i) => i % 5 === 0)
          .flatMap((r) => [1, 2].map((k) => ({ auction_uuid: r.uuid, amount: k * 100, bidder: 'f'.repeat(32), profile_id: null, placed_at: NOW - k })));
        const conflicting = rows.find((r, i) => i % 5 === 0 && r.state === 'sold')!;
        conflicting.sold_price = 200;
        let movable = 0;
        rows.forEach((r, i) => {
          if (r.state !== 'sold' || r === conflicting) return;
          const profile = i % 7 === 0 ? null : i % 11 === 0 ? '' : `${'9'.repeat(31)}${i % 10}`;
          bids.push({ auction_uuid: r.uuid, amount: Number(r.sold_price), bidder: r.buyer!, profile_id: profile, placed_at: Number(r.sold_at) });
          if (profile !== '') movable++;
        });
        await insertOld(store.kysely, rows, bids);
        const before = new Map(rows.map((r) => [r.uuid, r]));

        await store.migrate();
        const q = store.auctionQueries;

        // Schema: raw bytes, compact coop, no item_uuid to read or write, the partial indexes.
        const stored = await store.kysely.selectFrom('auctions').select(['uuid', 'item_bytes', 'coop', 'seller']).execute();
        assert.equal(stored.length, rows.length);
        let compacted = 0;
        for (const s of stored) {
          const old = before.get(s.uuid)!;
          assert.ok(s.item_bytes instanceof Uint8Array, 'item bytes are bytes');
          if (old.state === 'sold') {
            // A sale's item: its NBT deflated with the preset dictionary (format 1), much smaller.
            assert.equal(s.item_bytes[0], 0x01);
            assert.deepEqual(Buffer.from(itemNbtOf(s.item_bytes)!), gunzipSync(Buffer.from(old.item_bytes, 'base64')));
            compacted += s.item_bytes.length / Buffer.from(old.item_bytes, 'base64').length;
          } else {
            assert.deepEqual(Buffer.from(s.item_bytes), Buffer.from(old.item_bytes, 'base64'));
          }
        }
        assert.ok(compacted / rows.filter((r) => r.state === 'sold').length < 0.6, 'sold items take well under 60 % of their gzip');
        const coopOf = (uuid: string) => stored.find((s) => s.uuid === uuid)!.coop;
        const [a, b, c, d, e, f] = rows;
        assert.equal(coopOf(a!.uuid), '');
        assert.equal(coopOf(b!.uuid), `${'c'.repeat(32)},,${'d'.repeat(32)}`);
        for (const r of [c, d, e]) assert.equal(coopOf(r!.uuid), r!.coop, 'lists the compact form cannot hold stay JSON');
        assert.equal(coopOf(f!.uuid), 'e'.repeat(32));
        const columns =
          backend === 'sqlite'
            ? (await sql<{ name: string }>`select name from pragma_table_info('auctions')`.execute(store.kysely)).rows.map((r) => r.name)
            : (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'auctions'`.execute(store.kysely)).rows.map((r) => r.name);
        if (backend === 'postgres') assert.ok(!columns.includes('item_uuid'), 'item_uuid dropped');
        else assert.equal((await sql<{ n: number }>`select count(*) as n from auctions where item_uuid is not null`.execute(store.kysely)).rows[0]!.n, 0, 'item_uuid emptied');
        const indexes =
          backend === 'sqlite'
            ? (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name in ('auctions', 'bids') and sql is not null`.execute(store.kysely)).rows
            : (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename in ('auctions', 'bids') and indexname not like '%pk%' and indexname not like '%pkey%'`.execute(store.kysely)).rows;
        assert.deepEqual(indexes.map((i) => i.name).sort(), [
          'auctions_active_end',
          'auctions_active_seller',
          'auctions_active_tag_price',
          'auctions_expired_tag',
          'auctions_item_uid',
          'auctions_sold_at', // migration 012 (sales rollups)
          'auctions_tag_sold_at',
        ]);

        // Sale bids moved into their rows (buyer_profile), the others stayed.
        const bidCount = async () => Number((await sql<{ n: number }>`select count(*) as n from bids`.execute(store.kysely)).rows[0]!.n);
        assert.ok(movable > 1000);
        assert.equal(await bidCount(), bids.length - movable);

        // Every auction's detail answer (records, bids, nbtData from the item bytes), as before.
        const values = new Map<string, number>([['ENCHANTMENT_SHARPNESS_5', 1234]]);
        for (const old of rows) {
          const found = (await q.detail(old.uuid))!;
          const oldBids = bids.filter((x) => x.auction_uuid === old.uuid).sort((x, y) => x.amount - y.amount);
          assert.deepEqual(found.record, oldRecord(old));
          assert.deepEqual(found.bids, oldBids, `bids of ${old.uuid}`);
          assert.deepEqual(await store.auctions.bidsOf(old.uuid), oldBids);
          assert.deepEqual(
            colorSaveAuctionWire(found.record, found.bids.map(bidFacts), nbtDataOf(found.itemNbt), values),
            colorSaveAuctionWire(oldRecord(old), oldBids.map(bidFacts), oldNbtData(old.item_bytes), values),
            `detail of ${old.uuid}`,
          );
        }
        const sample = rows.filter((_, i) => i % 3 === 1).slice(0, 500).map((r) => r.uuid);
        const many = await q.bidsFor(sample);
        for (const uuid of sample) assert.deepEqual(many.get(uuid) ?? [], bids.filter((x) => x.auction_uuid === uuid).sort((x, y) => x.amount - y.amount));

        // Active listings with nbtData (the lowest-BIN pages), sold history, item-uid sales.
        const active = rows.filter((r) => r.state === 'active');
        assert.deepEqual(
          (await activeListings(q)).sort((x, y) => (x.uuid < y.uuid ? -1 : 1)),
          active.map(oldRecord).sort((x, y) => (x.uuid < y.uuid ? -1 : 1)),
        );
        const nbt = await q.itemNbtOf(active.slice(0, 50).map((r) => r.uuid));
        for (const r of active.slice(0, 50)) assert.deepEqual(saveAuctionWire(oldRecord(r), [], nbtDataOf(nbt.get(r.uuid))), saveAuctionWire(oldRecord(r), [], oldNbtData(r.item_bytes)));
        const soldTag = rows.find((r) => r.state === 'sold')!.tag;
        const expectSold = rows
          .filter((r) => r.state === 'sold' && r.tag === soldTag)
          .sort((x, y) => Number(y.sold_at) - Number(x.sold_at) || (x.uuid < y.uuid ? -1 : 1))
          .map((r) => soldAuction(oldRecord(r)));
        assert.deepEqual((await q.sold({ tag: soldTag, since: 0, limit: 10_000 })).map(soldAuction), expectSold);
        const uids = rows.filter((r) => r.item_uid !== null).slice(0, 100).map((r) => r.item_uid!);
        assert.deepEqual(
          (await q.salesByItemUid(uids)).map((s) => s.uuid).sort(),
          rows.filter((r) => r.state === 'sold' && r.item_uid !== null && uids.includes(r.item_uid)).map((r) => r.uuid).sort(),
        );
        assert.equal(await q.tagExists(rows.find((r) => r.state === 'expired')!.tag), true);

        // A row stored after the migration (the new ingester) reads exactly like a migrated one.
        const market = new Market({ seed: 13, auctions: AUCTIONS, generationSeconds: 60, bazaarSeconds: 20 }, NOW);
        market.populate();
        const raw = market.generation().auctions.find((x) => x.uuid === b!.uuid)!;
        const fresh = { ...listingRow({ ...raw, coop: JSON.parse(b!.coop!) as string[] }, decodeAuctionItem(raw.item_bytes)), uuid: '9'.repeat(32) };
        await store.auctions.applyGeneration({ listings: [fresh], bids: [], departed: [], feed: { name: 'auctions', lastUpdated: NOW, storedAt: NOW, records: 1, source: 'simulator' } });
        const migrated = (await q.detail(b!.uuid))!;
        const added = (await q.detail(fresh.uuid))!;
        assert.deepEqual({ ...added.record, uuid: b!.uuid, state: migrated.record.state, soldPrice: null, buyer: null, soldAt: null }, { ...migrated.record, soldPrice: null, buyer: null, soldAt: null });
        assert.deepEqual(added.itemNbt, migrated.itemNbt);
        await sql`delete from auctions where uuid = ${fresh.uuid}`.execute(store.kysely);

        if (backend === 'sqlite') {
          // Running the conversion again (an interrupted migration resumed) changes nothing.
          const snapshot = await store.kysely.selectFrom('auctions').selectAll().orderBy('uuid').execute();
          await m013AuctionStorage('sqlite').up(store.kysely);
          assert.deepEqual(await store.kysely.selectFrom('auctions').selectAll().orderBy('uuid').execute(), snapshot);
        }

        // Down: the old layout and values come back (the URL-safe row as standard base64; a sale's
        // item as a fresh gzip of the same NBT; sale bids as rows again).
        assert.equal((await migrateTo(migrator, '011-bazaar-chunks')).error, undefined);
        const back = (await store.kysely.selectFrom('auctions').selectAll().execute()) as unknown as OldRow[];
        assert.equal(back.length, rows.length);
        for (const r of back) {
          const old = before.get(r.uuid)!;
          if (old.state === 'sold') assert.deepEqual(gunzipSync(Buffer.from(r.item_bytes, 'base64')), gunzipSync(Buffer.from(old.item_bytes, 'base64')));
          else assert.equal(r.item_bytes, Buffer.from(old.item_bytes, 'base64').toString('base64'));
          assert.deepEqual(typeof r.coop === 'string' ? JSON.parse(r.coop) : r.coop, old.coop === null ? null : JSON.parse(old.coop));
          assert.equal(r.item_uuid, old.item_uuid);
        }
        const downIndexes =
          backend === 'sqlite'
            ? (await sql<{ name: string }>`select name from sqlite_master where type = 'index' and name in ('auctions_tag_state_price', 'auctions_state_end', 'auctions_seller', 'bids_bidder')`.execute(store.kysely)).rows
            : (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and indexname in ('auctions_tag_state_price', 'auctions_state_end', 'auctions_seller', 'bids_bidder')`.execute(store.kysely)).rows;
        assert.equal(downIndexes.length, 4);
        const backBids = await store.kysely.selectFrom('bids').selectAll().orderBy('auction_uuid').orderBy('amount').execute();
        const key = (b: BidsTable) => `${b.auction_uuid}:${Number(b.amount)}:${b.bidder}:${b.profile_id}:${Number(b.placed_at)}`;
        assert.deepEqual(backBids.map(key).sort(), bids.map(key).sort());
      } finally {
        await close();
      }
    });
  });
}
