/**
 * The price file networth libraries read (issue 43): one flat map from an id to coins, keyed the
 * way SkyHelper-Networth and its kin look prices up. Pure: the market hands over its active BIN
 * listings, the newest bazaar snapshot and the attribute figures of the sales.
 *
 * Keys, lower case (SkyHelper-Networth 1.x and the libraries built on its file; 2.x looks up the
 * same keys in upper case, `upperCaseKeys`):
 * - an item by its SkyBlock id: `hyperion`, `hot_potato_book`, `essence_wither`, `perfect_ruby_gem`,
 *   `first_master_star`, `pet_item_…`, `pet_skin_…`, `ink_sack:3` …; enchanted books of one
 *   enchantment `enchantment_<name>_<level>`; potions `potion`, Abiphone cases `abicase` (the id the
 *   libraries read, not skymarket's finer tag);
 * - pets `lvl_1_<tier>_<type>` (levels 1–99: the libraries interpolate by XP from there to level
 *   100, so the cheapest pet under 100 stands for level 1), `lvl_100_<tier>_<type>` (level 100) and
 *   `lvl_200_<tier>_<type>` (level 200, the dragons); a skinned pet under the same key with
 *   `_skinned_<skin>` after it, and not under the plain one. Levels 101–199 price no key (the
 *   libraries interpolate them between 100 and 200); a pet holding a Tier Boost neither (its
 *   rarity is not its own);
 * - item variants: `<id>_skinned_<skin>`, `<id>_shiny`, runes `rune_<type>_<level>`, cakes
 *   `new_year_cake_<year>`, hats `<id>_<colour>` / `party_hat_sloth_<emoji>`,
 *   `dctr_space_helm_editioned`, `ancient_elevator_editioned`, `creative_mind_uneditioned`, Midas weapons
 *   bought at the highest bid `midas_sword_50m` / `midas_staff_100m`;
 * - attributes: `attribute_shard_<attribute>` (one level-1 shard's worth, what a level costs in
 *   shards: level n holds 2^(n−1)), `attribute_shard` (the cheapest of those), and
 *   `kuudra_<helmet|chestplate|leggings|boots>_<attribute>` (the cheapest Kuudra piece carrying it,
 *   per level-1 shard's worth).
 *
 * Prices:
 * - a bazaar product: its instant-sell price (the highest buy order), what the holder gets for it
 *   now; with no buy order, its instant-buy price (the lowest sell offer); with neither, no key.
 *   The bazaar wins over the auction house where both know an id (it is the deeper market).
 * - anything else: the lowest active BIN per item (a stack's price over its count) inside the
 *   outlier fence of the `elite/smooth` file (bulk-prices.ts `smoothLowest`), so one planted
 *   listing does not move a networth; for a key nothing is listed under now, the mean hourly lowest
 *   BIN of the last day of its tag and price variant (the stored history: pets by rarity and band,
 *   runes by level; the variants do not tell skins, tier boosts or hat colours apart, so only the
 *   plain keys come from there);
 * - attributes: from the sales (attribute-prices.ts, the lowest 7-day median of variants holding
 *   the attribute alone) where they know it, else from the active shards.
 * A key no source prices is left out (the libraries then count 0 or skip the part); a price is
 * never 0 unless the coins are 0.
 */
import { attributePrices, type AttributeVariantSales } from './attribute-prices.ts';
import { smoothLowest } from './bulk-prices.ts';
import { petLevelOf } from './filters.ts';
import { isPetTag } from './item-names.ts';

/** An active BIN listing as the builder reads it. */
export interface NetworthListing {
  tag: string;
  tier: string | null;
  flatNbt: Readonly<Record<string, string>>;
  startingBid: number;
  count: number;
}

/** A bazaar product's quick status. */
export interface NetworthBazaarProduct {
  productId: string;
  /** instant buy: the lowest sell offer */
  buyPrice: number;
  /** instant sell: the highest buy order */
  sellPrice: number;
}

export interface NetworthPriceSources {
  listings: Iterable<NetworthListing>;
  bazaar: readonly NetworthBazaarProduct[];
  /** the attribute variants of the sales (market/flips.ts), if known */
  attributeSales?: readonly AttributeVariantSales[];
  /**
   * The mean hourly lowest BIN of the last day per tag and price variant (the price rollups,
   * domain/prices.ts `priceVariantKey`): the price of a key no active listing prices now.
   */
  recentLowestBins?: Iterable<{ tag: string; variant: string; price: number }>;
}

