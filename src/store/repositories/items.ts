import type { Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import type { Database, ItemsTable } from '../schema.ts';
import type { CatalogItem } from '../../domain/item-catalog.ts';

export type { CatalogItem };

const ITEMS: BulkSpec<ItemsTable> = {
  table: 'items',
  columns: {
    tag: 'text',
    name: 'text',
    tier: 'text',
    category: 'text',
    npc_sell_price: 'float8',
    updated_at: 'int8',
  },
  conflict: { target: ['tag'], update: ['name', 'tier', 'category', 'npc_sell_price', 'updated_at'] },
};

/** The item catalog: names, tiers and NPC prices from the items resource. */
export class ItemRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Inserts or refreshes every item in one bulk statement per chunk. */
  async upsertMany(items: readonly CatalogItem[], updatedAt: number, db: Kysely<Database> = this.db): Promise<number> {
    const rows: ItemsTable[] = items.map((i) => ({
      tag: i.tag,
      name: i.name,
      tier: i.tier,
      category: i.category,
      npc_sell_price: i.npcSellPrice,
      updated_at: updatedAt,
    }));
    return bulkInsert(db, this.dialect, ITEMS, rows);
  }

  async get(tag: string): Promise<CatalogItem | undefined> {
    const row = await this.db.selectFrom('items').selectAll().where('tag', '=', tag).executeTakeFirst();
    return row && toItem(row);
  }

  /** Every item of the items resource (the catalog reads it once per refresh: a few thousand rows). */
  async all(): Promise<CatalogItem[]> {
    const rows = await this.db.selectFrom('items').selectAll().execute();
    return rows.map(toItem);
  }

  async count(): Promise<number> {
    const row = await this.db.selectFrom('items').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function toItem(row: ItemsTable): CatalogItem {
  return {
    tag: row.tag,
    name: row.name,
    tier: row.tier,
    category: row.category,
    npcSellPrice: row.npc_sell_price,
  };
}
