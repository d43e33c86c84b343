/**
 * The crafting engine (pure): what it really costs to get N of an item right now, by buying
 * (NPC stock, a buy order at the top bid bounded by recent volume, walking the live sell-offer
 * book level by level, or the cheapest BINs with marginal cost for more units) or by crafting it
 * from any of its recipes, recursively (depth bound, cycle guard, memoised per pricing pass).
 *
 * One CraftEngine is one pricing pass over one PriceSource: build a new one when prices move.
 */
import type { Currency, CurrencyCost, GameData, Recipe, RecipeType } from '../../gamedata/types.ts';
import type { PriceSource } from './prices.ts';

export type FillSource = 'npc' | 'order' | 'insta' | 'auction';
export type PlanMethod = 'craft' | 'buy' | 'npc' | 'bits' | 'copper' | 'mote' | 'currency';

export interface AcquisitionFill {
  source: FillSource;
  quantity: number;
  unitPrice: number;
  cost: number;
  /** auction fills: the listing to buy */
  auctionUuid?: string | null;
}

export interface AcquisitionPlan {
  itemId: string;
  quantity: number;
  /** coins for the whole quantity (what can be had; see `enough`) */
  cost: number;
  /** the whole quantity can be sourced now */
  enough: boolean;
  method: PlanMethod;
  directBuyCost: number;
  directBuyEnough: boolean;
  /** cost of crafting the whole quantity (0 when the item has no usable recipe) */
  craftCost: number;
  craftEnough: boolean;
  /** units the crafts yield (a recipe may yield more than asked) */
  craftedQuantity: number;
  /** units neither buyable nor craftable now */
  shortfall: number;
  purchases: AcquisitionFill[];
  ingredients: AcquisitionPlan[];
  /** the recipe used when crafted */
  recipeType: RecipeType | null;
  durationSeconds: number | null;
  /** pseudo-currencies the plan needs that have no known coin value (not included in `cost`) */
  currencies: CurrencyCost[];
}

export interface EngineOptions {
  /** include buy orders at the top bid as a source (slower to fill than instant buys) */
  useOrders?: boolean;
  maxDepth?: number;
  /** units an NPC sells per purchase run when the data does not say */
  npcStock?: number;
  /** minutes of instant-sell volume a buy order may expect to fill */
  orderWindowMinutes?: number;
}

/** Most items one bazaar buy order may ask for. */
export const MAX_ORDER_UNITS = 71_680;
const DEFAULTS = { useOrders: true, maxDepth: 12, npcStock: 640, orderWindowMinutes: 30 } as const;
/** Crafting must beat buying by 1 % plus a coin to be worth the effort. */
const CRAFT_MARGIN = 1.01;
const MISSING_UNIT_FALLBACK = 20_000_000;
const UNPRICED = 1e15;

interface Tranche {
  source: FillSource;
  unitPrice: number;
  capacity: number;
  uuid?: string | null;
}

interface Node {
  plan: AcquisitionPlan;
  /** decision-only surcharge for units that cannot be had */
  penalty: number;
  /** needs a pseudo-currency without a coin value */
  unpriced: boolean;
  recipe: Recipe | null;
}

export class CraftEngine {
  private readonly memo = new Map<string, Node>();
  private readonly trancheCache = new Map<string, Tranche[]>();
  private readonly options: Required<EngineOptions>;

