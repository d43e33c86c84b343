/**
 * Craft instructions (pure): a breadth-first walk of an item's craft tree (top recipe and
 * every sub-recipe, up to 5 levels and 200 tags, cycle-safe), telling for each item how to get
 * it in game: `/bz <name>` for bazaar products, `/viewauction <uuid>` for the current lowest
 * BIN, otherwise `/ah`. The answer is one CraftInstruction (api-shapes §5): the top item's
 * recipe with the commands and paths of the whole tree.
 */
import { GRID_SLOTS, type GameData, type Recipe } from '../../gamedata/types.ts';
import type { PriceSource } from './prices.ts';

export interface CraftInstruction {
  itemTag: string;
  /** the recipe used for this item (grid slots A1..C3 and count), null when it is bought */
  recipe: Record<string, string> | null;
  /** in-game command per item: this one and its recipe's ingredients */
  copyCommands: Record<string, string>;
  /** skymarket page per item: `/item/<tag>`, `/auction/<uuid>` or `/item/<tag>?range=active` */
  detailsPath: Record<string, string>;
}

export const MAX_INSTRUCTION_DEPTH = 5;
export const MAX_INSTRUCTION_TAGS = 200;

/** The recipe shown for an item: a crafting grid when there is one, else the first forge or shop recipe. */
export function primaryRecipe(game: GameData, tag: string): Recipe | undefined {
  const list = game.recipes.get(tag) ?? [];
  return list.find((r) => r.type === 'crafting' && r.grid) ?? list.find((r) => r.type === 'crafting') ?? list.find((r) => r.type === 'forge') ?? list.find((r) => r.type === 'npc_shop' && r.inputs.length > 0);
}

/** Recipe in the wire's flat form: A1..C3 ("TAG:count" or "") plus count; forge inputs fill the slots in order. */
export function flatRecipe(recipe: Recipe): Record<string, string> {
  const out: Record<string, string> = {};
  if (recipe.grid) {
    for (const slot of GRID_SLOTS) out[slot] = recipe.grid[slot];
  } else {
    GRID_SLOTS.forEach((slot, i) => {
      const input = recipe.inputs[i];
      out[slot] = input ? `${input.tag}:${input.count}` : '';
    });
  }
  out.count = String(recipe.count);
  return out;
}

export function craftInstructions(game: GameData, prices: PriceSource, tag: string): CraftInstruction[] {
  const out: CraftInstruction[] = [];
  const seen = new Set<string>([tag]);
  let level: string[] = [tag];
  for (let depth = 0; level.length > 0 && depth <= MAX_INSTRUCTION_DEPTH; depth++) {
    const next: string[] = [];
    for (const current of level) {
      // The top item is crafted; ingredients show their recipe only below the depth bound.
      const recipe = depth < MAX_INSTRUCTION_DEPTH ? primaryRecipe(game, current) : undefined;
      const copyCommands: Record<string, string> = {};
      const detailsPath: Record<string, string> = {};
      const describe = (t: string) => {
        const how = howToGet(game, prices, t);
        copyCommands[t] = how.command;
        detailsPath[t] = how.path;
      };
      describe(current);
      for (const input of recipe?.inputs ?? []) {
        describe(input.tag);
        if (!seen.has(input.tag) && seen.size < MAX_INSTRUCTION_TAGS) {
          seen.add(input.tag);
          next.push(input.tag);
        }
      }
      out.push({ itemTag: current, recipe: recipe ? flatRecipe(recipe) : null, copyCommands, detailsPath });
    }
    level = next;
  }
  return out;
}

function howToGet(game: GameData, prices: PriceSource, tag: string): { command: string; path: string } {
  if (prices.bazaar(tag) || game.bazaarIds.has(tag)) {
    const name = game.items.get(tag)?.name ?? tag;
    return { command: `/bz ${name}`, path: `/item/${tag}` };
  }
  const bin = prices.lowestBins(tag)?.find((b) => b.uuid);
  if (bin?.uuid) return { command: `/viewauction ${bin.uuid}`, path: `/auction/${bin.uuid}` };
  return { command: '/ah', path: `/item/${tag}?range=active` };
}

/** The established CraftInstruction, plus `tree`: every item of the craft tree with its own recipe (a skymarket extension). */
export interface CraftInstructionAnswer extends CraftInstruction {
  tree: CraftInstruction[];
}

/** One CraftInstruction for the whole tree: the top item's recipe; `copyCommands` and `detailsPath` of every item in it. */
export function craftInstruction(game: GameData, prices: PriceSource, tag: string): CraftInstructionAnswer {
  const tree = craftInstructions(game, prices, tag);
  const copyCommands: Record<string, string> = {};
  const detailsPath: Record<string, string> = {};
  for (const node of tree) {
    Object.assign(copyCommands, node.copyCommands);
    Object.assign(detailsPath, node.detailsPath);
  }
  return { itemTag: tag, recipe: tree[0]?.recipe ?? null, copyCommands, detailsPath, tree };
}
