/** Operational routes: health (liveness and readiness, services/health.ts) and version. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { API_VERSION, VERSION } from '../version.ts';
import { isoTime } from '../http/schemas.ts';
import type { FeedPollStatus } from '../services/health.ts';

const FeedHealth = Type.Object({
  lastUpdated: Type.String({ format: 'date-time', description: 'upstream lastUpdated of the newest stored data' }),
  storedAt: Type.String({ format: 'date-time' }),
  ageSeconds: Type.Number({ description: 'seconds since upstream produced the newest stored data' }),
  records: Type.Integer(),
  source: Type.Union([Type.Literal('upstream'), Type.Literal('simulator')]),
});

const FeedPolls = Type.Object({
  failures: Type.Integer({ description: 'failed polls in a row (0 after a success)' }),
  lastSuccessAt: Type.Optional(Type.String({ format: 'date-time' })),
  lastError: Type.Optional(Type.String({ description: 'the last failure in words, e.g. the upstream host could not be resolved (kept after a recovery)' })),
  lastErrorAt: Type.Optional(Type.String({ format: 'date-time' })),
  retryAt: Type.Optional(Type.String({ format: 'date-time', description: 'while failing: when the next try is due' })),
});

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('loading'), Type.Literal('unavailable')], {
    description: 'ok (200): data is stored and complete; loading (503): data is served but still arriving (the demo history backfill); unavailable (503): see reasons',
  }),
  reasons: Type.Array(Type.String(), { description: 'why the service is not ready (unavailable) or still loading; empty when ok' }),
  warnings: Type.Array(Type.String(), { description: 'problems that do not stop the service answering, e.g. a feed whose last poll failed and why' }),
  version: Type.String(),
  role: Type.String(),
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  dataSource: Type.Union([Type.Literal('upstream'), Type.Literal('simulator')]),
  simulated: Type.Boolean({ description: 'true when the data comes from the skymarket simulator: the demo\'s own, or an upstream that says it is the simulator (`skymarket simulate`)' }),
  uptimeSeconds: Type.Number(),
  feeds: Type.Record(Type.String(), FeedHealth),
  upstream: Type.Optional(
    Type.Object(
      { url: Type.String(), polls: Type.Record(Type.String(), FeedPolls) },
      { description: 'processes that ingest (roles all/ingest, while leading): the upstream and how each feed\'s polls have been going' },
    ),
  ),
  ingest: Type.Optional(
    Type.Union([Type.Literal('leader'), Type.Literal('standby')], {
      description: 'roles ingest/all: whether this process ingests (leader) or waits for the leader lock (standby)',
    }),
  ),
  jobs: Type.Optional(
    Type.Union([Type.Literal('leader'), Type.Literal('standby')], {
      description: 'roles jobs/all: whether this process runs the background jobs (leader) or waits (standby)',
    }),
  ),
});

const Version = Type.Object({
  name: Type.String(),
  version: Type.String(),
  apiVersion: Type.String(),
});

function pollsOf(p: FeedPollStatus): Static<typeof FeedPolls> {
  return {
    failures: p.failures,
    ...(p.lastSuccessAt !== undefined ? { lastSuccessAt: isoTime(p.lastSuccessAt) } : {}),
    ...(p.lastError !== undefined ? { lastError: p.lastError } : {}),
    ...(p.lastErrorAt !== undefined ? { lastErrorAt: isoTime(p.lastErrorAt) } : {}),
    ...(p.retryAt !== undefined && p.failures > 0 ? { retryAt: isoTime(p.retryAt) } : {}),
  };
}

export async function operationsRoutes(app: FastifyInstance) {
  const { context } = app;
  const { health } = app;

  app.get(
    '/api/health',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: 200 once auctions and bazaar data are stored (and the demo history loaded), 503 with reasons before',
        response: { 200: Health, 503: Health },
      },
      config: { cache: 'no-store', rateLimit: false },
    },
    async (_request, reply) => {
      const report = await health.check();
      const { status, now } = report;
      const feeds: Static<typeof Health>['feeds'] = {};
      for (const feed of report.feeds) {
        feeds[feed.name] = {
          lastUpdated: isoTime(feed.lastUpdated),
          storedAt: isoTime(feed.storedAt),
          ageSeconds: Math.max(0, Math.round((now - feed.lastUpdated) / 100) / 10),
          records: feed.records,
          source: feed.source,
        };
      }
      const body: Static<typeof Health> = {
        status,
        reasons: report.reasons,
        warnings: report.warnings,
        version: VERSION,
        role: context.config.role,
        database: report.database,
        dataSource: report.dataSource,
        simulated: report.dataSource === 'simulator',
        uptimeSeconds: Math.round((now - context.startedAt) / 1000),
        feeds,
        ...(report.upstream ? { upstream: { url: report.upstream.url, polls: Object.fromEntries(Object.entries(report.upstream.polls).map(([name, p]) => [name, pollsOf(p)])) } } : {}),
        ...(context.leaders?.ingest ? { ingest: context.leaders.ingest.state } : {}),
        ...(context.leaders?.jobs ? { jobs: context.leaders.jobs.state } : {}),
      };
      return reply.code(status === 'ok' ? 200 : 503).send(body);
    },
  );

  app.get(
    '/api/health/live',
    {
      schema: {
        tags: ['operations'],
        summary: 'Liveness: 200 while the process answers',
        response: { 200: Type.Object({ status: Type.Literal('alive') }) },
      },
      config: { cache: 'no-store', rateLimit: false },
    },
    async () => ({ status: 'alive' as const }),
  );

  app.get(
    '/api/version',
    {
      schema: { tags: ['operations'], summary: 'Service and interface version', response: { 200: Version } },
      config: { cache: 300 },
    },
    async () => ({ name: 'skymarket', version: VERSION, apiVersion: API_VERSION }),
  );
}
