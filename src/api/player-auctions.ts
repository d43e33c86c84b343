/**
 * A player's auctions and bids, their name, and players found by name (issue "Finding items").
 * The player is a Minecraft account uuid (32 hex characters, dashes allowed).
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { filtersFromQuery } from '../domain/filters.ts';
import { compactPlayerUuid, PLAYER_NAME } from '../domain/player-data.ts';
import { takesItemFilters } from '../http/openapi.ts';
import { badRequest, notFound } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { requireTier } from '../http/access.ts';
import { HttpProblem } from '../http/problem.ts';
import { MAX_PLAYER_EXPORT, MAX_PLAYER_NAME_LOOKUPS, PLAYER_PAGE_SIZE } from '../services/player-auctions.ts';
import { Enchantment, SoldAuction, soldAuction } from './auction-shapes.ts';

const PlayerParams = Type.Object({ playerUuid: Type.String({ description: 'Minecraft account uuid, 32 hex characters (dashes allowed)' }) });
const NameParams = Type.Object({ playerName: Type.String({ description: 'the start of a Minecraft name: 1–16 letters, digits or _' }) });
const PageQuery = Type.Object(
  { page: Type.Integer({ minimum: 0, maximum: 1000, default: 0 }) },
  { additionalProperties: Type.String(), description: 'any other query parameter is an auction filter (as on the auction routes)' },
);
const CONTROL = ['page', 'token', 'apiKey', 'apikey', 'key'];

const auctionFields = {
  auctionId: Type.String(),
  highestBid: Type.Number({ description: 'the sale price once sold' }),
  itemName: Type.String(),
  tag: Type.String(),
  end: Type.String({ format: 'date-time', description: 'the sale time once sold' }),
  startingBid: Type.Number(),
  bin: Type.Boolean(),
};
const AuctionResult = Type.Object(auctionFields);
const BidResult = Type.Object({ ...auctionFields, highestOwnBid: Type.Number() });
const NamesBody = Type.Array(Type.String({ maxLength: 36 }), {
  maxItems: MAX_PLAYER_NAME_LOOKUPS,
  description: `Minecraft account uuids (32 hex characters, dashes allowed), at most ${MAX_PLAYER_NAME_LOOKUPS}`,
});
const PlayerResult = Type.Object({ name: Type.String(), uuid: Type.String(), hitCount: Type.Integer({ description: 'skymarket does not count searches: always 0' }) });

/** A player uuid: 32 hex characters, lower case, dashes removed; else 400 `invalid_uuid`. */
function parsePlayerUuid(raw: string): string {
  const hex = compactPlayerUuid(String(raw));
  if (hex === undefined) throw badRequest('invalid_uuid', 'The provided string does not seem to be a valid minecraft account uuid.');
  return hex;
}

