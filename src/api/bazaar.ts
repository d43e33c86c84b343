/**
 * Bazaar routes: price history at every resolution, the snapshot at a time, and the
 * zip export, answered by the bazaar service (services/bazaar.ts). buyPrice / buy = instant-buy price (lowest sell offer); sellPrice / sell =
 * instant-sell price (highest buy order).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { BookLevel } from '../domain/bazaar-book.ts';
import { bucketStart, DAY, historyResolution, HOUR, MAX_HISTORY_RANGE_MS, RESOLUTION_MS, type HistoryPoint, type Resolution } from '../domain/bazaar-history.ts';
import { graphResultWire, quickStatusWire } from '../domain/bazaar-wire.ts';
import { isValidTag, normalizeTag } from '../domain/tags.ts';
import type { QuickStatusSource } from '../services/bazaar.ts';
import { zipOne } from '../http/zip-stream.ts';
import { requireTier } from '../http/access.ts';
import { createCostLimiter } from '../http/limits.ts';
import { itemNotFound, ItemTagParams, parseItemTag, parseTime } from '../http/params.ts';
import { badRequest, HttpProblem, notFound } from '../http/problem.ts';
import { isoTime, problemResponses } from '../http/schemas.ts';


const GraphResult = Type.Object(
  {
    minBuy: Type.Number(),
    maxBuy: Type.Number(),
    buy: Type.Number({ description: 'instant-buy price (lowest sell offer) at the start of the interval' }),
    minSell: Type.Number(),
    maxSell: Type.Number(),
    sell: Type.Number({ description: 'instant-sell price (highest buy order) at the start of the interval' }),
    buyVolume: Type.Integer(),
    sellVolume: Type.Integer(),
    buyMovingWeek: Type.Integer(),
    sellMovingWeek: Type.Integer(),
    timestamp: Type.String({ format: 'date-time', description: 'start of the interval (or the snapshot time for 20-second points)' }),
  },
  { $id: 'GraphResult' },
);

const Order = Type.Object(
  { amount: Type.Integer(), pricePerUnit: Type.Number(), orders: Type.Integer() },
  { $id: 'Order' },
);

const StorageQuickStatus = Type.Object(
  {
    productId: Type.Union([Type.String(), Type.Null()]),
    buyPrice: Type.Number({ description: 'instant-buy price: the lowest sell offer' }),
    buyVolume: Type.Integer(),
    buyMovingWeek: Type.Integer(),
    buyOrdersCount: Type.Integer(),
    sellPrice: Type.Number({ description: 'instant-sell price: the highest buy order' }),
    sellVolume: Type.Integer(),
    sellMovingWeek: Type.Integer(),
    sellOrdersCount: Type.Integer(),
    timeStamp: Type.String({ format: 'date-time' }),
    buyOrders: Type.Union([Type.Array(Type.Ref('Order')), Type.Null()], {
      description: 'what an instant buy fills against (standing sell offers, lowest price first; upstream buy_summary); null when not kept (older than 14 days)',
    }),
    sellOrders: Type.Union([Type.Array(Type.Ref('Order')), Type.Null()], {
      description: 'what an instant sell fills against (standing buy orders, highest price first; upstream sell_summary); null when not kept',
    }),
  },
  { $id: 'StorageQuickStatus' },
);

const RangeQuery = Type.Object({
  start: Type.Optional(Type.String({ description: 'ISO-8601 date-time (UTC when no offset is given); default end minus 1 day' })),
  end: Type.Optional(Type.String({ description: 'ISO-8601 date-time; default now' })),
});

const ExportQuery = Type.Object({
  start: Type.Optional(Type.String({ description: 'ISO-8601 date-time; default 14 days before now' })),
  end: Type.Optional(Type.String({ description: 'ISO-8601 date-time; default now' })),
  fullOrderBook: Type.Boolean({ default: false, description: 'include both order books in every 20-second row (costs 3 units instead of 1)' }),
});

/** Premium reaches this far back; Premium+ to the start of the data. */
export const PREMIUM_EXPORT_DAYS = 180;
/** The bazaar export budget per account: 5 units per 5 minutes; a full order book costs 3. */
export const EXPORT_BUDGET = { points: 5, durationSec: 300, cost: 1, fullOrderBookCost: 3 };

