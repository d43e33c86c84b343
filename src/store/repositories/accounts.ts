import type { Kysely, Selectable } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type { Clock } from '../../clock.ts';
import { generateToken, hasTokenShape, hashesEqual, hashToken } from '../../domain/credentials.ts';
import { effectiveTier, isTier, type Tier } from '../../domain/tiers.ts';
import type { AccountIdentity } from '../../domain/identities.ts';
import type { AccountsTable, Database } from '../schema.ts';

export interface AccountRecord {
  id: number;
  name: string | null;
  /** the stored tier (see `effectiveTier` for what it grants now) */
  tier: Tier;
  tierExpiresAt: number | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface CreateAccount {
  tier: Tier;
  /** paid tier lasts this many days; omitted = no expiry */
  days?: number | undefined;
  name?: string | undefined;
  /** creation time (UTC ms); default now */
  now?: number | undefined;
}

const DAY_MS = 86_400_000;

function toRecord(row: Selectable<AccountsTable>): AccountRecord {
  return {
    id: Number(row.id),
    name: row.name,
    tier: isTier(row.tier) ? row.tier : 'free',
    tierExpiresAt: row.tier_expires_at,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function expiryOf(tier: Tier, days: number | undefined, now: number): number | null {
  if (tier === 'free' || days === undefined) return null;
  if (!Number.isFinite(days) || days <= 0) throw new RangeError(`days must be a positive number, got ${days}`);
  return now + Math.round(days * DAY_MS);
}

/** Accounts with a tier and tier expiry, identified by a bearer token stored as a SHA-256 hash. */
export class AccountRepository {
  private byTokenHash: SqliteDatabase.Statement<[string], Selectable<AccountsTable>> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** SQLite's driver (DatabaseHandle.sqlite): the token lookup reads through it directly */
    private readonly sqlite?: SqliteDatabase.Database,
  ) {}

  /** Creates an account; the token is returned once and never stored in clear. */
  async create(input: CreateAccount): Promise<{ account: AccountRecord; token: string }> {
    if (!isTier(input.tier)) throw new RangeError(`unknown tier '${String(input.tier)}'`);
    const now = input.now ?? this.clock.now();
    const token = generateToken('account');
    const row = await this.db
      .insertInto('accounts')
      .values({
        name: input.name ?? null,
        tier: input.tier,
        tier_expires_at: expiryOf(input.tier, input.days, now),
        token_hash: hashToken(token),
        created_at: now,
        revoked_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { account: toRecord(row), token };
  }

  async get(id: number): Promise<AccountRecord | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** Sets the tier (and its expiry: `days` from now, or none). False when the account does not exist. */
  async setTier(id: number, tier: Tier, days?: number, now: number = this.clock.now()): Promise<boolean> {
    if (!isTier(tier)) throw new RangeError(`unknown tier '${String(tier)}'`);
    const result = await this.db
      .updateTable('accounts')
      .set({ tier, tier_expires_at: expiryOf(tier, days, now) })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Revokes the account's token for good. False when it does not exist or was already revoked. */
  async revoke(id: number, now: number = this.clock.now()): Promise<boolean> {
    const result = await this.db
      .updateTable('accounts')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async list(): Promise<AccountRecord[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy('id').execute();
    return rows.map(toRecord);
  }

  /** The account a token belongs to, with its effective tier at `nowMs`; null for unknown, malformed or revoked tokens. */
  async findByToken(token: string, nowMs: number): Promise<AccountIdentity | null> {
    if (!hasTokenShape('account', token)) return null;
    const hash = hashToken(token);
    // A transaction open on the connection (Kysely's, between its awaits) would show this read its
    // snapshot, older than a revocation committed since: then queue behind it through Kysely.
    const direct = this.sqlite !== undefined && !this.sqlite.inTransaction ? this.sqlite : undefined;
    const row = direct ? this.sqliteRowByHash(direct, hash) : await this.db.selectFrom('accounts').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    if (!row || !hashesEqual(row.token_hash, hash) || row.revoked_at !== null) return null;
    const record = toRecord(row);
    return {
      id: record.id,
      name: record.name,
      tier: effectiveTier(record.tier, record.tierExpiresAt, nowMs),
      tierExpiresAt: record.tierExpiresAt,
    };
  }

  /**
   * The lookup every request with a token makes, on SQLite: one prepared statement read
   * synchronously. Through Kysely (query building, its connection queue and their promises) a
   * token-gated flip feed cost 113 µs a request against 38 µs with the lookup taken out
   * (docs/performance.md, 2026-11-27). Reading beside Kysely's queue is safe when no transaction is
   * open on the connection (the caller checks): accounts change only in single statements, and
   * nothing iterates a statement (which would keep the connection busy).
   */
  private sqliteRowByHash(sqlite: SqliteDatabase.Database, hash: string): Selectable<AccountsTable> | undefined {
    this.byTokenHash ??= sqlite.prepare<[string], Selectable<AccountsTable>>('select * from accounts where token_hash = ?');
    return this.byTokenHash.get(hash);
  }
}
