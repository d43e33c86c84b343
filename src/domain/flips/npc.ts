/**
 * NPC flips, both directions (the established service's names are swapped; we keep its wire names):
 * - NpcFlip (`/flip/npc/reverse`): buy on the bazaar (instant buy, walking the sell offers),
 *   sell to an NPC at the items resource's NPC sell price.
 * - ReverseNpcFlip (`/flip/npc`): buy from an NPC shop (coins and/or items), sell on the bazaar
 *   (instant sell, walking the buy orders) after tax.
 * Quantities are per hour and bounded by the bazaar volume of the bazaar leg.
 */
import type { NpcShopRow } from '../../gamedata/tables/npc-shops.ts';
import {
  BAZAAR_FEE,
  bestQuantity,
  buyOrders,
  instantBuysPerHour,
  instantSellsPerHour,
  iso,
  round1,
  round2,
  sellOffers,
  walkBook,
  type Market,
  type ProductMarket,
} from './common.ts';

export interface NpcFlip {
  itemId: string;
  itemName: string;
  /** average instant-buy price per unit for `hourlySells` units */
  buyPrice: number;
  npcSellPrice: number;
  /** per unit */
  profit: number;
  /** units per hour the flip takes (bounded by the bazaar's instant buys per hour and book depth) */
  hourlySells: number;
  /** profit / buyPrice */
  profitMargin: number;
  profitPerHour: number;
  lastUpdated: string;
}

/** Buy on the bazaar, sell to the NPC. `npcSellPrices` from the items resource. Sorted by profitPerHour. */
export function npcFlips(market: Market, npcSellPrices: ReadonlyMap<string, number>, now: number): NpcFlip[] {
  const out: NpcFlip[] = [];
  for (const [tag, npcPrice] of npcSellPrices) {
    const p = market.get(tag);
    if (!p || !(npcPrice > 0) || !(p.buyPrice > 0) || p.buyPrice >= npcPrice) continue;
    const offers = sellOffers(p);
    const best = bestQuantity(Math.max(1, instantBuysPerHour(p)), (q) => {
      const w = walkBook(offers, q);
      if (w.filled < q) return null;
      return { profit: npcPrice * q - w.total, average: w.average };
    });
    if (!best) continue;
    const perUnit = best.result.profit / best.quantity;
    out.push({
      itemId: tag,
      itemName: p.name,
      buyPrice: round2(best.result.average),
      npcSellPrice: npcPrice,
      profit: round2(perUnit),
      hourlySells: best.quantity,
      profitMargin: round2(perUnit / best.result.average),
      profitPerHour: round1(best.result.profit),
      lastUpdated: iso(now),
    });
  }
  return out.sort((a, b) => b.profitPerHour - a.profitPerHour || b.profitMargin - a.profitMargin);
}

/** NEU shop rows (gamedata/tables/npc-shops.ts) as offers. */
export function npcOffersFromShopRows(rows: readonly NpcShopRow[]): NpcShopOffer[] {
  return rows.map(([npcName, itemTag, count, costs]) => ({
    npcName,
    itemTag,
    count,
    costs: costs.map(([tag, amount]) => ({ tag, amount })),
  }));
}

export interface NpcShopOffer {
  npcName: string;
  itemTag: string;
  /** uploaded for an item the NEU shop table does not sell, so its price could not be cross-checked */
  unverified?: boolean;
  /** units of the item one purchase gives */
  count: number;
  /** per purchase; tag SKYBLOCK_COIN = coins */
  costs: ReadonlyArray<{ tag: string; amount: number }>;
}

export interface ReverseNpcCost {
  itemName: string;
  /** price per unit of this cost item (1 for coins) */
  price: number;
  /** amount per unit of the flipped item */
  amount: number;
  itemTag: string;
}

export interface ReverseNpcFlip {
  npcName: string;
  itemId: string;
  itemName: string;
  /** total cost per unit bought from the NPC (coins plus priced items) */
  npcBuyPrice: number;
  /** average instant-sell price per unit for `volume` units (capped, see docs) */
  sellPrice: number;
  /** per unit, after tax */
  profit: number;
  /** profit / npcBuyPrice */
  profitMargin: number;
  costs: ReverseNpcCost[];
  /** units per hour (bounded by the bazaar's instant sells per hour and book depth) */
  volume: number;
  profitPerHour: number;
  lastUpdated: string;
}

