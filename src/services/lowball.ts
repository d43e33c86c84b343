/**
 * Lowball offers as the routes list and delete them (offers are created through the mod channel).
 * Pages run newest first by creation time; expired offers (7 days) are never returned.
 */
import type { Clock } from '../clock.ts';
import type { ItemRepository } from '../store/repositories/items.ts';
import type { ModLinkRepository } from '../store/repositories/mod-links.ts';
import type { LowballOffer, LowballRepository } from '../store/repositories/lowball.ts';

/** A page: offers created before `before` (epoch ms), at most `limit`. */
export interface LowballPage {
  before: number | undefined;
  limit: number;
}

/** What LowballService reads and deletes: offers, the item catalog (unknown items) and account links. */
export interface LowballStore {
  readonly lowball: Pick<LowballRepository, 'byAccount' | 'byTag' | 'deleteOwn' | 'hasOffers'>;
  readonly items: Pick<ItemRepository, 'count' | 'get'>;
  readonly modLinks: Pick<ModLinkRepository, 'linkOf'>;
}

export class LowballService {
  constructor(
    private readonly store: LowballStore,
    private readonly clock: Clock,
  ) {}

  /** The account's own offers; a miss when the account has no verified Minecraft account. */
  async own(accountId: number, page: LowballPage): Promise<LowballOffer[] | { miss: 'no_verified_account' }> {
    if (!(await this.store.modLinks.linkOf(accountId))) return { miss: 'no_verified_account' };
    return this.store.lowball.byAccount(accountId, { ...page, now: this.clock.now() });
  }

  /**
   * Offers for an item whose attributes match every filter; a miss only when neither the item
   * catalog nor any offer knows the tag (the filters may just match none).
   */
  async forItem(tag: string, page: LowballPage, filters: Record<string, string>): Promise<LowballOffer[] | { miss: 'unknown_item' }> {
    const now = this.clock.now();
    const offers = await this.store.lowball.byTag(tag, { ...page, now }, filters);
    if (offers.length === 0 && (await this.store.items.count()) > 0 && !(await this.store.items.get(tag)) && !(await this.store.lowball.hasOffers(tag, now))) return { miss: 'unknown_item' };
    return offers;
  }

  /** Deletes one of the account's own offers; false when it has none by that id (someone else's included). */
  deleteOwn(accountId: number, offerId: string): Promise<boolean> {
    return this.store.lowball.deleteOwn(accountId, offerId, this.clock.now());
  }
}
