import type { Kysely } from 'kysely';
import type { Dialect } from '../db.ts';
import { bulkInsert, type BulkSpec } from '../bulk.ts';
import { coinsTimesTen, mergeExtracted, type BazaarFlip, type BazaarOrder, type ExtractedState } from '../../domain/player-data.ts';
import type { Database, PlayerBazaarFlipsTable, PlayerBazaarOrdersTable } from '../schema.ts';

const ORDERS: BulkSpec<PlayerBazaarOrdersTable> = {
  table: 'player_bazaar_orders',
  columns: {
    player_uuid: 'text',
    position: 'int4',
    is_sell: 'bool',
    item_tag: 'text',
    item_name: 'text',
    amount: 'int4',
    filled: 'int4',
    price_per_unit: 'float8',
    created_at: 'int8',
    customers: 'text',
    uploaded_at: 'int8',
  },
};

const FLIPS: BulkSpec<PlayerBazaarFlipsTable> = {
  table: 'player_bazaar_flips',
  columns: {
    player_uuid: 'text',
    item_tag: 'text',
    item_name: 'text',
    amount: 'int4',
    buy_price: 'int8',
    sell_price: 'int8',
    sold_at: 'int8',
  },
  // The mod reports a flip again after a reconnect: the same (player, time, item) is stored once.
  conflict: { target: ['player_uuid', 'sold_at', 'item_tag'], update: 'nothing' },
};

export interface StoredState {
  playerUuid: string;
  profileUuid: string | null;
  state: ExtractedState;
  updatedAt: number;
}

export interface StoredFlip {
  itemTag: string;
  itemName: string | null;
  amount: number;
  buyTimesTen: number;
  sellTimesTen: number;
  soldAt: number;
}

/** Most flips kept per player; older ones are dropped when new ones arrive. */
export const MAX_FLIPS_PER_PLAYER = 1000;

/** What the mod uploaded per player: extracted state, current bazaar orders, completed flips. Players are 32-hex uuids. */
export class PlayerRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Merges an extracted-state upload into the player's stored state; returns the result. */
  async mergeState(playerUuid: string, profileUuid: string | null, patch: ExtractedState, now: number): Promise<StoredState> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('player_state').selectAll().where('player_uuid', '=', playerUuid).executeTakeFirst();
      const previous = row ? (JSON.parse(row.state) as ExtractedState) : null;
      const state = mergeExtracted(previous, patch);
      const values = { player_uuid: playerUuid, profile_uuid: profileUuid ?? row?.profile_uuid ?? null, state: JSON.stringify(state), updated_at: now };
      await trx
        .insertInto('player_state')
        .values(values)
        .onConflict((oc) => oc.column('player_uuid').doUpdateSet({ profile_uuid: values.profile_uuid, state: values.state, updated_at: now }))
        .execute();
      return { playerUuid, profileUuid: values.profile_uuid, state, updatedAt: now };
    });
  }

  async state(playerUuid: string): Promise<StoredState | undefined> {
    const row = await this.db.selectFrom('player_state').selectAll().where('player_uuid', '=', playerUuid).executeTakeFirst();
    if (!row) return undefined;
    return { playerUuid, profileUuid: row.profile_uuid, state: JSON.parse(row.state) as ExtractedState, updatedAt: row.updated_at };
  }

  /** Replaces the player's current orders with this upload (the mod sends the whole order screen). */
  async replaceOrders(playerUuid: string, orders: readonly BazaarOrder[], now: number): Promise<void> {
    const rows: PlayerBazaarOrdersTable[] = orders.map((o, position) => ({
      player_uuid: playerUuid,
      position,
      is_sell: o.isSell,
      item_tag: o.itemTag,
      item_name: o.itemName,
      amount: o.amount,
      filled: o.filled,
      price_per_unit: o.pricePerUnit,
      created_at: o.created,
      customers: o.customers ? JSON.stringify(o.customers) : null,
      uploaded_at: now,
    }));
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('player_bazaar_orders').where('player_uuid', '=', playerUuid).execute();
      await bulkInsert(trx, this.dialect, ORDERS, rows);
    });
  }

  async orders(playerUuid: string): Promise<Array<BazaarOrder & { uploadedAt: number }>> {
    const rows = await this.db
      .selectFrom('player_bazaar_orders')
      .selectAll()
      .where('player_uuid', '=', playerUuid)
      .orderBy('position')
      .execute();
    return rows.map((r) => ({
      isSell: Boolean(r.is_sell),
      itemTag: r.item_tag,
      itemName: r.item_name,
      amount: r.amount,
      filled: r.filled,
      pricePerUnit: r.price_per_unit,
      created: r.created_at,
      customers: r.customers ? (JSON.parse(r.customers) as BazaarOrder['customers']) : null,
      uploadedAt: r.uploaded_at,
    }));
  }

  /** Stores completed flips (prices in coins, kept as coins × 10); duplicates are ignored. Returns how many were new. */
  async addFlips(playerUuid: string, flips: readonly BazaarFlip[]): Promise<number> {
    if (flips.length === 0) return 0;
    const rows: PlayerBazaarFlipsTable[] = flips.map((f) => ({
      player_uuid: playerUuid,
      item_tag: f.itemTag,
      item_name: f.itemName,
      amount: f.amount,
      buy_price: coinsTimesTen(f.buyPrice),
      sell_price: coinsTimesTen(f.sellPrice),
      sold_at: f.soldAt,
    }));
    return this.db.transaction().execute(async (trx) => {
      const count = async () =>
        Number((await trx.selectFrom('player_bazaar_flips').select((eb) => eb.fn.countAll<number>().as('n')).where('player_uuid', '=', playerUuid).executeTakeFirstOrThrow()).n);
      const before = await count();
      await bulkInsert(trx, this.dialect, FLIPS, rows);
      const after = await count();
      if (after > MAX_FLIPS_PER_PLAYER) {
        const cutoff = await trx
          .selectFrom('player_bazaar_flips')
          .select('sold_at')
          .where('player_uuid', '=', playerUuid)
          .orderBy('sold_at', 'desc')
          .offset(MAX_FLIPS_PER_PLAYER - 1)
          .limit(1)
          .executeTakeFirst();
        if (cutoff) await trx.deleteFrom('player_bazaar_flips').where('player_uuid', '=', playerUuid).where('sold_at', '<', cutoff.sold_at).execute();
      }
      return after - before;
    });
  }

  /** The player's completed flips, newest first. */
  async flips(playerUuid: string, limit = MAX_FLIPS_PER_PLAYER): Promise<StoredFlip[]> {
    const rows = await this.db
      .selectFrom('player_bazaar_flips')
      .selectAll()
      .where('player_uuid', '=', playerUuid)
      .orderBy('sold_at', 'desc')
      .orderBy('item_tag')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      itemTag: r.item_tag,
      itemName: r.item_name,
      amount: r.amount,
      buyTimesTen: r.buy_price,
      sellTimesTen: r.sell_price,
      soldAt: r.sold_at,
    }));
  }
}
