/**
 * The bulk price files at the paths mods already read, so a mod switches by changing its base URL:
 * NEU's (`/neu/lowestbin.json[.gz]`), Elite's (`/resources/auctions/neu[.gz]?mode=raw|smooth`) and
 * Coflnet's `/api/prices/neu`. Each answer is ready bytes: gzip-encoded when the client accepts it,
 * the gzip file itself at `.gz` paths; ETag and 304 from http/caching.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { BulkFileName, PreparedFile } from '../market/bulk-prices.ts';
import { notFound } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';

/**
 * Files change with each generation (about a minute); mods poll every one to two minutes. The files
 * are exempt from the per-IP limits: an answer costs a lookup, and many players share one IP.
 */
const CACHE_SECONDS = 60;
const JSON_TYPE = 'application/json; charset=utf-8';

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
  bazaar: Type.Union([
    Type.Object({ snapshotAt: Type.String({ format: 'date-time' }), products: Type.Integer(), paths: Type.Array(Type.String()), method: Type.String(), bytes: Type.Integer(), gzipBytes: Type.Integer() }),
    Type.Null(),
  ]),
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

/** The JSON, gzip-encoded when the client takes gzip. */
function sendJson(request: FastifyRequest, reply: FastifyReply, file: PreparedFile): FastifyReply {
  reply.header('vary', 'Accept-Encoding').header('last-modified', new Date(file.builtAt).toUTCString()).type(JSON_TYPE);
  if (request.accepts().encoding(['gzip', 'identity']) === 'gzip') return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.json);
}

/** The `.gz` file itself (mods gunzip it), whatever the client's Accept-Encoding. */
function sendGzipFile(reply: FastifyReply, file: PreparedFile): FastifyReply {
  return reply.header('last-modified', new Date(file.builtAt).toUTCString()).type('application/gzip').send(file.gzip);
}

export async function bulkPriceRoutes(app: FastifyInstance) {
  const bulk = app.services.bulkPrices;
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
        return gz ? sendGzipFile(reply, file) : sendJson(request, reply, file);
      },
    );
  }

  app.get(
    '/api/prices/neu',
    {
      schema: { ...common, summary: 'The lowest active BIN of each NEU id (Coflnet-compatible; the same map as /neu/lowestbin.json)' },
      config: { cache: CACHE_SECONDS, rateLimit: false },
    },
    async (request, reply) => sendJson(request, reply, await bulk.file('neu/lowestbin')),
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
        return gz ? sendGzipFile(reply, file) : sendJson(request, reply, file);
      },
    );
  }

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
      const file = await bulk.bazaarFile(request.query.keys === 'neu' ? 'bazaar/neu' : 'bazaar/hypixel');
      if (!file) throw notFound('no_snapshot', 'No bazaar snapshot is stored yet.');
      return sendJson(request, reply, file);
    },
  );

  app.get(
    '/api/prices/files',
    {
      schema: { tags: ['prices'], summary: 'What each bulk price file holds, how its prices are computed, and when it was built', response: { 200: Metadata } },
      config: { cache: 10 },
    },
    async () => bulk.metadata(),
  );
}
