/** Small hand-made game data and books for engine tests. */
import type { BookLevel } from '../../src/domain/bazaar-book.ts';
import type { BazaarQuote } from '../../src/domain/craft/prices.ts';
import type { GameData, GameItem, Recipe } from '../../src/gamedata/types.ts';

export function game(recipes: Recipe[], extra: Partial<GameData> = {}): GameData {
  const items = new Map<string, GameItem>();
  const byTag = new Map<string, Recipe[]>();
  const npcOffers = new Map<string, Recipe[]>();
  const item = (tag: string) => {
    if (!items.has(tag)) items.set(tag, { tag, sourceId: tag, name: tag.toLowerCase(), tier: null, material: null, requirements: [] });
  };
  for (const r of recipes) {
    item(r.output);
    for (const i of r.inputs) item(i.tag);
    byTag.set(r.output, [...(byTag.get(r.output) ?? []), r]);
    if (r.type === 'npc_shop') npcOffers.set(r.output, [...(npcOffers.get(r.output) ?? []), r]);
  }
  return {
    source: { kind: 'builtin', path: null, version: null },
    items,
    recipes: byTag,
    npcOffers,
    bazaarIds: new Map(),
    enchantsByClass: new Map(),
    copper: new Map(),
    attributeShards: [],
    georgePrices: new Map(),
    unresolved: [],
    katUpgrades: [],
    ...extra,
  };
}

export function craft(output: string, inputs: Record<string, number>, count = 1, extra: Partial<Recipe> = {}): Recipe {
  return { type: 'crafting', output, count, inputs: Object.entries(inputs).map(([tag, n]) => ({ tag, count: n })), currencies: [], ...extra };
}

const lv = ([pricePerUnit, amount]: [number, number]): BookLevel => ({ pricePerUnit, amount, orders: 1 });

/** offers: [price, amount] lowest first; bids: [price, amount] highest first; weekly volumes default to 0 (no buy-order capacity). */
export function quote(productId: string, offers: Array<[number, number]>, bids: Array<[number, number]> = [], instaSellWeekly = 0, instaBuyWeekly = 1_000_000): BazaarQuote {
  return { productId, sellOffers: offers.map(lv), buyOrders: bids.map(lv), instaSellWeekly, instaBuyWeekly };
}
