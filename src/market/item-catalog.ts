/**
 * The item catalog: every item skymarket knows (domain/item-catalog.ts), the aliases a client may
 * name one by (tag in any case, NEU internal name, display name), and a search index over them.
 *
 * It is rebuilt at start and then as the spine moves it, never on a timer: after each auctions
 * generation the active-auctions view applies (activity: listings, sales) and each `items` resource
 * change (names), from the store's items resource, sales rollups and newest bazaar snapshot plus
 * the active-auctions view, a handful of queries; one rebuild at a time, a burst of changes gives one more.
 * The search index (MiniSearch) is rebuilt only when the set of items or their names changed, in
 * chunks that yield to the event loop; activity alone (listings, sales) only re-weights ranking.
 */
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { GameData } from '../gamedata/types.ts';
import type { Store } from '../store/index.ts';
import type { ChangeSource } from '../spine/index.ts';
import type { ViewChange } from './active-auctions.ts';
import { activityScore, buildCatalog, ITEM_FLAGS, itemFlagsText, type CatalogEntry, type MarketActivity } from '../domain/item-catalog.ts';
import { aliasKey, initials, isPetTag, neuIdCandidates, searchKeywords, splitRarity, tagWords } from '../domain/item-names.ts';

export interface ItemCatalogOptions {
  store: Store;
  game: GameData;
  clock: Clock;
  logger: Logger;
  /** listings per tag right now */
  activeCounts: () => ReadonlyMap<string, number>;
  /** the active-auctions view's changes (ActiveAuctionsView.onChange): an auctions generation re-weighs the activity */
  listingsChanged?: (listener: (cause: ViewChange) => void) => () => void;
  /** the spine: an `items` resource change (names) rebuilds, a transport back after an outage too */
  changes?: ChangeSource;
}

interface Indexed {
  tag: string;
  name: string;
  /** the tag's and NEU id's words, the name's initials, tier, level and kind words */
  other: string;
}

const SEARCH_FIELDS = ['name', 'other'] as const;

/** Words too common to tell items apart ("Aspect of the End"): left out of the index and of queries. */
const STOP_WORDS = new Set(['of', 'the', 'a', 'an', 'and']);

function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) ? null : t;
}

/** The catalog as one consistent state: swapped whole on refresh, so readers never see half of one. */
interface CatalogState {
  entries: readonly CatalogEntry[];
  byTag: ReadonlyMap<string, CatalogEntry>;
  aliases: ReadonlyMap<string, string>;
  bazaarTags: readonly string[];
  /** the `/api/items` list (the route serialises it once per state: http/prepared-answers.ts) */
  itemList: ReadonlyArray<{ name: string; tag: string; flags: string }>;
  /** tags and names the index was built from: another index is built only when this changes */
  signature: string;
  index: MiniSearch<Indexed>;
  /** activity score per tag, the ranking's weight */
  score: ReadonlyMap<string, number>;
  /** items by the first letter of their name, most traded first: a one-letter search */
  byInitial: ReadonlyMap<string, readonly CatalogEntry[]>;
  /** answers of this state by limit and search (players repeat the same few searches as they type) */
  results: Map<string, CatalogEntry[]>;
  builtAt: number;
}

export class ItemCatalog {
  private state: CatalogState | undefined;
  private refreshing: Promise<void> | undefined;
  /** a change arrived during the rebuild under way: one more after it */
  private again = false;
  private readonly unsubscribe: Array<() => void> = [];
  private closed = false;
  /** rebuilds done (tests count them) */
  builds = 0;

  constructor(private readonly options: ItemCatalogOptions) {}

  /** Builds the catalog once, then follows the spine: every auctions generation and `items` change rebuilds it. */
  async start(): Promise<void> {
    if (this.unsubscribe.length === 0 && !this.closed) {
      const { listingsChanged, changes } = this.options;
      // A generation (not a batch of sales): the listings per tag moved.
      if (listingsChanged) this.unsubscribe.push(listingsChanged((cause) => void (cause !== 'auctions_ended' && this.changed())));
      if (changes) {
        void changes.head().then((head) => {
          if (this.closed) return;
          this.unsubscribe.push(
            changes.subscribe(head, (event) => {
              if (event.type === 'restored' || (event.type === 'change' && event.change.kind === 'resource' && event.change.resource === 'items')) this.changed();
            }),
          );
        });
      }
    }
    await this.refresh();
  }

