import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import type { AccountLink } from '../../domain/account-links.ts';

/** A linking challenge is open this long. */
export const LINK_CHALLENGE_TTL_MS = 30 * 60_000;
/** Challenge amounts: small enough to bid on a cheap auction, wide enough to be unique among open challenges. */
export const LINK_AMOUNT_MIN = 1_000;
export const LINK_AMOUNT_MAX = 99_999;

export interface LinkChallenge {
  accountId: number;
  playerUuid: string;
  playerName: string | null;
  amount: number;
  createdAt: number;
  expiresAt: number;
}

export type { AccountLink } from '../../domain/account-links.ts';

/** A bid as ingestion stores it (only the fields linking needs). */
export interface SeenBid {
  bidder: string;
  amount: number;
  placed_at: number;
}

/** Account ↔ Minecraft account links, proved by bidding a challenge amount (or set by an operator). */
export class ModLinkRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Opens (or replaces) the account's challenge: bid `amount` as `playerUuid` before it expires. */
  async startChallenge(accountId: number, playerUuid: string, playerName: string | null, now: number): Promise<LinkChallenge> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('mod_link_challenges').where((eb) => eb.or([eb('expires_at', '<=', now), eb('account_id', '=', accountId)])).execute();
      const taken = new Set((await trx.selectFrom('mod_link_challenges').select('amount').execute()).map((r) => r.amount));
      let amount = randomInt(LINK_AMOUNT_MIN, LINK_AMOUNT_MAX + 1);
      while (taken.has(amount)) amount = amount >= LINK_AMOUNT_MAX ? LINK_AMOUNT_MIN : amount + 1;
      const challenge: LinkChallenge = { accountId, playerUuid, playerName, amount, createdAt: now, expiresAt: now + LINK_CHALLENGE_TTL_MS };
      await trx
        .insertInto('mod_link_challenges')
        .values({
          account_id: accountId,
          player_uuid: playerUuid,
          player_name: playerName,
          amount,
          created_at: now,
          expires_at: challenge.expiresAt,
        })
        .execute();
      return challenge;
    });
  }

  async challengeOf(accountId: number, now: number): Promise<LinkChallenge | undefined> {
    const r = await this.db
      .selectFrom('mod_link_challenges')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return r
      ? { accountId: Number(r.account_id), playerUuid: r.player_uuid, playerName: r.player_name, amount: r.amount, createdAt: r.created_at, expiresAt: r.expires_at }
      : undefined;
  }

  /**
   * Ingestion hook: links every account whose open challenge matches one of these bids
   * (same bidder, exact amount, placed while the challenge was open). Cheap when no
   * challenge is open (one indexed query on a tiny table). Returns the new links.
   */
  async linkFromBids(bids: readonly SeenBid[], now: number): Promise<AccountLink[]> {
    if (bids.length === 0) return [];
    const open = await this.db.selectFrom('mod_link_challenges').selectAll().where('expires_at', '>', now).execute();
    if (open.length === 0) return [];
    const byAmount = new Map(open.map((c) => [c.amount, c]));
    const linked: AccountLink[] = [];
    for (const bid of bids) {
      const c = byAmount.get(bid.amount);
      if (!c || c.player_uuid !== bid.bidder.replace(/-/g, '').toLowerCase()) continue;
      if (bid.placed_at < c.created_at || bid.placed_at > c.expires_at) continue;
      byAmount.delete(bid.amount);
      linked.push(await this.link(Number(c.account_id), c.player_uuid, c.player_name, 'bid', now));
    }
    return linked;
  }

  /** Links the account to the player (replacing an earlier link) and closes its challenge. */
  async link(accountId: number, playerUuid: string, playerName: string | null, method: AccountLink['method'], now: number): Promise<AccountLink> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('mod_links')
        .values({ account_id: accountId, player_uuid: playerUuid, player_name: playerName, linked_at: now, method })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ player_uuid: playerUuid, player_name: playerName, linked_at: now, method }))
        .execute();
      await trx.deleteFrom('mod_link_challenges').where('account_id', '=', accountId).execute();
    });
    return { accountId, playerUuid, playerName, linkedAt: now, method };
  }

  async linkOf(accountId: number): Promise<AccountLink | undefined> {
    const r = await this.db.selectFrom('mod_links').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return r
      ? { accountId: Number(r.account_id), playerUuid: r.player_uuid, playerName: r.player_name, linkedAt: r.linked_at, method: r.method as AccountLink['method'] }
      : undefined;
  }

  async unlink(accountId: number): Promise<boolean> {
    const r = await this.db.deleteFrom('mod_links').where('account_id', '=', accountId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Retention: drops expired challenges. */
  async deleteExpiredChallenges(now: number): Promise<number> {
    const r = await this.db.deleteFrom('mod_link_challenges').where('expires_at', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
