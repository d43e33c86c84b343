/**
 * What a player or profile is worth (docs/valuation.md, "Networth"): the established
 * `POST /api/networth` (Profile → NetworthBreakDown) and skymarket's
 * `GET /api/player/{uuid}/networth` from the profiles ingestion fetched (queued when missing).
 * Handlers parse, call services/networth.ts, shape.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { badRequest, HttpProblem, notFound } from '../http/problem.ts';
import { isoTime, problemResponses } from '../http/schemas.ts';
import { MAX_PROFILE_MEMBERS, type ProfileNetworth } from '../services/networth.ts';

/** Largest posted profile: a coop's members with every container's NBT fit. */
export const NETWORTH_BODY_LIMIT = 8 * 1024 * 1024;

const PerCategory = Type.Record(Type.String(), Type.Number(), {
  description: 'coins per category: inventory, armor, equipment, wardrobe, ender_chest, personal_vault, backpacks, accessories, potion_bag, fishing_bag, quiver, pets, purse',
});

const MemberValueSchema = Type.Object({ fullValue: Type.Number(), valuePerCategory: PerCategory }, { $id: 'MemberValue' });

const ContainerSchema = Type.Object({
  name: Type.String({ description: 'the container: `inventory`, `wardrobe`, `backpack_3` …' }),
  category: Type.String(),
  value: Type.Number(),
  items: Type.Integer(),
  unknown: Type.Integer({ description: 'items with an id skymarket does not know (valued 0)' }),
  readable: Type.Boolean({ description: 'false: the container’s NBT could not be read; it counts 0' }),
});

const ProfileNetworthSchema = Type.Object({
  profileId: Type.Union([Type.String(), Type.Null()]),
  cuteName: Type.Union([Type.String(), Type.Null()]),
  selected: Type.Boolean(),
  fullValue: Type.Number({ description: 'the player’s total plus the profile’s bank' }),
  bank: Type.Number({ description: 'the profile’s bank balance (shared by a coop)' }),
  member: Type.Union([
    Type.Object({
      fullValue: Type.Number({ description: 'sum of valuePerCategory' }),
      purse: Type.Number(),
      valuePerCategory: PerCategory,
      containers: Type.Array(ContainerSchema),
      pets: Type.Object({ value: Type.Number(), count: Type.Integer(), unknown: Type.Integer() }),
      skipped: Type.Integer({ description: 'containers or pets past the size bounds, not valued' }),
      topItems: Type.Array(
        Type.Object({
          tag: Type.String(),
          container: Type.String({ description: 'the container’s name, or `pets`' }),
          count: Type.Integer(),
          value: Type.Number({ description: 'the stack’s value' }),
        }),
        { description: 'the member’s most valuable stacks (at most 10), most valuable first' },
      ),
    }),
    Type.Null(),
  ]),
});

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function networthRoutes(app: FastifyInstance) {
  const networth = app.services.networth;
  app.addSchema(MemberValueSchema);

  app.post<{ Body: Record<string, unknown> }>(
    '/api/networth',
    {
      bodyLimit: NETWORTH_BODY_LIMIT,
      schema: {
        tags: ['valuation'],
        summary: 'What a profile is worth (established shape: Profile → NetworthBreakDown)',
        description:
          `A SkyBlock profile as upstream's \`/v2/skyblock/profiles\` lists it (at most ${MAX_PROFILE_MEMBERS} members, ${NETWORTH_BODY_LIMIT} bytes). ` +
          'Every item of every container, the pets and the purse are valued per member (docs/valuation.md); `fullValue` adds the members and the bank. ' +
          'A container whose NBT cannot be read counts 0; an unknown item counts 0.',
        body: Type.Object({ members: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])) }, { additionalProperties: true }),
        response: {
          200: Type.Object({ fullValue: Type.Number(), member: Type.Union([Type.Record(Type.String(), Type.Ref('MemberValue')), Type.Null()]) }),
          ...problemResponses(400, 413),
        },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      const members = request.body['members'];
      if (isRecord(members) && Object.keys(members).length > MAX_PROFILE_MEMBERS) throw badRequest('too_many_members', `at most ${MAX_PROFILE_MEMBERS} members per profile`);
      const valued = await networth.ofProfile(request.body);
      return { fullValue: valued.fullValue, member: Object.fromEntries(valued.members.map((m) => [m.uuid, { fullValue: m.fullValue, valuePerCategory: m.valuePerCategory }])) };
    },
  );

  app.get<{ Params: { uuid: string }; Querystring: { profile?: string } }>(
    '/api/player/:uuid/networth',
    {
      schema: {
        tags: ['valuation', 'player'],
        summary: 'What a player is worth, per profile and per container, purse and bank included, from the stored profiles',
        description:
          'The player is a uuid (32 hex digits, dashes allowed) or a Minecraft name skymarket has seen (a seller, bidder or mod user; ' +
          'Mojang is not asked): an unknown name is 404 `player_not_found`. Reads the player’s profiles as ingestion last fetched them (needs UPSTREAM_API_KEY). When none are stored, the fetch is queued and the answer is ' +
          '202 with a problem body: retry in a few seconds. `profile` (a profile uuid or name) answers that profile only. Each profile’s `fullValue` is ' +
          'the player’s containers, pets and purse plus the profile’s bank.',
        params: Type.Object({ uuid: Type.String({ minLength: 1, maxLength: 64, description: 'player uuid or known name' }) }),
        querystring: Type.Object({ profile: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false }),
        response: {
          200: Type.Object({ player: Type.String(), fetchedAt: Type.String({ format: 'date-time' }), profiles: Type.Array(ProfileNetworthSchema) }),
          ...problemResponses(202, 400, 404, 429),
        },
      },
      config: { cache: 'no-store' },
    },
    async (request) => {
      const resolved = await networth.resolvePlayer(request.params.uuid);
      if (resolved === 'invalid') throw badRequest('invalid_uuid', 'a player is a uuid (32 hex digits, dashes allowed) or a Minecraft name (1–16 letters, digits, _)');
      if (resolved === 'unknown') throw notFound('player_not_found', `skymarket has not seen a player named ${request.params.uuid}`);
      const player = resolved.uuid;
      // Profile fetches are queued per client (account, else address), as for the craft filter.
      const client = request.account ? `account:${request.account.id}` : `ip:${request.clientIp}`;
      const answer = await networth.ofPlayer(player, request.query.profile, client);
      if (answer.status === 'known') return { player, fetchedAt: isoTime(answer.fetchedAt), profiles: answer.profiles.map((p) => profileWire(p)) };
      if (answer.status === 'queued') throw new HttpProblem(202, 'profile_queued', answer.reason, {}, { 'Retry-After': '5' });
      if (answer.status === 'refused') throw new HttpProblem(429, 'profile_queue_full', answer.reason, {}, { 'Retry-After': '60' });
      if (answer.status === 'failed') throw notFound('profile_unavailable', answer.reason);
      throw notFound('profile_not_found', answer.reason);
    },
  );
}

function profileWire(p: ProfileNetworth) {
  const m = p.members[0];
  return {
    profileId: p.profileId,
    cuteName: p.cuteName,
    selected: p.selected,
    fullValue: p.fullValue,
    bank: p.bank,
    member: m ? { fullValue: m.fullValue, purse: m.purse, valuePerCategory: m.valuePerCategory, containers: m.containers, pets: m.pets, skipped: m.skipped, topItems: m.topItems } : null,
  };
}
