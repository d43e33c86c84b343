/**
 * Crafting routes: recipes, craft instructions, the craft profit list and live acquisition plans,
 * answered by the craft service (services/craft.ts). Game data comes from GAME_DATA_DIR, the synced
 * NEU copy in DATA_DIR or the built-in catalog (src/gamedata); prices from the crafting view
 * (src/market/craft.ts), rebuilt per snapshot.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { itemNotFound, ItemTagParams, parseItemTag } from '../http/params.ts';
import { notFound } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import type { CraftMiss, ProfitAnswer } from '../services/craft.ts';

/** Header on an unfiltered profit list, saying why it is not filtered by the player's progress. */
export const FILTER_HEADER = 'x-craft-filter';
export const MAX_QUANTITY = 1_000_000;


const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const RecipeSchema = Type.Object(
  {
    A1: Type.String(),
    A2: Type.String(),
    A3: Type.String(),
    B1: Type.String(),
    B2: Type.String(),
    B3: Type.String(),
    C1: Type.String(),
    C2: Type.String(),
    C3: Type.String(),
    count: Type.Integer({ description: 'units one craft yields' }),
    type: Type.String({ description: 'crafting | forge | npc_shop (forge inputs fill the slots in order)' }),
    durationSeconds: Type.Union([Type.Integer(), Type.Null()], { description: 'forge time' }),
  },
  { description: 'slot value "TAG:amount" or ""' },
);

const instructionFields = {
  itemTag: Type.String(),
  recipe: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], { description: 'grid slots A1..C3 ("TAG:amount" or "") and count; null for an item that is bought' }),
  copyCommands: Type.Record(Type.String(), Type.String(), { description: 'in-game command per item tag: /bz <name>, /viewauction <uuid> or /ah' }),
  detailsPath: Type.Record(Type.String(), Type.String(), { description: 'skymarket page per item tag' }),
};

const InstructionSchema = Type.Object(
  {
    ...instructionFields,
    tree: Type.Array(Type.Object(instructionFields), {
      description: 'skymarket extension: every item of the craft tree, top first (breadth-first), with its own recipe, commands and paths',
    }),
  },
  { description: "CraftInstruction: the top item's recipe; copyCommands and detailsPath cover every item of the whole craft tree" },
);

const Level = Type.Union([Type.Object({ name: Type.String(), level: Type.Integer() }), Type.Null()]);

const IngredientSchema = Type.Object({
  itemId: Type.String(),
  count: Type.Number(),
  cost: Type.Number(),
  buyOrderCost: Type.Number(),
  craftCost: Type.Number(),
  type: Nullable(Type.String()),
  npcCapacity: Type.Number(),
  npcUnitPrice: Type.Number(),
  buyOrderCapacity: Type.Number(),
  buyOrderUnitPrice: Type.Number(),
  instaBuyCapacity: Type.Number(),
  instaBuyUnitPrice: Type.Number(),
});

export const ProfitSchema = Type.Object({
  itemId: Type.String(),
  itemName: Nullable(Type.String()),
  sellPrice: Type.Number(),
  craftCost: Type.Number({ description: 'one craft, ingredients bought now by walking the books' }),
  buyOrderCraftCost: Type.Number(),
  profit: Type.Number({ description: 'revenue after the sale fee minus craftCost, per craft' }),
  feeRate: Type.Number(),
  craftedQuantity: Type.Integer(),
  market: Type.Union([Type.Literal('bazaar'), Type.Literal('auction')]),
  ingredients: Type.Array(IngredientSchema),
  reqCollection: Level,
  reqSlayer: Level,
  reqSkill: Level,
  type: Type.String(),
  durationSeconds: Type.Union([Type.Integer(), Type.Null()]),
  volume: Type.Number(),
  median: Type.Number(),
  lastUpdated: Type.String({ format: 'date-time' }),
  assumptions: Type.Array(Type.String()),
});

const FillSchema = Type.Object({
  source: Type.Union([Type.Literal('npc'), Type.Literal('order'), Type.Literal('insta'), Type.Literal('auction')]),
  quantity: Type.Number(),
  unitPrice: Type.Number(),
  cost: Type.Number(),
  auctionUuid: Type.Optional(Nullable(Type.String())),
});

