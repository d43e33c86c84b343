/**
 * The crafting engine (pure): what it really costs to get N of an item right now, by buying
 * (NPC stock, a buy order at the top bid bounded by recent volume, walking the live sell-offer
 * book level by level, or the cheapest BINs with marginal cost for more units) or by crafting it
 * from any of its recipes, recursively (depth bound, cycle guard, memoised per pricing pass).
 *
 * One CraftEngine is one pricing pass over one PriceSource: build a new one when prices move.
 *
 * One plan shares one market: every branch of the tree buys from the same books, so when an
 * ingredient appears in two branches (or at two depths) the later branch continues where the earlier
 * one stopped (a Ledger per plan: bazaar levels, BIN listings, NPC stock and buy-order capacity taken).
 */
import type { Currency, CurrencyCost, GameData, Recipe, RecipeType } from '../../gamedata/types.ts';
import { Ledger, addTakes } from './ledger.ts';
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
/** memoised results kept per (item, quantity): the one computed on an untouched book plus a few others */
const MEMO_VARIANTS = 4;

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
  /**
   * What this plan takes from the market: `own` units of its own item bought directly, plus what
   * its `parts` (the sub-plans it uses) take. Flattened into `takes` only for plans actually used.
   */
  own: number;
  parts: Node[];
  takes?: Map<string, number>;
  /**
   * What the result was computed from: every item whose tranches the evaluation looked at (its
   * candidates included, chosen or not), with the span of its tranche list the walks covered.
   */
  reads: Map<string, ReadSpan>;
  /** the entries of `reads` with units already taken (none: computed on an untouched book) */
  touched: Array<[tag: string, span: ReadSpan]>;
}

/** The part of one item's tranche list an evaluation walked. */
interface ReadSpan {
  /** units already taken when the evaluation began */
  from: number;
  /** the furthest unit any walk reached (exclusive) */
  to: number;
  /** some walk ran out of supply */
  short: boolean;
}

/*
 * Memoisation with a shared book. A sub-result for (item, quantity) is a function of the quantity
 * and of how much of every item in its subtree was already taken when it was computed, nothing else
 * (the depth bound and the cycle guard aside, which the memo has always ignored). So each memoised
 * node keeps `reads`: for every item its evaluation looked at, the units already taken at the first
 * look in its own evaluation (a first look always precedes any taking of that item below it, so it
 * is the value at the node's start) and how far its walks went. A memoised node is reused only when
 * recomputing would give the same result: for every one of those items the ledger holds the same
 * taken-units, or a different number such that every walk, shifted by the difference, still stays
 * inside the one tranche (same price, same source) it stayed in, without running out. It then
 * applies its `takes`, exactly as recomputing would. The result computed on an untouched book is
 * kept preferentially, since every fresh plan (each acquisition request, each profit-list item)
 * starts there.
 */
export class CraftEngine {
  private readonly memo = new Map<string, Node[]>();
  private readonly trancheCache = new Map<string, Tranche[]>();
  /** per item: where each tranche ends, in units from the start of its list */
  private readonly trancheEnds = new Map<string, number[]>();
  private readonly craftableCache = new Map<string, boolean>();
  private readonly options: Required<EngineOptions>;
  /** what the current plan has taken */
  private readonly ledger = new Ledger();
  /** the reads of every node() being evaluated, innermost last */
  private readonly frames: Map<string, ReadSpan>[] = [];

