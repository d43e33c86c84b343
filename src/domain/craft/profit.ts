/**
 * Craft profit list (pure): for every item with a crafting or forge recipe, the realistic cost
 * of one craft now (ingredients bought by walking the live books for the true quantity, or
 * crafted when cheaper) against what the result sells for after the sale fee. Unlike the
 * established service it deducts the fee on the sale, drops crafts whose ingredients cannot all
 * be had now (so a profit never vanishes once the book is walked), and states its assumptions.
 */
import type { GameData, Recipe, Requirement } from '../../gamedata/types.ts';
import { CraftEngine, round2, type AcquisitionPlan, type EngineOptions } from './engine.ts';
import { BAZAAR_FEE, auctionFeeRate, type PriceSource } from './prices.ts';

export interface RequiredLevel {
  name: string;
  level: number;
}

export interface CraftIngredient {
  itemId: string;
  count: number;
  /** realistic cost now: instant buys (or sub-crafts) */
  cost: number;
  /** cost when buy orders at the top bid are used where they fill */
  buyOrderCost: number;
  /** cost of crafting it instead (0 when it has no recipe) */
  craftCost: number;
  /** 'craft' | 'npc' | 'bits' | 'copper' | 'mote' | null (= bought) */
  type: string | null;
  npcCapacity: number;
  npcUnitPrice: number;
  buyOrderCapacity: number;
  buyOrderUnitPrice: number;
  instaBuyCapacity: number;
  instaBuyUnitPrice: number;
}

export interface ProfitableCraft {
  itemId: string;
  itemName: string | null;
  /** per unit: undercut of the lowest sell offer, or the lowest BIN */
  sellPrice: number;
  /** one craft (`craftedQuantity` units), ingredients bought instantly */
  craftCost: number;
  buyOrderCraftCost: number;
  /** sale revenue after the fee minus craftCost, for one craft */
  profit: number;
  feeRate: number;
  craftedQuantity: number;
  market: 'bazaar' | 'auction';
  ingredients: CraftIngredient[];
  reqCollection: RequiredLevel | null;
  reqSlayer: RequiredLevel | null;
  reqSkill: RequiredLevel | null;
  /** 'crafting' | 'forge' */
  type: string;
  durationSeconds: number | null;
  /** bazaar: units bought per day; auction: listings seen */
  volume: number;
  /** bazaar: mid of the best bid and offer; auction: median of the cheapest listings */
  median: number;
  lastUpdated: string;
  assumptions: string[];
}

interface SellSide {
  price: number;
  market: 'bazaar' | 'auction';
  volume: number;
  median: number;
  note: string;
}

export function sellSide(prices: PriceSource, tag: string): SellSide | undefined {
  const quote = prices.bazaar(tag);
  if (quote) {
    const offer = quote.sellOffers[0];
    const bid = quote.buyOrders[0];
    const volume = Math.round(quote.instaBuyWeekly / 7);
    if (offer) {
      const price = Math.max(0.1, round1(offer.pricePerUnit - 0.1));
      return {
        price,
        market: 'bazaar',
        volume,
        median: round2(bid ? (offer.pricePerUnit + bid.pricePerUnit) / 2 : offer.pricePerUnit),
        note: `sold as a bazaar sell offer at ${price} (lowest offer − 0.1), fee ${BAZAAR_FEE * 100} %`,
      };
    }
    if (bid) {
      return { price: bid.pricePerUnit, market: 'bazaar', volume, median: bid.pricePerUnit, note: `sold instantly to the top buy order at ${bid.pricePerUnit} (no sell offers), fee ${BAZAAR_FEE * 100} %` };
    }
  }
  const bins = prices.lowestBins(tag);
  if (bins && bins.length > 0) {
    const sorted = bins.map((b) => b.unitPrice);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
    return { price: bins[0]!.unitPrice, market: 'auction', volume: bins.length, median, note: `sold as a BIN at the lowest BIN ${bins[0]!.unitPrice}` };
  }
  return undefined;
}

/** The whole profit list, best first. */
export function craftProfits(game: GameData, prices: PriceSource, options: EngineOptions = {}): ProfitableCraft[] {
  const insta = new CraftEngine(game, prices, { ...options, useOrders: false });
  const orders = new CraftEngine(game, prices, { ...options, useOrders: true });
  const lastUpdated = new Date(prices.asOf).toISOString();
  const out: ProfitableCraft[] = [];
  for (const [tag, recipes] of game.recipes) {
    if (!recipes.some((r) => r.type === 'crafting' || r.type === 'forge')) continue;
    const sell = sellSide(prices, tag);
    if (!sell) continue;
    const { plan, recipe, unpriced } = insta.planDetail(tag, 1, true);
    if (!recipe || unpriced || !plan.enough || (recipe.type !== 'crafting' && recipe.type !== 'forge')) continue;
    if (sell.market === 'bazaar' && sell.volume <= 2) continue;
    const units = plan.craftedQuantity;
    const feeRate = sell.market === 'bazaar' ? BAZAAR_FEE : auctionFeeRate(sell.price, prices.derpy);
    const revenue = sell.price * units * (1 - feeRate);
    const profit = revenue - plan.cost;
    if (profit <= 0) continue;
    const withOrders = orders.plan(tag, 1, true);
    const item = game.items.get(tag);
    const assumptions = [
      sell.note,
      `ingredients bought now for the true quantity by walking the live order books and lowest BINs; cheaper sub-crafts used where they beat buying`,
    ];
    if (units > 1) assumptions.push(`one craft yields ${units}`);
    if (recipe.durationSeconds) assumptions.push(`forge time ${formatDuration(recipe.durationSeconds)}`);
    if (sell.market === 'auction') assumptions.push(`auction fee ${round2(feeRate * 100)} % by price band`);
    out.push({
      itemId: tag,
      itemName: item?.name ?? null,
      sellPrice: sell.price,
      craftCost: plan.cost,
      buyOrderCraftCost: withOrders.cost,
      profit: round2(profit),
      feeRate,
      craftedQuantity: units,
      market: sell.market,
      ingredients: plan.ingredients.map((sub, i) => ingredientOf(insta, sub, withOrders.ingredients[i])),
      reqCollection: requirement(item?.requirements, 'collection') ?? inheritedCollection(game, recipe),
      reqSlayer: requirement(item?.requirements, 'slayer'),
      reqSkill: requirement(item?.requirements, 'skill'),
      type: recipe.type,
      durationSeconds: recipe.durationSeconds ?? null,
      volume: sell.volume,
      median: sell.median,
      lastUpdated,
      assumptions,
    });
  }
  out.sort((a, b) => b.profit - a.profit || a.itemId.localeCompare(b.itemId));
  return out;
}

