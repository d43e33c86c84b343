/**
 * Flip feeds (/api/flip/*): every handler reads the flip engine's latest results through the
 * flips service (services/flips.ts; the engine in src/market/flips.ts recomputes off the
 * request path when inputs change). Every response
 * says when it was computed: `X-Computed-At` (ISO) and `Last-Modified`; elements carry their
 * own timestamps as well. Before the first computation a feed is `[]`.
 * Models: docs/flips.md.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Type, type TSchema } from 'typebox';
import { tierAtLeast } from '../domain/tiers.ts';
import type { AttributeSort } from '../domain/flips/attribute.ts';
import { isoTime, problemResponses } from '../http/schemas.ts';
import type { BazaarFeed, FlipFeed } from '../services/flips.ts';

const TAGS = ['flips'];
const Str = Type.String();
const Num = Type.Number();
const Int = Type.Integer();
const Time = Type.String({ format: 'date-time' });

const BazaarFlip = Type.Object({
  itemTag: Str,
  buyPrice: Type.Number({ description: 'instant-buy price (best sell offer)' }),
  sellPrice: Type.Number({ description: 'instant-sell price (best buy order)' }),
  profitPerHour: Type.Number({ description: 'coins per hour after the 1.25 % tax' }),
  volume: Type.Number({ description: 'units per hour: min(instant buys, instant sells) per hour' }),
  estimatedFees: Type.Number({ description: 'tax per hour, already deducted' }),
  timestamp: Time,
  medianBuyPrice: Type.Number({ description: '7-day median instant-buy price (0 when unknown)' }),
  estimatedBuyFillSeconds: Num,
  estimatedSellFillSeconds: Num,
});
const SpreadFlip = Type.Object({ flip: BazaarFlip, itemName: Str, isManipulated: Type.Boolean() });

const DemandFlip = Type.Object({
  itemTag: Str,
  currentProfitPerHour: Num,
  timestamp: Time,
  volume: Type.Number({ description: 'real-time units per hour (last 30 minutes of snapshots)' }),
  buyPrice: Type.Number({ description: 'price to place the buy order at' }),
  sellPrice: Type.Number({ description: 'price to place the sell offer at' }),
  medianValue: Num,
});
const DemandSpreadFlip = Type.Object({ flip: DemandFlip, itemName: Str });

const ResidualEntryDto = Type.Object({
  itemTag: Str,
  itemName: Str,
  hourlyVolume: Num,
  targetHoldTimeHours: Num,
  capacity: Type.Number({ description: 'hourlyVolume × targetHoldTimeHours' }),
  takenByOpenOrders: Type.Number({ description: 'capacity held by open orders players’ mods report' }),
  remainingCapacity: Num,
  buyOrderPrice: Num,
  sellOfferPrice: Num,
  spread: Type.Number({ description: 'after-tax margin per unit' }),
  value: Type.Number({ description: 'remainingCapacity × spread (ranking)' }),
  timestamp: Time,
});

const BookFlip = Type.Object({
  startTag: Str,
  endTag: Str,
  profitPerHour: Num,
  hourlyVolume: Type.Number({ description: 'level N+1 books per hour' }),
  estimatedFees: Num,
  timestamp: Time,
  startBuyPrice: Num,
  endSellPrice: Num,
});

const MayorDiffFlip = Type.Object({
  itemTag: Str,
  itemName: Str,
  averageMayorMedianDiff: Num,
  volume: Num,
  expectedPrice: Num,
  medianPrice: Num,
  nextMayor: Str,
  usedPricesAfterCurrentMayor: Type.Boolean(),
  usedPricesBeforeNextMayor: Type.Boolean(),
  currentMayor: Str,
});

const ReverseNpcFlip = Type.Object({
  npcName: Str,
  itemId: Str,
  itemName: Str,
  npcBuyPrice: Num,
  sellPrice: Num,
  profit: Num,
  profitMargin: Num,
  costs: Type.Array(Type.Object({ itemName: Str, price: Num, amount: Num, itemTag: Str })),
  volume: Num,
  profitPerHour: Num,
  lastUpdated: Time,
});

const NpcFlip = Type.Object({
  itemId: Str,
  itemName: Str,
  buyPrice: Num,
  npcSellPrice: Num,
  profit: Num,
  hourlySells: Num,
  profitMargin: Num,
  profitPerHour: Num,
  lastUpdated: Time,
});

const FusionStep = Type.Object({ inputs: Type.Record(Str, Num), output: Str, outputCount: Num });
const FuseFlip = Type.Object({
  inputs: Type.Record(Str, Num),
  inputCost: Num,
  volume: Num,
  inputVolume: Num,
  outputValue: Num,
  output: Str,
  outputCount: Num,
  profit: Num,
  profitPerHour: Num,
  steps: Type.Union([Type.Array(FusionStep), Type.Null()]),
  depth: Int,
});

const CopperFlip = Type.Object({
  itemTag: Str,
  itemName: Str,
  buyPrice: Num,
  analyzeCost: Num,
  copperYield: Num,
  totalCost: Num,
  copperPerCoin: Num,
  coinsPerCopper: Num,
  timestamp: Time,
  volume: Num,
});

const AuctionKey = Type.Object({
  reforge: Type.Union([Str, Type.Null()]),
  tier: Type.String({ description: 'the established Tier enum (UNKNOWN when the rarity is not known)' }),
  enchants: Type.Array(Type.Object({ type: Str, lvl: Int })),
  modifiers: Type.Array(Type.Object({ key: Str, value: Str })),
  count: Int,
});
const AttributeFlip = Type.Object({
  tag: Str,
  itemName: Str,
  auctionToBuy: Str,
  auctionPrice: Int,
  profitAfterTax: Int,
  ingredients: Type.Array(Type.Object({ itemId: Str, attributeName: Type.Union([Str, Type.Null()]), amount: Num, price: Int })),
  startingKey: AuctionKey,
  endingKey: AuctionKey,
  target: Int,
  estimatedCraftingCost: Int,
  foundAt: Time,
  volume: Num,
});

const SORTS = ['profit', 'price', 'volume', 'vol', 'age'] as const;

function list(schema: TSchema): TSchema {
  return Type.Array(schema);
}

/** A feed's flips, the response marked with the time they were computed. */
function computed<T>(reply: FastifyReply, feed: FlipFeed<T>): T[] {
  const at = feed.computedAt;
  if (at) {
    reply.header('X-Computed-At', isoTime(at));
    reply.header('Last-Modified', new Date(at).toUTCString());
  }
  return feed.flips;
}

