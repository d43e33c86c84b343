import type { Kysely } from 'kysely';
import type { Database, FeedsTable } from '../schema.ts';

export type FeedName = 'auctions' | 'auctions_ended' | 'bazaar' | 'items' | 'election';

export interface FeedState {
  name: FeedName;
  /** upstream `lastUpdated` of the newest stored data, epoch ms */
  lastUpdated: number;
  /** when skymarket stored it, epoch ms */
  storedAt: number;
  records: number;
  source: 'upstream' | 'simulator';
}

/** Freshness of each upstream feed: written by ingestion, read by health. */
export class FeedRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async record(state: FeedState, db: Kysely<Database> = this.db): Promise<void> {
    const row: FeedsTable = {
      name: state.name,
      last_updated: state.lastUpdated,
      stored_at: state.storedAt,
      records: state.records,
      source: state.source,
    };
    await db
      .insertInto('feeds')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({
            last_updated: row.last_updated,
            stored_at: row.stored_at,
            records: row.records,
            source: row.source,
          })
          // Replayed history must not make a feed look older than what is already stored.
          .where('feeds.last_updated', '<=', row.last_updated),
      )
      .execute();
  }

  async all(): Promise<FeedState[]> {
    const rows = await this.db.selectFrom('feeds').selectAll().orderBy('name').execute();
    return rows.map((r) => ({
      name: r.name as FeedName,
      lastUpdated: r.last_updated,
      storedAt: r.stored_at,
      records: r.records,
      source: r.source as FeedState['source'],
    }));
  }

  async get(name: FeedName): Promise<FeedState | undefined> {
    return (await this.all()).find((f) => f.name === name);
  }
}
