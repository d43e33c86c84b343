/**
 * Shard fusion flips: buy the inputs with buy orders (best buy order + one tick), fuse, sell
 * the output with a sell offer (best sell offer − one tick) after tax. Fusions per hour are
 * bounded by how fast the inputs' buy orders fill (instant sells per hour / count) and how
 * fast the output sells (instant buys per hour / count).
 * Multi-step: an input may itself be fused from cheaper shards (up to 3 levels in total);
 * a multi-step flip is listed when it uses at least one such intermediate fusion.
 */
import type { FusionRecipe } from '../../gamedata/tables/fusion.ts';
import { BAZAAR_FEE, TICK, instantBuysPerHour, instantSellsPerHour, round1, round2, type Market } from './common.ts';

export interface FusionStep {
  inputs: Record<string, number>;
  output: string;
  outputCount: number;
}

export interface FuseFlip {
  /** base inputs bought on the bazaar, per fusion of the final recipe */
  inputs: Record<string, number>;
  /** coins for those inputs at buy-order prices */
  inputCost: number;
  /** fusions per hour: min(inputVolume, output sells per hour / outputCount) */
  volume: number;
  /** fusions per hour the inputs' buy orders allow */
  inputVolume: number;
  /** output count × sell-offer price × (1 − tax) */
  outputValue: number;
  output: string;
  outputCount: number;
  /** outputValue − inputCost */
  profit: number;
  profitPerHour: number;
  /** multi-step only: the fusions in the order they are done (null for single-step) */
  steps: FusionStep[] | null;
  /** number of fusion levels (1 for single-step) */
  depth: number;
}

const orderPrice = (market: Market, tag: string): number | null => {
  const p = market.get(tag);
  return p && p.sellPrice > 0 ? p.sellPrice + TICK : null;
};

function outputSide(market: Market, r: FusionRecipe): { value: number; perHour: number } | null {
  const p = market.get(r.output);
  if (!p || !(p.buyPrice > TICK)) return null;
  return { value: r.outputCount * (p.buyPrice - TICK) * (1 - BAZAAR_FEE), perHour: instantBuysPerHour(p) / r.outputCount };
}

function finish(market: Market, r: FusionRecipe, inputs: Record<string, number>, inputCost: number, steps: FusionStep[] | null, depth: number): FuseFlip | null {
  const out = outputSide(market, r);
  if (!out) return null;
  let inputVolume = Infinity;
  for (const [tag, n] of Object.entries(inputs)) {
    const p = market.get(tag);
    inputVolume = Math.min(inputVolume, p ? instantSellsPerHour(p) / n : 0);
  }
  const volume = Math.min(inputVolume, out.perHour);
  const profit = out.value - inputCost;
  if (!(profit > 0) || !(volume > 0)) return null;
  return {
    inputs,
    inputCost: round1(inputCost),
    volume: round2(volume),
    inputVolume: round2(inputVolume),
    outputValue: round1(out.value),
    output: r.output,
    outputCount: r.outputCount,
    profit: round1(profit),
    profitPerHour: round1(profit * volume),
    steps,
    depth,
  };
}

/** Single-step fusion flips, by profit per hour descending. */
export function fusionFlips(market: Market, recipes: readonly FusionRecipe[]): FuseFlip[] {
  const out: FuseFlip[] = [];
  for (const r of recipes) {
    let cost = 0;
    let ok = true;
    for (const [tag, n] of Object.entries(r.inputs)) {
      const price = orderPrice(market, tag);
      if (price === null) ok = false;
      else cost += price * n;
    }
    if (!ok) continue;
    const flip = finish(market, r, { ...r.inputs }, cost, null, 1);
    if (flip) out.push(flip);
  }
  return out.sort((a, b) => b.profitPerHour - a.profitPerHour);
}

/** The cheapest way to obtain `count` of `tag`: buy, or fuse (whole fusions; surplus output is not valued). */
interface Plan {
  cost: number;
  /** base inputs to buy */
  buys: Record<string, number>;
  /** fusions, deepest first */
  steps: FusionStep[];
  depth: number;
}

function cheapest(market: Market, byOutput: ReadonlyMap<string, readonly FusionRecipe[]>, tag: string, count: number, levels: number, path: ReadonlySet<string>): Plan | null {
  const price = orderPrice(market, tag);
  let best: Plan | null = price === null ? null : { cost: price * count, buys: { [tag]: count }, steps: [], depth: 0 };
  if (levels <= 0 || path.has(tag)) return best;
  const next = new Set(path).add(tag);
  for (const r of byOutput.get(tag) ?? []) {
    const runs = Math.ceil(count / r.outputCount);
    const sub = planInputs(market, byOutput, r, runs, levels - 1, next);
    if (!sub) continue;
    if (!best || sub.cost < best.cost - 1e-9) {
      const step: FusionStep = { inputs: scale(r.inputs, runs), output: r.output, outputCount: r.outputCount * runs };
      best = { cost: sub.cost, buys: sub.buys, steps: [...sub.steps, step], depth: sub.depth + 1 };
    }
  }
  return best;
}

function planInputs(market: Market, byOutput: ReadonlyMap<string, readonly FusionRecipe[]>, r: FusionRecipe, runs: number, levels: number, path: ReadonlySet<string>): Plan | null {
  const plan: Plan = { cost: 0, buys: {}, steps: [], depth: 0 };
  for (const [tag, n] of Object.entries(r.inputs)) {
    const sub = cheapest(market, byOutput, tag, n * runs, levels, path);
    if (!sub) return null;
    plan.cost += sub.cost;
    for (const [t, c] of Object.entries(sub.buys)) plan.buys[t] = (plan.buys[t] ?? 0) + c;
    plan.steps.push(...sub.steps);
    plan.depth = Math.max(plan.depth, sub.depth);
  }
  return plan;
}

function scale(inputs: Readonly<Record<string, number>>, k: number): Record<string, number> {
  return Object.fromEntries(Object.entries(inputs).map(([t, n]) => [t, n * k]));
}

/**
 * Multi-step fusion flips (at most `maxDepth` fusion levels, default 3): for each recipe, the
 * inputs are bought or fused, whichever is cheaper; listed when at least one input is fused and
 * the chain is profitable. By profit per hour descending.
 */
export function multistepFusionFlips(market: Market, recipes: readonly FusionRecipe[], maxDepth = 3): FuseFlip[] {
  const byOutput = new Map<string, FusionRecipe[]>();
  for (const r of recipes) byOutput.set(r.output, [...(byOutput.get(r.output) ?? []), r]);
  const out: FuseFlip[] = [];
  for (const r of recipes) {
    const plan = planInputs(market, byOutput, r, 1, maxDepth - 1, new Set([r.output]));
    if (!plan || plan.steps.length === 0) continue;
    const final: FusionStep = { inputs: { ...r.inputs }, output: r.output, outputCount: r.outputCount };
    const flip = finish(market, r, plan.buys, plan.cost, [...plan.steps, final], plan.depth + 1);
    if (flip) out.push(flip);
  }
  return out.sort((a, b) => b.profitPerHour - a.profitPerHour);
}
