/**
 * The flip engine reads the newest uploads of one kind (NPC shop contents) before each bazaar
 * recomputation: index (kind, received_at) so that is a short range scan, not a table scan.
 */
import type { Migration } from 'kysely';
import type { Dialect } from '../db.ts';
import type { AnyDb } from './column-types.ts';

export function m009UploadKindIndex(_dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.createIndex('data_uploads_kind_received').on('data_uploads').columns(['kind', 'received_at']).execute();
    },
    async down(db: AnyDb) {
      await db.schema.dropIndex('data_uploads_kind_received').execute();
    },
  };
}
