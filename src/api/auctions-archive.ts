/**
 * Long-term auction data: the archive overview and CSV exports (Premium+), and the
 * partner batch export of per-tag item values. Registered by the auctions routes,
 * whose shared schemas and active-auctions view it uses.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { upperMedian } from '../domain/analysis.ts';
import { filtersFromQuery } from '../domain/filters.ts';
import { compileAuctionFilters, KnownTags } from '../services/auction-filters.ts';
import { allowedWebhook } from '../domain/webhooks.ts';
import { assertQueueCapacity, fixedDelay } from '../http/limits.ts';
import { badRequest, HttpProblem, notFound } from '../http/problem.ts';
import { isoTime, problemResponses } from '../http/schemas.ts';
import { EXPORT_COLUMNS, INVENTORY_COLUMNS, SOCIAL_COLUMNS } from '../domain/archive-export.ts';
import type { AuctionRecord } from '../store/repositories/auction-queries.ts';
import type { ExportJob } from '../store/repositories/export-jobs.ts';
import { auctionPreviews } from './auction-shapes.ts';
import { filterMap } from '../http/openapi.ts';
import { ItemTagParams, knownTagCheck, parseItemTag } from '../http/params.ts';

export const ARCHIVE_DELAY_MS = 2000;
export const MAX_QUEUED_EXPORTS = 4;
/** Sold auctions the overview scans at most per request; beyond it the answer is Partial. */
export const ARCHIVE_SCAN_LIMIT = 100_000;
const HOUR = 3_600_000;

const EXPORT_FLAGS = ['None', 'IncludeSocial', 'InventoryCheck', 'UniqueItems'] as const;

const ArchiveResponse = Type.Object(
  {
    auctions: Type.Array(Type.Ref('AuctionPreview')),
    queryStatus: Type.Union([Type.Literal('Success'), Type.Literal('NoResults'), Type.Literal('Partial')]),
  },
  { $id: 'ArchiveResponse' },
);

const ExportRequestCreate = Type.Object(
  {
    flags: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          `comma-joined ExportFlags: ${EXPORT_FLAGS.join(', ')}. UniqueItems keeps the newest sale per item; ` +
          `IncludeSocial adds the columns ${SOCIAL_COLUMNS.join(', ')} (player names skymarket has seen; skymarket holds no contact details); ` +
          `InventoryCheck adds ${INVENTORY_COLUMNS.join(', ')} (from auction data: whether the same item is listed now, and its later sales; skymarket holds no inventories).`,
      }),
    ),
    filters: Type.Record(Type.String(), Type.String(), { description: 'filters; EndAfter and EndBefore (unix seconds) are required' }),
    discordWebhookUrl: Type.String({ maxLength: 500, description: 'chat webhook (Discord format) on an allow-listed host (EXPORT_WEBHOOK_HOSTS)' }),
    columns: Type.Optional(Type.Array(Type.Union(EXPORT_COLUMNS.map((c) => Type.Literal(c))), { maxItems: EXPORT_COLUMNS.length })),
  },
  { $id: 'ExportRequestCreate' },
);