function ingredientOf(engine: CraftEngine, sub: AcquisitionPlan, withOrders: AcquisitionPlan | undefined): CraftIngredient {
  const tranches = engine.tranches(sub.itemId);
  const npc = tranches.find((t) => t.source === 'npc');
  const insta = tranches.filter((t) => t.source === 'insta');
  return {
    itemId: sub.itemId,
    count: sub.quantity,
    cost: sub.cost,
    buyOrderCost: withOrders?.cost ?? sub.cost,
    craftCost: sub.craftCost,
    type: sub.method === 'buy' ? null : sub.method,
    npcCapacity: npc?.capacity ?? 0,
    npcUnitPrice: npc?.unitPrice ?? 0,
    buyOrderCapacity: withOrders?.purchases.filter((f) => f.source === 'order').reduce((s, f) => s + f.quantity, 0) ?? 0,
    buyOrderUnitPrice: withOrders?.purchases.find((f) => f.source === 'order')?.unitPrice ?? 0,
    instaBuyCapacity: insta.reduce((s, t) => s + t.capacity, 0),
    instaBuyUnitPrice: insta[0]?.unitPrice ?? 0,
  };
}

function requirement(list: readonly Requirement[] | undefined, kind: Requirement['kind']): RequiredLevel | null {
  const r = list?.find((x) => x.kind === kind);
  return r ? { name: r.name, level: r.level } : null;
}

/**
 * An item without a collection requirement of its own needs the recipes of its ingredients:
 * the first collection requirement found breadth-first below the recipe (3 levels).
 */
function inheritedCollection(game: GameData, recipe: Recipe): RequiredLevel | null {
  let level = recipe.inputs.map((i) => i.tag);
  const seen = new Set(level);
  for (let depth = 0; depth < 3 && level.length > 0; depth++) {
    const next: string[] = [];
    for (const tag of level) {
      const own = requirement(game.items.get(tag)?.requirements, 'collection');
      if (own) return own;
      for (const r of game.recipes.get(tag) ?? []) {
        if (r.type === 'npc_shop') continue;
        for (const i of r.inputs) {
          if (seen.has(i.tag)) continue;
          seen.add(i.tag);
          next.push(i.tag);
        }
      }
    }
    level = next;
  }
  return null;
}

/** A player's unlocked progress, as far as it is known. */
export interface PlayerProgress {
  /** collection display name (case-insensitive) → unlocked tier; absent = not known, not filtered on */
  collections?: Record<string, number>;
  /** slayer key (zombie, spider, wolf, enderman, blaze, vampire) → level; absent = not known */
  slayers?: Record<string, number>;
  /** skill name (case-insensitive) → level; absent = not known */
  skills?: Record<string, number>;
}

/** Crafts the player has unlocked: every requirement of a kind the progress knows must be met. */
export function filterByProgress(crafts: readonly ProfitableCraft[], progress: PlayerProgress): ProfitableCraft[] {
  const lower = (r: Record<string, number> | undefined) => (r ? new Map(Object.entries(r).map(([k, v]) => [k.toLowerCase(), v])) : undefined);
  const collections = lower(progress.collections);
  const slayers = lower(progress.slayers);
  const skills = lower(progress.skills);
  const meets = (req: RequiredLevel | null, have: Map<string, number> | undefined) => !req || !have || (have.get(req.name.toLowerCase()) ?? 0) >= req.level;
  return crafts.filter((c) => meets(c.reqCollection, collections) && meets(c.reqSlayer, slayers) && meets(c.reqSkill, skills));
}

function formatDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/**
 * What crafting one unit of each craftable item costs now (crafting and forge recipes), with
 * ingredients bought instantly and cheaper sub-crafts used where they beat buying: every item whose
 * plan is fully priced and available, profitable or not (the bulk tooltip file's `craftCost`).
 */
export function craftCostsPerUnit(game: GameData, prices: PriceSource, options: EngineOptions = {}): Map<string, number> {
  const engine = new CraftEngine(game, prices, { ...options, useOrders: false });
  const out = new Map<string, number>();
  for (const [tag, recipes] of game.recipes) {
    if (!recipes.some((r) => r.type === 'crafting' || r.type === 'forge')) continue;
    const { plan, recipe, unpriced } = engine.planDetail(tag, 1, true);
    if (!recipe || unpriced || !plan.enough || (recipe.type !== 'crafting' && recipe.type !== 'forge')) continue;
    out.set(tag, plan.cost / Math.max(1, plan.craftedQuantity));
  }
  return out;
}
