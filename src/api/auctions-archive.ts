/**
 * Long-term auction data: the archive overview and CSV exports (Premium+), and the partner
 * batch export of per-tag item values, over services/auction-archive.ts. Registered by the
 * auctions routes, whose shared schemas it uses.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { filtersFromQuery } from '../domain/filters.ts';
import { allowedWebhook } from '../domain/webhooks.ts';
import { assertQueueCapacity } from '../http/limits.ts';
import { badRequest, HttpProblem, notFound } from '../http/problem.ts';
import { isoTime, problemResponses } from '../http/schemas.ts';
import { EXPORT_COLUMNS, INVENTORY_COLUMNS, SOCIAL_COLUMNS } from '../domain/archive-export.ts';
import { ARCHIVE_SCAN_LIMIT } from '../services/auction-archive.ts';
import type { ExportJob } from '../domain/export-jobs.ts';
import { auctionPreviews } from './auction-shapes.ts';
import { takesItemFilters } from '../http/openapi.ts';
import { ItemTagParams, parseItemTag } from '../http/params.ts';

export const MAX_QUEUED_EXPORTS = 4;

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

/** The caller's job, else 404 (another account's job is not revealed). */
function exportNotFound(id: number): HttpProblem {
  return notFound('export_not_found', `You have no export job ${id}.`);
}

export async function archiveRoutes(app: FastifyInstance) {
  const { archive } = app.services;
  app.addSchema(ArchiveResponse);
  app.addSchema(ExportRequestCreate);
  app.addSchema(ExportRequest);
  app.addSchema(BatchResponse);

  app.get<{ Params: { itemTag: string }; Querystring: { page: number; pageSize: number } & Record<string, unknown> }>(
    '/api/auctions/tag/:itemTag/archive/overview',
    {
      schema: {
        tags: ['auctions'],
        ...takesItemFilters(),
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
      const found = await archive.overview(tag, filters, archiveWindow(filters), page, pageSize);
      const auctions = auctionPreviews(found);
      return { auctions, queryStatus: found.partial ? ('Partial' as const) : auctions.length ? ('Success' as const) : ('NoResults' as const) };
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
      const flags = (request.body.flags ?? 'None').split(',').map((f) => f.trim()).filter(Boolean);
      const badFlag = flags.find((f) => !(EXPORT_FLAGS as readonly string[]).includes(f));
      if (badFlag !== undefined) throw badRequest('invalid_flags', `Unknown export flag \`${badFlag}\`; use ${EXPORT_FLAGS.join(', ')}.`);
      if (!allowedWebhook(discordWebhookUrl, app.context.config.exportWebhookHosts)) {
        throw badRequest('webhook_not_allowed', 'The webhook URL is not on an allowed host (see EXPORT_WEBHOOK_HOSTS).');
      }
      const job = await archive.queueExport(
        {
          accountId: account.id,
          itemTag: tag,
          flags: flags.length ? flags.join(', ') : 'None',
          filters,
          columns: request.body.columns ?? [...EXPORT_COLUMNS],
          webhookUrl: discordWebhookUrl,
        },
        (queued) => assertQueueCapacity(queued, MAX_QUEUED_EXPORTS),
      );
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
    async (request) => (await archive.exports(request.account!.id)).map(exportWire),
  );

  const JobParams = Type.Object({ jobId: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'export job id (`id` of ExportRequest)' }) });

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
    async (request) => {
      const job = await archive.ownExport(request.account!.id, request.params.jobId);
      if (!job) throw exportNotFound(request.params.jobId);
      return exportWire(job);
    },
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
      const id = request.params.jobId;
      const { job, aborted } = await archive.abortExport(request.account!.id, id);
      if (!job) throw exportNotFound(id);
      if (!aborted) throw new HttpProblem(409, 'export_finished', `Export job ${id} is already ${job.status} and cannot be aborted.`);
      return exportWire(job);
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
      if (!(await archive.deleteExport(request.account!.id, request.params.jobId))) throw exportNotFound(request.params.jobId);
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
      const values = await archive.hourValues(page === 'last' ? archive.lastCompleteHour() : Number(page), tag, count);
      return { page: values.hour, from: isoTime(values.from), to: isoTime(values.to), items: values.items };
    },
  );
}