/** The pet held item that raises a pet's rarity: such a listing is neither rarity's clean price. */
const TIER_BOOST = 'PET_ITEM_TIER_BOOST';
/** Kuudra armour: the five lines, each with four upgraded prefixes. */
const KUUDRA_PIECE = /^(?:HOT_|FIERY_|BURNING_|INFERNAL_)?(?:AURORA|CRIMSON|TERROR|HOLLOW|FERVOR)_(HELMET|CHESTPLATE|LEGGINGS|BOOTS)$/;
const HAT_BY_COLOUR = /^(?:PARTY_HAT_CRAB|PARTY_HAT_CRAB_ANIMATED|BALLOON_HAT_\d+)$/;
const NAME_PART = /^[A-Za-z0-9_]+$/;
/** Midas weapons bought at the highest bid Midas takes: a key of their own (the libraries price the rest by the bid). */
const MIDAS: Readonly<Record<string, { bid: number; key: string }>> = {
  MIDAS_SWORD: { bid: 50_000_000, key: 'midas_sword_50m' },
  MIDAS_STAFF: { bid: 100_000_000, key: 'midas_staff_100m' },
};

/**
 * The key one listing prices, lower case, or undefined for a listing that names no key (a pet
 * holding a tier boost, a pet of level 101–199, an unreadable variant).
 */
export function networthKeyOf(l: Pick<NetworthListing, 'tag' | 'tier' | 'flatNbt'>): string | undefined {
  const { tag, flatNbt: nbt } = l;
  if (isPetTag(tag)) {
    if (nbt['petInfo.heldItem'] === TIER_BOOST) return undefined;
    const level = petLevelOf(l);
    const band = level >= 200 ? 200 : level >= 100 ? (level === 100 ? 100 : undefined) : level >= 1 ? 1 : undefined;
    if (band === undefined) return undefined;
    const tier = nbt['petInfo.tier'] ?? l.tier;
    const type = nbt['petInfo.type'] ?? tag.slice(4);
    if (!tier || !NAME_PART.test(tier) || !NAME_PART.test(type)) return undefined;
    const skin = nbt['petInfo.skin'];
    const base = `lvl_${band}_${tier}_${type}`;
    return (skin && NAME_PART.test(skin) ? `${base}_skinned_${skin}` : base).toLowerCase();
  }
  if (tag.startsWith('RUNE_') || tag.startsWith('UNIQUE_RUNE_')) {
    for (const k in nbt) {
      if (k.startsWith('runes.')) {
        const level = nbt[k]!;
        return /^\d+$/.test(level) && NAME_PART.test(k.slice(6)) ? `rune_${k.slice(6)}_${level}`.toLowerCase() : undefined;
      }
    }
    return undefined;
  }
  if (tag.startsWith('POTION_') && nbt['potion'] !== undefined) return 'potion';
  if (tag.startsWith('ABICASE_') && nbt['model'] !== undefined) return 'abicase';
  if (tag === 'NEW_YEAR_CAKE') {
    const year = nbt['new_years_cake'];
    return year !== undefined && /^\d+$/.test(year) ? `new_year_cake_${year}` : undefined;
  }
  if (HAT_BY_COLOUR.test(tag) && nbt['party_hat_color'] !== undefined) {
    const colour = nbt['party_hat_color']!;
    return NAME_PART.test(colour) ? `${tag}_${colour}`.toLowerCase() : undefined;
  }
  if (tag === 'PARTY_HAT_SLOTH' && nbt['party_hat_emoji'] !== undefined) {
    const emoji = nbt['party_hat_emoji']!;
    return NAME_PART.test(emoji) ? `${tag}_${emoji}`.toLowerCase() : undefined;
  }
  const maxed = MIDAS[tag];
  if (maxed && Number(nbt['winning_bid']) >= maxed.bid) return maxed.key;
  if ((tag === 'DCTR_SPACE_HELM' || tag === 'ANCIENT_ELEVATOR') && nbt['edition'] !== undefined) return `${tag}_editioned`.toLowerCase();
  if (tag === 'CREATIVE_MIND' && nbt['edition'] === undefined) return 'creative_mind_uneditioned';
  const skin = nbt['skin'];
  if (skin !== undefined) return NAME_PART.test(skin) ? `${tag}_skinned_${skin}`.toLowerCase() : undefined;
  if (nbt['is_shiny'] === '1' || nbt['is_shiny'] === 'true') return `${tag}_shiny`.toLowerCase();
  return tag.toLowerCase();
}

/**
 * The key a price variant of the rollups stands for (`priceVariantKey`: a pet's `RARITY`,
 * `RARITY+100`, `RARITY+200`; a rune's or potion's level; '' for anything else), or undefined
 * where the variant cannot tell the key (a variant-keyed item's whole-tag row, a hat without its
 * colour, a cake without its year).
 */
