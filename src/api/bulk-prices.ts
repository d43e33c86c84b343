/**
 * The bulk price files at the paths mods already read, so a mod switches by changing its base URL:
 * NEU's (`/neu/lowestbin.json[.gz]`), Elite's (`/resources/auctions/neu[.gz]?mode=raw|smooth`) and
 * Coflnet's `/api/prices/neu`. Each answer is ready bytes: gzip-encoded when the client accepts it,
 * the gzip file itself at `.gz` paths; ETag and 304 from http/caching.ts.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PreparedAnswer } from '../http/prepared-answers.ts';
import { Type, type Static } from 'typebox';
import { AVERAGE_DAYS, type AnyFileName, type AverageFileName, type BulkFileName, type PreparedFile } from '../services/bulk-prices.ts';
import { notFound } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';

/**
 * Files change with each generation (about a minute); mods poll every one to two minutes. The files
 * are exempt from the per-IP limits: an answer costs a lookup, and many players share one IP.
 */
const CACHE_SECONDS = 60;
const JSON_TYPE = 'application/json; charset=utf-8';
const GZIP_TYPE = 'application/gzip';

const PriceMap = Type.Record(Type.String(), Type.Number(), { examples: [{ HYPERION: 801_000_000, 'BEE;4': 3_950_000, 'ULTIMATE_WISE;5': 1_150_000 }] });
const ModeQuery = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('raw'), Type.Literal('smooth')], { default: 'raw', description: 'raw: the absolute lowest BIN; smooth: the lowest inside the outlier fence' })),
});
const Metadata = Type.Object({
  builtAt: Type.String({ format: 'date-time' }),
  listings: Type.Integer({ description: 'active BIN listings the files were built from' }),
  buildMs: Type.Number(),
  files: Type.Array(
    Type.Object({ name: Type.String(), paths: Type.Array(Type.String()), method: Type.String(), keys: Type.Integer(), bytes: Type.Integer(), gzipBytes: Type.Integer() }),
  ),
  averages: Type.Union([
    Type.Object({
      to: Type.String({ format: 'date-time', description: 'the windows end here: the last rolled-up hour' }),
      coveredDays: Type.Record(Type.String(), Type.Number(), { description: 'days of history each window actually covers' }),
      files: Type.Array(Type.Object({ name: Type.String(), path: Type.String(), method: Type.String(), keys: Type.Integer(), bytes: Type.Integer() })),
    }),
    Type.Null(),
  ]),
  bazaar: Type.Union([
    Type.Object({ snapshotAt: Type.String({ format: 'date-time' }), products: Type.Integer(), paths: Type.Array(Type.String()), method: Type.String(), bytes: Type.Integer(), gzipBytes: Type.Integer() }),
    Type.Null(),
  ]),
  networth: Type.Object({
    builtAt: Type.String({ format: 'date-time' }),
    listings: Type.Integer({ description: 'active BIN listings read' }),
    products: Type.Integer({ description: 'bazaar products read' }),
    paths: Type.Array(Type.String()),
    method: Type.String(),
    keys: Type.Integer(),
    bytes: Type.Integer(),
    gzipBytes: Type.Integer(),
  }),
});
const BazaarFigures = Type.Object({
  buyPrice: Type.Number({ description: 'instant buy: the lowest sell offer, per unit' }),
  sellPrice: Type.Number({ description: 'instant sell: the highest buy order, per unit' }),
  buyVolume: Type.Number({ description: 'units offered for sale' }),
  sellVolume: Type.Number({ description: 'units wanted by buy orders' }),
  buyMovingWeek: Type.Number(),
  sellMovingWeek: Type.Number(),
  buyOrders: Type.Integer({ description: 'sell offers' }),
  sellOrders: Type.Integer({ description: 'buy orders' }),
});
const KeysQuery = Type.Object({
  keys: Type.Optional(Type.Union([Type.Literal('hypixel'), Type.Literal('neu')], { default: 'hypixel', description: "hypixel: the bazaar's product ids; neu: NEU ids (ULTIMATE_WISE;5, INK_SACK-3)" })),
});

