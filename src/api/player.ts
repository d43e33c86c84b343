/**
 * Player-scoped data read with a player API key (`config.auth: 'apiKey'`): the key's
 * player's extracted state, current bazaar orders and completed bazaar flips, as the
 * mod last uploaded them. A key reads only its own player's data: the player comes from
 * the key, never from a parameter (services/players.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { flipView } from '../domain/player-data.ts';
import { problemResponses } from '../http/schemas.ts';
import { isoTime } from '../http/schemas.ts';

const Any = Type.Unknown();
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const ExtractedInfo = Type.Object(
  {
    currentServer: Nullable(Type.String()),
    currentLocation: Nullable(Type.String()),
    lastLocationChange: Type.String({ format: 'date-time' }),
    heartOfTheMountain: Any,
    heartOfTheForest: Any,
    agathaLevel: Type.Number(),
    shardCounts: Any,
    attributeLevel: Any,
    composter: Any,
    activePet: Any,
    pets: Any,
    weaponInHuntaxe: Any,
    huntingToolkitItems: Any,
    playerElectionVote: Any,
    mithrilPowder: Type.Number(),
    currentTask: Nullable(Type.String()),
    currentTaskSince: Type.String({ format: 'date-time' }),
    claimedTask: Nullable(Type.String()),
    claimedAt: Type.String({ format: 'date-time' }),
    currentSession: Any,
    purse: Type.Number({ description: '0 unknown, -1 outside SkyBlock' }),
    bits: Type.Number(),
    boosterCookieExpires: Type.String({ format: 'date-time' }),
    kuudraStart: Type.String({ format: 'date-time' }),
    katStatus: Any,
    forgeItems: Any,
    collections: Type.Optional(Type.Record(Type.String(), Type.Integer(), { description: 'unlocked tier per collection (uploaded by the mod)' })),
    skills: Type.Optional(Type.Record(Type.String(), Type.Integer(), { description: 'level per skill (uploaded by the mod)' })),
    slayers: Type.Optional(Type.Record(Type.String(), Type.Integer(), { description: 'level per slayer (uploaded by the mod)' })),
  },
  { $id: 'ExtractedInfo', description: 'every field present: fields never uploaded carry defaults (0001-01-01 for times, 0, null for objects and lists)' },
);

const Fill = Type.Object({ playerName: Nullable(Type.String()), amount: Type.Integer(), timeStamp: Type.String({ format: 'date-time' }) });
const Offer = Type.Object(
  {
    isSell: Type.Boolean(),
    itemTag: Nullable(Type.String()),
    itemName: Nullable(Type.String()),
    amount: Type.Integer({ description: 'order size' }),
    filled: Type.Integer({ description: 'units filled at the last sync (skymarket extension)' }),
    pricePerUnit: Type.Number(),
    created: Type.String({ format: 'date-time' }),
    customers: Type.Union([Type.Array(Fill), Type.Null()]),
  },
  { $id: 'BazaarOrder' },
);
const CompletedBazaarFlip = Type.Object(
  {
    playerUuid: Type.String(),
    year: Type.Integer({ description: 'SkyBlock year of the sale' }),
    itemTag: Nullable(Type.String()),
    itemName: Nullable(Type.String()),
    amount: Type.Integer(),
    buyPrice: Type.Integer({ description: 'coins × 10' }),
    sellPrice: Type.Integer({ description: 'coins × 10' }),
    profit: Type.Integer({ description: 'coins × 10' }),
    soldAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'CompletedBazaarFlip' },
);

export async function playerRoutes(app: FastifyInstance) {
  const players = app.services.players;
  for (const schema of [ExtractedInfo, Offer, CompletedBazaarFlip]) app.addSchema(schema);
  const keyQuery = Type.Object({
    apiKey: Type.Optional(Type.String()),
    apikey: Type.Optional(Type.String()),
    key: Type.Optional(Type.String()),
  });

  app.get(
    '/api/player/extracted',
    {
      schema: {
        tags: ['player'],
        summary: "The key's player's extracted in-game state (attributes, booster cookie, composter, HOTM/HOTF, purse, bits, pets …)",
        querystring: keyQuery,
        response: { 200: Type.Ref('ExtractedInfo'), ...problemResponses(401) },
      },
      config: { auth: 'apiKey', cache: 'no-store' },
    },
    async (request) => players.extracted(request.playerKey!),
  );

  app.get(
    '/api/player/bazaar/orders',
    {
      schema: {
        tags: ['player'],
        summary: "The key's player's current bazaar orders (size, price, last known fill state)",
        querystring: keyQuery,
        response: { 200: Type.Array(Type.Ref('BazaarOrder')), ...problemResponses(401) },
      },
      config: { auth: 'apiKey', cache: 'no-store' },
    },
    async (request) => {
      const orders = await players.orders(request.playerKey!);
      return orders.map((o) => ({
        isSell: o.isSell,
        itemTag: o.itemTag,
        itemName: o.itemName,
        amount: o.amount,
        filled: o.filled,
        pricePerUnit: o.pricePerUnit,
        created: isoTime(o.created),
        customers: o.customers ? o.customers.map((c) => ({ playerName: c.playerName, amount: c.amount, timeStamp: isoTime(c.timeStamp) })) : null,
      }));
    },
  );

  app.get(
    '/api/player/bazaar/flips',
    {
      schema: {
        tags: ['player'],
        summary: "The key's player's completed bazaar flips, newest first (prices and profit in coins × 10)",
        querystring: keyQuery,
        response: { 200: Type.Array(Type.Ref('CompletedBazaarFlip')), ...problemResponses(401) },
      },
      config: { auth: 'apiKey', cache: 'no-store' },
    },
    async (request) => {
      const key = request.playerKey!;
      return (await players.flips(key)).map((f) => flipView(key.playerUuid, f));
    },
  );
}
