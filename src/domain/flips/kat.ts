/**
 * Kat flips (pure): buy a pet at one rarity as the cheapest active BIN, have Kat raise it one
 * rarity (coins, materials, time: NEU's `katgrade` recipes, gamedata/neu.ts), sell it at the
 * lowest BIN of the higher rarity after the auction fee. Materials are priced by the caller
 * the way the craft flips price ingredients. Pets shown at a rarity their Tier Boost gives them
 * are neither origins nor references: Kat upgrades the base rarity.
 */
import type { KatUpgrade } from '../../gamedata/types.ts';
import { auctionFeeRate, median, round2 } from './common.ts';

/** One upgrade as the established `/api/kat/data` lists it. */
export interface KatUpgradeCost {
  name: string;
  /** rarity the pet goes in at */
  baseRarity: string;
  hours: number;
  /** coins Kat asks */
  cost: number;
  /** the first material, null when none */
  material: string | null;
  /** amount of `material` (0 when none) */
  amount: number;
  /** every material, tag → amount; null when none */
  materials: Record<string, number> | null;
  itemTag: string;
}

export interface KatFlip {
  /** sales of the pet (any rarity) in the last 24 hours */
  volume: number;
  /** median of the cheapest active BINs at the target rarity */
  median: number;
  upgradeCost: number;
  /** materials at the current bazaar/auction prices */
  materialCost: number;
  originAuction: string;
  coreData: KatUpgradeCost;
  targetRarity: string;
  /** reference price after the auction fee, minus purchase, upgrade and material cost */
  profit: number;
  referenceAuction: string;
  purchaseCost: number;
  originAuctionName: string;
  /** skymarket: the reference lowest BIN of the target rarity */
  referencePrice: number;
}

/** An active BIN of a pet as the Kat flips read it. */
export interface PetListing {
  uuid: string;
  tag: string;
  itemName: string;
  price: number;
  /** rarity the listing shows */
  tier: string | null;
  /** flattened NBT: `petInfo.tier` (base rarity), `petInfo.heldItem` */
  flatNbt: Readonly<Record<string, string>>;
}

export interface KatFlipOptions {
  /** coins for `count` of a material now, undefined when it cannot all be had */
  materialCost(tag: string, count: number): number | undefined;
  /** sales per pet tag in the last 24 hours */
  volumes: ReadonlyMap<string, number>;
  derpy?: boolean;
  /** cheapest listings of the target rarity the median is taken over */
  medianOf?: number;
}

const TIER_BOOST = 'PET_ITEM_TIER_BOOST';

export function katUpgradeCost(u: KatUpgrade): KatUpgradeCost {
  const first = u.materials[0];
  return {
    name: u.name,
    baseRarity: u.fromTier,
    hours: u.durationSeconds / 3600,
    cost: u.coins,
    material: first?.tag ?? null,
    amount: first?.count ?? 0,
    materials: u.materials.length > 0 ? Object.fromEntries(u.materials.map((m) => [m.tag, m.count])) : null,
    itemTag: u.petTag,
  };
}

/** The listing's base rarity, or null when a Tier Boost lifts what it shows (or none is known). */
function baseTier(l: PetListing): string | null {
  if (l.flatNbt['petInfo.heldItem'] === TIER_BOOST) return null;
  return (l.flatNbt['petInfo.tier'] || l.tier || null)?.toUpperCase() ?? null;
}

/** Every profitable upgrade, best profit first. */
export function katFlips(upgrades: readonly KatUpgrade[], listings: readonly PetListing[], options: KatFlipOptions): KatFlip[] {
  // tag → rarity → listings, cheapest first
  const byTag = new Map<string, Map<string, PetListing[]>>();
  for (const l of listings) {
    const tier = baseTier(l);
    if (!tier || !(l.price > 0)) continue;
    let tiers = byTag.get(l.tag);
    if (!tiers) byTag.set(l.tag, (tiers = new Map()));
    const list = tiers.get(tier) ?? [];
    list.push(l);
    tiers.set(tier, list);
  }
  for (const tiers of byTag.values()) for (const list of tiers.values()) list.sort((a, b) => a.price - b.price || a.uuid.localeCompare(b.uuid));

  const out: KatFlip[] = [];
  for (const u of upgrades) {
    const tiers = byTag.get(u.petTag);
    const origin = tiers?.get(u.fromTier)?.[0];
    const targets = tiers?.get(u.toTier);
    const reference = targets?.[0];
    if (!origin || !reference || !targets) continue;
    let materialCost = 0;
    let priced = true;
    for (const m of u.materials) {
      const cost = options.materialCost(m.tag, m.count);
      if (cost === undefined) {
        priced = false;
        break;
      }
      materialCost += cost;
    }
    if (!priced) continue;
    const revenue = reference.price * (1 - auctionFeeRate(reference.price, options.derpy));
    const profit = revenue - origin.price - u.coins - materialCost;
    if (!(profit > 0)) continue;
    out.push({
      volume: options.volumes.get(u.petTag) ?? 0,
      median: median(targets.slice(0, options.medianOf ?? 16).map((l) => l.price)) ?? reference.price,
      upgradeCost: u.coins,
      materialCost: round2(materialCost),
      originAuction: origin.uuid,
      coreData: katUpgradeCost(u),
      targetRarity: u.toTier,
      profit: round2(profit),
      referenceAuction: reference.uuid,
      purchaseCost: origin.price,
      originAuctionName: origin.itemName,
      referencePrice: reference.price,
    });
  }
  return out.sort((a, b) => b.profit - a.profit || a.originAuction.localeCompare(b.originAuction));
}