export async function bulkPriceRoutes(app: FastifyInstance) {
  const bulk = app.services.bulkPrices;
  // Each file's answers in the registry of prepared answers (http/prepared-answers.ts), kept per
  // file the market built (a new build of the listings, a snapshot, a rolled-up hour is a new
  // generation): the JSON (its gzip and brotli variants made once, sent by the compression hook
  // and the fast path), and the `.gz` file itself, which is the JSON's gzip variant.
  const lastModifiedOf = (file: PreparedFile) => new Date(file.builtAt).toUTCString();
  const jsonFiles = app.prepared.define<PreparedFile['value'], PreparedFile | undefined>({
    name: 'bulk-file',
    generation: (name) => bulk.latestFile(name as AnyFileName),
    build: (name, given) => {
      const file = given ?? bulk.latestFile(name as AnyFileName);
      return file && { value: file.value, lastModified: lastModifiedOf(file), generation: file };
    },
  });
  const gzFiles = app.prepared.define<Buffer, PreparedFile | undefined>({
    name: 'bulk-file-gz',
    generation: (name) => bulk.latestFile(name as AnyFileName),
    build: (name, given) => {
      const file = given ?? bulk.latestFile(name as AnyFileName);
      const json = file && jsonFiles.prepare(name, file);
      return file && json && { value: json.variant('gzip'), contentType: GZIP_TYPE, lastModified: lastModifiedOf(file), generation: file };
    },
    serialize: (gzip) => gzip,
  });
  /** A file's prepared answer (JSON or `.gz`), made now when the file is newer than the kept one (a build without I/O). */
  const answerOf = (name: AnyFileName, file: PreparedFile, gz: boolean): PreparedAnswer => (gz ? gzFiles : jsonFiles).prepare(name, file);
  // After each build of the listings' files: the JSON and its gzip ahead of the first request.
  bulk.onBuilt((files) => {
    for (const name of Object.keys(files) as BulkFileName[]) answerOf(name, files[name], true);
  });

  /** The JSON (the compression hook encodes it as the client accepts), or the `.gz` file itself whatever the client's Accept-Encoding. */
  function sendFile(reply: FastifyReply, name: AnyFileName, file: PreparedFile, gz = false): FastifyReply {
    const body = answerOf(name, file, gz);
    // If-Modified-Since at or after the build (HTTP dates have whole seconds): the client's copy is current.
    const since = Date.parse(String(reply.request.headers['if-modified-since'] ?? ''));
    if (Number.isFinite(since) && Math.floor(file.builtAt / 1000) * 1000 <= since) {
      return reply.code(304).header('last-modified', body.lastModified).send();
    }
    // Headers in the fast path's order (http/stored-responses.ts): the type, then Last-Modified.
    return reply.type(body.contentType ?? JSON_TYPE).header('last-modified', body.lastModified).send(body.plain);
  }

  // The lowest-BIN files without a query string skip Fastify (http/stored-responses.ts) while current.
  for (const [path, name, gz] of [
    ['/neu/lowestbin.json', 'neu/lowestbin', false],
    ['/neu/lowestbin.json.gz', 'neu/lowestbin', true],
    ['/api/prices/neu', 'neu/lowestbin', false],
    ['/resources/auctions/neu', 'elite/raw', false],
    ['/resources/auctions/neu.gz', 'elite/raw', true],
  ] as const) {
    app.storedResponses.add({
      url: path,
      prefix: path,
      suffix: '',
      exact: true,
      rateLimited: false,
      cacheSeconds: CACHE_SECONDS,
      contentType: gz ? GZIP_TYPE : JSON_TYPE,
      body: () => {
        const file = bulk.currentFile(name);
        return file && answerOf(name, file, gz);
      },
    });
  }
  const common = { tags: ['prices'], response: { 200: PriceMap, ...problemResponses(400) } };

  for (const [path, gz] of [['/neu/lowestbin.json', false], ['/neu/lowestbin.json.gz', true]] as const) {
    app.get(
      path,
      {
        schema: { ...common, summary: `NEU's lowestbin.json${gz ? ' (the gzip file)' : ''}: the lowest active BIN of each NEU id, per item` },
        config: { cache: CACHE_SECONDS, rateLimit: false },
      },
      async (request, reply) => {
        const file = await bulk.file('neu/lowestbin');
        return sendFile(reply, 'neu/lowestbin', file, gz);
      },
    );
  }

  app.get(
    '/api/prices/neu',
    {
      schema: { ...common, summary: 'The lowest active BIN of each NEU id (Coflnet-compatible; the same map as /neu/lowestbin.json)' },
      config: { cache: CACHE_SECONDS, rateLimit: false },
    },
    async (_request, reply) => sendFile(reply, 'neu/lowestbin', await bulk.file('neu/lowestbin')),
  );

  for (const [path, gz] of [['/resources/auctions/neu', false], ['/resources/auctions/neu.gz', true]] as const) {
    app.get<{ Querystring: Static<typeof ModeQuery> }>(
      path,
      {
        schema: {
          ...common,
          summary: `Elite-compatible lowest BIN per NEU id with Elite's extended keys (TYPE;N+100, +200, +PERFECT)${gz ? ', as a gzip file' : ''}`,
          querystring: ModeQuery,
        },
        config: { cache: CACHE_SECONDS, rateLimit: false },
      },
      async (request, reply) => {
        const name: BulkFileName = request.query.mode === 'smooth' ? 'elite/smooth' : 'elite/raw';
        const file = await bulk.file(name);
        return sendFile(reply, name, file, gz);
      },
    );
  }

  const SalesAverage = Type.Object({
    price: Type.Number({ description: 'coins paid for the sales of the window, in all' }),
    count: Type.Integer({ description: 'items sold' }),
    sales: Type.Number({ description: 'sales per day' }),
    clean_price: Type.Number({ description: 'mean price per item of the sales inside the outlier fence' }),
    clean_sales: Type.Number({ description: 'those sales per day' }),
  });
  const noAverages = () => notFound('no_averages', 'No hour of sales has been rolled up yet; the averages appear within an hour of the first sales.');
  for (const days of AVERAGE_DAYS) {
    const routes: Array<[string, AverageFileName, boolean, string]> = [
      [`/neu/auction_averages_lbin/${days}day.json`, `neu/auction_averages_lbin/${days}day`, false, 'the mean hourly lowest BIN per NEU id'],
      [`/neu/auction_averages_lbin/${days}day.json.gz`, `neu/auction_averages_lbin/${days}day`, true, 'the mean hourly lowest BIN per NEU id, as a gzip file'],
      [`/neu/auction_averages/${days}day.json`, `neu/auction_averages/${days}day`, false, "NEU's sales figures per NEU id"],
      [`/neu/auction_averages/${days}day.json.gz`, `neu/auction_averages/${days}day`, true, "NEU's sales figures per NEU id, as a gzip file"],
      [`/resources/auctions/neu/average-lbin/${days}day`, `elite/average-lbin/${days}day`, false, 'the mean hourly lowest BIN per Elite id'],
      [`/resources/auctions/neu/average-lbin/${days}day.gz`, `elite/average-lbin/${days}day`, true, 'the mean hourly lowest BIN per Elite id, as a gzip file'],
    ];
    for (const [path, name, gz, what] of routes) {
      const sales = name.startsWith('neu/auction_averages/');
      app.get(
        path,
        {
          schema: {
            tags: ['prices'],
            summary: `${what}, over the last ${days} day${days === 1 ? '' : 's'} of rolled-up hours`,
            response: { 200: sales ? Type.Record(Type.String(), SalesAverage) : PriceMap, ...problemResponses(404) },
          },
          config: { cache: CACHE_SECONDS, rateLimit: false },
        },
        async (request, reply) => {
          const file = await bulk.averagesFile(name);
          if (!file) throw noAverages();
          return sendFile(reply, name, file, gz);
        },
      );
    }
  }

  const TooltipEntry = Type.Object(
    {
      lowestBin: Type.Optional(Type.Number({ description: 'the lowest active BIN, per item' })),
      avgLowestBin1d: Type.Optional(Type.Number({ description: 'the mean hourly lowest BIN over 1 day' })),
      avgLowestBin3d: Type.Optional(Type.Number()),
      avgLowestBin7d: Type.Optional(Type.Number()),
      medianSale3d: Type.Optional(Type.Number({ description: 'the median sale price per item over 3 days' })),
      salesPerDay3d: Type.Optional(Type.Number({ description: 'sales per day over 3 days' })),
      bazaarBuy: Type.Optional(Type.Number({ description: 'instant buy on the bazaar (the lowest sell offer)' })),
      bazaarSell: Type.Optional(Type.Number({ description: 'instant sell on the bazaar (the highest buy order)' })),
      npcSell: Type.Optional(Type.Number({ description: 'what an NPC pays for one' })),
      craftCost: Type.Optional(Type.Number({ description: 'crafting one now: ingredients bought instantly, cheaper sub-crafts used' })),
    },
    { additionalProperties: false },
  );
  const TooltipQuery = Type.Object({
    keys: Type.Optional(Type.Union([Type.Literal('neu'), Type.Literal('hypixel')], { default: 'neu', description: 'neu: NEU ids; hypixel: tags, with pets, runes and potions as TAG;VARIANT (PET_BEE;LEGENDARY)' })),
  });
  app.get<{ Querystring: Static<typeof TooltipQuery> }>(
    '/api/prices/tooltip',
    {
      schema: {
        tags: ['prices'],
        summary: 'Everything a tooltip shows, per item, in one file: lowest BIN, its 1/3/7-day averages, 3-day median sale and sales per day, bazaar buy and sell, NPC sell price, craft cost',
        querystring: TooltipQuery,
        response: { 200: Type.Record(Type.String(), TooltipEntry), ...problemResponses(400) },
      },
      config: { cache: CACHE_SECONDS, rateLimit: false },
    },
    async (request, reply) => {
      const name = request.query.keys === 'hypixel' ? 'tooltip/hypixel' : 'tooltip/neu';
      return sendFile(reply, name, await bulk.tooltipFile(name));
    },
  );

  const NetworthQuery = Type.Object({
    case: Type.Optional(
      Type.Union([Type.Literal('lower'), Type.Literal('upper')], {
        default: 'lower',
        description: 'lower: the keys as SkyHelper-Networth 1.x and its kin look them up (hyperion, lvl_100_legendary_ender_dragon); upper: as SkyHelper-Networth 2.x does (HYPERION, LVL_100_LEGENDARY_ENDER_DRAGON)',
      }),
    ),
  });
  // The default (lower-case) file without a query string skips Fastify while current.
  app.storedResponses.add({
    url: '/api/prices/networth',
    prefix: '/api/prices/networth',
    suffix: '',
    exact: true,
    rateLimited: false,
    cacheSeconds: CACHE_SECONDS,
    contentType: JSON_TYPE,
    body: () => {
      const file = bulk.currentNetworthFile('networth/lower');
      return file && answerOf('networth/lower', file, false);
    },
  });
  app.get<{ Querystring: Static<typeof NetworthQuery> }>(
    '/api/prices/networth',
    {
      schema: {
        tags: ['prices'],
        summary:
          'The price file networth libraries read: one flat map from id to coins per item (items, enchantment_<name>_<level>, essence_<type>, pets lvl_1_/lvl_100_/lvl_200_<tier>_<type>, skins _skinned_<skin>, runes, attribute shards …); see docs/mods.md',
        querystring: NetworthQuery,
        response: {
          200: Type.Record(Type.String(), Type.Number(), { examples: [{ hyperion: 801_000_000, enchantment_ultimate_wise_5: 1_150_000, essence_wither: 2_350, lvl_100_legendary_ender_dragon: 640_000_000 }] }),
          ...problemResponses(400),
        },
      },
      config: { cache: CACHE_SECONDS, rateLimit: false },
    },
    async (request, reply) => {
      const name = request.query.case === 'upper' ? 'networth/upper' : 'networth/lower';
      return sendFile(reply, name, await bulk.networthFile(name));
    },
  );

  app.get<{ Querystring: Static<typeof KeysQuery> }>(
    '/api/bazaar/prices',
    {
      schema: {
        tags: ['prices'],
        summary: "Every bazaar product's instant buy and sell prices, volumes, moving-week volumes and order counts from the newest snapshot, in one file",
        querystring: KeysQuery,
        response: { 200: Type.Record(Type.String(), BazaarFigures), ...problemResponses(400, 404) },
      },
      config: { cache: 20, rateLimit: false },
    },
    async (request, reply) => {
      const name = request.query.keys === 'neu' ? 'bazaar/neu' : 'bazaar/hypixel';
      const file = await bulk.bazaarFile(name);
      if (!file) throw notFound('no_snapshot', 'No bazaar snapshot is stored yet.');
      return sendFile(reply, name, file);
    },
  );

  app.get(
    '/api/prices/files',
    {
      schema: { tags: ['prices'], summary: 'What each bulk price file holds, how its prices are computed, and when it was built', response: { 200: Metadata } },
      config: { cache: 10 },
    },
    async () =>
      bulk.metadata((name, file) => {
        const json = answerOf(name, file, false);
        return { bytes: json.plain.length, gzipBytes: json.variant('gzip').length };
      }),
  );
}
