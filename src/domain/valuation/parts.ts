/**
 * The parts estimate: the clean base item plus every upgrade applied to it, each priced on the
 * market and multiplied by the share of its cost an upgrade keeps on resale (the "application
 * worth" convention of the networth libraries, SkyHelper-Networth's `applicationWorth`). Every
 * factor used is in `APPLICATION_WORTH` / `ENCHANTMENT_WORTH` and documented in docs/valuation.md.
 * Prices come through `PartPrices`, so the bazaar and lowest BINs today and a price map later can
 * back it. Pure.
 */
import type { GemstoneSlotCost, ReforgeStone } from '../../gamedata/part-costs.ts';
import type { StarCost } from '../../gamedata/upgrades.ts';
import { enchantmentBookTag } from '../tags.ts';
import type { AppliedKind, ItemTraits, PetLevelBand } from './traits.ts';

/** Where a part's price came from. */
export type PriceSourceKind = 'bazaar' | 'lbin' | 'sales' | 'face' | 'none';

export interface PartPrice {
  /** coins per unit */
  coins: number;
  source: PriceSourceKind;
}

/** The clean item a base price is asked for: a pet's rarity and level band, an item's rarity. */
export interface BaseVariant {
  tier: string | null;
  petBand: PetLevelBand | null;
  /** rarity upgrades are part of the item, not of its base: the base is asked without them */
  recombobulated: boolean;
}

/** Prices of parts, by bazaar product id or auction tag. */
export interface PartPrices {
  /** coins per unit of an item, undefined when the market has no price for it */
  lookup(id: string): PartPrice | undefined;
  /** the clean base item of a tag in this variant (cheapest clean listing, else clean sales), undefined when unknown */
  base(tag: string, variant: BaseVariant): PartPrice | undefined;
}

/** Shares of an upgrade's cost kept on resale, by kind (SkyHelper-Networth's application worth). */
export const APPLICATION_WORTH = {
  enchantment: 0.85,
  recombobulator: 0.8,
  hot_potato_book: 1,
  fuming_potato_book: 0.6,
  essence_star: 0.75,
  master_star: 1,
  gemstone: 1,
  gemstone_slot: 0.6,
  pet_item: 1,
  pet_candy: 0.65,
  attribute: 1,
  reforge: 1,
  art_of_war: 0.6,
  art_of_peace: 0.8,
  farming_for_dummies: 0.5,
  etherwarp: 1,
  wood_singularity: 0.5,
  transmission_tuner: 0.7,
  mana_disintegrator: 0.8,
  jalapeno_book: 0.8,
  polarvoid_book: 1,
  bookworm_book: 1,
  divan_powder_coating: 0.8,
  enrichment: 0.5,
  power_scroll: 0.5,
  necron_scroll: 1,
  drill_part: 1,
  thunder_in_a_bottle: 0.8,
  dye: 0.9,
  skin: 0.9,
  rune: 0.6,
  winning_bid: 1,
  stats_book: 0.6,
} as const satisfies Record<string, number>;

export type PartKind = keyof typeof APPLICATION_WORTH | 'base';

/** Enchantments whose books keep less of their price once applied (SkyHelper-Networth's `enchantsWorth`). */
export const ENCHANTMENT_WORTH: Readonly<Record<string, number>> = {
  overload: 0.35,
  ultimate_soul_eater: 0.35,
  ultimate_inferno: 0.35,
  big_brain: 0.35,
  ultimate_fatal_tempo: 0.65,
  counter_strike: 0.2,
};

/** Enchantments that come with the item or cost nothing to apply: not counted. */
const FREE_ENCHANTMENTS = new Set(['telekinesis', 'scavenger', 'efficiency']);
/**
 * Enchantments that level up by use (kills, crops, XP): only their first level was bought,
 * so they are priced as their level-1 book.
 */
const USE_LEVELLED = new Set(['expertise', 'compact', 'cultivating', 'champion', 'hecatomb', 'toxophilite', 'absorb']);

/** Pets whose price candy does not lower (their level is their price), as the convention has it. */
const CANDY_IMMUNE_PETS = new Set(['GOLDEN_DRAGON', 'ENDER_DRAGON', 'SCATHA', 'JADE_DRAGON', 'ROSE_DRAGON']);

export interface Part {
  kind: PartKind;
  /** the priced item (bazaar product or auction tag), or what it is when it is no item */
  id: string;
  /** coins per unit, null when the market has no price */
  unitPrice: number | null;
  source: PriceSourceKind;
  count: number;
  factor: number;
  /** unitPrice × count × factor (0 when unpriced) */
  value: number;
}

export interface PartsEstimate {
  /** base plus every priced part; null when the base has no price */
  value: number | null;
  parts: Part[];
  /** parts recognised but without a price (they add nothing to `value`) */
  unpriced: number;
}

