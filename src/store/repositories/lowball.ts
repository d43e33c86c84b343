import { sql, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from '../db.ts';
import { LOWBALL_RETENTION_MS, type LowballOfferLike } from '../../domain/lowball.ts';
import { filtersMatch } from '../../domain/player-data.ts';
import type { Database, LowballOffersTable } from '../schema.ts';

/** Offers live this long after creation; expired ones are never returned and the retention job deletes them. */
export { LOWBALL_RETENTION_MS };

export interface LowballOffer extends LowballOfferLike {
  expiresAt: number;
}

export type NewLowballOffer = Omit<LowballOffer, 'expiresAt'>;

function toOffer(r: Selectable<LowballOffersTable>): LowballOffer {
  return {
    offerId: r.offer_id,
    accountId: Number(r.account_id),
    playerUuid: r.player_uuid,
    itemTag: r.item_tag,
    itemName: r.item_name,
    itemCount: r.item_count,
    askingPrice: r.asking_price,
    filters: r.filters ? (JSON.parse(r.filters) as Record<string, string>) : null,
    auctionJson: r.auction_json,
    lore: r.lore,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

function toRow(offer: NewLowballOffer): LowballOffersTable {
  return {
    offer_id: offer.offerId,
    account_id: offer.accountId,
    player_uuid: offer.playerUuid,
    item_tag: offer.itemTag,
    item_name: offer.itemName,
    item_count: offer.itemCount,
    asking_price: offer.askingPrice,
    filters: offer.filters ? JSON.stringify(offer.filters) : null,
    auction_json: offer.auctionJson,
    lore: offer.lore,
    created_at: offer.createdAt,
      expires_at: offer.createdAt + LOWBALL_RETENTION_MS,
  };
}

/** Page of a newest-first listing: offers created strictly before `before`, unexpired at `now`. */
export interface OfferPage {
  before?: number | undefined;
  limit: number;
  now: number;
}

/** A filtered by-item listing inspects at most MAX_FILTER_ROUNDS batches of candidate rows (the reference loads 3× limit once). */
const MAX_FILTER_ROUNDS = 10;
const FILTER_BATCH_MAX = 1000;

/** `%"value"%` for a LIKE pre-filter, or undefined when the value is not plain ASCII (then only the exact check runs). */
function likePattern(value: string): string | undefined {
  if (!/^[\x20-\x7e]*$/.test(value) || /["\\]/.test(value)) return undefined;
  return `%"${value.replace(/[%_!]/g, (c) => `!${c}`)}"%`;
}

export class LowballRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  async create(offer: NewLowballOffer): Promise<LowballOffer> {
    const row = toRow(offer);
    await this.db.insertInto('lowball_offers').values(row).execute();
    return toOffer(row);
  }

  /** Many offers in one transaction (imports, benchmarks). */
  async createMany(offers: readonly NewLowballOffer[]): Promise<number> {
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < offers.length; i += 500) await trx.insertInto('lowball_offers').values(offers.slice(i, i + 500).map(toRow)).execute();
    });
    return offers.length;
  }

  /** The account's offers, newest first. */
  async byAccount(accountId: number, page: OfferPage): Promise<LowballOffer[]> {
    let q = this.db
      .selectFrom('lowball_offers')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('expires_at', '>', page.now);
    if (page.before !== undefined) q = q.where('created_at', '<', page.before);
    const rows = await q.orderBy('created_at', 'desc').orderBy('offer_id', 'desc').limit(page.limit).execute();
    return rows.map(toOffer);
  }

  /** Offers for one item tag, newest first; with `filters`, only offers whose item has all those values. */
  /** Whether any unexpired offer is for this tag (a tag the catalog does not list, such as PET_LION, may have some). */
  async hasOffers(itemTag: string, now: number): Promise<boolean> {
    const row = await this.db.selectFrom('lowball_offers').select('offer_id').where('item_tag', '=', itemTag).where('expires_at', '>', now).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async byTag(itemTag: string, page: OfferPage, filters: Record<string, string> = {}): Promise<LowballOffer[]> {
    const values = Object.values(filters);
    const base = () => {
      let q = this.db.selectFrom('lowball_offers').where('item_tag', '=', itemTag).where('expires_at', '>', page.now);
      if (page.before !== undefined) q = q.where('created_at', '<', page.before);
      return q;
    };
    if (values.length === 0) {
      const rows = await base().selectAll().orderBy('created_at', 'desc').orderBy('offer_id', 'desc').limit(page.limit).execute();
      return rows.map(toOffer);
    }
    // Filtered: scan candidates (id, time, filters only) in batches that start at one page (the
    // database pre-filter makes most candidates match) and grow 4× per round up to FILTER_BATCH_MAX,
    // at most MAX_FILTER_ROUNDS of them; then load the matching rows whole.
    let batch = page.limit;
    const matched: string[] = [];
    let cursor: { at: number; id: string } | undefined;
    for (let round = 0; round < MAX_FILTER_ROUNDS && matched.length < page.limit; round++) {
      let q = base().select(['offer_id', 'created_at', 'filters']);
      // Pre-filter in the database: each wanted value must appear (case-insensitively) as a JSON
      // string in the offer's filters. Necessary, not sufficient: filtersMatch decides.
      for (const value of values) {
        const pattern = likePattern(value);
        if (pattern === undefined) continue;
        q = this.dialect === 'postgres' ? q.where(sql<boolean>`filters ilike ${pattern} escape '!'`) : q.where(sql<boolean>`filters like ${pattern} escape '!'`);
      }
      // Within a listing the cursor is (created_at, offer_id), so rows sharing a millisecond are not skipped.
      if (cursor) {
        const c = cursor;
        q = q.where((eb) => eb.or([eb('created_at', '<', c.at), eb.and([eb('created_at', '=', c.at), eb('offer_id', '<', c.id)])]));
      }
      const rows = await q.orderBy('created_at', 'desc').orderBy('offer_id', 'desc').limit(batch).execute();
      for (const r of rows) {
        if (matched.length < page.limit && filtersMatch(r.filters ? (JSON.parse(r.filters) as Record<string, string>) : null, filters)) matched.push(r.offer_id);
      }
      if (rows.length < batch) break;
      const last = rows[rows.length - 1]!;
      cursor = { at: last.created_at, id: last.offer_id };
      batch = Math.min(FILTER_BATCH_MAX, batch * 4);
    }
    if (matched.length === 0) return [];
    const rows = await this.db.selectFrom('lowball_offers').selectAll().where('offer_id', 'in', matched).orderBy('created_at', 'desc').orderBy('offer_id', 'desc').execute();
    return rows.map(toOffer);
  }

  async get(offerId: string, now: number): Promise<LowballOffer | undefined> {
    const row = await this.db
      .selectFrom('lowball_offers')
      .selectAll()
      .where('offer_id', '=', offerId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? toOffer(row) : undefined;
  }

  /** Deletes the offer when it belongs to the account and has not expired; false otherwise (without saying which). */
  async deleteOwn(accountId: number, offerId: string, now: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('lowball_offers')
      .where('offer_id', '=', offerId)
      .where('account_id', '=', accountId)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Retention: deletes expired offers; returns how many. */
  async deleteExpired(now: number): Promise<number> {
    const r = await this.db.deleteFrom('lowball_offers').where('expires_at', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
