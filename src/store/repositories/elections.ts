import type { Kysely, Selectable } from 'kysely';
import type { Database, ElectionsTable } from '../schema.ts';

export interface ElectionRecord {
  /** the SkyBlock year whose election produced this mayor */
  year: number;
  mayorKey: string;
  mayorName: string;
  /** the upstream election resource, as received */
  payload: Record<string, unknown>;
  updatedAt: number;
}

export class ElectionRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async upsert(record: ElectionRecord, db: Kysely<Database> = this.db): Promise<void> {
    const row = {
      year: record.year,
      mayor_key: record.mayorKey,
      mayor_name: record.mayorName,
      payload: JSON.stringify(record.payload),
      updated_at: record.updatedAt,
    };
    await db
      .insertInto('elections')
      .values(row)
      .onConflict((oc) =>
        oc.column('year').doUpdateSet({ mayor_key: row.mayor_key, mayor_name: row.mayor_name, payload: row.payload, updated_at: row.updated_at }),
      )
      .execute();
  }

  async latest(): Promise<ElectionRecord | undefined> {
    const row = await this.db.selectFrom('elections').selectAll().orderBy('year', 'desc').limit(1).executeTakeFirst();
    return row && recordOf(row);
  }

  async byYear(year: number): Promise<ElectionRecord | undefined> {
    const row = await this.db.selectFrom('elections').selectAll().where('year', '=', year).executeTakeFirst();
    return row && recordOf(row);
  }

  /** The stored elections of years `from`..`to` (inclusive), oldest first, at most `limit`. */
  async inYears(from: number, to: number, limit: number): Promise<ElectionRecord[]> {
    const rows = await this.db
      .selectFrom('elections')
      .selectAll()
      .where('year', '>=', from)
      .where('year', '<=', to)
      .orderBy('year', 'asc')
      .limit(limit)
      .execute();
    return rows.map(recordOf);
  }
}

function recordOf(row: Selectable<ElectionsTable>): ElectionRecord {
  return {
    year: row.year,
    mayorKey: row.mayor_key,
    mayorName: row.mayor_name,
    payload: typeof row.payload === 'string' ? (JSON.parse(row.payload) as Record<string, unknown>) : row.payload,
    updatedAt: Number(row.updated_at),
  };
}