export async function flips(app: FastifyInstance) {
  const service = app.services.flips;

  const bazaar = (reply: FastifyReply, feed: BazaarFeed) => computed(reply, service.bazaar(feed));

  app.get(
    '/api/flip/update/when',
    {
      schema: { tags: TAGS, summary: 'Time of the last loaded market update the flips were computed from', response: { 200: Type.Union([Time, Type.Null()]) } },
      config: { cache: 1800 },
    },
    async (_request, reply) => {
      // A JSON string (quoted), as the established API sends its DateTime.
      reply.type('application/json; charset=utf-8');
      const last = service.lastUpdate();
      return JSON.stringify(last ? isoTime(last) : null);
    },
  );

  app.get(
    '/api/flip/bazaar/spread',
    { schema: { tags: TAGS, summary: 'Bazaar spread flips: instant-buy minus instant-sell spread × tradable volume, after tax', response: { 200: list(SpreadFlip) } }, config: { cache: 20 } },
    async (_request, reply) => bazaar(reply, 'spread'),
  );

  app.get(
    '/api/flip/bazaar/spread/deemand',
    {
      schema: { tags: TAGS, summary: 'Demand spread flips: top order to top order, ranked by real-time demand', response: { 200: list(DemandSpreadFlip) } },
      config: { auth: 'token', cache: 'no-store' },
    },
    async (_request, reply) => bazaar(reply, 'demand'),
  );

  app.get<{ Querystring: { targetHoldTimeHours: number } }>(
    '/api/flip/bazaar/residual',
    {
      schema: {
        tags: TAGS,
        summary: 'Residual flips: capacity not taken by open orders × spread, by value descending',
        querystring: Type.Object({
          targetHoldTimeHours: Type.Number({ default: 1.0, exclusiveMinimum: 0, maximum: 168, description: 'scales hourly volume into the per-cycle capacity' }),
        }),
        response: { 200: list(ResidualEntryDto), ...problemResponses(400) },
      },
      config: { cache: 20 },
    },
    async (request, reply) => {
      return computed(reply, service.residual(request.query.targetHoldTimeHours));
    },
  );

  app.get(
    '/api/flip/bazaar/books',
    { schema: { tags: TAGS, summary: 'Book flips: combine two level-N enchanted books into level N+1', response: { 200: list(BookFlip) } }, config: { cache: 20 } },
    async (_request, reply) => bazaar(reply, 'books'),
  );

  app.get(
    '/api/flip/mayor',
    {
      schema: { tags: TAGS, summary: 'Mayor flips: prices expected to change with the next mayor', response: { 200: list(MayorDiffFlip) } },
      config: { auth: 'token', tier: 'premium', cache: 'no-store' },
    },
    async (_request, reply) => {
      return computed(reply, service.mayor());
    },
  );

  app.get(
    '/api/flip/npc',
    { schema: { tags: TAGS, summary: 'Buy from an NPC shop, sell on the bazaar (ReverseNpcFlip)', response: { 200: list(ReverseNpcFlip) } }, config: { cache: 20 } },
    async (_request, reply) => bazaar(reply, 'reverseNpc'),
  );

  app.get<{ Querystring: { requestRefresh: boolean } }>(
    '/api/flip/npc/reverse',
    {
      schema: {
        tags: TAGS,
        summary: 'Buy on the bazaar, sell to an NPC (NpcFlip); requestRefresh recomputes now for Premium',
        querystring: Type.Object({ requestRefresh: Type.Boolean({ default: false, description: 'recompute now; honoured for Premium and above only' }) }),
        response: { 200: list(NpcFlip), ...problemResponses(400) },
      },
      config: { auth: 'token', cache: 'no-store' },
    },
    async (request, reply) => {
      if (request.query.requestRefresh) {
        const premium = request.account !== null && tierAtLeast(request.account.tier, 'premium');
        let refresh = premium ? 'done' : 'ignored (Premium only)';
        if (premium) {
          // A failed recomputation is the server's problem, not the caller's: serve the last results and say so.
          const outcome = await service.refreshNow();
          if (!outcome.ok) {
            request.log.error({ err: outcome.error }, 'requested flip recomputation failed');
            refresh = 'failed (the last results are served)';
          }
        }
        reply.header('X-Refresh', refresh);
      }
      return bazaar(reply, 'npc');
    },
  );

  app.get(
    '/api/flip/fusion',
    { schema: { tags: TAGS, summary: 'Single-step shard fusion flips', response: { 200: list(FuseFlip) } }, config: { cache: 20 } },
    async (_request, reply) => bazaar(reply, 'fusion'),
  );

  app.get(
    '/api/flip/fusion/multistep',
    {
      schema: { tags: TAGS, summary: 'Multi-step shard fusion flips (chains up to 3 levels) with steps and depth', response: { 200: list(FuseFlip) } },
      config: { auth: 'token', tier: 'starter_premium', cache: 'no-store' },
    },
    async (_request, reply) => bazaar(reply, 'multistep'),
  );

  app.get(
    '/api/flip/copper',
    { schema: { tags: TAGS, summary: 'Copper flips: coins per copper of buying greenhouse crops and analysing them', response: { 200: list(CopperFlip) } }, config: { cache: 60 } },
    async (_request, reply) => bazaar(reply, 'copper'),
  );

  app.get<{ Querystring: { sort: (typeof SORTS)[number] } }>(
    '/api/flip/attribute',
    {
      schema: {
        tags: TAGS,
        summary: 'Upgrade flips: buy a cheaper variant, apply bazaar-bought upgrades, sell at the target median',
        querystring: Type.Object({
          sort: Type.Union(SORTS.map((s) => Type.Literal(s)), { default: 'profit', description: 'profit, price, volume (or vol), age' }),
        }),
        response: { 200: list(AttributeFlip), ...problemResponses(400) },
      },
      config: { auth: 'token', tier: 'premium', cache: 'no-store' },
    },
    async (request, reply) => {
      const sort: AttributeSort = request.query.sort === 'vol' ? 'volume' : request.query.sort;
      return computed(reply, service.attribute(sort));
    },
  );
}

export const flipRoutes = flips;
