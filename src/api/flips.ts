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
import type { PreparedAnswer } from '../http/prepared-answers.ts';
import type { FlipFeed } from '../services/flips.ts';
import { ProfitSchema } from './craft.ts';

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

const ForgeFlip = Type.Object({
  craftData: ProfitSchema,
  duration: Type.Integer({ description: 'forge time of the recipe, seconds' }),
  requiredHotMLevel: Type.Integer({ description: 'Heart of the Mountain tier the recipe needs (0 when none)' }),
  profitPerHour: Type.Number({ description: 'craftData.profit (after the sale fee) per hour of forge time, ingredientForgeSeconds included' }),
  requirements: Type.Union([Type.Record(Str, Int), Type.Null()], { description: 'other requirements of the item: collection, skill or slayer name → level' }),
  ingredientForgeSeconds: Type.Integer({ description: 'skymarket: forge time of the ingredients the plan forges itself (the longest)' }),
});

const Rarity = Type.String({ description: 'the established Tier enum' });
const KatUpgradeCost = Type.Object({
  name: Str,
  baseRarity: Rarity,
  hours: Type.Number({ description: 'upgrade time' }),
  cost: Type.Number({ description: 'coins Kat asks' }),
  material: Type.Union([Str, Type.Null()], { description: 'the first material, null when none' }),
  amount: Type.Number({ description: 'amount of material (0 when none)' }),
  materials: Type.Union([Type.Record(Str, Num), Type.Null()], { description: 'every material, tag → amount' }),
  itemTag: Str,
});
const KatFlip = Type.Object({
  volume: Type.Number({ description: 'sales of the pet (any rarity) in the last 24 hours' }),
  median: Type.Number({ description: 'median of the cheapest active BINs at the target rarity' }),
  upgradeCost: Num,
  materialCost: Type.Number({ description: 'materials at the current bazaar/auction prices, bought as the craft flips buy ingredients' }),
  originAuction: Str,
  coreData: KatUpgradeCost,
  targetRarity: Rarity,
  profit: Type.Number({ description: 'referencePrice after the auction fee − purchaseCost − upgradeCost − materialCost' }),
  referenceAuction: Str,
  purchaseCost: Num,
  originAuctionName: Str,
  referencePrice: Type.Number({ description: 'skymarket: the lowest BIN of the target rarity' }),
});

/** Header on a forge list asked for a player, saying whether and why it is (not) filtered by their HotM tier. */
export const FORGE_FILTER_HEADER = 'x-forge-filter';

const SORTS = ['profit', 'price', 'volume', 'vol', 'age'] as const;

const UnderpricedAuction = Type.Object({
  uuid: Type.String({ description: 'the auction' }),
  tag: Str,
  itemName: Str,
  count: Int,
  price: Type.Number({ description: 'what the listing asks, for the whole stack' }),
  value: Type.Number({ description: 'the stack\'s value (docs/valuation.md)' }),
  valueAfterFees: Type.Number({ description: 'the value less the auction fees of reselling at it' }),
  profit: Type.Number({ description: 'expected profit: valueAfterFees − price (the ranking)' }),
  percentBelow: Type.Number({ description: 'how far the price is below valueAfterFees, in %' }),
  confidence: Type.Number({ description: 'the value\'s confidence, 0–1' }),
  comparables: Type.Integer({ description: 'comparable sales behind the value' }),
  medianKey: Type.String({ description: 'the comparables\' key' }),
  listedAt: Time,
});

function list(schema: TSchema): TSchema {
  return Type.Array(schema);
}

/** The headers marking an answer with the time its flips were computed, in the order they are sent. */
function computedHeaders(at: number): { 'last-modified': string; 'x-computed-at': string } {
  return { 'last-modified': new Date(at).toUTCString(), 'x-computed-at': isoTime(at) };
}