export const COIN = 'SKYBLOCK_COIN';

/**
 * Buy from an NPC shop, sell on the bazaar. Offers with costs that have no bazaar price
 * (copper, motes, other currencies, unlisted items) are skipped. One flip per item: the
 * offer with the best profit per hour. Sorted by profitMargin × volume descending.
 * `medians` (7-day median instant-sell price) caps the sell price at 2× the median;
 * below 5 units per hour the sell price is also capped at 1.1× the cost.
 */
/** `data_uploads.kind` of NPC shop contents the mod uploaded (`npcshop.upload`). */
export const NPC_SHOP_UPLOAD_KIND = 'npc_shop';

/**
 * An NPC name as players' mods report it, cleaned at ingestion: Minecraft formatting codes (§x),
 * anything tag-like and control characters removed, whitespace collapsed, at most 40 characters.
 * undefined when nothing readable is left.
 */
export function cleanNpcName(raw: string): string | undefined {
  const cleaned = raw
    .replace(/§./gu, '')
    .replace(/<[^>]*>?/g, '')
    .replace(/[\p{Cc}\p{Cf}<>&"'`\\{}[\]]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 40)
    .trim();
  return cleaned.length > 0 ? cleaned : undefined;
}

/** An uploaded coin price below this share of NEU's price for the same item is refused as made up. */
export const NEU_PRICE_FLOOR = 0.5;
/** A flip from an offer NEU cannot confirm is shown only up to this margin (profit / cost): a made-up price promises far more. */
export const MAX_UNVERIFIED_MARGIN = 1;

/** The cheapest coin price per unit of each item an NEU shop sells for coins only (to cross-check uploads). */
export function coinPricesPerUnit(offers: Iterable<NpcShopOffer>): Map<string, number> {
  const prices = new Map<string, number>();
  for (const offer of offers) {
    if (offer.count <= 0 || offer.costs.length === 0 || offer.costs.some((c) => c.tag !== COIN)) continue;
    const perUnit = offer.costs.reduce((sum, c) => sum + c.amount, 0) / offer.count;
    const known = prices.get(offer.itemTag);
    if (known === undefined || perUnit < known) prices.set(offer.itemTag, perUnit);
  }
  return prices;
}

/** One stored mod upload of a shop's contents and who sent it. */
export interface NpcShopUpload {
  /** `{ npcName, offers[] }` JSON */
  body: string;
  /** the uploading player (or key); offers count once per uploader */
  uploader: string;
}

/**
 * Offers from stored mod uploads (newest first). Untrusted: anything malformed is skipped, and an
 * offer is used only once `quorum` distinct uploaders reported exactly the same offer, so one
 * player's made-up prices cannot create flips (self-hosters with one mod user set 1). With `neuPrices`
 * (coinPricesPerUnit of the NEU shop table), an item NEU sells is cross-checked: a coin price under
 * NEU_PRICE_FLOOR of NEU's is dropped; an item NEU does not sell is marked `unverified`.
 */
export function npcOffersFromUploads(uploads: Iterable<NpcShopUpload>, quorum = 2, neuPrices?: ReadonlyMap<string, number>): NpcShopOffer[] {
  const reported = new Map<string, { offer: NpcShopOffer; uploaders: Set<string> }>();
  const tag = (v: unknown) => typeof v === 'string' && /^[A-Z0-9_:;\-]{1,64}$/.test(v);
  const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
  for (const { body, uploader } of uploads) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      continue;
    }
    const { npcName: rawName, offers } = (parsed ?? {}) as { npcName?: unknown; offers?: unknown };
    // Uploads stored before names were cleaned at ingestion are cleaned here too.
    const npcName = typeof rawName === 'string' ? cleanNpcName(rawName) : undefined;
    if (npcName === undefined || !Array.isArray(offers)) continue;
    for (const o of offers as Array<{ itemTag?: unknown; count?: unknown; costs?: unknown }>) {
      if (!o || !tag(o.itemTag) || !positive(o.count) || !Array.isArray(o.costs) || o.costs.length === 0) continue;
      const costs = (o.costs as Array<{ tag?: unknown; amount?: unknown }>).filter((c) => c && tag(c.tag) && positive(c.amount)).map((c) => ({ tag: c.tag as string, amount: c.amount as number }));
      if (costs.length !== o.costs.length) continue;
      const offer: NpcShopOffer = { npcName, itemTag: o.itemTag as string, count: o.count, costs };
      if (neuPrices) {
        const neu = neuPrices.get(offer.itemTag);
        if (neu === undefined) offer.unverified = true;
        else if (costs.every((c) => c.tag === COIN) && costs.reduce((sum, c) => sum + c.amount, 0) / offer.count < neu * NEU_PRICE_FLOOR) continue;
      }
      const key = JSON.stringify([npcName, offer.itemTag, offer.count, costs]);
      const seen = reported.get(key);
      if (seen) seen.uploaders.add(uploader);
      else reported.set(key, { offer, uploaders: new Set([uploader]) });
    }
  }
  return [...reported.values()].filter((r) => r.uploaders.size >= quorum).map((r) => r.offer);
}

