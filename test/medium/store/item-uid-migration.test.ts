/**
 * Migration 018 (`auctions_item_uid` on (item_uid, sold_at)): one item's sales read the same,
 * page by page, before the migration, after it and after its down, on both backends; the index
 * holds the columns the pages are read in.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { Store } from '../../../src/store/index.ts';
import { hex32, listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { IN_CI, migrateTo, openUnmigratedStore, postgresUnavailable } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const UID = 'a1b2c3d4e5f6';

/** Every page of the item's sales (pages of 7: ties in sale time fall across pages). */
async function pages(store: Store): Promise<string[][]> {
  const out: string[][] = [];
  for (let page = 0; ; page++) {
    const rows = await store.auctionQueries.salesOfItem(UID, 7, page * 7);
    if (rows.length === 0) return out;
    out.push(rows.map((r) => `${r.uuid}@${r.at}:${r.price}`));
  }
}

async function indexColumns(store: Store, backend: 'sqlite' | 'postgres'): Promise<string[]> {
  if (backend === 'sqlite') {
    const { rows } = await sql<{ name: string }>`select name from pragma_index_info('auctions_item_uid') order by seqno`.execute(store.kysely);
    return rows.map((r) => r.name);
  }
  const { rows } = await sql<{ name: string }>`select a.attname as name from pg_index x join pg_class c on c.oid = x.indexrelid
    join pg_attribute a on a.attrelid = x.indrelid and a.attnum = any(x.indkey)
    where c.relname = 'auctions_item_uid' and c.relnamespace = current_schema()::regnamespace order by array_position(x.indkey, a.attnum)`.execute(store.kysely);
  return rows.map((r) => r.name);
}

for (const backend of ['sqlite', 'postgres'] as const) {
  test(`migration 018: an item's sales page the same before, after and after down [${backend}]`, async (t) => {
    if (backend === 'postgres' && postgresUnavailable && !IN_CI) return t.skip('PostgreSQL unreachable');
    const { store, migrator, close } = await openUnmigratedStore(backend, 'm018');
    try {
      assert.equal((await migrateTo(migrator, '017-price-rollups')).error, undefined);
      // 40 sales of the item, every 4 at one time; other items' sales; the item listed again now.
      const rows = Array.from({ length: 40 }, (_, i) => sale(NOW, (1 + Math.floor(i / 4)) * 3_600_000, { item_uid: UID, sold_price: 1000 + i, seller: hex32() }));
      await storeSales(store, NOW, [...rows, ...Array.from({ length: 30 }, (_, i) => sale(NOW, i * 60_000, { item_uid: hex32().slice(-12) }))]);
      await storeGeneration(store, NOW, [listing(NOW, { item_uid: UID })]);
      const before = await pages(store);
      const expected = [...rows]
        .sort((a, b) => b.sold_at! - a.sold_at! || (a.uuid < b.uuid ? -1 : 1))
        .map((r) => `${r.uuid}@${r.sold_at}:${r.sold_price}`);
      assert.deepEqual(before.flat(), expected);
      assert.deepEqual(await indexColumns(store, backend), ['item_uid']);

      assert.equal((await migrateTo(migrator, '018-item-uid-sales')).error, undefined);
      assert.deepEqual(await indexColumns(store, backend), ['item_uid', 'sold_at']);
      assert.deepEqual(await pages(store), before);
      assert.deepEqual(await store.auctionQueries.activeItemUids([UID]), new Set([UID]));

      assert.equal((await migrateTo(migrator, '017-price-rollups')).error, undefined);
      assert.deepEqual(await indexColumns(store, backend), ['item_uid']);
      assert.deepEqual(await pages(store), before);
    } finally {
      await close();
    }
  });
}
