import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

/**
 * Auctions (active, sold, expired) with their bids, 20-second bazaar snapshots and
 * elections. Order books are stored compactly and only when they changed since the
 * product's previous snapshot (NULL = unchanged), which keeps 14 days of snapshots small.
 */
export function m002Market(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  const json = dialect === 'postgres' ? 'jsonb' : 'text';
  const bool = dialect === 'postgres' ? 'boolean' : 'integer';
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('auctions')
        .addColumn('uuid', 'text', (c) => c.primaryKey())
        .addColumn('tag', 'text', (c) => c.notNull())
        .addColumn('item_name', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('seller', 'text', (c) => c.notNull())
        .addColumn('profile_id', 'text')
        .addColumn('coop', json)
        .addColumn('start_at', big)
        .addColumn('end_at', big, (c) => c.notNull())
        .addColumn('starting_bid', big, (c) => c.notNull())
        .addColumn('highest_bid', big, (c) => c.notNull())
        .addColumn('bin', bool, (c) => c.notNull())
        .addColumn('tier', 'text')
        .addColumn('category', 'text')
        .addColumn('reforge', 'text')
        .addColumn('item_uuid', 'text')
        .addColumn('item_uid', 'text')
        .addColumn('item_created_at', big)
        .addColumn('enchantments', json)
        .addColumn('flat_nbt', json)
        .addColumn('item_bytes', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('last_updated', big, (c) => c.notNull())
        .addColumn('sold_price', big)
        .addColumn('buyer', 'text')
        .addColumn('sold_at', big)
        .execute();
      await db.schema.createIndex('auctions_tag_state_price').on('auctions').columns(['tag', 'state', 'starting_bid']).execute();
      await db.schema.createIndex('auctions_tag_sold_at').on('auctions').columns(['tag', 'sold_at']).where(sql.ref('state'), '=', 'sold').execute();
      await db.schema.createIndex('auctions_state_end').on('auctions').columns(['state', 'end_at']).execute();
      await db.schema.createIndex('auctions_item_uid').on('auctions').column('item_uid').execute();
      await db.schema.createIndex('auctions_seller').on('auctions').column('seller').execute();

      await db.schema
        .createTable('bids')
        .addColumn('auction_uuid', 'text', (c) => c.notNull())
        .addColumn('amount', big, (c) => c.notNull())
        .addColumn('bidder', 'text', (c) => c.notNull())
        .addColumn('profile_id', 'text')
        .addColumn('placed_at', big, (c) => c.notNull())
        // Bids on one auction strictly increase, so the amount identifies the bid.
        .addPrimaryKeyConstraint('bids_pk', ['auction_uuid', 'amount'])
        .execute();
      await db.schema.createIndex('bids_bidder').on('bids').column('bidder').execute();

      let snapshots = db.schema
        .createTable('bazaar_snapshots')
        .addColumn('product_id', 'text', (c) => c.notNull())
        .addColumn('ts', big, (c) => c.notNull())
        .addColumn('buy_price', double, (c) => c.notNull())
        .addColumn('sell_price', double, (c) => c.notNull())
        .addColumn('buy_volume', big, (c) => c.notNull())
        .addColumn('sell_volume', big, (c) => c.notNull())
        .addColumn('buy_moving_week', big, (c) => c.notNull())
        .addColumn('sell_moving_week', big, (c) => c.notNull())
        .addColumn('buy_orders', 'integer', (c) => c.notNull())
        .addColumn('sell_orders', 'integer', (c) => c.notNull())
        .addColumn('book', blob)
        .addPrimaryKeyConstraint('bazaar_snapshots_pk', ['product_id', 'ts']);
      // Rows are only ever looked up by (product, time): no separate rowid b-tree.
      if (dialect === 'sqlite') snapshots = snapshots.modifyEnd(sql`without rowid`);
      await snapshots.execute();
      await db.schema.createIndex('bazaar_snapshots_ts').on('bazaar_snapshots').column('ts').execute();

      await db.schema
        .createTable('elections')
        .addColumn('year', 'integer', (c) => c.primaryKey())
        .addColumn('mayor_key', 'text', (c) => c.notNull())
        .addColumn('mayor_name', 'text', (c) => c.notNull())
        .addColumn('payload', json, (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
    },
    async down(db: AnyDb) {
      for (const table of ['elections', 'bazaar_snapshots', 'bids', 'auctions']) await db.schema.dropTable(table).execute();
    },
  };
}
