import { gunzipSync, gzipSync } from 'node:zlib';
import type { Kysely } from 'kysely';
import { PROXY_KIND_MAX_BYTES } from '../../domain/uploads.ts';
import type { Database, DataUploadsTable } from '../schema.ts';

/** Raw uploads are kept this long (for ingestion and inspection), then the retention job drops them. */
export const DATA_UPLOAD_RETENTION_MS = 2 * 86_400_000;

/** No stored upload inflates beyond this (the largest kind's cap): reading one back is bounded too. */
const MAX_INFLATED = Math.max(...Object.values(PROXY_KIND_MAX_BYTES));

export interface DataUpload {
  id: string;
  requestId: string;
  /** what the body was recognised as (see api/data.ts) */
  kind: string;
  /** inflated size */
  bytes: number;
  /** the JSON text */
  body: string;
  /** bytes the row holds (gzip) */
  storedBytes: number;
  receivedAt: number;
}

/** A new upload: its JSON text, or the gzip of it (stored as it is, not inflated). */
export type NewDataUpload = Omit<DataUpload, 'body' | 'storedBytes'> & ({ body: string } | { gzip: Uint8Array });

function toUpload(r: DataUploadsTable): DataUpload {
  const raw = r.body;
  // Rows from before migration 014 hold text; newer ones gzip bytes.
  const body = typeof raw === 'string' ? raw : raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw, { maxOutputLength: MAX_INFLATED }).toString('utf8') : Buffer.from(raw).toString('utf8');
  return { id: r.id, requestId: r.request_id, kind: r.kind, bytes: r.bytes, body, storedBytes: typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length, receivedAt: r.received_at };
}

/** Proxied upstream data the mod uploaded through POST /api/data/proxy, and the mod's NPC shop uploads. */
export class DataUploadRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async add(upload: NewDataUpload): Promise<void> {
    // Text is small here (mod messages); large uploads arrive already compressed.
    const body = 'gzip' in upload ? upload.gzip : gzipSync(upload.body);
    await this.db
      .insertInto('data_uploads')
      .values({ id: upload.id, request_id: upload.requestId, kind: upload.kind, bytes: upload.bytes, body, received_at: upload.receivedAt })
      .execute();
  }

  async get(id: string): Promise<DataUpload | undefined> {
    const r = await this.db.selectFrom('data_uploads').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toUpload(r) : undefined;
  }

  /** Newest uploads of a kind, for ingestion to pick up. */
  async recent(kind: string, limit: number): Promise<DataUpload[]> {
    const rows = await this.db.selectFrom('data_uploads').selectAll().where('kind', '=', kind).orderBy('received_at', 'desc').limit(limit).execute();
    return rows.map(toUpload);
  }

  async deleteOlderThan(cutoff: number): Promise<number> {
    const r = await this.db.deleteFrom('data_uploads').where('received_at', '<', cutoff).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
