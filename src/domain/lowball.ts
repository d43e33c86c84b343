/**
 * Lowball offers: a player offers the item they hold for an asking price. The wire shape
 * is the reference's LowballOfferResponse (api-shapes §7): `apiAuctionJson`, `filters`
 * and `lore` are omitted when null; `filters` and `apiAuctionJson` are JSON strings.
 * Pure: no I/O.
 */
import { saveAuctionWire, type AuctionFacts } from './auction-wire.ts';
import type { DecodedItem } from './nbt.ts';
import { dashedUuid, UNKNOWN_TIME } from './player-data.ts';
import { tierFromLore } from './wire-enums.ts';

/** How long an offer lasts (the established service keeps them 7 days). */
export const LOWBALL_RETENTION_MS = 7 * 86_400_000;

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
  if (o.auctionJson !== null) out.apiAuctionJson = offerSaveAuction(o, o.auctionJson);
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

/**
 * An offered item as a SaveAuction: not an auction (`uuid` null), the asking price as the starting
 * bid of a BIN that runs from the offer's creation for as long as the offer lasts.
 */
function offeredItem(item: Omit<AuctionFacts, 'uuid' | 'start' | 'end' | 'startingBid' | 'highestBid' | 'soldPrice' | 'soldAt' | 'bin' | 'coop' | 'profileId'>, askingPrice: number, createdAt: number): AuctionFacts {
  return { ...item, uuid: null, profileId: null, coop: [], start: createdAt, end: createdAt + LOWBALL_RETENTION_MS, startingBid: askingPrice, highestBid: 0, soldPrice: null, soldAt: null, bin: true };
}

/** `apiAuctionJson` of a new offer: the decoded item as a whole SaveAuction, JSON-encoded. */
export function offerAuctionJson(item: DecodedItem, askingPrice: number, playerUuid: string, createdAt: number): string {
  const facts = offeredItem(
    {
      tag: item.tag,
      itemName: item.name,
      count: item.count,
      seller: playerUuid,
      tier: tierFromLore(item.lore),
      category: null,
      reforge: item.reforge,
      itemUid: item.uid,
      itemCreatedAt: item.createdAt,
      enchantments: item.enchantments,
      flatNbt: item.flatNbt,
    },
    askingPrice,
    createdAt,
  );
  return JSON.stringify(saveAuctionWire(facts, [], {}, item.itemUuid));
}

/**
 * `apiAuctionJson` as sent: a whole SaveAuction rebuilt from what the offer stored, so offers
 * stored before it was whole (no end, tier, category …, the item uuid as `uuid`) read the same
 * as new ones. Unreadable JSON is sent as stored.
 */
function offerSaveAuction(o: LowballOfferLike, stored: string): string {
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(stored);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return stored;
    json = parsed as Record<string, unknown>;
  } catch {
    return stored;
  }
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const flat: Record<string, string> = {};
  if (typeof json['flatNbt'] === 'object' && json['flatNbt'] !== null) {
    for (const [k, v] of Object.entries(json['flatNbt'])) if (typeof v === 'string') flat[k] = v;
  }
  // Older offers kept the item uuid as `uuid`; whole ones keep it in flatNbt.
  const itemUuid = flat['uuid'] ?? (str(json['uuid'])?.includes('-') ? str(json['uuid']) : null);
  delete flat['uuid'];
  delete flat['uid'];
  const enchantments: Record<string, number> = {};
  if (Array.isArray(json['enchantments'])) {
    for (const e of json['enchantments'] as Array<{ type?: unknown; level?: unknown }>) {
      if (typeof e?.type === 'string' && typeof e.level === 'number') enchantments[e.type] = e.level;
    }
  }
  const created = str(json['itemCreatedAt']);
  const createdMs = created === null || created === UNKNOWN_TIME ? Number.NaN : Date.parse(created);
  const facts = offeredItem(
    {
      tag: str(json['tag']) ?? o.itemTag,
      itemName: str(json['itemName']) ?? o.itemName ?? o.itemTag,
      count: typeof json['count'] === 'number' ? json['count'] : o.itemCount,
      seller: str(json['auctioneerId']) ?? o.playerUuid,
      tier: str(json['tier']) ?? (o.lore === null ? null : tierFromLore(o.lore.split('\n'))),
      category: str(json['category']),
      reforge: str(json['reforge']),
      itemUid: itemUuid === null ? null : itemUuid.replace(/-/g, '').slice(-12).toLowerCase(),
      itemCreatedAt: Number.isFinite(createdMs) ? createdMs : null,
      enchantments,
      flatNbt: flat,
    },
    o.askingPrice,
    o.createdAt,
  );
  return JSON.stringify(saveAuctionWire(facts, [], {}, itemUuid));
}
