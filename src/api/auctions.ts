/**
 * Auction endpoints (spec §4 Auctions, Item price analysis, POST /api/Filter): each handler
 * parses the request, asks one service (services/auctions.ts, services/price-analysis.ts) and
 * shapes the answer. Active-auction reads come from the market's in-memory view, sold history
 * and analysis from the store.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { filtersFromQuery, type FilterSubject } from '../domain/filters.ts';
import { isValidTag, normalizeTag } from '../domain/tags.ts';
import type { Tier } from '../domain/tiers.ts';
import { requireTier } from '../http/access.ts';
import { badRequest, HttpProblem, notFound } from '../http/problem.ts';
import { takesItemFilters } from '../http/openapi.ts';
import { ItemTagParams, parseItemTag } from '../http/params.ts';
import { problemResponses } from '../http/schemas.ts';
import {
  LOW_SUPPLY_BELOW,
  LOWEST_BIN_COUNT,
  OVERVIEW_PAGE_SIZE,
  SOLD_PARTNER_WINDOW_DAYS,
  SOLD_WINDOW_DAYS,
} from '../services/auctions.ts';
import { DeadlineExceeded } from '../services/deadline.ts';
import { ANALYSIS_TIMEOUT_MS } from '../services/price-analysis.ts';
import { auctionPreviews, itemSell, SHARED_AUCTION_SCHEMAS, soldAuction } from './auction-shapes.ts';
import { archiveRoutes } from './auctions-archive.ts';

/** Pages of the active overview open to everyone; later ones need Premium+. */
export const OVERVIEW_FREE_PAGES = 10;
/** sold page sizes: everyone, and partners */
export const SOLD_PAGE_SIZE = 1000;
export const SOLD_PARTNER_PAGE_SIZE = 10_000;
export const MAX_UID_BATCH = 120;
/** sales of one item per page of /api/auctions/uid/{uid}/sold: by default, and at most */
export const UID_SOLD_PAGE_SIZE = 100;
export const UID_SOLD_MAX_PAGE_SIZE = 1000;
export const MAX_ACTIVE_UUID_BATCH = 1000;

// ---------------------------------------------------------------------------
// Schemas

const FILTER_HELP =
  'Any other query parameter is a filter (case-insensitive name → value), e.g. `Rarity=LEGENDARY`, `Stars=5`, `sharpness=6-7`, `PetLevel=>90`, `Bin=true`; also accepted as a deepObject `query[Rarity]=…`. Values: exact, `1-5`, `>5`, `<5`, `any`, `none`, `a|b`. An unknown filter or a malformed value is a 400 naming the filter.';
const filterQuery = <P extends Record<string, ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String> | ReturnType<typeof Type.Union>>>(props: P) =>
  Type.Object(props, { additionalProperties: Type.String(), description: FILTER_HELP });

const OrderBy = Type.Union([Type.Literal('LOWEST_PRICE'), Type.Literal('HIGHEST_PRICE'), Type.Literal('ENDING_SOON')]);

const InventoryBatchLookup = Type.Object(
  {
    profileId: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    playerId: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    uuids: Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_UID_BATCH, description: `at most ${MAX_UID_BATCH} item uuids (or their last 12 hex characters)` }),
  },
  { $id: 'InventoryBatchLookup' },
);

const FilterQuery = Type.Object(
  {
    filters: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
    auction: Type.Object(
      {
        uuid: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        tag: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        itemName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        count: Type.Optional(Type.Integer({ minimum: 0 })),
        startingBid: Type.Optional(Type.Number({ minimum: 0 })),
        highestBidAmount: Type.Optional(Type.Number({ minimum: 0 })),
        bin: Type.Optional(Type.Boolean()),
        start: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
        end: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
        itemCreatedAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
        auctioneerId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        tier: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        reforge: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        enchantments: Type.Optional(Type.Union([Type.Array(Type.Object({ type: Type.String(), level: Type.Integer() })), Type.Null()])),
        flatNbt: Type.Optional(Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()])),
      },
      { additionalProperties: true, description: 'a SaveAuction (fields not listed are ignored)' },
    ),
  },
  { $id: 'FilterQuery' },
);

