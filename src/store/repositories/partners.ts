import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../clock.ts';
import { generateToken, hasTokenShape, hashesEqual, hashToken } from '../../domain/credentials.ts';
import type { PartnerIdentity } from '../../domain/identities.ts';
import type { Database, PartnerTokensTable } from '../schema.ts';

export interface PartnerRecord {
  id: number;
  name: string;
  createdAt: number;
  revokedAt: number | null;
}

function toRecord(row: Selectable<PartnerTokensTable>): PartnerRecord {
  return { id: Number(row.id), name: row.name, createdAt: row.created_at, revokedAt: row.revoked_at };
}

/** Partner tokens (query `token`): grant extras on sold, random auction and batch export. */
export class PartnerRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async create(input: { name: string; now?: number | undefined }): Promise<{ partner: PartnerRecord; token: string }> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 100) throw new RangeError('partner name must be 1-100 characters');
    const token = generateToken('partner');
    const row = await this.db
      .insertInto('partner_tokens')
      .values({ name, token_hash: hashToken(token), created_at: input.now ?? this.clock.now(), revoked_at: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { partner: toRecord(row), token };
  }

  async revoke(id: number, now: number = this.clock.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('partner_tokens')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async list(): Promise<PartnerRecord[]> {
    return (await this.db.selectFrom('partner_tokens').selectAll().orderBy('id').execute()).map(toRecord);
  }

  /** The partner of a valid token; null for unknown, malformed or revoked tokens. */
  async findByToken(token: string): Promise<PartnerIdentity | null> {
    if (!hasTokenShape('partner', token)) return null;
    const hash = hashToken(token);
    const row = await this.db.selectFrom('partner_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    if (!row || !hashesEqual(row.token_hash, hash) || row.revoked_at !== null) return null;
    return { id: Number(row.id), name: row.name };
  }
}