  constructor(
    private readonly game: GameData,
    private readonly prices: PriceSource,
    options: EngineOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** The acquisition plan for `quantity` of `tag`; `forceCraft` makes the top level craft when it can. */
  plan(tag: string, quantity: number, forceCraft = false): AcquisitionPlan {
    return this.node(tag, quantity, 0, new Set(), forceCraft).plan;
  }

  /** Internal: the plan plus what the decision used (recipe, unpriced). */
  planDetail(tag: string, quantity: number, forceCraft = false): { plan: AcquisitionPlan; recipe: Recipe | null; unpriced: boolean } {
    const n = this.node(tag, quantity, 0, new Set(), forceCraft);
    return { plan: n.plan, recipe: n.recipe, unpriced: n.unpriced };
  }

  /** Every way to buy `tag` now, cheapest first (computed once per pass). */
  tranches(tag: string): readonly Tranche[] {
    let cached = this.trancheCache.get(tag);
    if (!cached) {
      cached = this.buildTranches(tag);
      this.trancheCache.set(tag, cached);
    }
    return cached;
  }

  private buildTranches(tag: string): Tranche[] {
    const out: Tranche[] = [];
    for (const offer of this.game.npcOffers.get(tag) ?? []) {
      if (offer.inputs.length > 0 || offer.currencies.length !== 1 || offer.currencies[0]!.currency !== 'coins') continue;
      out.push({ source: 'npc', unitPrice: offer.currencies[0]!.amount / offer.count, capacity: this.options.npcStock });
    }
    const quote = this.prices.bazaar(tag);
    if (quote) {
      const top = quote.buyOrders[0];
      if (this.options.useOrders && top) {
        const capacity = Math.min(MAX_ORDER_UNITS, Math.floor((quote.instaSellWeekly / (7 * 24 * 60)) * this.options.orderWindowMinutes));
        if (capacity > 0) out.push({ source: 'order', unitPrice: round1(top.pricePerUnit + 0.1), capacity });
      }
      for (const level of quote.sellOffers) {
        if (level.amount > 0) out.push({ source: 'insta', unitPrice: level.pricePerUnit, capacity: level.amount });
      }
    }
    for (const bin of this.prices.lowestBins(tag) ?? []) {
      out.push({ source: 'auction', unitPrice: bin.unitPrice, capacity: bin.count, uuid: bin.uuid });
    }
    out.sort((a, b) => a.unitPrice - b.unitPrice);
    return out;
  }

  private buy(tag: string, quantity: number): { fills: AcquisitionFill[]; filled: number; cost: number; worst: number } {
    const fills: AcquisitionFill[] = [];
    let filled = 0;
    let cost = 0;
    let worst = 0;
    for (const t of this.tranches(tag)) {
      if (filled >= quantity) break;
      const take = Math.min(t.capacity, quantity - filled);
      const fill: AcquisitionFill = { source: t.source, quantity: take, unitPrice: t.unitPrice, cost: round2(t.unitPrice * take) };
      if (t.source === 'auction') fill.auctionUuid = t.uuid ?? null;
      fills.push(fill);
      filled += take;
      cost += fill.cost;
      worst = Math.max(worst, t.unitPrice);
    }
    return { fills, filled, cost, worst };
  }

  private node(tag: string, quantity: number, depth: number, stack: Set<string>, forceCraft: boolean): Node {
    const key = `${tag}|${quantity}`;
    if (!forceCraft) {
      const hit = this.memo.get(key);
      if (hit) { (globalThis as any).O.hit++; return hit; }
    }
    const S = ((globalThis as any).O ??= { decide: 0, hit: 0 });
    S.decide++;
    const bought = this.buy(tag, quantity);
    const missing = quantity - bought.filled;
    const unitPenalty = bought.worst > 0 ? bought.worst * 5 : MISSING_UNIT_FALLBACK;
    const buyPenalty = missing * unitPenalty;
    const buyScore = round2(bought.cost) + buyPenalty;

    let craft: Node | undefined;
    let hybrid: Node | undefined;
    if (depth < this.options.maxDepth && !stack.has(tag)) {
      stack.add(tag);
      craft = this.bestCraft(tag, quantity, depth, stack);
      if (craft && !craft.unpriced && craft.plan.cost > 0) {
        // Hybrid: buy the units that are cheaper than crafting one, craft only the rest.
        const unitCraft = craft.plan.cost / quantity;
        const cheap: AcquisitionFill[] = [];
        let cheapUnits = 0;
        let cheapCost = 0;
        for (const f of bought.fills) {
          if (f.unitPrice * CRAFT_MARGIN >= unitCraft) break;
          cheap.push(f);
          cheapUnits += f.quantity;
          cheapCost += f.cost;
        }
        const rest = cheapUnits > 0 && cheapUnits < quantity ? this.bestCraft(tag, quantity - cheapUnits, depth, stack) : undefined;
        if (rest) {
          hybrid = {
            plan: { ...rest.plan, quantity, cost: round2(cheapCost + rest.plan.cost), purchases: cheap },
            penalty: rest.penalty,
            unpriced: rest.unpriced,
            recipe: rest.recipe,
          };
        }
      }
      stack.delete(tag);
    }

    let chosen: Node | undefined;
    let best = buyScore;
    if (craft && forceCraft) chosen = craft;
    else {
      if (craft && score(craft) * CRAFT_MARGIN + 1 < best) {
        chosen = craft;
        best = score(craft);
      }
      if (hybrid && score(hybrid) * CRAFT_MARGIN + 1 < best) chosen = hybrid;
    }
    const bought_ = chosen === undefined;
    chosen ??= {
      plan: this.shape(tag, quantity, {
        cost: bought.cost,
        enough: missing === 0,
        method: bought.fills.length > 0 && bought.fills.every((f) => f.source === 'npc') ? 'npc' : 'buy',
        shortfall: missing,
        purchases: bought.fills,
      }),
      penalty: buyPenalty,
      unpriced: false,
      recipe: null,
    };
    // Every candidate node was built in this call, so its plan can be completed in place.
    const result = chosen;
    const plan = result.plan;
    plan.directBuyCost = round2(bought.cost);
    plan.directBuyEnough = missing === 0;
    plan.craftCost = craft ? craft.plan.craftCost : 0;
    plan.craftEnough = craft ? craft.plan.craftEnough : false;
    if (bought_) plan.craftedQuantity = 0;
    if (!forceCraft) this.memo.set(key, result);
    return result;
  }

  /** The cheapest way to craft `quantity` from any recipe (per-unit cost), or undefined without a usable recipe. */
  private bestCraft(tag: string, quantity: number, depth: number, stack: Set<string>): Node | undefined {
    let best: Node | undefined;
    for (const recipe of this.game.recipes.get(tag) ?? []) {
      // Coin-only NPC offers are buy tranches, not crafts.
      if (recipe.type === 'npc_shop' && recipe.inputs.length === 0 && recipe.currencies.every((c) => c.currency === 'coins')) continue;
      const node = this.craftWith(recipe, tag, quantity, depth, stack, best ? score(best) : Infinity);
      if (node && (!best || score(node) < score(best))) best = node;
    }
    return best;
  }

  private craftWith(recipe: Recipe, tag: string, quantity: number, depth: number, stack: Set<string>, bound: number): Node | undefined {
    const crafts = Math.ceil(quantity / recipe.count);
    let cost = 0;
    let penalty = 0;
    let unpriced = false;
    let enough = true;
    const currencies: CurrencyCost[] = [];
    let method: PlanMethod = recipe.type === 'npc_shop' ? 'npc' : 'craft';
    for (const c of recipe.currencies) {
      const amount = c.amount * crafts;
      if (c.currency === 'coins') {
        cost += amount;
        continue;
      }
      const value = this.prices.currencyValue?.(c.currency);
      if (value !== undefined) cost += amount * value;
      else {
        unpriced = true;
        currencies.push({ ...c, amount });
        method = currencyMethod(c.currency);
      }
    }
    const ingredients: AcquisitionPlan[] = [];
    for (const input of recipe.inputs) {
      const sub = this.node(input.tag, input.count * crafts, depth + 1, stack, false);
      cost += sub.plan.cost;
      penalty += sub.penalty;
      unpriced ||= sub.unpriced;
      enough &&= sub.plan.enough;
      for (const c of sub.plan.currencies) currencies.push(c);
      ingredients.push(sub.plan);
      // Branch and bound: a candidate already dearer than the best recipe so far is dropped.
      if (cost + penalty + (unpriced ? UNPRICED : 0) > bound) return undefined;
    }
    const plan = this.shape(tag, quantity, {
      cost,
      enough,
      method,
      shortfall: 0,
      purchases: [],
      ingredients,
      craftCost: round2(cost),
      craftEnough: enough,
      craftedQuantity: crafts * recipe.count,
      recipeType: recipe.type,
      durationSeconds: recipe.durationSeconds ?? null,
      currencies,
    });
    return { plan, penalty, unpriced, recipe };
  }

  private shape(tag: string, quantity: number, p: Partial<AcquisitionPlan> & { cost: number }): AcquisitionPlan {
    return {
      itemId: tag,
      quantity,
      cost: round2(p.cost),
      enough: p.enough ?? false,
      method: p.method ?? 'buy',
      directBuyCost: 0,
      directBuyEnough: false,
      craftCost: p.craftCost ?? 0,
      craftEnough: p.craftEnough ?? false,
      craftedQuantity: p.craftedQuantity ?? 0,
      shortfall: p.shortfall ?? 0,
      purchases: p.purchases ?? [],
      ingredients: p.ingredients ?? [],
      recipeType: p.recipeType ?? null,
      durationSeconds: p.durationSeconds ?? null,
      currencies: p.currencies ?? [],
    };
  }
}

function score(n: Node): number {
  return n.plan.cost + n.penalty + (n.unpriced ? UNPRICED : 0);
}

function currencyMethod(c: Currency): PlanMethod {
  if (c === 'bits') return 'bits';
  if (c === 'copper') return 'copper';
  if (c === 'motes') return 'mote';
  return 'currency';
}

export function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}