const AnalysisResult = Type.Object(
  {
    volumeBuckets: Type.Array(Type.Object({ minPrice: Type.Number(), maxPrice: Type.Number(), avgPrice: Type.Number(), count: Type.Integer() })),
    sellSpeedBuckets: Type.Array(
      Type.Object({
        minPrice: Type.Number(),
        maxPrice: Type.Number(),
        avgPrice: Type.Number(),
        avgSellTimeSeconds: Type.Number(),
        speedCategory: Type.Union([Type.Literal('FAST'), Type.Literal('MED'), Type.Literal('SLOW'), Type.Literal('VERY_SLOW')]),
        sampleCount: Type.Integer(),
      }),
    ),
    totalSales: Type.Integer(),
    avgSellTimeSeconds: Type.Number(),
    medianSellTimeSeconds: Type.Number(),
    avgPrice: Type.Number(),
    medianPrice: Type.Number(),
    minPrice: Type.Number(),
    maxPrice: Type.Number(),
    binPercentage: Type.Number({ description: '0-100' }),
    salesPerDay: Type.Number(),
    hourlyBreakdown: Type.Array(Type.Object({ hour: Type.Integer(), count: Type.Integer(), avgPrice: Type.Number(), avgSellTimeSeconds: Type.Number() })),
    priceStdDev: Type.Number(),
    priceCoeffVariation: Type.Number(),
    topSellers: Type.Array(Type.Object({ seller: Type.String(), count: Type.Integer(), percentage: Type.Number() })),
  },
  { $id: 'AdvancedAnalysisResult' },
);

const TAGS = ['auctions'];

// ---------------------------------------------------------------------------
// Parsing helpers

/** An auction uuid: 32 hex, dashes allowed. */
export function parseAuctionUuid(raw: string): string {
  const hex = raw.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw badRequest('invalid_uuid', `\`${raw.slice(0, 80)}\` is not an auction uuid (32 hex characters).`);
  return hex;
}

/** An item uuid or its last 12 hex characters → the 12-character uid; null when malformed. */
export function itemUidOf(raw: string): string | null {
  const hex = raw.replace(/-/g, '').toLowerCase();
  if (!/^[0-9a-f]{12,32}$/.test(hex)) return null;
  return hex.slice(-12);
}

function isoSeconds(raw: string | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) ? ms : null;
}

const CONTROL = ['token', 'apiKey', 'apikey', 'key'];

/** The request's filters: every query parameter but `controls` and credentials. */
function queryFilters(query: unknown, controls: readonly string[] = []): Record<string, string> {
  return filtersFromQuery((query ?? {}) as Record<string, unknown>, [...controls, ...CONTROL]);
}

export function analysisTimeout(): HttpProblem {
  return new HttpProblem(
    503,
    'analysis_timeout',
    `The price analysis did not finish within ${ANALYSIS_TIMEOUT_MS / 1000} seconds; retry later, or ask for fewer days or more specific filters.`,
    {},
    { 'retry-after': '30' },
  );
}

function auctionNotFound(uuid: string): HttpProblem {
  return notFound('auction_not_found', `No auction with uuid ${uuid} is stored.`);
}

// ---------------------------------------------------------------------------

