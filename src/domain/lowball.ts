/**
 * Lowball offers: a player offers the item they hold for an asking price. The wire shape
 * is the reference's LowballOfferResponse (api-shapes §7): `apiAuctionJson`, `filters`
 * and `lore` are omitted when null; `filters` and `apiAuctionJson` are JSON strings.
 * Pure: no I/O.
 */
import type { DecodedItem } from './nbt.ts';
import { dashedUuid } from './player-data.ts';

/** An offer as stored (the repository adds its expiry). */
export interface LowballOfferLike {
  offerId: string;
  accountId: number;
  playerUuid: string;
  itemTag: string;
  itemName: string | null;
  itemCount: number;
  askingPrice: number;
  filters: Record<string, string> | null;
  /** JSON of the decoded item as an auction */
  auctionJson: string | null;
  lore: string | null;
  createdAt: number;
}

export interface LowballOfferResponse {
  userId: string | null;
  createdAt: string;
  offerId: string;
  itemTag: string | null;
  minecraftAccount: string;
  itemName: string | null;
  apiAuctionJson?: string;
  filters?: string;
  askingPrice: number;
  lore?: string;
  itemCount: number;
}

export function lowballView(o: LowballOfferLike): LowballOfferResponse {
  const out: LowballOfferResponse = {
    userId: String(o.accountId),
    createdAt: new Date(o.createdAt).toISOString(),
    offerId: o.offerId,
    itemTag: o.itemTag,
    minecraftAccount: dashedUuid(o.playerUuid),
    itemName: o.itemName,
    askingPrice: o.askingPrice,
    itemCount: o.itemCount,
  };
  if (o.auctionJson !== null) out.apiAuctionJson = o.auctionJson;
  if (o.filters !== null) out.filters = JSON.stringify(o.filters);
  if (o.lore !== null) out.lore = o.lore;
  return out;
}

/**
 * The values an offer can be filtered by: the flattened NBT plus the named attributes
 * the auction filters use (reforge, stars, rarity upgrades, enchantments as `<name>: level`,
 * pet level, attributes), all as strings, keys lower case where they are ours.
 */
export function offerFilters(item: DecodedItem): Record<string, string> {
  const out: Record<string, string> = { ...item.flatNbt };
  if (item.reforge) out['reforge'] = item.reforge;
  if (item.stars) out['stars'] = String(item.stars);
  if (item.rarityUpgrades) out['rarityupgrades'] = String(item.rarityUpgrades);
  if (item.hotPotatoCount) out['hotpotatocount'] = String(item.hotPotatoCount);
  if (item.skin) out['skin'] = item.skin;
  if (item.color) out['color'] = item.color;
  for (const [name, level] of Object.entries(item.enchantments)) out[name] = String(level);
  for (const [name, level] of Object.entries(item.attributes)) out[name] = String(level);
  if (item.pet) {
    out['petlevel'] = String(item.pet.level);
    if (item.pet.heldItem) out['petitem'] = item.pet.heldItem;
    out['candyused'] = String(item.pet.candyUsed);
  }
  return out;
}

/** The decoded item as SaveAuction-like JSON (the fields an offer view needs), for `apiAuctionJson`. */
export function offerAuctionJson(item: DecodedItem, askingPrice: number, playerUuid: string, createdAt: number): string {
  return JSON.stringify({
    tag: item.tag,
    itemName: item.name,
    count: item.count,
    startingBid: askingPrice,
    auctioneerId: playerUuid,
    reforge: item.reforge,
    enchantments: Object.entries(item.enchantments).map(([type, level]) => ({ type, level })),
    flatNbt: item.flatNbt,
    itemCreatedAt: item.createdAt === null ? null : new Date(item.createdAt).toISOString(),
    uuid: item.itemUuid,
    start: new Date(createdAt).toISOString(),
  });
}
