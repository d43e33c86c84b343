/**
 * Sales rolled up per variant and hour: what the auction-driven flips (and price statistics)
 * read instead of every sale, so memory is bounded by the variants a window holds, not by the
 * sales it held (issue: the service died on restart once a week of history existed).
 *
 * Three kinds of variant, each a grouping of the same sales:
 * - `attr`: the attribute flips' full variant (every upgrade an item carries); prices are whole
 *   sale prices, as the attribute flips compare them;
 * - `mayor`: the variant the mayor flips compare across terms (reforges, gems and held items
 *   ignored); prices per unit;
 * - `tag`: the item tag; prices per unit.
 *
 * An hour of one variant keeps count, sum, min, max and a price digest: every price, sorted, when
 * the hour had at most DIGEST_SIZE sales, else DIGEST_SIZE evenly spaced quantiles, each standing
 * for count / DIGEST_SIZE sales. Medians over a window are weighted medians of the digests'
 * points: exact whenever no hour of the variant had more than DIGEST_SIZE sales.
 */
import { petLevelOf as filterPetLevel } from './filters.ts';
import { fullKey, type VariantModifiers } from './flips/attribute.ts';

export const HOUR_MS = 3_600_000;
/** The sales windows the rollup keeps counters for (the attribute and mayor flips read them). */
export const SALES_WINDOW_MS = { '7d': 7 * 24 * HOUR_MS, '14d': 14 * 24 * HOUR_MS } as const;
/** Prices an hour keeps exactly; above it, that many quantiles. */
export const DIGEST_SIZE = 32;

export type VariantKind = 'attr' | 'mayor' | 'tag';
export const VARIANT_KINDS: readonly VariantKind[] = ['attr', 'mayor', 'tag'];

/** A sold auction as the rollups read it (the columns `store.flipInputs` returns). */
export interface SoldItem {
  uuid: string;
  tag: string;
  itemName: string;
  count: number;
  /** price per unit */
  price: number;
  /** sale time, epoch ms */
  at: number;
  tier: string | null;
  reforge: string | null;
  enchantments: Readonly<Record<string, number>>;
  flatNbt: Readonly<Record<string, string>>;
}

/** Which variant: its kind, key, tag and modifiers. */
export interface VariantIdentity {
  kind: VariantKind;
  key: string;
  tag: string;
  itemName: string;
  /** the variant's modifiers (attr and mayor kinds); null for `tag` */
  mods: VariantModifiers | null;
}

/** One variant's sales in one hour. */
export interface HourGroup extends VariantIdentity {
  count: number;
  sum: number;
  min: number;
  max: number;
  /** the price digest, ascending */
  prices: number[];
}

/** The variant a sold (or listed) item is, from its flattened NBT and name. */
export function modifiersOf(row: Pick<SoldItem, 'tier' | 'reforge' | 'enchantments' | 'flatNbt' | 'itemName'>): VariantModifiers {
  const f = row.flatNbt;
  const num = (k: string) => {
    const v = Number(f[k]);
    return Number.isFinite(v) ? v : 0;
  };
  const attributes: Record<string, number> = {};
  for (const [k, v] of Object.entries(f)) {
    if (k.startsWith('attributes.')) {
      const n = Number(v);
      if (Number.isFinite(n)) attributes[k.slice('attributes.'.length)] = n;
    }
  }
  return {
    tier: row.tier,
    reforge: row.reforge,
    stars: num('upgrade_level') || num('dungeon_item_level'),
    rarityUpgrades: num('rarity_upgrades'),
    hotPotatoCount: num('hot_potato_count'),
    enchantments: row.enchantments,
    attributes,
    ...gemsOf(f),
    petHeldItem: f['petInfo.heldItem'] || null,
    petLevel: petLevelOf(row),
  };
}

/** Gemstones from the flattened NBT: `gems.<slot>` (or `gems.<slot>.quality`), `gems.<slot>_gem`, `gems.unlocked_slots`. */
function gemsOf(f: Readonly<Record<string, string>>): { gems: Record<string, string>; unlockedGemSlots: string[] } {
  const gems: Record<string, string> = {};
  let unlockedGemSlots: string[] = [];
  for (const [k, v] of Object.entries(f)) {
    if (!k.startsWith('gems.')) continue;
    const key = k.slice('gems.'.length);
    if (key === 'unlocked_slots') unlockedGemSlots = v.split(',').filter(Boolean);
    else if (key.endsWith('.quality')) gems[key.slice(0, -'.quality'.length)] = v;
    else if (!key.includes('.')) gems[key] = v;
  }
  return { gems, unlockedGemSlots };
}

/**
 * A pet's level from its XP, as the `PetLevel` filter computes it, so that flips and filters agree; the
 * `[Lvl N]` of the name only when the item carries no pet data.
 */
function petLevelOf(row: Pick<SoldItem, 'flatNbt' | 'itemName'>): number | null {
  if (row.flatNbt['petInfo.type'] !== undefined) return filterPetLevel({ flatNbt: row.flatNbt });
  const m = /\[Lvl (\d+)\]/.exec(row.itemName);
  return m ? Number(m[1]) : null;
}

/**
 * Sales of one tag compared across mayor terms must be the same thing: tier, stars, recombobulation,
 * potato books, enchantments, attributes and pet level make the variant; reforges do not.
 */
