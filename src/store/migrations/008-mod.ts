import type { Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

/**
 * The mod channel's data: account ↔ Minecraft links (and the bid-amount challenges that
 * prove them), the players' extracted state, bazaar orders and completed flips, lowball
 * offers (7-day retention), player names seen, and raw data uploads. JSON documents are
 * stored as text on both dialects: they are only ever read back whole.
 */
export function m008Mod(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  const bool = dialect === 'postgres' ? 'boolean' : 'integer';
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('mod_link_challenges')
        .addColumn('account_id', 'integer', (c) => c.primaryKey())
        .addColumn('player_uuid', 'text', (c) => c.notNull())
        .addColumn('player_name', 'text')
        .addColumn('amount', big, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mod_link_challenges_amount').on('mod_link_challenges').column('amount').execute();

      await db.schema
        .createTable('mod_links')
        .addColumn('account_id', 'integer', (c) => c.primaryKey())
        .addColumn('player_uuid', 'text', (c) => c.notNull())
        .addColumn('player_name', 'text')
        .addColumn('linked_at', big, (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mod_links_player').on('mod_links').column('player_uuid').execute();

      await db.schema
        .createTable('player_state')
        .addColumn('player_uuid', 'text', (c) => c.primaryKey())
        .addColumn('profile_uuid', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('player_bazaar_orders')
        .addColumn('player_uuid', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('is_sell', bool, (c) => c.notNull())
        .addColumn('item_tag', 'text', (c) => c.notNull())
        .addColumn('item_name', 'text')
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('filled', 'integer', (c) => c.notNull())
        .addColumn('price_per_unit', double, (c) => c.notNull())
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('customers', 'text')
        .addColumn('uploaded_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('player_bazaar_orders_pk', ['player_uuid', 'position'])
        .execute();

      await db.schema
        .createTable('player_bazaar_flips')
        .addColumn('player_uuid', 'text', (c) => c.notNull())
        .addColumn('item_tag', 'text', (c) => c.notNull())
        .addColumn('item_name', 'text')
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('buy_price', big, (c) => c.notNull())
        .addColumn('sell_price', big, (c) => c.notNull())
        .addColumn('sold_at', big, (c) => c.notNull())
        .addPrimaryKeyConstraint('player_bazaar_flips_pk', ['player_uuid', 'sold_at', 'item_tag'])
        .execute();

      await db.schema
        .createTable('lowball_offers')
        .addColumn('offer_id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'integer', (c) => c.notNull())
        .addColumn('player_uuid', 'text', (c) => c.notNull())
        .addColumn('item_tag', 'text', (c) => c.notNull())
        .addColumn('item_name', 'text')
        .addColumn('item_count', 'integer', (c) => c.notNull())
        .addColumn('asking_price', big, (c) => c.notNull())
        .addColumn('filters', 'text')
        .addColumn('auction_json', 'text')
        .addColumn('lore', 'text')
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('expires_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('lowball_offers_account').on('lowball_offers').columns(['account_id', 'created_at']).execute();
      await db.schema.createIndex('lowball_offers_tag').on('lowball_offers').columns(['item_tag', 'created_at']).execute();
      await db.schema.createIndex('lowball_offers_expires').on('lowball_offers').column('expires_at').execute();

      await db.schema
        .createTable('player_names')
        .addColumn('player_uuid', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_lower', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('seen_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('player_names_lower').on('player_names').column('name_lower').execute();

      await db.schema
        .createTable('data_uploads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('bytes', 'integer', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('received_at', big, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('data_uploads_received').on('data_uploads').column('received_at').execute();
    },
    async down(db: AnyDb) {
      for (const table of [
        'data_uploads',
        'player_names',
        'lowball_offers',
        'player_bazaar_flips',
        'player_bazaar_orders',
        'player_state',
        'mod_links',
        'mod_link_challenges',
      ]) {
        await db.schema.dropTable(table).execute();
      }
    },
  };
}
