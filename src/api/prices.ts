/**
 * Prices and price history (issue 24), in the established service's shapes (reference
 * ecosystem.md section 2): the 2-day summary, the lowest BINs, what buying N costs now, history
 * at every range, the year's statistics, and NEU's graph format. Each handler parses, calls
 * services/prices.ts once and shapes the answer.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { filtersFromQuery } from '../domain/filters.ts';
import { HISTORY_RANGES, RANGE_BUCKETS, type HistoryRange } from '../domain/prices.ts';
import { badRequest, notFound } from '../http/problem.ts';
import { takesItemFilters } from '../http/openapi.ts';
import { ItemTagParams, parseItemTag } from '../http/params.ts';
import { problemResponses } from '../http/schemas.ts';
import { MAX_CHANGE_TAGS } from '../services/price-changes.ts';
import { FILTERED_DEADLINE_MS, MAX_CURRENT_COUNT } from '../services/prices.ts';

const DropStatistic = Type.Object(
  {
    monthly: Type.Number({ description: 'mean price over the last 30 days: of each sale\'s price per item (bazaar: of the daily instant-buy prices); 0 without data' }),
    recent: Type.Number({ description: 'mean price over the last 24 hours: of each sale\'s price per item (bazaar: of the 2-hour instant-buy prices); 0 without data' }),
    tag: Type.String(),
    volume: Type.Integer({ description: 'items traded per day: auction sales of the last 24 hours; bazaar: instant buys of the moving week / 7' }),
    lastUpdated: Type.String({ format: 'date-time' }),
    now: Type.Number({ description: 'the price now: the lowest BIN per item, or the instant-buy price; 0 when nothing is offered' }),
  },
  { examples: [{ monthly: 812000000, recent: 790500000, tag: 'HYPERION', volume: 41, lastUpdated: '2026-11-22T12:00:00.000Z', now: 784000000 }] },
);
const ChangeQuery = Type.Object({
  itemTags: Type.Array(Type.String({ minLength: 1, maxLength: 64 * MAX_CHANGE_TAGS }), {
    minItems: 1,
    maxItems: MAX_CHANGE_TAGS,
    description: `item tags or aliases, repeated (\`itemTags=A&itemTags=B\`) or comma-separated; at most ${MAX_CHANGE_TAGS}`,
  }),
});

const TAGS = ['prices'];
/** Header of an answer whose filtered read of raw sales was cut by its deadline. */
export const CUT_HEADER = 'x-sales-read-from';

const FILTER_HELP =
  'Any other query parameter is a filter (case-insensitive name → value), e.g. `Rarity=LEGENDARY`, `PetLevel=100`, `Stars=5`; also accepted as a deepObject `query[Rarity]=…`. ' +
  'An unknown filter or a malformed value is a 400 naming the filter. ' +
  `With filters the sales are read one by one (not the rollups) for at most ${FILTERED_DEADLINE_MS / 1000} s, newest first; when that cuts the read, ` +
  `the answer has the header \`X-Sales-Read-From: <ISO instant>\`: only sales from then on were read. Without filters the header appears only while the ` +
  `rollup catches up after an upgrade: the sales between the last rolled-up hour and that instant are missing.`;
const filterQuery = <P extends Record<string, ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>>(props: P) =>
  Type.Object(props, { additionalProperties: Type.String(), description: FILTER_HELP });
const CONTROL = ['token', 'apiKey', 'apikey', 'key'];

const AveragePrice = Type.Object(
  {
    min: Type.Number({ description: 'lowest sale price per unit in the bucket' }),
    max: Type.Number({ description: 'highest sale price per unit' }),
    avg: Type.Number({ description: 'mean sale price per unit' }),
    volume: Type.Number({ description: 'items sold (stack sizes added)' }),
    time: Type.String({ format: 'date-time', description: 'bucket start' }),
    median: Type.Union([Type.Number(), Type.Null()], { description: 'skymarket: median sale price per unit (from the hourly digests; exact when no hour had more than 32 sales)' }),
    lowestBin: Type.Union([Type.Number(), Type.Null()], { description: 'skymarket: the lowest BIN per unit seen on the auction house during the bucket; null when none was recorded (always null with filters)' }),
    sales: Type.Integer({ description: 'skymarket: auctions sold' }),
    items: Type.Integer({ description: 'skymarket: items sold (= volume)' }),
  },
  { $id: 'AveragePrice', examples: [{ min: 780000000, max: 820000000, avg: 801000000, volume: 12, time: '2026-11-22T10:00:00.000Z', median: 800000000, lowestBin: 790000000, sales: 12, items: 12 }] },
);