/** A feed's flips, the response marked with the time they were computed (serialised per request: the variants of a feed). */
function computed<T>(reply: FastifyReply, feed: FlipFeed<T>): T[] {
  if (feed.computedAt !== null) reply.headers(computedHeaders(feed.computedAt));
  return feed.flips;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * One feed's default answer, prepared once per computation in the registry of prepared answers
 * (http/prepared-answers.ts): the flips serialised by the route's response schema (the bytes
 * Fastify would send), marked with the computed time. Every computation replaces a feed's flips
 * array: that array is the answer's generation. `current` is what the stored-response fast path
 * (http/stored-responses.ts) sends ahead of Fastify; `send` is the handler's answer, preparing the
 * body on the first request after a computation (the serialiser is the route's).
 */
function preparedFeed<T>(app: FastifyInstance, name: string, read: () => FlipFeed<T>) {
  const answers = app.prepared.define<T[], FastifyReply>({
    name: `flips:${name}`,
    generation: () => read().flips,
    build: (_key, _reply) => {
      const feed = read();
      if (feed.computedAt === null) return undefined;
      const { 'last-modified': lastModified, ...headers } = computedHeaders(feed.computedAt);
      return { value: feed.flips, lastModified, headers };
    },
    // The route's schema serialiser (fast-json-stringify) gives a string.
    serialize: (flips, reply) => reply.serialize(flips) as string,
    maxEntries: 1,
  });
  return {
    current(): PreparedAnswer | undefined {
      return answers.current('');
    },
    send(reply: FastifyReply): FastifyReply | T[] | Promise<FastifyReply | T[]> {
      const feed = read();
      // Before the first computation: `[]`, unmarked.
      if (feed.computedAt === null) return feed.flips;
      const ready = answers.current('');
      // The fast path's order: the type, Last-Modified, then the rest.
      const sendBody = (body: PreparedAnswer) => reply.type(JSON_TYPE).header('last-modified', body.lastModified).headers(body.headers ?? {}).send(body.plain);
      if (ready) return sendBody(ready);
      return answers.get('', reply).then((body) => (body ? sendBody(body) : read().flips));
    },
  };
}

export async function flips(app: FastifyInstance) {
  const service = app.services.flips;

  /**
   * A public feed: its default answer prepared once per computation and, for requests without a
   * query string, sent by the stored-response fast path with the route's caching (`cacheSeconds`,
   * the route's `config.cache`). Returns the handler's way to send the default answer.
   */
  function publicFeed<T>(url: string, cacheSeconds: number, read: () => FlipFeed<T>): (reply: FastifyReply) => FastifyReply | T[] | Promise<FastifyReply | T[]> {
    const feed = preparedFeed<T>(app, url, read);
    app.storedResponses.add({ url, prefix: url, suffix: '', exact: true, cacheSeconds, contentType: JSON_TYPE, body: () => feed.current() });
    return (reply) => feed.send(reply);
  }
  /** A public feed without parameters: the route, its default answer on the fast path. */
  function publicRoute<T>(url: string, summary: string, item: TSchema, cacheSeconds: number, read: () => FlipFeed<T>): void {
    const send = publicFeed(url, cacheSeconds, read);
    app.get(url, { schema: { tags: TAGS, summary, response: { 200: list(item) } }, config: { cache: cacheSeconds } }, (_request, reply) => send(reply));
  }
  /** A feed behind a token: its answer prepared once per computation, sent through Fastify (the auth hook decides who gets it). */
  function gatedFeed<T>(name: string, read: () => FlipFeed<T>): (reply: FastifyReply) => FastifyReply | T[] | Promise<FastifyReply | T[]> {
    const feed = preparedFeed<T>(app, name, read);
    return (reply) => feed.send(reply);
  }

  // A JSON string (quoted), as the established API sends its DateTime; prepared per update time.
  const WHEN_URL = '/api/flip/update/when';
  const WHEN_CACHE_SECONDS = 1800;
  const when = app.prepared.define({
    name: 'flips:update-when',
    generation: () => service.lastUpdate(),
    build: () => {
      const at = service.lastUpdate();
      return { value: at ? isoTime(at) : null };
    },
    maxEntries: 1,
  });
  /** The prepared answer, built synchronously when the update time moved (a build without I/O). */
  const whenBody = (): PreparedAnswer => when.current('') ?? when.prepare('', undefined);
  app.storedResponses.add({ url: WHEN_URL, prefix: WHEN_URL, suffix: '', exact: true, cacheSeconds: WHEN_CACHE_SECONDS, contentType: JSON_TYPE, body: whenBody });
  app.get(
    WHEN_URL,
    {
      schema: { tags: TAGS, summary: 'Time of the last loaded market update the flips were computed from', response: { 200: Type.Union([Time, Type.Null()]) } },
      config: { cache: WHEN_CACHE_SECONDS },
    },
    (_request, reply) => reply.type(JSON_TYPE).send(whenBody().plain),
  );

  publicRoute('/api/flip/bazaar/spread', 'Bazaar spread flips: instant-buy minus instant-sell spread × tradable volume, after tax', SpreadFlip, 20, () => service.bazaar('spread'));

  const demand = gatedFeed('demand', () => service.bazaar('demand'));
  app.get(
    '/api/flip/bazaar/spread/deemand',
    {
      schema: { tags: TAGS, summary: 'Demand spread flips: top order to top order, ranked by real-time demand', response: { 200: list(DemandSpreadFlip) } },
      config: { auth: 'token', cache: 'no-store' },
    },
    (_request, reply) => demand(reply),
  );

  const DEFAULT_HOLD_HOURS = 1;
  const RESIDUAL_URL = '/api/flip/bazaar/residual';
  const RESIDUAL_CACHE_SECONDS = 20;
  const residual = publicFeed(RESIDUAL_URL, RESIDUAL_CACHE_SECONDS, () => service.residual(DEFAULT_HOLD_HOURS));
  app.get<{ Querystring: { targetHoldTimeHours: number } }>(
    RESIDUAL_URL,
    {
      schema: {
        tags: TAGS,
        summary: 'Residual flips: capacity not taken by open orders × spread, by value descending',
        querystring: Type.Object({
          targetHoldTimeHours: Type.Number({ default: DEFAULT_HOLD_HOURS, exclusiveMinimum: 0, maximum: 168, description: 'scales hourly volume into the per-cycle capacity' }),
        }),
        response: { 200: list(ResidualEntryDto), ...problemResponses(400) },
      },
      config: { cache: RESIDUAL_CACHE_SECONDS },
    },
    (request, reply) => {
      const hours = request.query.targetHoldTimeHours;
      return hours === DEFAULT_HOLD_HOURS ? residual(reply) : computed(reply, service.residual(hours));
    },
  );

  publicRoute('/api/flip/bazaar/books', 'Book flips: combine two level-N enchanted books into level N+1', BookFlip, 20, () => service.bazaar('books'));

  const mayor = gatedFeed('mayor', () => service.mayor());
  app.get(
    '/api/flip/mayor',
    {
      schema: { tags: TAGS, summary: 'Mayor flips: prices expected to change with the next mayor', response: { 200: list(MayorDiffFlip) } },
      config: { auth: 'token', tier: 'premium', cache: 'no-store' },
    },
    (_request, reply) => mayor(reply),
  );

  publicRoute('/api/flip/npc', 'Buy from an NPC shop, sell on the bazaar (ReverseNpcFlip)', ReverseNpcFlip, 20, () => service.bazaar('reverseNpc'));

  const npc = gatedFeed('npc', () => service.bazaar('npc'));
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
      return npc(reply);
    },
  );

  publicRoute('/api/flip/fusion', 'Single-step shard fusion flips', FuseFlip, 20, () => service.bazaar('fusion'));

  const multistep = gatedFeed('multistep', () => service.bazaar('multistep'));
  app.get(
    '/api/flip/fusion/multistep',
    {
      schema: { tags: TAGS, summary: 'Multi-step shard fusion flips (chains up to 3 levels) with steps and depth', response: { 200: list(FuseFlip) } },
      config: { auth: 'token', tier: 'starter_premium', cache: 'no-store' },
    },
    (_request, reply) => multistep(reply),
  );

  publicRoute('/api/flip/copper', 'Copper flips: coins per copper of buying greenhouse crops and analysing them', CopperFlip, 60, () => service.bazaar('copper'));

  const FORGE_URL = '/api/flip/forge';
  const FORGE_CACHE_SECONDS = 300;
  const forge = publicFeed(FORGE_URL, FORGE_CACHE_SECONDS, () => service.forge());
  app.get<{ Querystring: { uuid?: string } }>(
    FORGE_URL,
    {
      schema: {
        tags: TAGS,
        summary: "Forge flips: profitable forge recipes (the craft flips' prices) per hour of forge time; with uuid, those the player's HotM tier allows",
        querystring: Type.Object({
          uuid: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{32}$|^[0-9a-fA-F-]{36}$', description: 'player uuid: only the recipes their Heart of the Mountain tier allows, when it is known' })),
        }),
        response: { 200: list(ForgeFlip), ...problemResponses(400) },
      },
      config: { cache: FORGE_CACHE_SECONDS },
    },
    async (request, reply) => {
      const uuid = request.query.uuid;
      if (uuid === undefined) return forge(reply);
      const known = await app.services.craft.hotmTier(uuid.replaceAll('-', '').toLowerCase());
      if ('tier' in known) {
        reply.header(FORGE_FILTER_HEADER, `filtered; HotM tier ${known.tier}`);
        return computed(reply, service.forge(known.tier));
      }
      reply.header(FORGE_FILTER_HEADER, `unfiltered; ${known.reason}`);
      return forge(reply);
    },
  );

  publicRoute('/api/kat/profit', 'Kat flips: buy a pet as the cheapest BIN, upgrade its rarity at Kat, sell at the lowest BIN of the higher rarity', KatFlip, 60, () => service.kat());

  const KAT_DATA_URL = '/api/kat/data';
  const KAT_DATA_CACHE_SECONDS = 3600;
  app.get(
    KAT_DATA_URL,
    {
      schema: { tags: TAGS, summary: "Kat's pet rarity upgrades: coins, hours and materials (NEU katgrade recipes)", response: { 200: list(KatUpgradeCost) } },
      config: { cache: KAT_DATA_CACHE_SECONDS },
    },
    () => service.katUpgrades(),
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
      // Sorted per request (a new array each time): serialised per request.
      return computed(reply, service.attribute(sort));
    },
  );

  // Underpriced listings, live (issue 43): the new BIN listings priced below their value after fees.
  const underpriced = app.services.underpriced;
  app.get<{ Querystring: { limit: number; tag?: string; minProfit?: number } }>(
    '/api/flip/auctions',
    {
      schema: {
        tags: TAGS,
        summary: 'Underpriced listings: new BIN listings priced at least UNDERPRICED_MIN_SHARE below their value after auction fees, by expected profit',
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          tag: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_:;.+-]{1,64}$', description: 'only listings of this item tag' })),
          minProfit: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12, description: 'least expected profit in coins' })),
        }),
        response: { 200: list(UnderpricedAuction), ...problemResponses(400) },
      },
      config: { cache: 'no-store' },
    },
    (request, reply) => {
      const { limit, tag, minProfit } = request.query;
      const rows = underpriced.ranked({ limit, ...(tag !== undefined ? { tag: tag.toUpperCase() } : {}), ...(minProfit !== undefined ? { minProfit } : {}) });
      return computed(reply, {
        computedAt: underpriced.computedAt,
        flips: rows.map((l) => ({
          uuid: l.uuid,
          tag: l.tag,
          itemName: l.itemName,
          count: l.count,
          price: l.price,
          value: Math.round(l.value),
          valueAfterFees: Math.round(l.valueAfterFees),
          profit: Math.round(l.profit),
          percentBelow: Math.round(l.shareBelow * 1000) / 10,
          confidence: Math.round(l.confidence * 1000) / 1000,
          comparables: l.comparables,
          medianKey: l.medianKey,
          listedAt: isoTime(l.at),
        })),
      });
    },
  );
}

export const flipRoutes = flips;
