/**
 * The auction filters a request names, compiled against what skymarket knows: `Seller` names
 * resolve through the player names it has seen. A bad filter throws the domain's FilterError,
 * which every face turns into its own answer (the API: 400 with the filter's slug).
 */
import { compileFiltersResolving, type CompiledFilter } from '../domain/filters.ts';
import { UnknownTagError } from '../domain/tags.ts';
import type { AuctionQueryRepository } from '../store/repositories/auction-queries.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';
import type { ActiveAuctionsView } from '../market/active-auctions.ts';

/** What compiling filters reads: player names, for `Seller`. */
export interface SellerNames {
  readonly playerNames: Pick<PlayerNameRepository, 'findByName'>;
}

/** What KnownTags reads: whether a tag was ever sold. */
export interface TagHistory {
  readonly auctionQueries: Pick<AuctionQueryRepository, 'tagExists'>;
}

export function compileAuctionFilters(store: SellerNames, filters: Record<string, string>): Promise<CompiledFilter> {
  return compileFiltersResolving(filters, async (name) => (await store.playerNames.findByName(name))?.playerUuid);
}

/**
 * Whether a tag was ever seen (active, sold, or in the item catalog). Tags found in the store are
 * remembered (up to 100,000, then forgotten at once), so a known tag costs one set lookup.
 */
export class KnownTags {
  private readonly seen = new Set<string>();

  constructor(
    private readonly store: TagHistory,
    private readonly view: Pick<ActiveAuctionsView, 'hasTag'>,
  ) {}

  async has(tag: string): Promise<boolean> {
    if (this.seen.has(tag) || this.view.hasTag(tag)) return true;
    if (!(await this.store.auctionQueries.tagExists(tag))) return false;
    if (this.seen.size > 100_000) this.seen.clear();
    this.seen.add(tag);
    return true;
  }

  /** Throws UnknownTagError (404 `item_not_found` on the API) unless the tag is known. */
  async require(tag: string): Promise<void> {
    if (!(await this.has(tag))) throw new UnknownTagError(tag);
  }
}
