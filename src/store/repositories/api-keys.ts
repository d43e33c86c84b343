import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../../clock.ts';
import { API_KEY_LIFETIME_MS, generateToken, hasTokenShape, hashesEqual, hashToken } from '../../domain/credentials.ts';
import { compactPlayerUuid } from '../../domain/player-data.ts';
import type { PlayerKeyIdentity } from '../../domain/identities.ts';
import type { ApiKeysTable, Database } from '../schema.ts';

export interface ApiKeyRecord {
  id: number;
  playerUuid: string;
  profileUuid: string | null;
  createdAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export type ApiKeyStatus = 'valid' | 'expired' | 'revoked' | 'unknown' | 'malformed';

function toRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: Number(row.id),
    playerUuid: row.player_uuid,
    profileUuid: row.profile_uuid,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

function identity(record: ApiKeyRecord): PlayerKeyIdentity {
  return { id: record.id, playerUuid: record.playerUuid, profileUuid: record.profileUuid, expiresAt: record.expiresAt };
}

/** Player API keys: bound to one player (and optionally profile), 180 days, revocable. */
export class ApiKeyRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  async create(input: { playerUuid: string; profileUuid?: string | null | undefined; now?: number | undefined }): Promise<{
    key: ApiKeyRecord;
    token: string;
  }> {
    const player = compactPlayerUuid(input.playerUuid);
    if (!player) throw new RangeError(`player must be a uuid (32 hex digits), got '${input.playerUuid}'`);
    let profile: string | null = null;
    if (input.profileUuid !== undefined && input.profileUuid !== null) {
      profile = compactPlayerUuid(input.profileUuid) ?? null;
      if (!profile) throw new RangeError(`profile must be a uuid (32 hex digits), got '${input.profileUuid}'`);
    }
    const now = input.now ?? this.clock.now();
    const token = generateToken('apiKey');
    const row = await this.db
      .insertInto('api_keys')
      .values({
        player_uuid: player,
        profile_uuid: profile,
        token_hash: hashToken(token),
        created_at: now,
        expires_at: now + API_KEY_LIFETIME_MS,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { key: toRecord(row), token };
  }

  async revoke(id: number, now: number = this.clock.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Keys, newest first; of one player when given. */
  async list(playerUuid?: string): Promise<ApiKeyRecord[]> {
    let query = this.db.selectFrom('api_keys').selectAll().orderBy('id', 'desc');
    if (playerUuid !== undefined) query = query.where('player_uuid', '=', compactPlayerUuid(playerUuid) ?? '');
    return (await query.execute()).map(toRecord);
  }

  /** What a presented key is worth at `nowMs`, with the key when it is known. */
  async check(token: string, nowMs: number): Promise<{ status: ApiKeyStatus; key: ApiKeyRecord | null }> {
    if (!hasTokenShape('apiKey', token)) return { status: 'malformed', key: null };
    const hash = hashToken(token);
    const row = await this.db.selectFrom('api_keys').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    if (!row || !hashesEqual(row.token_hash, hash)) return { status: 'unknown', key: null };
    const key = toRecord(row);
    if (key.revokedAt !== null) return { status: 'revoked', key };
    if (key.expiresAt <= nowMs) return { status: 'expired', key };
    return { status: 'valid', key };
  }

  /** The player a valid, unexpired, unrevoked key belongs to; null otherwise. */
  async findByToken(token: string, nowMs: number): Promise<PlayerKeyIdentity | null> {
    const { status, key } = await this.check(token, nowMs);
    return status === 'valid' && key ? identity(key) : null;
  }
}

export { identity as playerKeyIdentity };