const PriceSumary = Type.Object(
  {
    min: Type.Number(),
    median: Type.Number(),
    mean: Type.Number(),
    mode: Type.Number({ description: 'the most frequent sale price (from the hourly digests; exact when no hour had more than 32 sales)' }),
    volume: Type.Number({ description: 'items sold in the window' }),
    max: Type.Number(),
  },
  { $id: 'PriceSumary', examples: [{ min: 780000000, median: 800000000, mean: 801000000, mode: 800000000, volume: 96, max: 820000000 }] },
);

const BinAnswer = Type.Object(
  {
    lowest: Type.Integer({ description: 'whole starting bid of the cheapest active BIN without bids; 0 when none' }),
    uuid: Type.Union([Type.String(), Type.Null()]),
    secondLowest: Type.Integer({ description: '0 when there is no second' }),
  },
  { examples: [{ lowest: 790000000, uuid: '2a3b4c5d6e7f48a9b0c1d2e3f4a5b6c7', secondLowest: 795000000 }] },
);

const CurrentPrice = Type.Object(
  {
    sell: Type.Number({ description: 'what selling `count` fetches now: bazaar, into the buy orders; auction house, `count` × the 2-day median sale price per unit' }),
    buy: Type.Number({ description: 'what buying `count` costs now: bazaar, from the sell offers; auction house, from the cheapest BINs (price per unit × items taken)' }),
    available: Type.Integer({ description: 'items on offer: in the bazaar sell offers, or on active BINs' }),
    updatedAt: Type.String({ format: 'date-time' }),
    isAh: Type.Boolean(),
  },
  { $id: 'CurrentPrice', examples: [{ sell: 1250000, buy: 1310000, available: 4210, updatedAt: '2026-11-22T12:00:00.000Z', isAh: false }] },
);

const AuctionPreviewInline = Type.Object({
  seller: Type.Union([Type.String(), Type.Null()]),
  price: Type.Integer(),
  end: Type.String({ format: 'date-time' }),
  uuid: Type.Union([Type.String(), Type.Null()]),
  playerName: Type.Union([Type.String(), Type.Null()]),
});

const PriceStatistics = Type.Object(
  {
    averageSellTimeSeconds: Type.Number({ description: 'over the sales of the last 7 days' }),
    totalAuctionsSold: Type.Integer({ description: 'sales in the 365 days' }),
    totalListed: Type.Integer({ description: 'sales of the last 7 days plus active listings' }),
    totalSellers: Type.Integer({ description: 'distinct sellers of the last 7 days' }),
    totalBuyers: Type.Integer({ description: 'distinct buyers of the last 7 days' }),
    totalBids: Type.Integer({ description: 'auctions (not BIN) sold in the last 7 days' }),
    totalCoinsTransferred: Type.Integer({ description: 'coins paid in the 365 days' }),
    totalAuctions: Type.Integer({ description: 'as totalListed' }),
    totalItemsSold: Type.Integer({ description: 'items sold in the 365 days' }),
    binCount: Type.Integer({ description: 'BIN sales of the last 7 days' }),
    prices: Type.Array(Type.Ref('AveragePrice'), { description: 'one point per day' }),
    recentSamples: Type.Array(AuctionPreviewInline, { description: 'the newest sales (at most 10)' }),
    detailWindowDays: Type.Integer({ description: 'skymarket: the days the listing-side totals cover (7)' }),
  },
  { $id: 'PriceStatistics' },
);

const RANGE_CACHE: Record<HistoryRange, number> = { day: 60, week: 300, month: 600, full: 1800 };
const RANGE_TEXT: Record<HistoryRange, string> = {
  day: 'the last 24 hours, one point per hour',
  week: 'the last 7 days, one point per 2 hours',
  month: 'the last 30 days, one point per UTC day',
  full: 'all stored history, one point per UTC day',
};

function filtersOf(query: unknown, controls: readonly string[] = []): Record<string, string> {
  return filtersFromQuery((query ?? {}) as Record<string, unknown>, [...controls, ...CONTROL]);
}

function signalCut(reply: FastifyReply, cut: number | null): void {
  if (cut !== null) reply.header(CUT_HEADER, new Date(cut).toISOString());
}

/** A price variant or NEU id from a query: a `+` sent unencoded arrives as a space. */
function plusOf(raw: string): string {
  return raw.trim().replace(/ /g, '+').toUpperCase();
}