export interface PartsContext {
  prices: PartPrices;
  /** essence per star of items that take stars (gamedata/upgrades.ts) */
  stars?: ReadonlyMap<string, StarCost>;
  /** attribute (NBT name) → its shard's product id */
  attributeShards?: ReadonlyMap<string, { productId: string }>;
  /** item modifier → the reforge stones applying it (gamedata/part-costs.ts) */
  reforgeStones?: ReadonlyMap<string, readonly ReforgeStone[]>;
  /** item tag → slot id → what unlocking it costs (gamedata/part-costs.ts) */
  gemstoneSlots?: ReadonlyMap<string, ReadonlyMap<string, GemstoneSlotCost>>;
}

const MASTER_STARS = ['FIRST_MASTER_STAR', 'SECOND_MASTER_STAR', 'THIRD_MASTER_STAR', 'FOURTH_MASTER_STAR', 'FIFTH_MASTER_STAR'];

/** The parts estimate of an item (for a stack: of the whole stack). */
export function partsEstimate(t: ItemTraits, ctx: PartsContext): PartsEstimate {
  const parts: Part[] = [];
  let unpriced = 0;
  const add = (kind: PartKind, id: string, count: number, factor: number, price: PartPrice | undefined): void => {
    if (!(count > 0)) return;
    // Hostile counts (a stored 1e300 books) must not make the value infinite: such a part stays unpriced.
    const unit = price && price.coins > 0 && Number.isFinite(price.coins * count * factor) ? price.coins : null;
    if (unit === null) unpriced++;
    parts.push({ kind, id, unitPrice: unit, source: unit === null ? 'none' : price!.source, count, factor, value: unit === null ? 0 : unit * count * factor });
  };
  const p = ctx.prices;
  const lookup = (id: string) => p.lookup(id);

  const base = p.base(t.tag, { tier: t.tier, petBand: t.pet?.band ?? null, recombobulated: t.recombobulated });
  let baseValue = base && base.coins > 0 ? base.coins : null;
  let baseFactor = 1;
  // Candy lowers a pet's own price: at most to 65 % of it, by at most 5 M (level 100) or 2.5 M.
  if (t.pet && t.pet.candyUsed > 0 && !CANDY_IMMUNE_PETS.has(t.pet.type) && baseValue !== null) {
    const reduced = Math.max(baseValue * APPLICATION_WORTH.pet_candy, baseValue - (t.pet.level >= 100 ? 5_000_000 : 2_500_000));
    baseFactor = reduced / baseValue;
  }
  parts.push({ kind: 'base', id: t.tag, unitPrice: baseValue, source: base?.source ?? 'none', count: t.count, factor: baseFactor, value: baseValue === null ? 0 : baseValue * t.count * baseFactor });
  if (baseValue === null) unpriced++;

  // Enchanted books carry their enchantment in the tag: the base is the book.
  if (!t.tag.startsWith('ENCHANTMENT_')) {
    for (const name in t.enchantments) {
      if (FREE_ENCHANTMENTS.has(name)) continue;
      const level = USE_LEVELLED.has(name) ? 1 : t.enchantments[name]!;
      const id = enchantmentBookTag(name, level);
      add('enchantment', id, 1, ENCHANTMENT_WORTH[name] ?? APPLICATION_WORTH.enchantment, lookup(id));
    }
  }
  if (t.recombobulated && !t.tag.startsWith('PET_')) add('recombobulator', 'RECOMBOBULATOR_3000', 1, APPLICATION_WORTH.recombobulator, lookup('RECOMBOBULATOR_3000'));
  add('hot_potato_book', 'HOT_POTATO_BOOK', t.hotPotatoBooks, APPLICATION_WORTH.hot_potato_book, lookup('HOT_POTATO_BOOK'));
  add('fuming_potato_book', 'FUMING_POTATO_BOOK', t.fumingPotatoBooks, APPLICATION_WORTH.fuming_potato_book, lookup('FUMING_POTATO_BOOK'));

  if (t.stars > 0) {
    const cost = ctx.stars?.get(t.tag);
    if (cost) {
      let essence = 0;
      for (let i = 0; i < t.stars && i < cost.perStar.length; i++) essence += cost.perStar[i]!;
      add('essence_star', cost.essence, essence, APPLICATION_WORTH.essence_star, lookup(cost.essence));
    } else {
      add('essence_star', `${t.tag}:stars`, t.stars, APPLICATION_WORTH.essence_star, undefined);
    }
  }
  for (let i = 0; i < t.masterStars; i++) add('master_star', MASTER_STARS[i]!, 1, APPLICATION_WORTH.master_star, lookup(MASTER_STARS[i]!));

  for (const g of t.gems) {
    const id = g.type === null ? `${g.quality}_GEM` : `${g.quality}_${g.type}_GEM`;
    add('gemstone', id, 1, APPLICATION_WORTH.gemstone, g.type === null ? undefined : lookup(id));
  }
  // What unlocking a slot costs is in the item's game data (gemstonecosts), not in its NBT; without it, priced when a price map knows `<TAG>:<slot>`.
  for (const slot of t.unlockedSlots) {
    const cost = ctx.gemstoneSlots?.get(t.tag)?.get(slot);
    add('gemstone_slot', `${t.tag}:${slot}`, 1, APPLICATION_WORTH.gemstone_slot, cost ? slotUnlockPrice(cost, lookup) : lookup(`${t.tag}:${slot}`));
  }

  for (const name in t.attributes) {
    const level = t.attributes[name]!;
    // A level-n attribute is 2^(n-1) level-1 shards.
    const shard = ctx.attributeShards?.get(name)?.productId ?? `ATTRIBUTE_SHARD_${name.toUpperCase()}`;
    add('attribute', shard, 2 ** Math.min(10, Math.max(0, level - 1)), APPLICATION_WORTH.attribute, lookup(shard));
  }
  if (t.pet?.heldItem) add('pet_item', t.pet.heldItem, 1, APPLICATION_WORTH.pet_item, lookup(t.pet.heldItem));
  if (t.reforge !== null && !t.tag.startsWith('PET_')) {
    // A stone's reforge is priced as its stone; basic reforges (from the blacksmith) cost coins only and are no part.
    // Without the stone table, a price map may still name the stone as `REFORGE:<reforge>`.
    const stone = stoneOfReforge(ctx.reforgeStones, t.reforge, t.tag);
    if (stone) add('reforge', stone.stone, 1, APPLICATION_WORTH.reforge, lookup(stone.stone));
    else {
      const named = p.lookup(`REFORGE:${t.reforge}`);
      if (named) add('reforge', `REFORGE:${t.reforge}`, 1, APPLICATION_WORTH.reforge, named);
    }
  }
  for (const a of t.applied) {
    if (a.kind === 'winning_bid') {
      add('winning_bid', 'WINNING_BID', 1, APPLICATION_WORTH.winning_bid, { coins: a.count, source: 'face' });
      continue;
    }
    add(a.kind as Exclude<AppliedKind, 'winning_bid'>, a.kind === 'rune' ? `${a.id}:${a.count}` : a.id, a.kind === 'rune' ? 1 : a.count, APPLICATION_WORTH[a.kind], lookup(a.kind === 'rune' ? `${a.id}:${a.count}` : a.id));
  }
  let value: number | null = null;
  if (baseValue !== null) {
    value = 0;
    for (const part of parts) value += part.value;
  }
  return { value, parts, unpriced };
}