const PlanSchema = Type.Object({
  itemId: Type.String(),
  quantity: Type.Number(),
  cost: Type.Number({ description: 'total realistic cost of what can be had' }),
  enough: Type.Boolean({ description: 'the whole quantity can be sourced now' }),
  method: Type.String({ description: 'craft | buy | npc | bits | copper | mote | currency' }),
  directBuyCost: Type.Number(),
  directBuyEnough: Type.Boolean(),
  craftCost: Type.Number(),
  craftEnough: Type.Boolean(),
  craftedQuantity: Type.Number(),
  shortfall: Type.Number({ description: 'units that could not be bought (buy plans)' }),
  purchases: Type.Array(FillSchema),
  ingredients: Type.Array(Type.Unknown(), { description: 'nested acquisition plans of the same shape' }),
  recipeType: Nullable(Type.String()),
  durationSeconds: Type.Union([Type.Number(), Type.Null()]),
  currencies: Type.Array(Type.Object({ currency: Type.String(), amount: Type.Number(), token: Type.Optional(Type.String()) })),
});

const ProfitQuery = Type.Object({
  player: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_\\-]{1,36}$', description: 'player uuid or name' })),
  profile: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_\\-]{1,36}$', description: 'profile uuid or name' })),
});

const AcquisitionQuery = Type.Object({
  quantity: Type.Integer({ minimum: 1, maximum: MAX_QUANTITY, default: 1 }),
  forceCraft: Type.Boolean({ default: true, description: 'craft the top level even when buying is cheaper' }),
});

/** A miss as the API answers it: 404 `item_not_found`, or 404 `no_recipe`. */
function missProblem(tag: string, miss: CraftMiss) {
  return miss.miss === 'unknown_item' ? itemNotFound(tag) : notFound('no_recipe', `${tag} has no crafting, forge or shop recipe`);
}

export async function craftRoutes(app: FastifyInstance) {
  const craft = app.services.craft;

  app.get<{ Params: ItemTagParams }>(
    '/api/craft/recipe/:itemTag',
    {
      schema: {
        tags: ['craft'],
        summary: 'Crafting recipe of an item (3×3 grid and yield); 404 for unknown items and items without a recipe',
        params: ItemTagParams,
        response: { 200: RecipeSchema, ...problemResponses(400, 404) },
      },
      config: { cache: 43_200 },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const recipe = craft.recipe(tag);
      if ('miss' in recipe) throw missProblem(tag, recipe);
      return { ...recipe.slots, count: recipe.count, type: recipe.type, durationSeconds: recipe.durationSeconds };
    },
  );

  app.get<{ Params: ItemTagParams }>(
    '/api/craft/:itemTag/instructions',
    {
      schema: {
        tags: ['craft'],
        summary: 'The top recipe and how to get every ingredient of the whole craft tree (/bz, /viewauction of the lowest BIN, or /ah)',
        params: ItemTagParams,
        response: { 200: InstructionSchema, ...problemResponses(400, 404) },
      },
      config: { cache: 120 },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const answer = await craft.instructions(tag);
      if ('miss' in answer) throw missProblem(tag, answer);
      return answer;
    },
  );

  // The unfiltered profit list, serialised once per craft state (http/prepared-answers.ts).
  const unfilteredProfits = app.prepared.define<unknown, Extract<ProfitAnswer, { unfiltered: unknown }>['unfiltered']>({
    name: 'craft-profits',
    generation: () => craft.profitsGeneration(),
    build: (_key, state) => ({ value: state.profits, generation: state }),
  });
  app.get<{ Querystring: Static<typeof ProfitQuery> }>(
    '/api/craft/profit',
    {
      schema: {
        tags: ['craft'],
        summary: 'Profitable crafts, best first; recomputed after each bazaar snapshot. Filtered by the player\'s unlocked requirements when known',
        querystring: ProfitQuery,
        response: { 200: Type.Array(ProfitSchema), ...problemResponses(400) },
      },
      config: { cache: 60 },
    },
    async (request, reply) => {
      // Profile fetches are queued per client (account, else address): one cannot fill the queue for all.
      const client = request.account ? `account:${request.account.id}` : `ip:${request.clientIp}`;
      const answer = await craft.profit(request.query.player, request.query.profile, client);
      reply.header(FILTER_HEADER, answer.filter);
      if ('crafts' in answer) return answer.crafts;
      // The unfiltered list is the same bytes for everyone until the next snapshot: serialised once per craft state.
      return reply.type('application/json; charset=utf-8').send(unfilteredProfits.prepare('', answer.unfiltered).plain);
    },
  );

  app.get<{ Params: ItemTagParams; Querystring: Static<typeof AcquisitionQuery> }>(
    '/api/craft/acquisition/:itemTag',
    {
      schema: {
        tags: ['craft'],
        summary: 'Live, quantity-specific acquisition plan: craft or buy, fills by source, nested ingredient plans',
        params: ItemTagParams,
        querystring: AcquisitionQuery,
        response: { 200: PlanSchema, ...problemResponses(400, 404) },
      },
      config: { cache: 5 },
    },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const plan = await craft.acquisition(tag, request.query.quantity, request.query.forceCraft);
      if ('miss' in plan) throw missProblem(tag, plan);
      return plan;
    },
  );
}