export async function playerAuctionRoutes(app: FastifyInstance) {
  // The auction routes' shared shapes, in this plugin's scope too (the export answers SoldAuctions).
  for (const schema of [Enchantment, SoldAuction]) app.addSchema(schema);
  const players = app.services.playerAuctions;
  const filterOf = (query: Record<string, unknown>) => players.compileFilters(filtersFromQuery(query, CONTROL));

  app.get<{ Params: Static<typeof PlayerParams>; Querystring: Static<typeof PageQuery> }>(
    '/api/player/:playerUuid/auctions',
    {
      schema: {
        tags: ['player'],
        ...takesItemFilters(),
        summary: `Auctions the player listed, newest end first, ${PLAYER_PAGE_SIZE} per page, auction filters applied`,
        params: PlayerParams,
        querystring: PageQuery,
        response: { 200: Type.Array(AuctionResult), ...problemResponses(400) },
      },
      config: { cache: 30 },
    },
    async (request) => {
      const player = parsePlayerUuid(request.params.playerUuid);
      return players.auctions(player, request.query.page, await filterOf(request.query));
    },
  );

  app.get<{ Params: Static<typeof PlayerParams>; Querystring: Static<typeof PageQuery> }>(
    '/api/player/:playerUuid/bids',
    {
      schema: {
        tags: ['player'],
        ...takesItemFilters(),
        summary: `Auctions the player bid on with their highest bid, newest end first, ${PLAYER_PAGE_SIZE} per page, auction filters applied`,
        params: PlayerParams,
        querystring: PageQuery,
        response: { 200: Type.Array(BidResult), ...problemResponses(400) },
      },
      config: { cache: 30 },
    },
    async (request) => {
      const player = parsePlayerUuid(request.params.playerUuid);
      return players.bids(player, request.query.page, await filterOf(request.query));
    },
  );

  app.get<{ Params: Static<typeof PlayerParams> }>(
    '/api/player/:playerUuid/name',
    {
      schema: {
        tags: ['player'],
        summary: "The player's Minecraft name as last seen (a JSON string); 404 when skymarket has never seen it",
        params: PlayerParams,
        response: { 200: Type.String({ examples: ['Technoblade'] }), ...problemResponses(400, 404) },
      },
      config: { cache: 300 },
    },
    async (request, reply) => {
      const player = parsePlayerUuid(request.params.playerUuid);
      const name = await players.name(player);
      if (name === undefined) throw notFound('player_not_found', `skymarket has not seen a name for the player ${player}`);
      // A JSON string, as the established service answers, not text/plain.
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(name));
    },
  );

  app.get<{ Params: Static<typeof PlayerParams> }>(
    '/api/player/:playerUuid/auctions/export',
    {
      schema: {
        tags: ['player'],
        summary: `Every auction the player sold (the newest ${MAX_PLAYER_EXPORT.toLocaleString('en')}), newest first, as SoldAuction[]: for your own Minecraft account only`,
        description:
          'Premium+ (like the auction archive export), and the account must have verified this Minecraft account (linked through the mod, or by the operator): ' +
          'otherwise 403 `player_not_verified`.',
        params: PlayerParams,
        response: { 200: Type.Array(Type.Ref('SoldAuction')), ...problemResponses(400, 401, 403) },
      },
      config: { tier: 'premium_plus', cache: 'no-store' },
    },
    async (request) => {
      const account = requireTier(request, 'premium_plus', 'The player auction export');
      const player = parsePlayerUuid(request.params.playerUuid);
      if (!(await players.isLinked(account.id, player))) {
        throw new HttpProblem(403, 'player_not_verified', 'Export the auctions of a Minecraft account you have verified (connect it through the mod).');
      }
      return (await players.soldAuctions(player)).map(soldAuction);
    },
  );

  app.post<{ Body: Static<typeof NamesBody> }>(
    '/api/player/names',
    {
      schema: {
        tags: ['player'],
        summary: `Names of up to ${MAX_PLAYER_NAME_LOOKUPS} players (uuid → name, as last seen), keyed as asked; players never seen are left out`,
        description: 'A uuid that is not 32 hex characters (dashes allowed) is 400 `invalid_uuid` naming it.',
        body: NamesBody,
        response: { 200: Type.Record(Type.String(), Type.String(), { examples: [{ b876ec32e396476ba1158438d83c67d4: 'Technoblade' }] }), ...problemResponses(400) },
      },
    },
    async (request) => {
      const uuids = request.body.map((asked) => {
        const uuid = compactPlayerUuid(asked);
        if (uuid === undefined) throw badRequest('invalid_uuid', `\`${asked.slice(0, 40)}\` is not a valid Minecraft account uuid.`);
        return { asked, uuid };
      });
      return players.names(uuids);
    },
  );

  app.get<{ Params: Static<typeof NameParams> }>(
    '/api/search/player/:playerName',
    {
      schema: {
        tags: ['player'],
        summary: 'Players whose name starts with this (at most 10), alphabetically',
        params: NameParams,
        response: { 200: Type.Array(PlayerResult), ...problemResponses(400) },
      },
      config: { cache: 60 },
    },
    async (request) => {
      const name = String(request.params.playerName).trim();
      if (!PLAYER_NAME.test(name)) throw badRequest('invalid_name', 'A player name is 1 to 16 letters, digits or underscores.');
      return players.search(name, 10);
    },
  );
}