export function networthKeyOfVariant(tag: string, variant: string): string | undefined {
  if (isPetTag(tag)) {
    const m = /^([A-Z]+)(?:\+(100|200))?$/.exec(variant);
    return m && NAME_PART.test(tag) ? `lvl_${m[2] ?? 1}_${m[1]}_${tag.slice(4)}`.toLowerCase() : undefined;
  }
  const rune = /^(?:UNIQUE_)?RUNE_(.+)$/.exec(tag);
  if (rune) return /^\d+$/.test(variant) && NAME_PART.test(rune[1]!) ? `rune_${rune[1]}_${variant}`.toLowerCase() : undefined;
  if (variant !== '') return tag.startsWith('POTION_') ? 'potion' : undefined;
  if (HAT_BY_COLOUR.test(tag) || tag === 'PARTY_HAT_SLOTH' || tag === 'NEW_YEAR_CAKE' || tag.startsWith('POTION_') || tag.startsWith('ABICASE_')) return undefined;
  return tag.toLowerCase();
}

/** What one level-1 shard is worth, from the price of `level` (which holds 2^(level−1) of them). */
function perShard(price: number, level: number): number {
  return price / 2 ** (Math.max(1, level) - 1);
}

function add(map: Map<string, number[]>, key: string, price: number): void {
  const list = map.get(key);
  if (list) list.push(price);
  else map.set(key, [price]);
}

/**
 * A price as the file writes it: whole coins from 100 coins up, two decimals below (a bazaar
 * material at 0.7 coins stays 0.7), four significant digits where two decimals would read 0.
 */
export function networthCoins(price: number): number {
  if (price >= 100) return Math.round(price);
  const cents = Math.round(price * 100) / 100;
  return cents > 0 || price <= 0 ? cents : Number(price.toPrecision(4));
}

/** The file: key → coins, keys in order (equal prices give equal bytes). */
export function networthPrices(sources: NetworthPriceSources): Record<string, number> {
  const auction = new Map<string, number[]>();
  const shards = new Map<string, number[]>();
  const kuudra = new Map<string, number[]>();
  for (const l of sources.listings) {
    const price = l.startingBid / Math.max(1, l.count);
    if (!(price >= 0) || !Number.isFinite(price)) continue;
    const key = networthKeyOf(l);
    if (key !== undefined) add(auction, key, price);
    if (l.tag === 'ATTRIBUTE_SHARD' || KUUDRA_PIECE.test(l.tag)) {
      const piece = KUUDRA_PIECE.exec(l.tag)?.[1]?.toLowerCase();
      for (const k in l.flatNbt) {
        if (!k.startsWith('attributes.')) continue;
        const level = Number(l.flatNbt[k]);
        const name = k.slice(11).toLowerCase();
        if (!Number.isInteger(level) || level < 1 || !NAME_PART.test(name)) continue;
        if (piece) add(kuudra, `kuudra_${piece}_${name}`, perShard(price, level));
        else add(shards, name, perShard(price, level));
      }
    }
  }

  const out = new Map<string, number>();
  for (const [key, prices] of auction) out.set(key, smoothOf(prices));
  // The last day's history for keys nothing is listed under now (the lowest of a key's variants).
  for (const r of sources.recentLowestBins ?? []) {
    const key = networthKeyOfVariant(r.tag, r.variant);
    if (key === undefined || auction.has(key) || !(r.price >= 0) || !Number.isFinite(r.price)) continue;
    const seen = out.get(key);
    if (seen === undefined || r.price < seen) out.set(key, r.price);
  }
  for (const [key, prices] of kuudra) out.set(key, smoothOf(prices));

  // Attributes: the sales' figure where known, else the active shards'.
  const sold = sources.attributeSales ? attributePrices(sources.attributeSales) : {};
  const unit = new Map<string, number>();
  for (const [name, prices] of shards) unit.set(name, smoothOf(prices));
  for (const [name, levels] of Object.entries(sold)) {
    if (!NAME_PART.test(name)) continue;
    let best = Number.POSITIVE_INFINITY;
    for (const [level, price] of Object.entries(levels)) best = Math.min(best, perShard(price, Number(level)));
    if (Number.isFinite(best)) unit.set(name.toLowerCase(), best);
  }
  let cheapestShard = Number.POSITIVE_INFINITY;
  for (const [name, price] of unit) {
    out.set(`attribute_shard_${name}`, price);
    cheapestShard = Math.min(cheapestShard, price);
  }
  if (Number.isFinite(cheapestShard)) out.set('attribute_shard', cheapestShard);

  // The bazaar last: it wins where both markets know an id.
  for (const p of sources.bazaar) {
    const price = p.sellPrice > 0 ? p.sellPrice : p.buyPrice > 0 ? p.buyPrice : undefined;
    if (price === undefined || !Number.isFinite(price)) continue;
    out.set(p.productId.toLowerCase(), price);
  }

  const file: Record<string, number> = {};
  for (const key of [...out.keys()].sort()) file[key] = networthCoins(out.get(key)!);
  return file;
}

/** SkyHelper-Networth 2.x looks the same keys up in upper case. */
export function upperCaseKeys(file: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of Object.keys(file)) out[key.toUpperCase()] = file[key]!;
  return out;
}

function smoothOf(prices: number[]): number {
  prices.sort((a, b) => a - b);
  return smoothLowest(prices)!;
}
