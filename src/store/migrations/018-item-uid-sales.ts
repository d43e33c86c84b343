/**
 * One item's sales in the order they are paged (issue 24, point b): `auctions_item_uid` becomes
 * (item_uid, sold_at) instead of (item_uid). The uid history (`/api/auctions/uid/{uid}/sold`)
 * reads an item's sales newest first a page at a time; with the uid alone every sale of the item
 * was read and sorted for any page (an item resold all along costs more the longer the history:
 * measured 90 vs 7 days in docs/performance.md). Now a page walks the index backwards from the
 * newest sale (ties in sale time sorted by uuid: SQLite's sorter for the right part of the ORDER
 * BY, PostgreSQL's incremental sort). The lookups of listed uids (state active) use the prefix,
 * as before. Same name, so no other reader changes; one index rebuilt (a pass over the table).
 */
import { sql, type Migration } from 'kysely';
import type { AnyDb } from './column-types.ts';

export function m018ItemUidSales(): Migration {
  return {
    async up(db: AnyDb) {
      await sql`drop index if exists auctions_item_uid`.execute(db);
      await sql`create index auctions_item_uid on auctions (item_uid, sold_at)`.execute(db);
    },
    async down(db: AnyDb) {
      await sql`drop index if exists auctions_item_uid`.execute(db);
      await sql`create index auctions_item_uid on auctions (item_uid)`.execute(db);
    },
  };
}
