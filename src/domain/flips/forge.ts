/**
 * Forge flips (pure): the profitable forge crafts of the craft profit list (domain/craft/profit.ts),
 * so their ingredients and sale are priced exactly as the craft flips price them (books walked
 * for the true quantity, the sale after its fee), divided by the time the forge is busy. The
 * Heart of the Mountain tier and any other requirement come from the item's NEU `crafttext`.
 */
import type { GameData, Requirement } from '../../gamedata/types.ts';
import type { ProfitableCraft } from '../craft/profit.ts';
import { round2 } from './common.ts';

export interface ForgeFlip {
  /** the craft-flip entry of the forged item: prices, ingredients, profit per forge after the fee */
  craftData: ProfitableCraft;
  /** forge time of the recipe, seconds */
  duration: number;
  /** Heart of the Mountain tier the recipe needs (0 when none) */
  requiredHotMLevel: number;
  /** craftData.profit per hour of forge time (the recipe's, plus ingredientForgeSeconds) */
  profitPerHour: number;
  /** the item's other requirements (collection, skill or slayer name → level); null when none */
  requirements: Record<string, number> | null;
  /** skymarket: forge time of ingredients the plan forges itself rather than buys (the longest one; 0 when all are bought or crafted) */
  ingredientForgeSeconds: number;
}

const HOTM_NAMES = new Set(['hotm', 'heart of the mountain']);

/** The Heart of the Mountain tier among `requirements` (0 when none). */
export function requiredHotm(requirements: readonly Requirement[]): number {
  return requirements.find((r) => r.kind === 'skill' && HOTM_NAMES.has(r.name.toLowerCase()))?.level ?? 0;
}

/**
 * Forge time of an ingredient the plan makes rather than buys: when every recipe it could be made
 * with (NPC offers aside) is a forge recipe, the shortest of them; else 0 (a crafting-table
 * recipe takes no time). The engine chose the cheapest recipe, which this cannot see, so the
 * shortest is a lower bound.
 */
function forgeTimeOf(game: GameData, tag: string): number {
  const made = (game.recipes.get(tag) ?? []).filter((r) => r.type !== 'npc_shop');
  if (made.length === 0 || !made.every((r) => r.type === 'forge')) return 0;
  return Math.min(...made.map((r) => r.durationSeconds ?? 0));
}

/** Forge flips from the craft profit list, best profit per hour first. Crafts without a forge time are left out. */
export function forgeFlips(crafts: readonly ProfitableCraft[], game: GameData): ForgeFlip[] {
  const out: ForgeFlip[] = [];
  for (const craft of crafts) {
    if (craft.type !== 'forge' || !(craft.durationSeconds && craft.durationSeconds > 0) || !(craft.profit > 0)) continue;
    let ingredientForgeSeconds = 0;
    for (const i of craft.ingredients) if (i.type === 'craft') ingredientForgeSeconds = Math.max(ingredientForgeSeconds, forgeTimeOf(game, i.itemId));
    const reqs = game.items.get(craft.itemId)?.requirements ?? [];
    const others: Record<string, number> = {};
    for (const r of reqs) if (!(r.kind === 'skill' && HOTM_NAMES.has(r.name.toLowerCase()))) others[r.name] = r.level;
    const hours = (craft.durationSeconds + ingredientForgeSeconds) / 3600;
    out.push({
      craftData: craft,
      duration: craft.durationSeconds,
      requiredHotMLevel: requiredHotm(reqs),
      profitPerHour: round2(craft.profit / hours),
      requirements: Object.keys(others).length > 0 ? others : null,
      ingredientForgeSeconds,
    });
  }
  return out.sort((a, b) => b.profitPerHour - a.profitPerHour || a.craftData.itemId.localeCompare(b.craftData.itemId));
}

/** The flips a player with Heart of the Mountain tier `hotm` can forge. */
export function forgeableAt(flips: readonly ForgeFlip[], hotm: number): ForgeFlip[] {
  return flips.filter((f) => f.requiredHotMLevel <= hotm);
}
