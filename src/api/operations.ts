/** Operational routes: health (liveness and readiness) and version. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { API_VERSION, VERSION } from '../version.ts';
import { isoTime } from '../http/schemas.ts';
import type { FeedName } from '../store/repositories/feeds.ts';
import type { FeedPollStatus } from '../app.ts';

/** Feeds that must have stored data before the service reports ready. */
const REQUIRED_FEEDS: FeedName[] = ['auctions', 'bazaar'];

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
  simulated: Type.Boolean({ description: 'true when the data comes from the built-in market simulator' }),
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
  const { store, clock, context } = app;

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
      const now = clock.now();
      const reasons: string[] = [];
      const warnings: string[] = [];
      const feeds: Static<typeof Health>['feeds'] = {};
      const polls = context.ingestion?.status() ?? {};
      const failing = (name: string): string | undefined => {
        const p = polls[name];
        if (!p || p.failures === 0 || !p.lastError) return undefined;
        return `the ${name} feed's last ${p.failures === 1 ? 'poll' : `${p.failures} polls`} failed: ${p.lastError}`;
      };
      let databaseUp = true;
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
      } catch (err) {
        databaseUp = false;
        reasons.push(`database unreachable: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (databaseUp) {
        for (const name of REQUIRED_FEEDS) {
          if (feeds[name]) continue;
          const missing = `no ${name === 'auctions' ? 'auctions generation' : 'bazaar snapshot'} stored yet`;
          const why = failing(name) ?? (context.config.role === 'api' ? 'this process does not ingest (role api): see the ingest process\'s health' : undefined);
          reasons.push(why ? `${missing}: ${why}` : missing);
        }
      }
      for (const name of Object.keys(polls)) {
        const why = failing(name);
        // A required feed without data already has its failure among the reasons.
        if (why && !reasons.some((r) => r.endsWith(why))) warnings.push(why);
      }
      if (context.startupProblem) warnings.push(context.startupProblem);
      const status = reasons.length > 0 ? 'unavailable' : context.loading ? 'loading' : 'ok';
      if (status === 'loading') reasons.push(context.loading!);
      const body: Static<typeof Health> = {
        status,
        reasons,
        warnings,
        version: VERSION,
        role: context.config.role,
        database: store.dialect,
        dataSource: context.dataSource,
        simulated: context.dataSource === 'simulator',
        uptimeSeconds: Math.round((now - context.startedAt) / 1000),
        feeds,
        ...(context.ingestion && Object.keys(polls).length > 0
          ? { upstream: { url: context.ingestion.upstream, polls: Object.fromEntries(Object.entries(polls).flatMap(([name, p]) => (p ? [[name, pollsOf(p)]] : []))) } }
          : {}),
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
