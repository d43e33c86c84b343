import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/** Raw uploads are kept this long (for ingestion and inspection), then the retention job drops them. */
export const DATA_UPLOAD_RETENTION_MS = 2 * 86_400_000;

export interface DataUpload {
  id: string;
  requestId: string;
  /** what the body was recognised as (see api/data.ts) */
  kind: string;
  bytes: number;
  body: string;
  receivedAt: number;
}

/** Proxied upstream data the mod uploaded through POST /api/data/proxy. */
export class DataUploadRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async add(upload: DataUpload): Promise<void> {
    await this.db
      .insertInto('data_uploads')
      .values({ id: upload.id, request_id: upload.requestId, kind: upload.kind, bytes: upload.bytes, body: upload.body, received_at: upload.receivedAt })
      .execute();
  }

  async get(id: string): Promise<DataUpload | undefined> {
    const r = await this.db.selectFrom('data_uploads').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? { id: r.id, requestId: r.request_id, kind: r.kind, bytes: r.bytes, body: r.body, receivedAt: r.received_at } : undefined;
  }

  /** Newest uploads of a kind, for ingestion to pick up. */
  async recent(kind: string, limit: number): Promise<DataUpload[]> {
    const rows = await this.db.selectFrom('data_uploads').selectAll().where('kind', '=', kind).orderBy('received_at', 'desc').limit(limit).execute();
    return rows.map((r) => ({ id: r.id, requestId: r.request_id, kind: r.kind, bytes: r.bytes, body: r.body, receivedAt: r.received_at }));
  }

  async deleteOlderThan(cutoff: number): Promise<number> {
    const r = await this.db.deleteFrom('data_uploads').where('received_at', '<', cutoff).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