export async function priceRoutes(app: FastifyInstance) {
  const { prices } = app.services;
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addSchema(AveragePrice);
  app.addSchema(PriceSumary);
  app.addSchema(CurrentPrice);
  app.addSchema(PriceStatistics);

  app.get<{ Params: ItemTagParams; Querystring: Record<string, string> }>(
    '/api/item/price/:itemTag',
    {
      schema: {
        tags: TAGS,
        ...takesItemFilters(),
        summary: 'Price summary of the last 2 days of sales (prices per unit)',
        description: 'The sales of the 48 whole hours before the current one plus the current one. Without filters from the hourly rollups; nothing sold: all zeros.',
        params: ItemTagParams,
        querystring: filterQuery({}),
        response: { 200: Type.Ref('PriceSumary'), ...problemResponses(400, 404) },
      },
      config: { cache: 60 },
    },
    async (request, reply) => {
      const tag = parseItemTag(request.params.itemTag);
      const { summary, cut } = await prices.summary(tag, filtersOf(request.query));
      signalCut(reply, cut);
      return summary;
    },
  );

  app.get<{ Params: ItemTagParams; Querystring: Record<string, string> }>(
    '/api/item/price/:itemTag/bin',
    {
      schema: {
        tags: TAGS,
        ...takesItemFilters(),
        summary: 'The cheapest and second cheapest active BIN (whole price) matching the filters',
        params: ItemTagParams,
        querystring: filterQuery({}),
        response: { 200: BinAnswer, ...problemResponses(400, 404) },
      },
      config: { cache: 10 },
    },
    async (request) => prices.bin(parseItemTag(request.params.itemTag), filtersOf(request.query)),
  );

  app.get<{ Params: ItemTagParams; Querystring: { count: number } }>(
    '/api/item/price/:itemTag/current',
    {
      schema: {
        tags: TAGS,
        summary: 'What buying and selling `count` costs right now',
        description: 'Bazaar products walk the newest order book; auction items buy from the cheapest active BINs and sell at the 2-day median sale price.',
        params: ItemTagParams,
        querystring: Type.Object({ count: Type.Integer({ minimum: 1, maximum: MAX_CURRENT_COUNT, default: 1 }) }, { additionalProperties: false }),
        response: { 200: Type.Ref('CurrentPrice'), ...problemResponses(400, 404) },
      },
      config: { cache: 10 },
    },
    async (request) => prices.current(parseItemTag(request.params.itemTag), request.query.count),
  );

  for (const range of HISTORY_RANGES) {
    app.get<{ Params: ItemTagParams; Querystring: Record<string, string> }>(
      `/api/item/price/:itemTag/history/${range}`,
      {
        schema: {
          tags: TAGS,
          ...takesItemFilters(),
          summary: `Price history: ${RANGE_TEXT[range]}`,
          description:
            `Points oldest first, one per ${RANGE_BUCKETS[range].bucket >= 86_400_000 ? 'UTC day' : `${RANGE_BUCKETS[range].bucket / 3_600_000}-hour bucket (UTC-aligned)`} that had sales or a recorded lowest BIN. ` +
            'Prices per unit. Without filters from the price rollups (hourly and daily), plus the sales after the last rolled-up hour. ' +
            '`variant` picks a price variant of the tag (pets `LEGENDARY`, `LEGENDARY+100`, `LEGENDARY+200`; runes and potions their level); it cannot be combined with filters.',
          params: ItemTagParams,
          querystring: filterQuery({ variant: Type.Optional(Type.String({ maxLength: 40, pattern: '^[A-Za-z0-9+ ]*$', description: 'a price variant of the tag (`+` may arrive as a space)' })) }),
          response: { 200: Type.Array(Type.Ref('AveragePrice')), ...problemResponses(400, 404) },
        },
        config: { cache: RANGE_CACHE[range] },
      },
      async (request, reply) => {
        const tag = parseItemTag(request.params.itemTag);
        const filters = filtersOf(request.query, ['variant']);
        const variant = request.query['variant'] === undefined ? undefined : plusOf(request.query['variant']);
        if (variant !== undefined && Object.keys(filters).length > 0) throw badRequest('invalid_params', '`variant` cannot be combined with filters.');
        const { points, cut } = await prices.history(tag, range, { filters, ...(variant !== undefined ? { variant } : {}) });
        signalCut(reply, cut);
        return points;
      },
    );
  }

  app.get<{ Params: ItemTagParams; Querystring: Record<string, string> }>(
    '/api/item/price/:itemTag/history/year',
    {
      schema: {
        tags: TAGS,
        ...takesItemFilters(),
        summary: 'The last 365 days: daily points and totals (free on skymarket)',
        description:
          'Free, unlike the established service (Premium): it reads the daily rollups, so it costs what a month does. ' +
          'Sales, items and coins count the 365 days; the listing-side totals (listed, sellers, buyers, bids, BINs, sell time) the last 7 days of sales (`detailWindowDays`).',
        params: ItemTagParams,
        querystring: filterQuery({}),
        response: { 200: Type.Ref('PriceStatistics'), ...problemResponses(400, 404) },
      },
      config: { cache: 1800 },
    },
    async (request, reply) => {
      const { cut, ...stats } = await prices.year(parseItemTag(request.params.itemTag), filtersOf(request.query));
      signalCut(reply, cut);
      return stats;
    },
  );

  app.get<{ Querystring: { itemTags: string[] } }>(
    '/api/prices/change',
    {
      schema: {
        tags: TAGS,
        summary: 'How prices moved: now, the last 24 hours and the last 30 days of each item (auction house or bazaar)',
        description:
          'A map of tag to `DropStatistic`. Bazaar products read the bazaar history (instant-buy prices); auction items the price rollups (sale prices per item) and the lowest BIN. ' +
          'Tags traded on neither are left out; a malformed tag is 400 `invalid_tag`.',
        querystring: ChangeQuery,
        response: { 200: Type.Record(Type.String(), DropStatistic), ...problemResponses(400) },
      },
      config: { cache: 60 },
    },
    async (request) => {
      const tags = request.query.itemTags.flatMap((t) => t.split(',')).map((t) => t.trim()).filter((t) => t !== '');
      if (tags.length === 0 || tags.length > MAX_CHANGE_TAGS) throw badRequest('invalid_tags', `Give 1 to ${MAX_CHANGE_TAGS} item tags in \`itemTags\`.`);
      return app.services.priceChanges.changes(tags.map((t) => app.services.items.resolve(t) ?? parseItemTag(t)));
    },
  );

  app.get(
    '/api/price/attributes',
    {
      schema: {
        tags: TAGS,
        summary: 'Attribute prices: per attribute and level, what it sells for alone',
        description:
          '`{attribute: {level: price}}`: the lowest 7-day median sale price among the items that carry that attribute alone at that level (shards, or the cheapest item holding it), ' +
          'over the attribute variants the attribute flips roll up (at least 3 sales in 7 days). Empty until the first flip computation.',
        response: { 200: Type.Record(Type.String(), Type.Record(Type.String(), Type.Number()), { examples: [{ mana_pool: { '1': 450000, '2': 1100000 }, veteran: { '5': 8200000 } }] }) },
      },
      config: { cache: 300 },
    },
    async () => app.services.flips.attributePrices(),
  );

  app.get<{ Querystring: { item: string } }>(
    '/api/pricehistory',
    {
      schema: {
        tags: TAGS,
        summary: "NEU's in-game graph format: `{ISO instant: {b, s?}}` for a NEU id, the last 7 days",
        description:
          'Auction items: `b` is the average sale price per unit of each 2-hour bucket with sales (NEU ids of pets with a rarity, e.g. `BEE;4` or `BEE;4+100`, read that variant). ' +
          'Bazaar products: `b` instant-buy and `s` instant-sell of each 2-hour rollup. 404 `item_not_found` when the id names nothing known.',
        querystring: Type.Object({ item: Type.String({ minLength: 1, maxLength: 64, description: 'NEU id (e.g. `HYPERION`, `BEE;4`, `ULTIMATE_WISE;5`) or tag' }) }),
        response: { 200: Type.Record(Type.String(), Type.Object({ b: Type.Number(), s: Type.Optional(Type.Number()) })), ...problemResponses(400, 404) },
      },
      config: { cache: 600 },
    },
    async (request) => {
      const item = plusOf(request.query.item);
      if (!/^[A-Z0-9_:;+-]{1,64}$/.test(item)) throw badRequest('invalid_tag', `The item id \`${item.slice(0, 80)}\` is not valid (letters, digits and _:;- only, at most 64).`);
      const out = await prices.neuHistory(item);
      if (out === null) throw notFound('item_not_found', `could not find the item \`${item}\``);
      return out;
    },
  );
}
