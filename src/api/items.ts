/**
 * Finding items (issue "Finding items"): the catalog, bazaar tags, names of tags, search, an
 * item's details, look-alikes and icon. Every `{itemTag}` also takes an alias (a NEU id or a
 * display name), resolved for every route by http/item-aliases.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { itemIconSvg } from '../domain/item-icon.ts';
import { itemNotFound, ItemTagParams, parseItemTag, parseSearchTerm, SearchTerm } from '../http/params.ts';
import { problemResponses } from '../http/schemas.ts';
import { SVG_CSP } from '../http/security-headers.ts';
import { ITEM_CATEGORIES, TIERS } from '../domain/wire-enums.ts';
import { MAX_ITEM_SEARCH_RESULTS, MAX_NAME_LOOKUPS, MAX_SEARCH_RESULTS } from '../services/items.ts';

const StringEnum = (values: readonly string[], description: string) => Type.Unsafe<string>({ type: 'string', enum: [...values], description });
const Tier = StringEnum(TIERS, 'the established `Tier` enum (UNKNOWN for players and items of unknown rarity)');

const ItemMetadata = Type.Object(
  {
    name: Type.String(),
    tag: Type.String(),
    flags: Type.String({ description: 'ItemFlags names joined by ", " (BAZAAR, TRADEABLE, AUCTION, CRAFT), or NONE' }),
  },
  { examples: [{ name: 'Hyperion', tag: 'HYPERION', flags: 'TRADEABLE, AUCTION, CRAFT' }] },
);

const SearchResult = Type.Object(
  {
    name: Type.String(),
    id: Type.String({ description: 'item tag, or player uuid' }),
    type: Type.String({ description: '"item" or "player"' }),
    iconUrl: Type.Union([Type.String(), Type.Null()], { description: "path of skymarket's generated item icon on this service; null for players" }),
    img: Type.Null({ description: 'always null: skymarket serves no inline images' }),
    tier: Tier,
  },
  { examples: [{ name: 'Hyperion', id: 'HYPERION', type: 'item', iconUrl: '/api/item/HYPERION/icon', img: null, tier: 'LEGENDARY' }] },
);

const ItemDetails = Type.Object(
  {
    npcSellPrice: Type.Number({ description: 'coins an NPC pays for one; -1 when NPCs buy none' }),
    minecraftType: Type.Union([Type.String(), Type.Null()], { description: 'vanilla material, e.g. IRON_SWORD' }),
    iconUrl: Type.String(),
    name: Type.String(),
    tag: Type.String(),
    flags: Type.String(),
    tier: Tier,
    category: StringEnum(
      ITEM_CATEGORIES,
      'the established `ItemCategory` enum, from the items resource; its categories the enum lacks map to the nearest value (PET_UPGRADE → PET_ITEM, POTION → CONSUMABLE …), none → UNKNOWN',
    ),
  },
  {
    examples: [
      { npcSellPrice: -1, minecraftType: 'IRON_SWORD', iconUrl: '/api/item/HYPERION/icon', name: 'Hyperion', tag: 'HYPERION', flags: 'TRADEABLE, AUCTION, CRAFT', tier: 'LEGENDARY', category: 'SWORD' },
    ],
  },
);

const SearchParams = Type.Object({ searchVal: SearchTerm });
const ItemSearchQuery = Type.Object({
  expectedResults: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_ITEM_SEARCH_RESULTS, default: MAX_ITEM_SEARCH_RESULTS, description: `how many results to return at most (1–${MAX_ITEM_SEARCH_RESULTS})` }),
  ),
});
const SearchQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS, default: 5 }) });
const NamesBody = Type.Array(Type.String({ maxLength: 200 }), { maxItems: MAX_NAME_LOOKUPS, description: `item tags or aliases, at most ${MAX_NAME_LOOKUPS}` });

const JSON_TYPE = 'application/json; charset=utf-8';

const FilterOptionsSchema = Type.Object(
  {
    name: Type.String(),
    options: Type.Array(Type.String(), { description: 'values seen on the item’s active listings (empty: any value of the type)' }),
    type: Type.Integer({ description: 'FilterType flags: Equal 1, HIGHER 2, LOWER 4, DATE 8, NUMERICAL 16, RANGE 32, PLAYER 64 (a player picker), SIMPLE 128, BOOLEAN 256, PLAYER_WITH_RANK 512, SHOW_ICON 1024 (options are item tags with icons); free text is Equal, RANGE' }),
    longType: Type.String({ description: 'the flags by name, e.g. "NUMERICAL, RANGE"' }),
    description: Type.String(),
  },
  { examples: [{ name: 'Stars', options: ['1', '5'], type: 48, longType: 'NUMERICAL, RANGE', description: 'dungeon stars (upgrade level)' }] },
);
const FilterOptionsQuery = Type.Object({ itemTag: Type.Optional(Type.String({ description: 'the item (tag or alias); absent or * for every filter' })) });

export async function itemRoutes(app: FastifyInstance) {
  const { items } = app.services;

  // Serialised once per catalog state (http/prepared-answers.ts), compressed once per encoding.
  const itemList = app.prepared.define({
    name: 'item-list',
    generation: () => items.catalogGeneration(),
    build: () => ({ value: items.itemList() }),
    maxEntries: 1,
  });
  app.get(
    '/api/items',
    {
      schema: {
        tags: ['items'],
        summary: 'Every item skymarket knows (game data, items resource and every tag traded), with its flags',
        response: { 200: Type.Array(ItemMetadata) },
      },
      config: { cache: 300 },
    },
    async (_request, reply) => reply.type(JSON_TYPE).send(itemList.prepare('', undefined).plain),
  );

  app.get(
    '/api/items/bazaar/tags',
    {
      schema: {
        tags: ['items'],
        summary: 'Tags of every bazaar product of the newest snapshot',
        response: { 200: Type.Array(Type.String(), { examples: [['ENCHANTED_DIAMOND', 'ENCHANTMENT_ULTIMATE_WISE_5']] }) },
      },
      config: { cache: 300 },
    },
    async () => items.bazaarTags(),
  );

  app.post<{ Body: Static<typeof NamesBody> }>(
    '/api/items/names',
    {
      schema: {
        tags: ['items'],
        summary: `Names of up to ${MAX_NAME_LOOKUPS} item tags (aliases accepted); unknown tags are left out`,
        body: NamesBody,
        response: { 200: Type.Record(Type.String(), Type.String(), { examples: [{ HYPERION: 'Hyperion', 'ULTIMATE_WISE;5': 'Ultimate Wise V' }] }), ...problemResponses(400) },
      },
    },
    async (request) => items.names(request.body),
  );

  app.get<{ Params: Static<typeof SearchParams>; Querystring: Static<typeof ItemSearchQuery> }>(
    '/api/item/search/:searchVal',
    {
      schema: {
        tags: ['items'],
        summary: `Items by name, tag, NEU id or initials: typo-tolerant, prefix-aware, ranked by relevance and trading activity (at most expectedResults, ${MAX_ITEM_SEARCH_RESULTS} by default)`,
        params: SearchParams,
        querystring: ItemSearchQuery,
        response: { 200: Type.Array(SearchResult), ...problemResponses(400) },
      },
      config: { cache: 60 },
    },
    async (request, reply) => reply.type(JSON_TYPE).send(items.searchItemsJson(parseSearchTerm(request.params.searchVal), request.query.expectedResults)),
  );

  app.get<{ Params: Static<typeof SearchParams>; Querystring: Static<typeof SearchQuery> }>(
    '/api/search/:searchVal',
    {
      schema: {
        tags: ['items'],
        summary: 'Items, then players whose name starts with the term',
        params: SearchParams,
        querystring: SearchQuery,
        response: { 200: Type.Array(SearchResult), ...problemResponses(400) },
      },
      config: { cache: 60 },
    },
    async (request) => items.searchAll(parseSearchTerm(request.params.searchVal), request.query.limit),
  );

  app.get<{ Params: ItemTagParams }>(
    '/api/item/:itemTag/details',
    {
      schema: {
        tags: ['items'],
        summary: "An item's name, rarity, category, NPC sell price, material and flags",
        params: ItemTagParams,
        response: { 200: ItemDetails, ...problemResponses(400, 404) },
      },
      config: { cache: 300 },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const details = items.details(tag);
      if (!details) throw itemNotFound(tag);
      return details;
    },
  );

  app.get<{ Params: ItemTagParams }>(
    '/api/item/:itemTag/similar',
    {
      schema: {
        tags: ['items'],
        summary: 'Items whose names are most like this one (at most 10)',
        params: ItemTagParams,
        response: { 200: Type.Array(Type.Object({ tag: Type.String(), name: Type.String() })), ...problemResponses(400, 404) },
      },
      config: { cache: 300 },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const similar = items.similar(tag);
      if (!similar) throw itemNotFound(tag);
      return similar;
    },
  );

  app.get<{ Querystring: Static<typeof FilterOptionsQuery> }>(
    '/api/filter/options',
    {
      schema: {
        tags: ['items'],
        summary: 'The auction filters that apply to an item, with the values its active listings show, to build a filter UI',
        querystring: FilterOptionsQuery,
        response: { 200: Type.Array(FilterOptionsSchema), ...problemResponses(400, 404) },
      },
      config: { cache: 60 },
    },
    async (request) => {
      const raw = request.query.itemTag;
      if (raw === undefined || raw === '*') return items.filterOptions(undefined);
      const tag = items.resolve(raw) ?? parseItemTag(raw);
      if (!items.entry(tag)) throw itemNotFound(tag);
      return items.filterOptions(tag);
    },
  );

  app.get<{ Params: ItemTagParams }>(
    '/api/item/:itemTag/icon',
    {
      schema: {
        tags: ['items'],
        summary: "skymarket's icon of an item (SVG): a tile in its rarity colour with its initials",
        params: ItemTagParams,
        produces: ['image/svg+xml'],
        response: { 200: Type.String({ description: 'SVG document' }), ...problemResponses(400, 404) },
      },
      config: { cache: 86_400 },
    },
    async (request, reply) => {
      const tag = parseItemTag(request.params.itemTag);
      const entry = items.entry(tag);
      if (!entry) throw itemNotFound(tag);
      return reply.type('image/svg+xml').header('content-security-policy', SVG_CSP).send(itemIconSvg(entry.name, entry.tier));
    },
  );
}