export async function auctionsRoutes(app: FastifyInstance) {
  const { auctions, analysis } = app.services;
  // Response schemas document the wire; bodies are already shaped, and fast-json-stringify
  // validates every nullable (anyOf) field per value, which costs more than JSON.stringify here.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  for (const schema of SHARED_AUCTION_SCHEMAS) app.addSchema(schema);
  app.addSchema(InventoryBatchLookup);
  app.addSchema(FilterQuery);
  app.addSchema(AnalysisResult);
  await app.register(archiveRoutes);

  // --- single auctions -------------------------------------------------------

  app.get(
    '/api/auction/random',
    {
      schema: {
        tags: TAGS,
        summary: 'A random active auction',
        description: 'With a valid partner token (query `token`) the auction includes its bids; without, `bids` is empty.',
        querystring: Type.Object({ token: Type.Optional(Type.String()) }),
        response: { 200: Type.Ref('SaveAuction'), ...problemResponses(404) },
      },
      config: { cache: 'no-store', auth: 'optionalPartner' },
    },
    async (request) => {
      const pick = await auctions.random(Boolean(request.partner));
      if (!pick) throw notFound('no_active_auctions', 'There are no active auctions right now.');
      return pick;
    },
  );

  app.get<{ Params: { auctionUuid: string } }>(
    '/api/auction/:auctionUuid',
    {
      schema: {
        tags: TAGS,
        summary: 'One auction (active or ended) with bids, coloured and valued enchantments and flattened NBT',
        params: Type.Object({ auctionUuid: Type.String({ description: 'auction uuid, 32 hex (dashes allowed)' }) }),
        response: { 200: Type.Ref('ColorSaveAuction'), ...problemResponses(400, 404) },
      },
      config: { cache: 120 },
    },
    async (request) => {
      const uuid = parseAuctionUuid(request.params.auctionUuid);
      const found = await auctions.detail(uuid);
      if (!found) throw auctionNotFound(uuid);
      return found;
    },
  );

  app.get<{ Params: { auctionUuid: string } }>(
    '/api/auction/:auctionUuid/uid',
    {
      schema: {
        tags: TAGS,
        summary: "The lookup id of the auction's item: the last 12 hex characters of its item uuid (text/plain)",
        params: Type.Object({ auctionUuid: Type.String() }),
        response: { 200: Type.String(), ...problemResponses(400, 404) },
      },
      config: { cache: 3600 },
    },
    async (request, reply) => {
      const uuid = parseAuctionUuid(request.params.auctionUuid);
      const uid = await auctions.itemUidOfAuction(uuid);
      if (uid === undefined) throw auctionNotFound(uuid);
      if (!uid) throw notFound('no_item_uid', 'The item of this auction has no uuid (stackable items have none).');
      return reply.type('text/plain; charset=utf-8').serializer(String).send(uid);
    },
  );

  // --- active auctions (in-memory view) -----------------------------------------

  const BIN_ROUTE = '/api/auctions/tag/:itemTag/active/bin';
  const BIN_CACHE_SECONDS = 10;
  const JSON_TYPE = 'application/json; charset=utf-8';
  // The unfiltered first page of each tag, prepared once per generation of the active listings
  // (http/prepared-answers.ts) and kept until one of its listings ends. Requests without a query
  // string skip Fastify (http/stored-responses.ts) while the handler's hot path below would send it.
  const firstPages = app.prepared.define({
    name: 'lowest-bin-page',
    generation: () => auctions.listingsGeneration(),
    servable: (tag) => auctions.listsTag(tag),
    build: async (tag) => {
      const page = await auctions.firstLowestBinPage(tag);
      return { value: page.auctions, validUntil: page.validUntil };
    },
  });
  app.storedResponses.add({
    url: BIN_ROUTE,
    prefix: '/api/auctions/tag/',
    suffix: '/active/bin',
    cacheSeconds: BIN_CACHE_SECONDS,
    contentType: JSON_TYPE,
    body: (raw) => (isValidTag(raw) ? firstPages.current(normalizeTag(raw)) : undefined),
  });
  /** True when the query holds nothing but `page` and credentials: no filter to compile. */
  const onlyControls = (query: Record<string, unknown>): boolean => {
    for (const key in query) if (key !== 'page' && !CONTROL.includes(key)) return false;
    return true;
  };

  app.get<{ Params: { itemTag: string }; Querystring: { page?: number } & Record<string, unknown> }>(
    BIN_ROUTE,
    {
      schema: {
        tags: TAGS,
        ...takesItemFilters(),
        summary: `The ${LOWEST_BIN_COUNT} cheapest active BIN auctions without bids (or as many as exist), filters applied, cheapest first`,
        params: ItemTagParams,
        querystring: filterQuery({ page: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 0 })) }),
        response: { 200: Type.Array(Type.Ref('SaveAuction')), ...problemResponses(400, 404) },
      },
      config: { cache: BIN_CACHE_SECONDS },
    },
    (request, reply) => {
      const tag = parseItemTag(request.params.itemTag);
      const page = request.query.page ?? 0;
      // The hot path, synchronous: the unfiltered first page of a listed tag, while its stored bytes are current.
      if (page === 0 && onlyControls(request.query)) {
        const body = firstPages.current(tag);
        if (body) {
          reply.type(JSON_TYPE).send(body.plain);
          return;
        }
      }
      return (async () => {
        const found = await auctions.lowestBin(tag, queryFilters(request.query, ['page']), page);
        if (found !== 'first-page') return found;
        // Prepared JSON bytes: the schema's serialiser is not used for a Buffer.
        const prepared = await firstPages.get(tag, undefined);
        return reply.type(JSON_TYPE).send(prepared!.plain);
      })();
    },
  );

  app.get<{ Querystring: { page: number; pageSize: number; orderBy: Static<typeof OrderBy> } & Record<string, unknown> }>(
    '/api/auctions/active/filter',
    {
      schema: {
        tags: TAGS,
        ...takesItemFilters(),
        summary: 'Active auctions across all items that match the filters',
        description:
          'Ordered by `orderBy` (ENDING_SOON default, LOWEST_PRICE, HIGHEST_PRICE). Use `ItemId=A|B` to restrict to tags.',
        querystring: filterQuery({
          page: Type.Integer({ minimum: 0, maximum: 1000, default: 0 }),
          pageSize: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
          orderBy: Type.Union([OrderBy], { default: 'ENDING_SOON' }),
        }),
        response: { 200: Type.Array(Type.Ref('SaveAuction')), ...problemResponses(400) },
      },
      config: { cache: 10 },
    },
    async (request) => {
      const { page, pageSize, orderBy } = request.query;
      return auctions.activeMatching(queryFilters(request.query, ['page', 'pageSize', 'orderBy']), orderBy, page, pageSize);
    },
  );

  app.get<{ Params: { itemTag: string }; Querystring: { page: number; orderBy: Static<typeof OrderBy> } & Record<string, unknown> }>(
    '/api/auctions/tag/:itemTag/active/overview',
    {
      schema: {
        tags: TAGS,
        ...takesItemFilters(),
        summary: `Active auctions of an item as previews, ${OVERVIEW_PAGE_SIZE} per page`,
        description: `orderBy: LOWEST_PRICE (default), HIGHEST_PRICE (price = highest bid, else starting bid), ENDING_SOON. Pages beyond ${OVERVIEW_FREE_PAGES - 1} need a Premium+ account token.`,
        params: ItemTagParams,
        querystring: filterQuery({
          page: Type.Integer({ minimum: 0, maximum: 10_000, default: 0 }),
          orderBy: Type.Union([OrderBy], { default: 'LOWEST_PRICE' }),
        }),
        response: { 200: Type.Array(Type.Ref('AuctionPreview')), ...problemResponses(400, 404) },
      },
      config: { cache: 30, auth: 'optionalToken' },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const { page, orderBy } = request.query;
      if (page >= OVERVIEW_FREE_PAGES) requireTier(request, 'premium_plus', `Pages beyond ${OVERVIEW_FREE_PAGES - 1} of the active overview`);
      return auctionPreviews(await auctions.activeOverview(tag, queryFilters(request.query, ['page', 'orderBy']), orderBy, page));
    },
  );

  app.post<{ Body: string[] }>(
    '/api/auctions/active/uuid',
    {
      schema: {
        tags: TAGS,
        summary: 'Which of the given item uuids are listed right now (matched by their last 12 hex characters)',
        body: Type.Array(Type.String({ maxLength: 64 }), { maxItems: MAX_ACTIVE_UUID_BATCH }),
        response: { 200: Type.Array(Type.String()), ...problemResponses(400) },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      const uids = request.body.map((u) => {
        const uid = itemUidOf(u);
        if (uid === null) throw badRequest('invalid_uuid', `\`${u.slice(0, 80)}\` is not an item uuid (12 to 32 hex characters).`);
        return uid;
      });
      const listed = await auctions.listedItemUids(uids);
      return request.body.filter((_, i) => listed[i]);
    },
  );

  app.get(
    '/api/auctions/supply/low',
    {
      schema: {
        tags: TAGS,
        summary: `Items in low supply: fewer than ${LOW_SUPPLY_BELOW} and more than 2 active listings, median at least 1,000,000 or no sales`,
        response: { 200: Type.Array(Type.Ref('SupplyElement')) },
      },
      config: { cache: 600 },
    },
    async () =>
      (await auctions.lowSupply()).map((s) => ({
        tag: s.tag,
        supply: s.supply,
        median: s.median,
        lbinData: { lowest: s.lowest?.startingBid ?? 0, uuid: s.lowest?.uuid ?? null, secondLowest: s.secondLowest?.startingBid ?? 0 },
        volume: s.volume,
      })),
  );

  // --- sold history (store) ---------------------------------------------------------

  app.get<{ Params: { itemTag: string }; Querystring: { page: number; pageSize: number; token?: string } }>(
    '/api/auctions/tag/:itemTag/sold',
    {
      schema: {
        tags: TAGS,
        summary: `Sold auctions of an item, newest first (last ${SOLD_WINDOW_DAYS} days; ${SOLD_PARTNER_WINDOW_DAYS} with a partner token)`,
        params: ItemTagParams,
        querystring: Type.Object({
          page: Type.Integer({ minimum: 0, maximum: 100_000, default: 0 }),
          pageSize: Type.Integer({
            minimum: 1,
            maximum: SOLD_PARTNER_PAGE_SIZE,
            default: SOLD_PAGE_SIZE,
            description: `1-${SOLD_PAGE_SIZE}; up to ${SOLD_PARTNER_PAGE_SIZE} with a partner token`,
          }),
          token: Type.Optional(Type.String({ description: `partner token: ${SOLD_PARTNER_WINDOW_DAYS} days of history instead of ${SOLD_WINDOW_DAYS}, pages up to ${SOLD_PARTNER_PAGE_SIZE}` })),
        }),
        response: { 200: Type.Array(Type.Ref('SoldAuction')), ...problemResponses(400, 404) },
      },
      config: { cache: 300, auth: 'optionalPartner' },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const { page, pageSize } = request.query;
      const partner = Boolean(request.partner);
      if (pageSize > SOLD_PAGE_SIZE && !partner) {
        throw badRequest('invalid_parameters', `query.pageSize must be <= ${SOLD_PAGE_SIZE} (up to ${SOLD_PARTNER_PAGE_SIZE} with a partner token)`, {
          errors: { 'query.pageSize': [`must be <= ${SOLD_PAGE_SIZE}`] },
        });
      }
      return (await auctions.sold(tag, partner, page, pageSize)).map(soldAuction);
    },
  );

  app.get<{ Params: { itemTag: string } } & { Querystring: Record<string, unknown> }>(
    '/api/auctions/tag/:itemTag/recent/overview',
    {
      schema: {
        tags: TAGS,
        ...takesItemFilters(),
        summary: `Recently sold auctions of an item as previews (${OVERVIEW_PAGE_SIZE}, newest first)`,
        description: `Looks at the last day; widens to 14 days when fewer than ${OVERVIEW_PAGE_SIZE} match, then to 90 days unless more than 2 filters are set.`,
        params: ItemTagParams,
        querystring: filterQuery({}),
        response: { 200: Type.Array(Type.Ref('AuctionPreview')), ...problemResponses(400, 404) },
      },
      config: { cache: 120 },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      return auctionPreviews(await auctions.recentSales(tag, queryFilters(request.query)));
    },
  );

  app.get<{ Params: { uid: string }; Querystring: { page: number; pageSize: number } }>(
    '/api/auctions/uid/:uid/sold',
    {
      schema: {
        tags: TAGS,
        summary: 'Recorded sales of one physical item (duplicate detection), newest first, a page at a time',
        description:
          `Page 0 (the default) is the newest ${UID_SOLD_PAGE_SIZE} sales, in the established answer shape; \`page\` (0-based) and \`pageSize\` ` +
          `(1-${UID_SOLD_MAX_PAGE_SIZE}) read further. Ordered by sale time, newest first, then by auction uuid, so pages neither overlap nor skip. ` +
          'When there are more sales than this page holds, the response has a `Link: <…>; rel="next"` header.',
        params: Type.Object({ uid: Type.String({ description: 'item uuid, or its last 12 hex characters' }) }),
        querystring: Type.Object({
          page: Type.Integer({ minimum: 0, maximum: 10_000, default: 0, description: '0-based page number' }),
          pageSize: Type.Integer({ minimum: 1, maximum: UID_SOLD_MAX_PAGE_SIZE, default: UID_SOLD_PAGE_SIZE, description: `sales per page, 1-${UID_SOLD_MAX_PAGE_SIZE}` }),
        }),
        response: { 200: Type.Array(Type.Ref('ItemSell')), ...problemResponses(400) },
      },
      config: { cache: 600 },
    },
    async (request, reply) => {
      const uid = itemUidOf(request.params.uid);
      if (!uid) throw badRequest('invalid_uuid', 'One or more passed uuids are invalid (12 to 32 hex characters expected).');
      const { page, pageSize } = request.query;
      const { sales, more } = await auctions.salesOfItem(uid, page, pageSize);
      if (more) reply.header('link', `</api/auctions/uid/${encodeURIComponent(request.params.uid)}/sold?page=${page + 1}&pageSize=${pageSize}>; rel="next"`);
      return sales.map((s) => itemSell(s, true));
    },
  );

  app.post<{ Body: Static<typeof InventoryBatchLookup> }>(
    '/api/auctions/uids/sold',
    {
      schema: {
        tags: TAGS,
        summary: `Sales of up to ${MAX_UID_BATCH} items at once: every requested uid maps to its sales ([] when none)`,
        body: Type.Ref('InventoryBatchLookup'),
        response: { 200: Type.Record(Type.String(), Type.Array(Type.Ref('ItemSell'))), ...problemResponses(400) },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      const requested = request.body.uuids;
      const uids = requested.map((u) => {
        const uid = itemUidOf(u);
        if (!uid) throw badRequest('invalid_uuid', `One or more passed uuids are invalid: \`${u.slice(0, 80)}\` (12 to 32 hex characters expected).`);
        return uid;
      });
      const sales = await auctions.salesOfItems(uids);
      const out: Record<string, ReturnType<typeof itemSell>[]> = {};
      requested.forEach((u, i) => {
        out[u] = (sales.get(uids[i]!) ?? []).map((s) => itemSell(s, false));
      });
      return out;
    },
  );

  // --- analysis and filter check ---------------------------------------------------

  app.get<{ Params: { itemTag: string }; Querystring: { days: number } & Record<string, unknown> }>(
    '/api/item/price/:itemTag/analysis',
    {
      schema: {
        tags: ['prices'],
        ...takesItemFilters(),
        summary: 'Price analysis of an item over its sales of the last `days` days',
        description:
          '`days` (default 7) is clamped to 1-365. 1-7 days: anyone; 8-30: Starter Premium; 31-365: Premium (account token). Filters as plain query parameters. No sales: all zeros. ' +
          'Multi-enchantment books (`ENCHANTED_BOOK`) over more than 7 days ignore the filters (still validated; the response then carries `X-Filters-Ignored: true`). ' +
          `Gives up after ${ANALYSIS_TIMEOUT_MS / 1000} s with a 503 problem \`analysis_timeout\` (Retry-After).`,
        params: ItemTagParams,
        querystring: filterQuery({ days: Type.Integer({ default: 7 }) }),
        response: { 200: Type.Ref('AdvancedAnalysisResult'), ...problemResponses(400, 404, 503) },
      },
      config: { cache: 300, auth: 'optionalToken' },
    },
    async (request, reply) => {
      const tag = parseItemTag(request.params.itemTag);
      const days = Math.min(365, Math.max(1, request.query.days));
      const needed: Tier | null = days > 30 ? 'premium' : days > 7 ? 'starter_premium' : null;
      if (needed) requireTier(request, needed, `Analysis beyond ${needed === 'premium' ? 30 : 7} days`);
      try {
        const { result, filtersIgnored } = await analysis.analyse(tag, days, queryFilters(request.query, ['days']));
        if (filtersIgnored) reply.header('x-filters-ignored', 'true');
        return result;
      } catch (err) {
        throw err instanceof DeadlineExceeded ? analysisTimeout() : err;
      }
    },
  );

  app.post<{ Body: Static<typeof FilterQuery> }>(
    '/api/Filter',
    {
      schema: {
        tags: ['filters'],
        summary: 'Whether an auction matches the filters',
        body: Type.Ref('FilterQuery'),
        response: { 200: Type.Boolean(), ...problemResponses(400) },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      const a = request.body.auction;
      const flatNbt = a.flatNbt ?? {};
      const uid = flatNbt['uid'] ?? flatNbt['uuid'];
      const subject: FilterSubject = {
        tag: (a.tag ?? '').toUpperCase(),
        itemName: a.itemName ?? '',
        tier: a.tier ?? null,
        reforge: a.reforge && a.reforge !== 'None' ? a.reforge : null,
        bin: a.bin ?? false,
        startingBid: a.startingBid ?? 0,
        highestBid: a.highestBidAmount ?? 0,
        count: a.count ?? 1,
        seller: a.auctioneerId ?? '',
        start: isoSeconds(a.start),
        end: isoSeconds(a.end) ?? 0,
        itemCreatedAt: isoSeconds(a.itemCreatedAt),
        itemUid: uid ? itemUidOf(uid) : null,
        enchantments: Object.fromEntries((a.enchantments ?? []).map((e) => [e.type.toLowerCase(), e.level])),
        flatNbt,
        sold: false,
      };
      return auctions.matches(request.body.filters ?? {}, subject);
    },
  );
}