const SnapshotQuery = Type.Object({
  timestamp: Type.Optional(Type.String({ description: 'ISO-8601 date-time; default now' })),
});

type GraphResultWire = Static<typeof GraphResult>;

export function graphResult(p: HistoryPoint): GraphResultWire {
  return graphResultWire(p);
}

export async function bazaarRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { clock } = fastify;
  const bazaar = fastify.services.bazaar;

  /** History points, or 404 when the product has never been seen. */
  async function history(tag: string, resolution: Resolution, from: number, to: number) {
    const id = parseItemTag(tag);
    const points = await bazaar.history(id, resolution, from, to);
    if ('miss' in points) throw unknownProduct(id);
    return points.map(graphResult);
  }

  const historyResponses = { 200: Type.Array(Type.Ref('GraphResult')), ...problemResponses(400, 404) };
  app.addSchema(GraphResult);
  app.addSchema(Order);
  app.addSchema(StorageQuickStatus);

  // The fixed-window histories: each reads one resolution over a window ending now.
  const fixedWindows = [
    { path: 'hour', resolution: '20s', spanMs: HOUR, cache: 10, summary: 'Price history of the last hour: every 20-second snapshot, oldest first' },
    { path: 'day', resolution: '5m', spanMs: DAY, cache: 60, summary: 'Price history of the last day in 5-minute intervals, oldest first' },
    { path: 'week', resolution: '2h', spanMs: 7 * DAY, cache: 600, summary: 'Price history of the last week in 2-hour intervals, oldest first' },
  ] as const;
  const JSON_TYPE = 'application/json; charset=utf-8';
  for (const window of fixedWindows) {
    const url = `/api/bazaar/:itemTag/history/${window.path}`;
    const fixed = { name: window.path, resolution: window.resolution, spanMs: window.spanMs };
    // Prepared once per stored snapshot (http/prepared-answers.ts) and kept until the oldest point
    // leaves the window; served ahead of Fastify like the snapshot below.
    const windows = app.prepared.define({
      name: `bazaar-history-${window.path}`,
      generation: () => bazaar.feedGeneration(),
      servable: () => bazaar.currentServable(),
      build: async (id) => {
        const body = await bazaar.windowNow(id, fixed);
        if ('miss' in body) throw unknownProduct(id);
        return body;
      },
    });
    app.storedResponses.add({
      url,
      prefix: '/api/bazaar/',
      suffix: `/history/${window.path}`,
      cacheSeconds: window.cache,
      contentType: JSON_TYPE,
      body: (raw) => (isValidTag(raw) ? windows.current(normalizeTag(raw)) : undefined),
    });
    app.get(
      url,
      {
        schema: { tags: ['bazaar'], summary: window.summary, params: ItemTagParams, response: historyResponses },
        config: { cache: window.cache },
      },
      (request, reply) => {
        const id = parseItemTag(request.params.itemTag);
        const current = windows.current(id);
        // Prepared JSON bytes: the schema's serialiser is not used for a Buffer.
        if (current) {
          reply.type(JSON_TYPE).send(current.plain as never);
          return;
        }
        return (async () => {
          const body = await windows.get(id, undefined);
          return reply.type(JSON_TYPE).send(body!.plain as never);
        })();
      },
    );
  }

  app.get(
    '/api/bazaar/:itemTag/history',
    {
      schema: {
        tags: ['bazaar'],
        summary:
          'Price history of a custom range [start, end], resolution by length: ≤ 1 hour 20-second points (within the last 14 days), ≤ 1 day 5-minute, ≤ 7 days 2-hour, longer daily (at most 4,000 days)',
        params: ItemTagParams,
        querystring: RangeQuery,
        response: historyResponses,
      },
      config: { cache: 60 },
    },
    async (request) => {
      const now = clock.now();
      const end = parseTime(request.query.end, 'end') ?? now;
      const start = parseTime(request.query.start, 'start') ?? end - DAY;
      if (start > end) throw badRequest('invalid_range', `start (${isoTime(start)}) must not be after end (${isoTime(end)}).`);
      if (end - start > MAX_HISTORY_RANGE_MS) {
        throw badRequest('range_too_long', `The range may span at most ${MAX_HISTORY_RANGE_MS / DAY} days; use several requests.`);
      }
      const resolution = historyResolution(start, end, now);
      // Buckets that start within [start, end]; the first one may begin slightly before start.
      return history(request.params.itemTag, resolution, bucketStart(start, RESOLUTION_MS[resolution]), end + 1);
    },
  );

  app.get(
    '/api/bazaar/item/history/:itemTag/status',
    {
      schema: {
        tags: ['bazaar'],
        summary: "How far the product's history reaches, at which resolutions (a JSON string, as the established client types it)",
        description:
          'One line per resolution held, finest first: `20s` snapshots, then the `5m`, `2h` and `1d` rollups, each with its oldest and newest point (ISO-8601) and, for the rollups, how many buckets it holds. ' +
          'For example `"ENCHANTED_DIAMOND history: 20s 2026-11-21T12:00:00.000Z – 2026-11-22T12:00:00.000Z; 5m …; 1d 2026-10-23T00:00:00.000Z – 2026-11-21T00:00:00.000Z (30 buckets)"`. 404 for a product never seen.',
        params: ItemTagParams,
        response: { 200: Type.String(), ...problemResponses(400, 404) },
      },
      config: { cache: 60 },
    },
    async (request, reply) => {
      const id = parseItemTag(request.params.itemTag);
      const status = await bazaar.historyStatus(id);
      if ('miss' in status) throw unknownProduct(id);
      const parts = status.map((s) => `${s.resolution} ${isoTime(s.oldest)} – ${isoTime(s.newest)}${s.count === null ? '' : ` (${s.count} buckets)`}`);
      const text = `${id} history: ${parts.length === 0 ? 'none stored' : parts.join('; ')}`;
      return reply.type(JSON_TYPE).send(JSON.stringify(text));
    },
  );

  const SNAPSHOT_ROUTE = '/api/bazaar/:itemTag/snapshot';
  const SNAPSHOT_CACHE_SECONDS = 10;
  // The current snapshot (no timestamp) is prepared once per stored snapshot (http/prepared-answers.ts):
  // requests without a query string skip Fastify (http/stored-responses.ts) while the handler's hot path would send it.
  const snapshots = app.prepared.define({
    name: 'bazaar-snapshot',
    generation: () => bazaar.feedGeneration(),
    servable: () => bazaar.currentServable(),
    build: async (id) => {
      const body = await bazaar.snapshotNow(id);
      if (!('miss' in body)) return body;
      if (body.miss === 'unknown_product') throw unknownProduct(id);
      throw notFound('no_snapshot', `No snapshot of ${id} at or before ${isoTime(clock.now())}.`);
    },
  });
  app.storedResponses.add({
    url: SNAPSHOT_ROUTE,
    prefix: '/api/bazaar/',
    suffix: '/snapshot',
    cacheSeconds: SNAPSHOT_CACHE_SECONDS,
    contentType: JSON_TYPE,
    body: (raw) => (isValidTag(raw) ? snapshots.current(normalizeTag(raw)) : undefined),
  });

  app.get(
    SNAPSHOT_ROUTE,
    {
      schema: {
        tags: ['bazaar'],
        summary: 'The snapshot at or just before a time (default now), with both order books',
        params: ItemTagParams,
        querystring: SnapshotQuery,
        response: { 200: Type.Ref('StorageQuickStatus'), ...problemResponses(400, 404) },
      },
      config: { cache: SNAPSHOT_CACHE_SECONDS },
    },
    (request, reply) => {
      const at = parseTime(request.query.timestamp, 'timestamp');
      const id = parseItemTag(request.params.itemTag);
      if (at === undefined) {
        // The hot path, synchronous: the current snapshot's prepared bytes.
        const current = snapshots.current(id);
        if (current) {
          reply.type(JSON_TYPE).send(current.plain);
          return;
        }
        return (async () => {
          const body = await snapshots.get(id, undefined);
          return reply.type(JSON_TYPE).send(body!.plain);
        })();
      }
      return (async () => {
        const snapshot = await bazaar.snapshotAt(id, at);
        if (!('miss' in snapshot)) return quickStatus(id, snapshot.row, snapshot.instantBuySide, snapshot.instantSellSide);
        if (snapshot.miss === 'unknown_product') throw unknownProduct(id);
        throw notFound('no_snapshot', `No snapshot of ${id} at or before ${isoTime(at)}.`);
      })();
    },
  );

  const exportBudget = createCostLimiter(fastify, { keyPrefix: 'bazaar-export', points: EXPORT_BUDGET.points, durationSec: EXPORT_BUDGET.durationSec });

  app.get(
    '/api/bazaar/:itemTag/export',
    {
      schema: {
        tags: ['bazaar'],
        summary:
          'Zip stream holding {itemTag}.json: every snapshot in [start, end] (default the last 14 days) — 20-second rows for the last 14 days, 5-minute rows before. Premium: up to 180 days back; Premium+: all history. 5 units per 5 minutes per account (1 per export, 3 with fullOrderBook)',
        params: ItemTagParams,
        querystring: ExportQuery,
        response: {
          200: {
            description: 'a zip archive containing exactly one file, {itemTag}.json (a JSON array of rows)',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...problemResponses(400, 403, 404, 429),
        },
      },
      config: { auth: 'token', cache: 'no-store' },
    },
    async (request, reply) => {
      const account = requireTier(request, 'premium', 'The bazaar export');
      const now = clock.now();
      const end = parseTime(request.query.end, 'end') ?? now;
      const start = parseTime(request.query.start, 'start') ?? now - 14 * DAY;
      if (start > end) throw badRequest('invalid_range', `start (${isoTime(start)}) must not be after end (${isoTime(end)}).`);
      if (account.tier !== 'premium_plus' && start < now - PREMIUM_EXPORT_DAYS * DAY) {
        throw new HttpProblem(
          403,
          'tier_required',
          `Premium exports reach ${PREMIUM_EXPORT_DAYS} days back (to ${isoTime(now - PREMIUM_EXPORT_DAYS * DAY)}); older history requires Premium+.`,
          { requiredTier: 'premium_plus' },
        );
      }
      const id = parseItemTag(request.params.itemTag);
      const fullOrderBook = request.query.fullOrderBook;
      const rows = await bazaar.export({ productId: id, start, end, now, fullOrderBook });
      if ('miss' in rows) throw unknownProduct(id);
      // Charged once the product is known, before a row is read.
      await exportBudget.consume(`account:${account.id}`, fullOrderBook ? EXPORT_BUDGET.fullOrderBookCost : EXPORT_BUDGET.cost);

      // Level 1: JSON still shrinks ~6× (higher levels gain ~10–25 % size for 1.4–3× the CPU);
      // deflate runs on the thread pool, overlapping with the JSON of the next page.
      const output = zipOne(rows, { name: `${id}.json`, mtime: new Date(now), level: 1 });
      output.on('error', (err) => request.log.error({ err, product: id }, 'bazaar export failed mid-stream'));
      // A client that goes away stops the reads.
      reply.raw.on('close', () => output.destroy());
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${id}.zip"`)
        .send(output as never); // a stream; the 200 schema only documents it as binary
    },
  );
}

function unknownProduct(id: string) {
  return itemNotFound(id, `No bazaar product \`${id}\` is known.`);
}

/** StorageQuickStatus: `buyOrders` is the instant-buy side (sell offers), `sellOrders` the instant-sell side (buy orders). */
export function quickStatus(
  id: string,
  r: QuickStatusSource,
  instantBuySide: BookLevel[] | null,
  instantSellSide: BookLevel[] | null,
): Static<typeof StorageQuickStatus> {
  return quickStatusWire(id, r, instantBuySide, instantSellSide);
}
