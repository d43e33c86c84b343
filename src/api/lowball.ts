/**
 * Lowball offers: listing (own, by item) and deleting. Offers are created only through
 * the mod channel (src/mod/). Cursor pagination by creation time (`before`), newest
 * first; `limit` 1-100, default 20. Expired offers (7 days) are never returned
 * (services/lowball.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { lowballView } from '../domain/lowball.ts';
import { itemNotFound, ItemTagParams, parseItemTag } from '../http/params.ts';
import { badRequest, HttpProblem, notFound } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';

export const LowballOfferSchema = Type.Object(
  {
    userId: Type.Union([Type.String(), Type.Null()], { description: 'the offering account: your own on /own, null on the public listing' }),
    createdAt: Type.String({ format: 'date-time' }),
    offerId: Type.String({ format: 'uuid' }),
    itemTag: Type.Union([Type.String(), Type.Null()]),
    minecraftAccount: Type.String({ description: 'the offering Minecraft account, uuid with dashes' }),
    itemName: Type.Union([Type.String(), Type.Null()]),
    apiAuctionJson: Type.Optional(Type.String({ description: 'the item as auction JSON (a JSON string); omitted when unknown' })),
    filters: Type.Optional(Type.String({ description: "JSON object (as a string) of the item's filter values" })),
    askingPrice: Type.Integer(),
    lore: Type.Optional(Type.String()),
    itemCount: Type.Integer(),
  },
  { $id: 'LowballOffer' },
);

const Before = Type.String({ maxLength: 40, description: 'ISO-8601 timestamp cursor: only offers created before it' });
const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20 });
const OFFER_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

function parseBefore(before: string | undefined): number | undefined {
  if (before === undefined) return undefined;
  const ms = Date.parse(before);
  if (!Number.isFinite(ms)) throw badRequest('invalid_parameters', `query.before must be an ISO-8601 date-time, got '${before}'`, { errors: { 'query.before': ['must be an ISO-8601 date-time'] } });
  return ms;
}

function noVerifiedAccount(): HttpProblem {
  return badRequest('no_verified_account', 'You need to verify on a minecraft account with our mod first (see docs/mod-protocol.md, link.start).');
}

export async function lowballRoutes(app: FastifyInstance) {
  const lowball = app.services.lowball;
  app.addSchema(LowballOfferSchema);

  app.get(
    '/api/lowball/own',
    {
      schema: {
        tags: ['lowball'],
        summary: "The caller's lowball offers, newest first",
        querystring: Type.Object({ before: Type.Optional(Before), limit: Type.Optional(Limit) }, { additionalProperties: false }),
        response: { 200: Type.Array(Type.Ref('LowballOffer')), ...problemResponses(400, 401) },
      },
      config: { auth: 'token', cache: 'no-store' },
    },
    async (request) => {
      const account = request.account!;
      const { before, limit = 20 } = request.query as { before?: string; limit?: number };
      const offers = await lowball.own(account.id, { before: parseBefore(before), limit });
      if ('miss' in offers) throw noVerifiedAccount();
      return offers.map(lowballView);
    },
  );

  app.get(
    '/api/lowball/item/:itemTag',
    {
      schema: {
        tags: ['lowball'],
        summary: 'Lowball offers for an item, newest first; other query parameters filter on the item attributes',
        description:
          'Query parameters other than `before` and `limit` are filters: an offer matches when its item has every given attribute with that value ' +
          '(keys and values case-insensitive), e.g. `?reforge=heroic&stars=5`. At most 10 filters.',
        params: ItemTagParams,
        querystring: Type.Object(
          { before: Type.Optional(Before), limit: Type.Optional(Limit) },
          { additionalProperties: Type.String({ maxLength: 100 }), maxProperties: 12 },
        ),
        response: { 200: Type.Array(Type.Ref('LowballOffer')), ...problemResponses(400, 404) },
      },
      config: { cache: 30 },
    },
    async (request) => {
      const tag = parseItemTag((request.params as ItemTagParams).itemTag);
      const { before, limit = 20, ...filters } = request.query as Record<string, string> & { before?: string; limit?: number };
      const offers = await lowball.forItem(tag, { before: parseBefore(before), limit }, filters);
      if ('miss' in offers) throw itemNotFound(tag);
      // The public listing does not name the offering account (userId, an internal id; the field
      // stays, null as its shape allows); minecraftAccount says who offers. /own keeps it.
      return offers.map((o) => ({ ...lowballView(o), userId: null }));
    },
  );

  app.delete(
    '/api/lowball/offer/:offerId',
    {
      schema: {
        tags: ['lowball'],
        summary: "Deletes one of the caller's own lowball offers (another's is 404)",
        params: Type.Object({ offerId: Type.String({ maxLength: 36 }) }),
        response: {
          200: Type.Object({ offerId: Type.String(), deleted: Type.Literal(true) }),
          ...problemResponses(400, 401, 404),
        },
      },
      config: { auth: 'token', cache: 'no-store' },
    },
    async (request) => {
      const { offerId } = request.params as { offerId: string };
      if (!OFFER_ID.test(offerId)) throw badRequest('invalid_offer_id', 'offerId must be a uuid (8-4-4-4-12 hex)');
      const id = offerId.toLowerCase();
      // Someone else's offer answers exactly like a missing one.
      if (!(await lowball.deleteOwn(request.account!.id, id))) throw notFound('offer_not_found', `No offer ${id} of yours`);
      return { offerId: id, deleted: true as const };
    },
  );
}
