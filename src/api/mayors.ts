/**
 * Mayor terms in the established service's `ElectionPeriod` shape, from the election resource
 * ingestion stores (one record per election year).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { badRequest, notFound } from '../http/problem.ts';
import { parseTime } from '../http/params.ts';
import { isoTime, problemResponses } from '../http/schemas.ts';
import { MAX_PERIODS } from '../services/mayors.ts';

const Perk = Type.Object({ name: Type.String(), description: Type.String(), minister: Type.Boolean({ description: 'the perk the candidate brings as minister' }) });
const Candidate = Type.Object({ key: Type.String(), name: Type.String(), perks: Type.Array(Perk), votes: Type.Number() });
const Minister = Type.Object({ key: Type.String(), name: Type.String(), perk: Type.Union([Perk, Type.Null()]) });
const ElectionPeriod = Type.Object(
  {
    year: Type.Integer({ description: 'the SkyBlock year of the election' }),
    start: Type.String({ format: 'date-time', description: 'Late Spring 27 of that year, when the mayor took office' }),
    end: Type.String({ format: 'date-time', description: 'Late Spring 27 of the next year' }),
    id: Type.String(),
    winner: Type.Object({ ...Candidate.properties, minister: Type.Union([Minister, Type.Null()]) }),
    candidates: Type.Array(Candidate),
  },
  {
    $id: 'ElectionPeriod',
    examples: [
      {
        year: 419,
        start: '2026-11-25T08:55:00.000Z',
        end: '2026-11-30T12:55:00.000Z',
        id: '419',
        winner: {
          key: 'economist',
          name: 'Diana',
          perks: [{ name: 'Pet XP Buff', description: 'Gain 35% more pet XP.', minister: false }],
          votes: 784844,
          minister: { key: 'fishing', name: 'Marina', perk: { name: 'Fishing Festival', description: 'A fishing festival starts every month.', minister: true } },
        },
        candidates: [{ key: 'economist', name: 'Diana', perks: [{ name: 'Pet XP Buff', description: 'Gain 35% more pet XP.', minister: false }], votes: 784844 }],
      },
    ],
  },
);

const RangeQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 40, description: 'ISO-8601 date-time; default: as far back as the answer allows' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'ISO-8601 date-time; default now' })),
});
const YearParams = Type.Object({ year: Type.String({ description: 'the SkyBlock year of the election (a positive integer)' }) });

export async function mayorRoutes(app: FastifyInstance) {
  const mayors = app.services.mayors;

  app.get<{ Querystring: Static<typeof RangeQuery> }>(
    '/api/mayor',
    {
      schema: {
        tags: ['mayor'],
        summary: `Mayor terms overlapping [from, to], oldest first (at most ${MAX_PERIODS}, the newest): winner, votes, minister and every candidate, as stored from the election resource`,
        querystring: RangeQuery,
        response: { 200: Type.Array(ElectionPeriod), ...problemResponses(400) },
      },
      config: { cache: 120 },
    },
    async (request) => {
      const from = parseTime(request.query.from, 'from');
      const to = parseTime(request.query.to, 'to');
      if (from !== undefined && to !== undefined && from > to) throw badRequest('invalid_range', `from (${isoTime(from)}) must not be after to (${isoTime(to)}).`);
      return mayors.periods(from, to);
    },
  );

  app.get<{ Params: Static<typeof YearParams> }>(
    '/api/mayor/:year',
    {
      schema: {
        tags: ['mayor'],
        summary: 'The term of one election year: winner, votes, minister and every candidate',
        params: YearParams,
        response: { 200: ElectionPeriod, ...problemResponses(400, 404) },
      },
      config: { cache: 120 },
    },
    async (request) => {
      const raw = request.params.year;
      const year = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
      if (!(year >= 1)) throw badRequest('invalid_year', `year must be a positive SkyBlock year such as 400, got '${raw.slice(0, 40)}'.`);
      const period = await mayors.period(year);
      if (!period) throw notFound('election_not_found', `No election of year ${year} is stored (skymarket keeps the elections it has seen since it started ingesting).`);
      return period;
    },
  );
}
