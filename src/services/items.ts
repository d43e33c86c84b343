/**
 * Finding items: the catalog, names of tags, search over items (and players), an item's details
 * and its look-alikes, in the established service's shapes (ecosystem.md §2). Reads the market's
 * item catalog and, for players, the names the store has seen.
 */
import { filterOptions, type FilterOptions } from '../domain/filter-options.ts';
import type { FilterSubject } from '../domain/filters.ts';
import { itemFlagsText, type CatalogEntry } from '../domain/item-catalog.ts';
import { isPetTag } from '../domain/item-names.ts';
import { itemCategoryName, tierName } from '../domain/wire-enums.ts';
import type { ItemCatalog } from '../market/item-catalog.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';

/** SearchResultItem: one hit of a search. */
export interface SearchResultItem {
  name: string;
  /** the item tag, or the player uuid */
  id: string;
  type: 'item' | 'player';
  /** skymarket's generated icon for items (a path on this service), null for players */
  iconUrl: string | null;
  img: string | null;
  /** the established `Tier` (UNKNOWN for players and items of unknown rarity) */
  tier: string;
}

/** SkyblockItem: what `/api/item/{itemTag}/details` answers. */
export interface ItemDetails {
  npcSellPrice: number;
  minecraftType: string | null;
  iconUrl: string;
  name: string;
  tag: string;
  flags: string;
  /** the established `Tier`, UNKNOWN when the rarity is unknown */
  tier: string;
  /** the established `ItemCategory`, UNKNOWN when the items resource gives none the enum can say */
  category: string;
}

/** The path of an item's generated icon (api/items.ts serves it). */
export function iconPath(tag: string): string {
  return `/api/item/${encodeURIComponent(tag)}/icon`;
}

/** At most this many tags per POST /api/items/names. */
export const MAX_NAME_LOOKUPS = 1000;
export const MAX_ITEM_SEARCH_RESULTS = 30;
export const MAX_SEARCH_RESULTS = 50;

/** What ItemsService reads from the store: player names by prefix (search). */
export interface PlayerNamePrefixes {
  readonly playerNames: Pick<PlayerNameRepository, 'withPrefix'>;
}

export class ItemsService {
  constructor(
    private readonly catalog: ItemCatalog,
    private readonly store: PlayerNamePrefixes,
    /** the active listings of a tag (the market's active-auctions view) */
    private readonly listingsOf: (tag: string) => readonly FilterSubject[],
  ) {}

  /** The canonical tag an alias names (a tag, NEU id or display name), undefined when none. */
  resolve(raw: string): string | undefined {
    return this.catalog.resolve(raw);
  }

  /** The filters that apply to an item, with the values its listings show; every filter without an item. */
  filterOptions(tag: string | undefined): FilterOptions[] {
    if (tag === undefined) return filterOptions([], false, true);
    return filterOptions(this.listingsOf(tag), isPetTag(tag));
  }

  /** `[{name, tag, flags}]` of every item in the catalog's current state. */
  itemList(): ReadonlyArray<{ name: string; tag: string; flags: string }> {
    return this.catalog.itemList();
  }

  /** The catalog state the item list is of (compared by identity): it moves with each rebuild. */
  catalogGeneration(): unknown {
    return this.catalog.generation();
  }

  bazaarTags(): readonly string[] {
    return this.catalog.bazaarTags();
  }

  /** Names of the tags the catalog knows (aliases accepted, answered under the tag as asked); unknown ones are left out. */
  names(tags: readonly string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const asked of tags) {
      const tag = this.catalog.resolve(asked);
      const entry = tag === undefined ? undefined : this.catalog.get(tag);
      if (entry) out[asked] = entry.name;
    }
    return out;
  }

  /**
   * The item search answer as JSON bytes: serialised once per catalog answer (the catalog keeps its
   * answers per state, so a repeated search costs two lookups).
   */
  searchItemsJson(term: string, limit = MAX_ITEM_SEARCH_RESULTS): Buffer {
    const found = this.catalog.search(term, Math.min(limit, MAX_ITEM_SEARCH_RESULTS));
    let json = this.serialised.get(found);
    if (json === undefined) {
      json = Buffer.from(JSON.stringify(found.map(itemHit)));
      this.serialised.set(found, json);
    }
    return json;
  }

  /** Serialised answers by the catalog's answer arrays: they go when the catalog drops its answers. */
  private readonly serialised = new WeakMap<readonly CatalogEntry[], Buffer>();

  searchItems(term: string, limit = MAX_ITEM_SEARCH_RESULTS): SearchResultItem[] {
    return this.catalog.search(term, Math.min(limit, MAX_ITEM_SEARCH_RESULTS)).map(itemHit);
  }

  /**
   * Items, then players whose name starts with the term (one word of 3–16 name characters), up to
   * `limit` in all: items fill the answer first, as clients show the item hits on top.
   */
  async searchAll(term: string, limit: number): Promise<SearchResultItem[]> {
    const items = this.searchItems(term, limit);
    const room = limit - items.length;
    if (room <= 0 || !/^[A-Za-z0-9_]{3,16}$/.test(term.trim())) return items;
    const players = await this.store.playerNames.withPrefix(term.trim(), room);
    return [...items, ...players.map((p): SearchResultItem => ({ name: p.name, id: p.playerUuid, type: 'player', iconUrl: null, img: null, tier: 'UNKNOWN' }))];
  }

  details(tag: string): ItemDetails | undefined {
    const e = this.catalog.get(tag);
    if (!e) return undefined;
    return {
      npcSellPrice: e.npcSellPrice ?? -1,
      minecraftType: e.material,
      iconUrl: iconPath(e.tag),
      name: e.name,
      tag: e.tag,
      flags: itemFlagsText(e.flags),
      tier: tierName(e.tier),
      category: itemCategoryName(e.category),
    };
  }

  /** `[{tag, name}]` of the items most like this one; undefined for an unknown tag. */
  similar(tag: string, limit = 10): Array<{ tag: string; name: string }> | undefined {
    if (!this.catalog.get(tag)) return undefined;
    return this.catalog.similar(tag, limit).map((e) => ({ tag: e.tag, name: e.name }));
  }

  entry(tag: string): CatalogEntry | undefined {
    return this.catalog.get(tag);
  }
}

function itemHit(e: CatalogEntry): SearchResultItem {
  return { name: e.name, id: e.tag, type: 'item', iconUrl: iconPath(e.tag), img: null, tier: tierName(e.tier) };
}