export function reverseNpcFlips(market: Market, offers: Iterable<NpcShopOffer>, medians: ReadonlyMap<string, number>, now: number): ReverseNpcFlip[] {
  const best = new Map<string, ReverseNpcFlip>();
  for (const offer of offers) {
    const flip = reverseNpcFlip(market, offer, medians.get(offer.itemTag) ?? null, now);
    if (!flip || (offer.unverified && flip.profitMargin > MAX_UNVERIFIED_MARGIN)) continue;
    const prev = best.get(flip.itemId);
    if (!prev || flip.profitPerHour > prev.profitPerHour) best.set(flip.itemId, flip);
  }
  return [...best.values()].sort((a, b) => b.profitMargin * b.volume - a.profitMargin * a.volume);
}

export function reverseNpcFlip(market: Market, offer: NpcShopOffer, medianSell: number | null, now: number): ReverseNpcFlip | null {
  const product = market.get(offer.itemTag);
  if (!product || !(offer.count > 0) || offer.costs.length === 0) return null;
  let coins = 0;
  const items: Array<{ p: ProductMarket; amount: number }> = [];
  for (const c of offer.costs) {
    if (c.tag === COIN) coins += c.amount / offer.count;
    else {
      const p = market.get(c.tag);
      if (!p || !(p.buyPrice > 0)) return null;
      items.push({ p, amount: c.amount / offer.count });
    }
  }
  const maxPerHour = instantSellsPerHour(product);
  if (!(maxPerHour >= 1)) return null;
  // Walking only lowers the sell price and raises item costs: unprofitable at the top means never.
  let topCost = coins;
  for (const { p, amount } of items) topCost += p.buyPrice * amount;
  if (!(product.sellPrice * (1 - BAZAAR_FEE) > topCost)) return null;
  const bids = buyOrders(product);
  const found = bestQuantity(maxPerHour, (q) => {
    const sell = walkBook(bids, q);
    if (sell.filled < q) return null;
    let cost = coins * q;
    const priced: ReverseNpcCost[] = [];
    for (const { p, amount } of items) {
      const w = walkBook(sellOffers(p), Math.ceil(amount * q));
      if (w.filled < Math.ceil(amount * q)) return null;
      cost += w.total;
      priced.push({ itemName: p.name, price: round2(w.average), amount, itemTag: p.productId });
    }
    const unitCost = cost / q;
    let sellPrice = sell.average;
    if (medianSell && medianSell > 0) sellPrice = Math.min(sellPrice, 2 * medianSell);
    if (maxPerHour < 5) sellPrice = Math.min(sellPrice, 1.1 * unitCost);
    const profit = (sellPrice * (1 - BAZAAR_FEE) - unitCost) * q;
    return { profit, unitCost, sellPrice, priced };
  });
  if (!found) return null;
  const { result, quantity } = found;
  const perUnit = result.profit / quantity;
  const costs: ReverseNpcCost[] = [];
  if (coins > 0) costs.push({ itemName: 'Coins', price: 1, amount: round2(coins), itemTag: COIN });
  costs.push(...result.priced);
  return {
    npcName: offer.npcName,
    itemId: offer.itemTag,
    itemName: product.name,
    npcBuyPrice: round2(result.unitCost),
    sellPrice: round2(result.sellPrice),
    profit: round2(perUnit),
    profitMargin: round2(perUnit / result.unitCost),
    costs,
    volume: quantity,
    profitPerHour: round1(result.profit),
    lastUpdated: iso(now),
  };
}
