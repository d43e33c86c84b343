import type { Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import { bigintType, doubleType, type AnyDb } from './column-types.ts';

/** Feed freshness (what health reports) and the item catalog. */
export function m001Initial(dialect: Dialect): Migration {
  const big = bigintType(dialect);
  const double = doubleType(dialect);
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('feeds')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('last_updated', big, (c) => c.notNull())
        .addColumn('stored_at', big, (c) => c.notNull())
        .addColumn('records', 'integer', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('items')
        .addColumn('tag', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('tier', 'text')
        .addColumn('category', 'text')
        .addColumn('npc_sell_price', double)
        .addColumn('updated_at', big, (c) => c.notNull())
        .execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropTable('items').execute();
      await db.schema.dropTable('feeds').execute();
    },
  };
}
