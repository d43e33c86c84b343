/**
 * Proxied uploads are stored as the gzip bytes they arrived as (or were compressed to), not as
 * inflated text: a 16 KB gzip that inflated to 16 MB was stored as 16 MB (issue 21). PostgreSQL:
 * `body` becomes `bytea` (old rows keep their text as UTF-8 bytes), stored EXTERNAL so it is not
 * compressed again. SQLite keeps the column's declared type: its TEXT affinity stores a blob as
 * a blob, so old rows stay text and new ones are blobs. Readers tell them apart (gzip starts
 * with 1f 8b, JSON text never does). Down drops the gzip rows (kept 2 days anyway) and turns
 * the column back into text.
 */
import { sql, type Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import type { AnyDb } from './column-types.ts';

export function m014UploadBytes(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect !== 'postgres') return;
      await sql`alter table data_uploads alter column body type bytea using convert_to(body, 'UTF8')`.execute(db);
      await sql`alter table data_uploads alter column body set storage external`.execute(db);
    },
    async down(db: AnyDb) {
      if (dialect !== 'postgres') {
        await sql`delete from data_uploads where typeof(body) = 'blob'`.execute(db);
        return;
      }
      await sql`delete from data_uploads where substring(body from 1 for 2) = '\\x1f8b'::bytea`.execute(db);
      await sql`alter table data_uploads alter column body type text using convert_from(body, 'UTF8')`.execute(db);
    },
  };
}