const ExportRequest = Type.Object(
  {
    id: Type.Integer(),
    flags: Type.String(),
    status: Type.Union([Type.Literal('Pending'), Type.Literal('InProgress'), Type.Literal('Done'), Type.Literal('Failed'), Type.Literal('Aborted')]),
    byEmail: Type.Null(),
    discordWebhookUrl: Type.String(),
    requestedAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    itemTag: Type.String(),
    filters: Type.Record(Type.String(), Type.String()),
    columns: Type.Array(Type.String()),
    s3Url: Type.Null(),
    rowCount: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ExportRequest' },
);

const BatchResponse = Type.Object(
  {
    page: Type.Integer({ description: 'hour index (unix hours) of the sales summarised' }),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    items: Type.Array(
      Type.Object({
        tag: Type.String(),
        volume: Type.Integer({ description: 'sales in the hour' }),
        median: Type.Integer({ description: 'median unit price (upper middle)' }),
        min: Type.Integer(),
        max: Type.Integer(),
        lowestBin: Type.Union([Type.Integer(), Type.Null()], { description: 'current lowest BIN, null when none is listed' }),
        activeListings: Type.Integer(),
      }),
    ),
  },
  { $id: 'AuctionBatch' },
);

function exportWire(job: ExportJob): Static<typeof ExportRequest> {
  return {
    id: job.id,
    flags: job.flags,
    status: job.status,
    byEmail: null,
    discordWebhookUrl: job.webhookUrl,
    requestedAt: isoTime(job.requestedAt),
    completedAt: job.completedAt === null ? null : isoTime(job.completedAt),
    itemTag: job.itemTag,
    filters: job.filters,
    columns: job.columns,
    s3Url: null,
    rowCount: job.rowCount,
    error: job.error,
  };
}

/** EndAfter/EndBefore (case-insensitive keys, unix seconds) → ms; 400 when missing or reversed. */
export function archiveWindow(filters: Record<string, string>): { after: number; before: number } {
  const get = (name: string) => Object.entries(filters).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const after = get('EndAfter');
  const before = get('EndBefore');
  if (after === undefined || before === undefined) {
    throw badRequest('missing_params', 'The filters EndAfter and EndBefore (unix seconds) are required.');
  }
  if (!/^\d{1,12}$/.test(after) || !/^\d{1,12}$/.test(before)) {
    throw badRequest('invalid_params', 'EndAfter and EndBefore have to be unix seconds.');
  }
  if (Number(after) > Number(before)) throw badRequest('invalid_params', 'EndAfter has to be before EndBefore.');
  return { after: Number(after) * 1000, before: Number(before) * 1000 };
}

export async function archiveRoutes(app: FastifyInstance) {
  const { store, clock } = app;
  const view = app.market.activeAuctions;
  const delay = fixedDelay(app, ARCHIVE_DELAY_MS);
  const requireKnownTag = knownTagCheck(new KnownTags(store, view));
  app.addSchema(ArchiveResponse);
  app.addSchema(ExportRequestCreate);
  app.addSchema(ExportRequest);
  app.addSchema(BatchResponse);

  app.get<{ Params: { itemTag: string }; Querystring: { page: number; pageSize: number } & Record<string, unknown> }>(
    '/api/auctions/tag/:itemTag/archive/overview',
    {
      schema: {
        tags: ['auctions'],
        ...filterMap('query'),
        summary: 'Sold auctions of an item in a time window (Premium+; answers after a 2-second delay)',
        description:
          'Filters as query parameters; `EndAfter` and `EndBefore` (unix seconds) are required. Newest first, `pageSize` (default 12, 1-100) per `page`. ' +
          `queryStatus is Partial when more than ${ARCHIVE_SCAN_LIMIT} sales had to be scanned.`,
        params: ItemTagParams,
        querystring: Type.Object(
          {
            page: Type.Integer({ minimum: 0, maximum: 1000, default: 0 }),
            pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 12 }),
          },
          { additionalProperties: Type.String() },
        ),
        response: { 200: Type.Ref('ArchiveResponse'), ...problemResponses(400, 404) },
      },
      config: { tier: 'premium_plus', cache: 300 },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const { page, pageSize } = request.query;
      const filters = filtersFromQuery(request.query, ['page', 'pageSize', 'token']);
      const { after, before } = archiveWindow(filters);
      const filter = await compileAuctionFilters(store, filters);
      await requireKnownTag(tag);
      await delay();
      const want = (page + 1) * pageSize;
      const found: AuctionRecord[] = [];
      // At most ARCHIVE_SCAN_LIMIT sales, newest first, in keyset chunks; stops once the page is full.
      let scanned = 0;
      for await (const chunk of store.auctionQueries.soldChunks({ tag, since: after, until: before }, { max: ARCHIVE_SCAN_LIMIT })) {
        scanned += chunk.length;
        for (const r of chunk) if (filter.test({ ...r, end: r.soldAt ?? r.end, sold: true })) found.push(r);
        if (found.length >= want) break;
      }
      const partial = found.length < want && scanned >= ARCHIVE_SCAN_LIMIT;
      const auctions = await auctionPreviews(found.slice(page * pageSize, want), (uuids) => store.playerNames.namesOf(uuids));
      return { auctions, queryStatus: partial ? ('Partial' as const) : auctions.length ? ('Success' as const) : ('NoResults' as const) };
    },
  );

  app.post<{ Params: { itemTag: string }; Body: Static<typeof ExportRequestCreate> }>(
    '/api/auctions/tag/:itemTag/archive/export',
    {
      schema: {
        tags: ['auctions'],
        summary: `Queue a CSV export of sold auctions, delivered to a chat webhook (Premium+, at most ${MAX_QUEUED_EXPORTS} queued per account)`,
        params: ItemTagParams,
        body: Type.Ref('ExportRequestCreate'),
        response: { 200: Type.Ref('ExportRequest'), ...problemResponses(400, 404, 429) },
      },
      config: { tier: 'premium_plus', cache: 'no-store' },
    },
    async (request) => {
      const account = request.account!;
      const tag = parseItemTag(request.params.itemTag);
      const { filters, discordWebhookUrl } = request.body;
      archiveWindow(filters);
      await compileAuctionFilters(store, filters);
      await requireKnownTag(tag);
      const flags = (request.body.flags ?? 'None').split(',').map((f) => f.trim()).filter(Boolean);
      const badFlag = flags.find((f) => !(EXPORT_FLAGS as readonly string[]).includes(f));
      if (badFlag !== undefined) throw badRequest('invalid_flags', `Unknown export flag \`${badFlag}\`; use ${EXPORT_FLAGS.join(', ')}.`);
      if (!allowedWebhook(discordWebhookUrl, app.context.config.exportWebhookHosts)) {
        throw badRequest('webhook_not_allowed', 'The webhook URL is not on an allowed host (see EXPORT_WEBHOOK_HOSTS).');
      }
      assertQueueCapacity(await store.exportJobs.countQueued(account.id, clock.now(), app.context.config.exportLeaseSeconds * 1000), MAX_QUEUED_EXPORTS);
      const job = await store.exportJobs.create({
        accountId: account.id,
        itemTag: tag,
        flags: flags.length ? flags.join(', ') : 'None',
        filters,
        columns: request.body.columns ?? [...EXPORT_COLUMNS],
        webhookUrl: discordWebhookUrl,
        requestedAt: clock.now(),
      });
      return exportWire(job);
    },
  );

  app.get(
    '/api/auctions/archive/exports',
    {
      schema: {
        tags: ['auctions'],
        summary: "The caller's export jobs with their status (Pending → InProgress → Done | Failed), newest first",
        response: { 200: Type.Array(Type.Ref('ExportRequest')) },
      },
      config: { tier: 'premium_plus', cache: 'no-store' },
    },
    async (request) => (await store.exportJobs.forAccount(request.account!.id)).map(exportWire),
  );

  const JobParams = Type.Object({ jobId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'export job id (`id` of ExportRequest)' }) });
  /** The caller's job, else 404 (another account's job is not revealed). */
  async function ownJob(accountId: number, id: number): Promise<ExportJob> {
    const job = await store.exportJobs.get(id);
    if (!job || job.accountId !== accountId) throw notFound('export_not_found', `You have no export job ${id}.`);
    return job;
  }

  app.get<{ Params: { jobId: number } }>(
    '/api/auctions/archive/exports/:jobId',
    {
      schema: {
        tags: ['auctions'],
        summary: "One of the caller's export jobs (Premium+)",
        params: JobParams,
        response: { 200: Type.Ref('ExportRequest'), ...problemResponses(400, 404) },
      },
      config: { tier: 'premium_plus', cache: 'no-store' },
    },
    async (request) => exportWire(await ownJob(request.account!.id, request.params.jobId)),
  );

  app.post<{ Params: { jobId: number } }>(
    '/api/auctions/archive/exports/:jobId/abort',
    {
      schema: {
        tags: ['auctions'],
        summary: 'Abort a queued or running export job (Premium+, own jobs): Pending | InProgress → Aborted; nothing is delivered',
        description: 'A running job stops at its next chunk and never posts to the webhook. A finished job (Done, Failed, Aborted) answers 409.',
        params: JobParams,
        response: { 200: Type.Ref('ExportRequest'), ...problemResponses(400, 404, 409) },
      },
      config: { tier: 'premium_plus', cache: 'no-store' },
    },
    async (request) => {
      const accountId = request.account!.id;
      const job = await ownJob(accountId, request.params.jobId);
      if (!(await store.exportJobs.abort(job.id, accountId, clock.now()))) {
        const now = await ownJob(accountId, job.id);
        throw new HttpProblem(409, 'export_finished', `Export job ${job.id} is already ${now.status} and cannot be aborted.`);
      }
      return exportWire(await ownJob(accountId, job.id));
    },
  );

  app.delete<{ Params: { jobId: number } }>(
    '/api/auctions/archive/exports/:jobId',
    {
      schema: {
        tags: ['auctions'],
        summary: 'Delete an export job in any state (Premium+, own jobs); a queued or running one is aborted first',
        params: JobParams,
        response: { 204: Type.Null({ description: 'deleted' }), ...problemResponses(400, 404) },
      },
      config: { tier: 'premium_plus', cache: 'no-store' },
    },
    async (request, reply) => {
      const accountId = request.account!.id;
      await ownJob(accountId, request.params.jobId);
      if (!(await store.exportJobs.delete(request.params.jobId, accountId))) throw notFound('export_not_found', `You have no export job ${request.params.jobId}.`);
      return reply.code(204).send();
    },
  );

  app.get<{ Querystring: { page: string; tag: string; count: number; token?: string } }>(
    '/api/auctions/batch',
    {
      schema: {
        tags: ['auctions'],
        summary: 'Raw item values for partners: per-tag sale volume, median, min and max of one hour, with the current lowest BIN',
        description:
          '`page`: `last` (default, the last complete UTC hour) or an hour index (unix hours). `tag`: `*` (default) or one tag. `count` (default 50, 1-1000): the tags with the most sales first.',
        querystring: Type.Object({
          page: Type.String({ default: 'last', pattern: '^(last|[0-9]{1,9})$' }),
          tag: Type.String({ default: '*', maxLength: 64 }),
          count: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
          token: Type.Optional(Type.String()),
        }),
        response: { 200: Type.Ref('AuctionBatch'), ...problemResponses(400) },
      },
      config: { auth: 'partner', cache: 300 },
    },
    async (request) => {
      const { page, count } = request.query;
      const tag = request.query.tag === '*' ? undefined : parseItemTag(request.query.tag);
      const hour = page === 'last' ? Math.floor(clock.now() / HOUR) - 1 : Number(page);
      const from = hour * HOUR;
      const to = from + HOUR;
      const sales = await store.auctionQueries.salePricesBetween(from, to, tag);
      const byTag = new Map<string, number[]>();
      for (const s of sales) {
        const list = byTag.get(s.tag) ?? [];
        list.push(s.unitPrice);
        byTag.set(s.tag, list);
      }
      await view.ready();
      const all = () => true;
      const items = [...byTag.entries()]
        .sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1))
        .slice(0, count)
        .map(([t, prices]) => {
          prices.sort((a, b) => a - b);
          const lowest = view.lowestBin(t, all, 1)[0];
          return {
            tag: t,
            volume: prices.length,
            median: Math.round(upperMedian(prices)),
            min: Math.round(prices[0]!),
            max: Math.round(prices[prices.length - 1]!),
            lowestBin: lowest ? lowest.startingBid : null,
            activeListings: view.activeOf(t, all).length,
          };
        });
      return { page: hour, from: isoTime(from), to: isoTime(to), items };
    },
  );
}