  close(): void {
    this.closed = true;
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  /** Rebuilds from the store and the views (one at a time; a failure keeps the previous state). */
  refresh(): Promise<void> {
    this.refreshing ??= this.rebuild()
      .catch((err: unknown) => this.options.logger.warn({ err }, 'item catalog refresh failed'))
      .finally(() => {
        this.refreshing = undefined;
        if (this.again && !this.closed) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.refreshing;
  }

  /** A change that concerns the catalog: rebuild now, or once more after the rebuild under way. */
  private changed(): void {
    if (this.closed) return;
    if (this.refreshing) this.again = true;
    else void this.refresh();
  }

  private async rebuild(): Promise<void> {
    const { store, game } = this.options;
    const [resource, sales7d, bazaar] = await Promise.all([store.items.all(), store.saleRollups.salesPerTag('7d'), store.marketPrices.latestBazaarVolumes()]);
    const activity: MarketActivity = { active: this.options.activeCounts(), sales7d, bazaar };
    const entries = buildCatalog(game, resource, activity);
    const signature = entries.map((e) => `${e.tag}\u0000${e.name}\u0000${e.tier ?? ''}`).join('\u0001');
    const previous = this.state;
    const index = previous && previous.signature === signature ? previous.index : await buildIndex(entries);
    if (this.closed) return;
    this.state = stateOf(entries, index, signature, this.options.clock.now());
    this.builds++;
  }

  /** True once the first build finished. */
  isReady(): boolean {
    return this.state !== undefined;
  }

  get size(): number {
    return this.state?.entries.length ?? 0;
  }

  entries(): readonly CatalogEntry[] {
    return this.state?.entries ?? [];
  }

  get(tag: string): CatalogEntry | undefined {
    return this.state?.byTag.get(tag);
  }

  /** The `/api/items` list of this state (`[]` before the first build). */
  itemList(): ReadonlyArray<{ name: string; tag: string; flags: string }> {
    return this.state?.itemList ?? [];
  }

  /** The current state, compared by identity: the generation of the answers built from it. */
  generation(): unknown {
    return this.state;
  }

  bazaarTags(): readonly string[] {
    return this.state?.bazaarTags ?? [];
  }

  /**
   * The canonical tag an alias names: a tag in any case, a display name ("aspect of the end"), a
   * NEU internal name (`ENDER_DRAGON;4`, `ULTIMATE_WISE;5`, `INK_SACK-4`). Undefined when none.
   */
  resolve(raw: string): string | undefined {
    return this.state && resolveIn(this.state, raw);
  }

  /**
   * Items matching what a player typed, best first: typo-tolerant (one edit from five letters), every
   * word of two letters or more also a prefix, names weighing most, then weighted by how much the market
   * trades each item. Items matching every word come before those matching every word but the
   * last (still being typed), and those before items matching some. An exact alias
   * (a tag, NEU id or full name) comes first. One letter finds the most traded items whose name
   * starts with it. Answers are kept per catalog state (RESULTS_CACHED of them).
   */
  search(term: string, limit: number): CatalogEntry[] {
    const state = this.state;
    if (!state || limit <= 0) return [];
    const normal = aliasKey(term);
    const key = `${limit}\u0000${normal}`;
    const cached = state.results.get(key);
    if (cached) return cached;
    const found = searchIn(state, normal, limit);
    if (state.results.size >= RESULTS_CACHED) state.results.clear();
    state.results.set(key, found);
    return found;
  }

  /** The search without the answer cache (the benchmark measures this). */
  searchUncached(term: string, limit: number): CatalogEntry[] {
    return this.state ? searchIn(this.state, aliasKey(term), limit) : [];
  }

  /** Items whose names are most like this one's (the item itself left out). */
  similar(tag: string, limit: number): CatalogEntry[] {
    const e = this.get(tag);
    if (!e) return [];
    return this.search(e.name, limit + 1)
      .filter((s) => s.tag !== tag)
      .slice(0, limit);
  }
}

function resolveIn(state: CatalogState, raw: string): string | undefined {
  const found = state.aliases.get(aliasKey(raw));
  if (found) return found;
  for (const candidate of neuIdCandidates(raw.trim())) if (state.byTag.has(candidate)) return candidate;
  return undefined;
}

/** The search itself: an exact alias first, then items matching every word, then any word. */
function searchIn(state: CatalogState, term: string, limit: number): CatalogEntry[] {
  const out: CatalogEntry[] = [];
  const seen = new Set<string>();
  const take = (tag: string) => {
    const e = state.byTag.get(tag);
    if (e && !seen.has(tag) && out.length < limit) {
      seen.add(tag);
      out.push(e);
    }
  };
  const exact = resolveIn(state, term);
  if (exact) take(exact);
  // One letter would expand to every word that starts with it: the most traded items starting with it instead.
  if (term.length === 1) {
    for (const e of state.byInitial.get(term) ?? []) take(e.tag);
    return out;
  }
  const { text, tier } = splitRarity(term);
  const options = searchOptions(state, tier);
  // Every word (the last, being typed, as a prefix); then every word typed in full ("black" of
  // "black ca"), so an item matching those outranks a much traded one matching only the last
  // prefix ("Carrot"); then any word.
  const words = text.split(/\s+/).filter((w) => w !== '');
  const passes: Array<[string, 'AND' | 'OR']> = [[text, 'AND']];
  if (words.length >= 2) passes.push([words.slice(0, -1).join(' '), 'AND']);
  passes.push([text, 'OR']);
  for (const [query, combineWith] of passes) {
    if (out.length >= limit) break;
    for (const hit of state.index.search(query, { ...options, combineWith }) as Array<SearchResult & { id: string }>) {
      take(hit.id);
      if (out.length >= limit) break;
    }
  }
  return out;
}

/** Searches answered from memory per catalog state; past this many the cache starts over. */
const RESULTS_CACHED = 5_000;

/** A named rarity doubles the weight of items of that rarity, and of pets (a pet tag has every rarity). */
function searchOptions(state: CatalogState, tier: string | null) {
  const { score, byTag } = state;
  const rarity = (tag: string): number => {
    if (tier === null) return 1;
    return isPetTag(tag) || byTag.get(tag)?.tier === tier ? 2 : 1;
  };
  return {
    fields: [...SEARCH_FIELDS],
    boost: { name: 3, other: 1 },
    processTerm,
    // Prefixes from two letters on (one letter would expand to every word); one typo from five.
    prefix: (term: string) => term.length >= 2,
    fuzzy: (term: string) => (term.length >= 5 ? 0.2 : false),
    maxFuzzy: 1,
    boostDocument: (id: unknown) => (1 + 0.35 * (score.get(id as string) ?? 0)) * rarity(id as string),
  };
}

/** Adds documents a chunk at a time, yielding between chunks: 8,000 items take ~0.5 s to index. */
async function buildIndex(entries: readonly CatalogEntry[]): Promise<MiniSearch<Indexed>> {
  const index = new MiniSearch<Indexed>({ idField: 'tag', fields: [...SEARCH_FIELDS], storeFields: [], processTerm });
  await index.addAllAsync(entries.map(indexed), { chunkSize: 250 });
  return index;
}

function indexed(e: CatalogEntry): Indexed {
  return {
    tag: e.tag,
    name: e.name,
    other: `${tagWords(e.tag)} ${e.neuId ?? ''} ${initials(e.name)} ${searchKeywords(e.tag)}`,
  };
}

function stateOf(entries: CatalogEntry[], index: MiniSearch<Indexed>, signature: string, now: number): CatalogState {
  const byTag = new Map(entries.map((e) => [e.tag, e]));
  const score = new Map(entries.map((e) => [e.tag, activityScore(e)]));
  // A display name several items share names the most traded one.
  const aliases = new Map<string, string>();
  const claim = (key: string, tag: string) => {
    if (key === '') return;
    const held = aliases.get(key);
    if (held === undefined || (score.get(tag) ?? 0) > (score.get(held) ?? 0)) aliases.set(key, tag);
  };
  for (const e of entries) {
    claim(aliasKey(e.name), e.tag);
    if (e.neuId) claim(aliasKey(e.neuId), e.tag);
  }
  // A tag is always its own alias, whatever names claimed.
  for (const e of entries) aliases.set(aliasKey(e.tag), e.tag);
  const byInitial = new Map<string, CatalogEntry[]>();
  for (const e of entries) {
    const initial = e.name.charAt(0).toLowerCase();
    const list = byInitial.get(initial) ?? [];
    list.push(e);
    byInitial.set(initial, list);
  }
  for (const list of byInitial.values()) list.sort((a, b) => score.get(b.tag)! - score.get(a.tag)! || (a.name < b.name ? -1 : 1));
  return {
    entries,
    byTag,
    aliases,
    byInitial,
    bazaarTags: entries.filter((e) => (e.flags & ITEM_FLAGS.BAZAAR) !== 0).map((e) => e.tag),
    itemList: entries.map((e) => ({ name: e.name, tag: e.tag, flags: itemFlagsText(e.flags) })),
    signature,
    index,
    score,
    results: new Map(),
    builtAt: now,
  };
}