export function mayorVariantKey(tag: string, m: VariantModifiers): string {
  const sorted = (o: Readonly<Record<string, number>>) => Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}${v}`).join(',');
  return [tag, m.tier ?? '', m.stars, m.rarityUpgrades, m.hotPotatoCount, sorted(m.enchantments), sorted(m.attributes), m.petLevel ?? ''].join('|');
}

/** The mayor flips' variant of a sold or listed item. */
export function itemMayorVariantKey(item: Pick<SoldItem, 'tag' | 'tier' | 'reforge' | 'enchantments' | 'flatNbt' | 'itemName'>): string {
  return mayorVariantKey(item.tag, modifiersOf(item));
}

/** The mayor flips' variant keeps only what mayorVariantKey reads. */
function mayorModifiers(m: VariantModifiers): VariantModifiers {
  return { tier: m.tier, reforge: null, stars: m.stars, rarityUpgrades: m.rarityUpgrades, hotPotatoCount: m.hotPotatoCount, enchantments: m.enchantments, attributes: m.attributes, petLevel: m.petLevel ?? null };
}

/** The start of the hour holding `ts`. */
export function hourOf(ts: number): number {
  return Math.floor(ts / HOUR_MS) * HOUR_MS;
}

/** The digest of a set of prices: all of them sorted, or DIGEST_SIZE quantiles of them. */
export function priceDigest(prices: readonly number[]): number[] {
  return digestOfSorted([...prices].sort((a, b) => a - b));
}

/** `priceDigest` of prices already in ascending order (no copy, no sort). */
export function digestOfSorted(sorted: ArrayLike<number>): number[] {
  if (sorted.length <= DIGEST_SIZE) return Array.from(sorted);
  const out: number[] = [];
  for (let i = 0; i < DIGEST_SIZE; i++) {
    // The middle of the i-th of DIGEST_SIZE equal slices, interpolated between ranks.
    const rank = ((i + 0.5) / DIGEST_SIZE) * sorted.length - 0.5;
    const lo = Math.floor(rank);
    const frac = rank - lo;
    out.push(sorted[lo]! + (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!) * frac);
  }
  return out;
}

/** What one sale is to one kind of variant: its key, modifiers and price. */
export interface SaleVariant {
  key: string;
  mods: VariantModifiers | null;
  price: number;
}

/** The three variants a sale belongs to (see the kinds above), from its modifiers once derived. */
export function saleVariants(s: SoldItem, mods: VariantModifiers = modifiersOf(s)): Record<VariantKind, SaleVariant> {
  return {
    attr: { key: fullKey(s.tag, mods), mods, price: s.price * s.count },
    mayor: { key: mayorVariantKey(s.tag, mods), mods: mayorModifiers(mods), price: s.price },
    tag: { key: s.tag, mods: null, price: s.price },
  };
}

/** Groups sales (of any hours) by kind, variant and hour. Sales with a non-positive price are left out. */
export function rollSales(sales: Iterable<SoldItem>): Map<number, HourGroup[]> {
  const byHour = new Map<number, Map<string, { group: HourGroup; prices: number[] }>>();
  for (const s of sales) {
    if (!(s.price > 0)) continue;
    const hour = hourOf(s.at);
    let groups = byHour.get(hour);
    if (!groups) byHour.set(hour, (groups = new Map()));
    const variants = saleVariants(s);
    for (const kind of VARIANT_KINDS) {
      const { key, mods, price } = variants[kind];
      const id = `${kind}\u0000${key}`;
      const e = groups.get(id);
      if (e) {
        e.group.count++;
        e.group.sum += price;
        if (price < e.group.min) e.group.min = price;
        if (price > e.group.max) e.group.max = price;
        e.prices.push(price);
      } else {
        groups.set(id, { group: { kind, key, tag: s.tag, itemName: s.itemName, mods, count: 1, sum: price, min: price, max: price, prices: [] }, prices: [price] });
      }
    }
  }
  const out = new Map<number, HourGroup[]>();
  for (const [hour, groups] of byHour) {
    out.set(hour, [...groups.values()].map(({ group, prices }) => ({ ...group, prices: priceDigest(prices) })));
  }
  return out;
}

/** A price standing for `weight` sales. */
export interface WeightedPrice {
  price: number;
  weight: number;
}

/** The points of an hour's digest: each price stands for count / points sales. */
export function digestPoints(count: number, prices: ArrayLike<number>, out: WeightedPrice[] = []): WeightedPrice[] {
  const weight = prices.length > 0 ? count / prices.length : 0;
  for (let i = 0; i < prices.length; i++) out.push({ price: prices[i]!, weight });
  return out;
}

/**
 * The weighted median: the price where half the weight lies on either side; the mean of the two
 * middle prices when the weight splits exactly between them (the plain median for unit weights).
 */
export function weightedMedian(points: readonly WeightedPrice[]): number | null {
  if (points.length === 0) return null;
  const sorted = [...points].sort((a, b) => a.price - b.price);
  const total = sorted.reduce((s, p) => s + p.weight, 0);
  const half = total / 2;
  const eps = total * 1e-12;
  let cumulative = 0;
  for (let i = 0; i < sorted.length; i++) {
    cumulative += sorted[i]!.weight;
    if (Math.abs(cumulative - half) <= eps && i + 1 < sorted.length) return (sorted[i]!.price + sorted[i + 1]!.price) / 2;
    if (cumulative > half) return sorted[i]!.price;
  }
  return sorted[sorted.length - 1]!.price;
}
