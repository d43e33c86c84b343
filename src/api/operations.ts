/** Operational routes: health (liveness and readiness) and version. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { API_VERSION, VERSION } from '../version.ts';
import { isoTime } from '../http/schemas.ts';
import type { FeedName } from '../store/repositories/feeds.ts';

/** Feeds that must have stored data before the service reports ready. */
const REQUIRED_FEEDS: FeedName[] = ['auctions', 'bazaar'];

const FeedHealth = Type.Object({
  lastUpdated: Type.String({ format: 'date-time', description: 'upstream lastUpdated of the newest stored data' }),
  storedAt: Type.String({ format: 'date-time' }),
  ageSeconds: Type.Number({ description: 'seconds since upstream produced the newest stored data' }),
  records: Type.Integer(),
  source: Type.Union([Type.Literal('upstream'), Type.Literal('simulator')]),
});

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  reasons: Type.Array(Type.String(), { description: 'why the service is not ready; empty when ok' }),
  version: Type.String(),
  role: Type.String(),
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  dataSource: Type.Union([Type.Literal('upstream'), Type.Literal('simulator')]),
  simulated: Type.Boolean({ description: 'true when the data comes from the built-in market simulator' }),
  uptimeSeconds: Type.Number(),
  feeds: Type.Record(Type.String(), FeedHealth),
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

export async function operationsRoutes(app: FastifyInstance) {
  const { store, clock, context } = app;

  app.get(
    '/api/health',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: 200 once auctions and bazaar data are stored, 503 with reasons before',
        response: { 200: Health, 503: Health },
      },
      config: { cache: 'no-store', rateLimit: false },
    },
    async (_request, reply) => {
      const now = clock.now();
      const reasons: string[] = [];
      const feeds: Static<typeof Health>['feeds'] = {};
      try {
        await store.ping();
        for (const feed of await store.feeds.all()) {
          feeds[feed.name] = {
            lastUpdated: isoTime(feed.lastUpdated),
            storedAt: isoTime(feed.storedAt),
            ageSeconds: Math.max(0, Math.round((now - feed.lastUpdated) / 100) / 10),
            records: feed.records,
            source: feed.source,
          };
        }
        for (const name of REQUIRED_FEEDS) {
          if (!feeds[name]) reasons.push(`no ${name === 'auctions' ? 'auctions generation' : 'bazaar snapshot'} stored yet`);
        }
      } catch (err) {
        reasons.push(`database unreachable: ${err instanceof Error ? err.message : String(err)}`);
      }
      const body: Static<typeof Health> = {
        status: reasons.length === 0 ? 'ok' : 'unavailable',
        reasons,
        version: VERSION,
        role: context.config.role,
        database: store.dialect,
        dataSource: context.dataSource,
        simulated: context.dataSource === 'simulator',
        uptimeSeconds: Math.round((now - context.startedAt) / 1000),
        feeds,
        ...(context.leaders?.ingest ? { ingest: context.leaders.ingest.state } : {}),
        ...(context.leaders?.jobs ? { jobs: context.leaders.jobs.state } : {}),
      };
      return reply.code(reasons.length === 0 ? 200 : 503).send(body);
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