  constructor(
    private readonly game: GameData,
    private readonly prices: PriceSource,
    options: EngineOptions = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** The acquisition plan for `quantity` of `tag`; `forceCraft` makes the top level craft when it can. */
  plan(tag: string, quantity: number, forceCraft = false): AcquisitionPlan {
    return this.root(tag, quantity, forceCraft).plan;
  }

  /** Internal: the plan plus what the decision used (recipe, unpriced). */
  planDetail(tag: string, quantity: number, forceCraft = false): { plan: AcquisitionPlan; recipe: Recipe | null; unpriced: boolean } {
    const n = this.root(tag, quantity, forceCraft);
    return { plan: n.plan, recipe: n.recipe, unpriced: n.unpriced };
  }

  /** One plan: a fresh, untouched market. */
  private root(tag: string, quantity: number, forceCraft: boolean): Node {
    this.ledger.reset();
    this.frames.length = 0;
    return this.node(tag, quantity, 0, new Set(), forceCraft);
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

  /** What buying `quantity` now costs, after what this plan already took (does not take it). */
  private buy(tag: string, quantity: number): { fills: AcquisitionFill[]; filled: number; cost: number; worst: number } {
    const fills: AcquisitionFill[] = [];
    let filled = 0;
    let cost = 0;
    let worst = 0;
    const start = this.ledger.takenOf(tag);
    let skip = start;
    for (const t of this.tranches(tag)) {
      if (filled >= quantity) break;
      let capacity = t.capacity;
      if (skip > 0) {
        const gone = Math.min(skip, capacity);
        skip -= gone;
        capacity -= gone;
        if (capacity === 0) continue;
      }
      const take = Math.min(capacity, quantity - filled);
      const fill: AcquisitionFill = { source: t.source, quantity: take, unitPrice: t.unitPrice, cost: round2(t.unitPrice * take) };
      if (t.source === 'auction') fill.auctionUuid = t.uuid ?? null;
      fills.push(fill);
      filled += take;
      cost += fill.cost;
      worst = Math.max(worst, t.unitPrice);
    }
    this.noteRead(tag, start, start + filled, filled < quantity);
    return { fills, filled, cost, worst };
  }

  private noteRead(tag: string, from: number, to: number, short: boolean): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return;
    const span = frame.get(tag);
    if (!span) frame.set(tag, { from, to, short });
    else {
      span.to = Math.max(span.to, to);
      span.short ||= short;
    }
  }

  /**
   * Passes a finished node's reads to the node being evaluated around it (the first look's start
   * wins). A reused node's spans are moved to where its walks run now (`relocate`).
   */
  private mergeReads(reads: ReadonlyMap<string, ReadSpan>, relocate: boolean): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame) return;
    for (const [tag, child] of reads) {
      const shift = relocate ? this.ledger.takenOf(tag) - child.from : 0;
      const span = frame.get(tag);
      // Copied: a finished node's spans are never changed.
      if (!span) frame.set(tag, { from: child.from + shift, to: child.to + shift, short: child.short });
      else {
        span.to = Math.max(span.to, child.to + shift);
        span.short ||= child.short;
      }
    }
  }

  /** Walks over `span` would give the same fills with `taken` units already gone. */
  private sameWalk(tag: string, span: ReadSpan, taken: number): boolean {
    if (taken === span.from) return true;
    if (span.short || span.to <= span.from) return false;
    const shift = taken - span.from;
    const first = Math.min(span.from, taken);
    const last = Math.max(span.to, span.to + shift) - 1;
    const ends = this.endsOf(tag);
    const i = trancheAt(ends, first);
    return i < ends.length && last < ends[i]!;
  }

  private endsOf(tag: string): number[] {
    let ends = this.trancheEnds.get(tag);
    if (!ends) {
      ends = [];
      let total = 0;
      for (const t of this.tranches(tag)) ends.push((total += t.capacity));
      this.trancheEnds.set(tag, ends);
    }
    return ends;
  }

  private memoHit(key: string): Node | undefined {
    const variants = this.memo.get(key);
    if (!variants) return undefined;
    for (const n of variants) if (this.agrees(n)) return n;
    return undefined;
  }

  /** Recomputing the node on the ledger as it is now would walk every item it read the same way. */
  private agrees(n: Node): boolean {
    if (this.ledger.size < n.reads.size) {
      // Cheaper from the ledger's side: only items bought before the node or since can differ.
      for (const [tag, span] of n.touched) if (!this.sameWalk(tag, span, this.ledger.takenOf(tag))) return false;
      for (const tag of this.ledger.tags()) {
        const span = n.reads.get(tag);
        if (span !== undefined && !this.sameWalk(tag, span, this.ledger.takenOf(tag))) return false;
      }
      return true;
    }
    for (const [tag, span] of n.reads) if (!this.sameWalk(tag, span, this.ledger.takenOf(tag))) return false;
    return true;
  }

  private remember(key: string, n: Node): void {
    const variants = this.memo.get(key);
    if (!variants) {
      this.memo.set(key, [n]);
      return;
    }
    // The untouched result is checked first: every fresh plan starts there.
    if (n.touched.length === 0) variants.unshift(n);
    else variants.push(n);
    if (variants.length > MEMO_VARIANTS) {
      const drop = variants.findIndex((v) => v.touched.length > 0);
      variants.splice(drop >= 0 ? drop : 0, 1);
    }
  }

  /**
   * The best plan for `quantity` of `tag` given what this plan already took; on return the ledger
   * also holds what the chosen plan takes (later branches buy after it).
   */
  private node(tag: string, quantity: number, depth: number, stack: Set<string>, forceCraft: boolean): Node {
    if (!this.craftable(tag) || depth >= this.options.maxDepth || stack.has(tag)) {
      // Buying is the only way: not memoised (a walk over a few tranches costs no more than a memo
      // check), and its read lands in the enclosing node's frame.
      const bought = this.decide(tag, quantity, depth, stack, forceCraft);
      this.take(bought);
      return bought;
    }
    const key = `${tag}|${quantity}`;
    if (!forceCraft) {
      const hit = this.memoHit(key);
      if (hit) {
        this.mergeReads(hit.reads, true);
        this.take(hit);
        return hit;
      }
    }
    const frame = new Map<string, ReadSpan>();
    this.frames.push(frame);
    let result: Node;
    try {
      result = this.decide(tag, quantity, depth, stack, forceCraft);
    } finally {
      this.frames.pop();
    }
    result.reads = frame;
    result.touched = [];
    for (const entry of frame) if (entry[1].from !== 0) result.touched.push(entry);
    this.mergeReads(frame, false);
    this.take(result);
    if (!forceCraft) this.remember(key, result);
    return result;
  }

  /** Buy, craft or a hybrid, each priced against the ledger; leaves the ledger as it found it. */
  private decide(tag: string, quantity: number, depth: number, stack: Set<string>, forceCraft: boolean): Node {
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
        let rest: Node | undefined;
        if (cheapUnits > 0 && cheapUnits < quantity) {
          const checkpoint = this.ledger.checkpoint();
          this.ledger.take(tag, cheapUnits);
          rest = this.bestCraft(tag, quantity - cheapUnits, depth, stack);
          this.ledger.rollback(checkpoint);
        }
        if (rest) {
          hybrid = {
            plan: { ...rest.plan, quantity, cost: round2(cheapCost + rest.plan.cost), purchases: cheap },
            penalty: rest.penalty,
            unpriced: rest.unpriced,
            recipe: rest.recipe,
            own: cheapUnits,
            parts: [rest],
            reads: rest.reads,
            touched: [],
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
      own: bought.filled,
      parts: [],
      reads: new Map(),
      touched: [],
    };
    // Every candidate node was built in this call, so its plan can be completed in place.
    const result = chosen;
    const plan = result.plan;
    plan.directBuyCost = round2(bought.cost);
    plan.directBuyEnough = missing === 0;
    plan.craftCost = craft ? craft.plan.craftCost : 0;
    plan.craftEnough = craft ? craft.plan.craftEnough : false;
    if (bought_) plan.craftedQuantity = 0;
    return result;
  }

  /** Takes what the plan of `n` takes from the market. */
  private take(n: Node): void {
    if (n.parts.length === 0) this.ledger.take(n.plan.itemId, n.own);
    else this.ledger.takeAll(takesOf(n));
  }

  /** The item has a recipe bestCraft would try. */
  private craftable(tag: string): boolean {
    let known = this.craftableCache.get(tag);
    if (known === undefined) {
      known = (this.game.recipes.get(tag) ?? []).some((r) => !isCoinOffer(r));
      this.craftableCache.set(tag, known);
    }
    return known;
  }

  /** The cheapest way to craft `quantity` from any recipe (per-unit cost), or undefined without a usable recipe. */
  private bestCraft(tag: string, quantity: number, depth: number, stack: Set<string>): Node | undefined {
    let best: Node | undefined;
    for (const recipe of this.game.recipes.get(tag) ?? []) {
      // Coin-only NPC offers are buy tranches, not crafts.
      if (isCoinOffer(recipe)) continue;
      // Each recipe is priced against the same ledger; node() takes the chosen one afterwards.
      const checkpoint = this.ledger.checkpoint();
      const node = this.craftWith(recipe, tag, quantity, depth, stack, best ? score(best) : Infinity);
      this.ledger.rollback(checkpoint);
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
    const parts: Node[] = [];
    for (const input of recipe.inputs) {
      // Sequential: each ingredient buys after the ones before it (node() leaves its takes in the ledger).
      const sub = this.node(input.tag, input.count * crafts, depth + 1, stack, false);
      parts.push(sub);
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
    return { plan, penalty, unpriced, recipe, own: 0, parts, reads: new Map(), touched: [] };
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

/** The index of the tranche holding unit `unit` (ends.length when past the last). */
function trancheAt(ends: readonly number[], unit: number): number {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid]! > unit) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Units per item the plan of `n` takes, flattened once. */
function takesOf(n: Node): Map<string, number> {
  if (n.takes) return n.takes;
  const takes = new Map<string, number>();
  if (n.own > 0) takes.set(n.plan.itemId, n.own);
  for (const part of n.parts) {
    if (part.parts.length === 0) {
      if (part.own > 0) takes.set(part.plan.itemId, (takes.get(part.plan.itemId) ?? 0) + part.own);
    } else addTakes(takes, takesOf(part));
  }
  n.takes = takes;
  return takes;
}

function isCoinOffer(recipe: Recipe): boolean {
  return recipe.type === 'npc_shop' && recipe.inputs.length === 0 && recipe.currencies.every((c) => c.currency === 'coins');
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