/** Item type words of a tag that a stone's `itemTypes` name (`..._SWORD` → SWORD; armour pieces → ARMOR and the piece). */
function itemTypesOfTag(tag: string): string[] {
  const last = tag.slice(tag.lastIndexOf('_') + 1);
  const out = [last];
  if (last === 'HELMET' || last === 'CHESTPLATE' || last === 'LEGGINGS' || last === 'BOOTS') out.push('ARMOR');
  return out;
}

/**
 * The stone applying an item's reforge (its `modifier`): the stone whose reforge name matches;
 * where several do, the one naming the item, else one whose item types fit the tag's type word,
 * else the first. Undefined: a basic reforge (no stone) or no table.
 */
export function stoneOfReforge(stones: ReadonlyMap<string, readonly ReforgeStone[]> | undefined, modifier: string, tag: string): ReforgeStone | undefined {
  const list = stones?.get(modifier.toLowerCase());
  if (!list || list.length === 0) return undefined;
  if (list.length === 1) return list[0];
  const types = itemTypesOfTag(tag);
  return list.find((s) => s.items?.includes(tag)) ?? list.find((s) => s.itemTypes?.some((t) => types.includes(t))) ?? list[0];
}

/**
 * What unlocking a slot costs now: Σ item price × amount + coins. Undefined when an item has no
 * price (a partial sum would understate it); the source is the weakest of the items' ('face' for coins only).
 */
export function slotUnlockPrice(cost: GemstoneSlotCost, lookup: (id: string) => PartPrice | undefined): PartPrice | undefined {
  let coins = cost.coins;
  let source: PriceSourceKind = 'face';
  for (const id in cost.items) {
    const price = lookup(id);
    if (!price || !(price.coins > 0)) return undefined;
    coins += price.coins * cost.items[id]!;
    if (source === 'face' || source === 'bazaar') source = price.source;
  }
  return coins > 0 && Number.isFinite(coins) ? { coins, source } : undefined;
}
