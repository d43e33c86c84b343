/**
 * Player data the in-game mod uploads: extracted screen state, bazaar orders and
 * completed bazaar flips, and the wire shapes skymarket answers with (api-shapes §8).
 * Pure: no I/O; times are UTC epoch milliseconds, the caller passes them.
 */
import { skyblockYear } from './skyblock-calendar.ts';

/** DateTime.MinValue as the reference service serialises an unknown time. */
export const UNKNOWN_TIME = '0001-01-01T00:00:00.000Z';

/** Top-level fields of ExtractedInfo; an upload replaces each field it carries and keeps the rest. */
export const EXTRACTED_FIELDS = [
  'currentServer',
  'currentLocation',
  'lastLocationChange',
  'heartOfTheMountain',
  'heartOfTheForest',
  'agathaLevel',
  'shardCounts',
  'attributeLevel',
  'composter',
  'activePet',
  'pets',
  'weaponInHuntaxe',
  'huntingToolkitItems',
  'playerElectionVote',
  'mithrilPowder',
  'currentTask',
  'currentTaskSince',
  'claimedTask',
  'claimedAt',
  'currentSession',
  'purse',
  'bits',
  'boosterCookieExpires',
  'kuudraStart',
  'katStatus',
  'forgeItems',
  'collections',
  'skills',
  'slayers',
] as const;
export type ExtractedField = (typeof EXTRACTED_FIELDS)[number];

export type ExtractedState = Partial<Record<ExtractedField, unknown>>;

/**
 * Defaults for fields never uploaded, so every response carries the full shape: the established
 * service sends an object it has not seen as null (activePet, katStatus …), never leaves it out.
 */
const DEFAULTS: Record<ExtractedField, unknown> = {
  currentServer: null,
  currentLocation: null,
  lastLocationChange: UNKNOWN_TIME,
  heartOfTheMountain: null,
  heartOfTheForest: null,
  agathaLevel: 0,
  shardCounts: null,
  attributeLevel: null,
  composter: null,
  activePet: null,
  pets: null,
  weaponInHuntaxe: null,
  huntingToolkitItems: null,
  playerElectionVote: null,
  mithrilPowder: 0,
  currentTask: null,
  currentTaskSince: UNKNOWN_TIME,
  claimedTask: null,
  claimedAt: UNKNOWN_TIME,
  currentSession: null,
  purse: 0,
  bits: 0,
  boosterCookieExpires: UNKNOWN_TIME,
  kuudraStart: UNKNOWN_TIME,
  katStatus: null,
  forgeItems: null,
  // Unlocks the mod reads from the collection, skill and slayer menus (filter the craft profit list).
  collections: undefined,
  skills: undefined,
  slayers: undefined,
};

/** Keys (at any depth of ExtractedInfo) whose values are timestamps. */
const TIME_KEYS = new Set([
  'lastLocationChange', 'currentTaskSince', 'claimedAt', 'boosterCookieExpires', 'kuudraStart',
  'nextCompostAt', 'lastUpdated', 'startTime', 'lastItemTime', 'katEnd', 'forgeEnd',
]);

/** Rewrites every timestamp of an upload (any ISO-8601 form with an offset) as UTC `…Z`. */
export function normalizeTimes<T>(value: T, key = ''): T {
  if (typeof value === 'string' && TIME_KEYS.has(key)) {
    const ms = Date.parse(value);
    return (Number.isFinite(ms) ? new Date(ms).toISOString() : value) as T;
  }
  if (Array.isArray(value)) return value.map((v) => normalizeTimes(v, key)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeTimes(v, k)])) as T;
  }
  return value;
}

/** The stored state after an upload: fields in `patch` replace the previous ones (a screen sync is authoritative for what it shows). */
export function mergeExtracted(previous: ExtractedState | null, patch: ExtractedState): ExtractedState {
  const out: ExtractedState = { ...(previous ?? {}) };
  for (const field of EXTRACTED_FIELDS) {
    if (Object.hasOwn(patch, field) && patch[field] !== undefined) out[field] = patch[field];
  }
  return out;
}

/** The ExtractedInfo response: every field present (objects never uploaded as null); skymarket's own unlock maps only once uploaded. */
export function extractedView(state: ExtractedState | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of EXTRACTED_FIELDS) {
    const value = state && Object.hasOwn(state, field) ? state[field] : DEFAULTS[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}

export interface BazaarFill {
  playerName: string | null;
  amount: number;
  /** epoch ms */
  timeStamp: number;
}

/** One of the player's current bazaar orders as the mod saw it. */
export interface BazaarOrder {
  isSell: boolean;
  itemTag: string;
  itemName: string | null;
  amount: number;
  /** units filled so far (the last known fill state) */
  filled: number;
  pricePerUnit: number;
  /** epoch ms */
  created: number;
  customers: BazaarFill[] | null;
}

/** A completed bazaar flip: bought `amount` units and sold them. Prices in coins (per flip total). */
export interface BazaarFlip {
  itemTag: string;
  itemName: string | null;
  amount: number;
  buyPrice: number;
  sellPrice: number;
  /** epoch ms */
  soldAt: number;
}

/** Coins → the reference's stored unit (coins × 10, an integer). */
export function coinsTimesTen(coins: number): number {
  return Math.round(coins * 10);
}

/** CompletedBazaarFlip wire shape: prices and profit in coins × 10, as the reference service stores them. */
export function flipView(playerUuid: string, flip: { itemTag: string; itemName: string | null; amount: number; buyTimesTen: number; sellTimesTen: number; soldAt: number }) {
  return {
    playerUuid: dashedUuid(playerUuid),
    year: skyblockYear(flip.soldAt),
    itemTag: flip.itemTag,
    itemName: flip.itemName,
    amount: flip.amount,
    buyPrice: flip.buyTimesTen,
    sellPrice: flip.sellTimesTen,
    profit: flip.sellTimesTen - flip.buyTimesTen,
    soldAt: new Date(flip.soldAt).toISOString(),
  };
}

/** 32 hex → 8-4-4-4-12. */
export function dashedUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Player and profile uuids: 32 hex digits, dashes optional → lower case without dashes; undefined when malformed. */
export function compactPlayerUuid(value: string): string | undefined {
  const v = value.trim().replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(v) ? v : undefined;
}

/** Minecraft account names: 1-16 of letters, digits and underscore (3 minimum for new names, older ones are shorter). */
export const PLAYER_NAME = /^[A-Za-z0-9_]{1,16}$/;

/** True when every requested key/value is among the offer's filters (keys case-insensitive, values case-insensitive). */
export function filtersMatch(offerFilters: Record<string, string> | null, wanted: Record<string, string>): boolean {
  const entries = Object.entries(wanted);
  if (entries.length === 0) return true;
  if (!offerFilters) return false;
  const lower = new Map(Object.entries(offerFilters).map(([k, v]) => [k.toLowerCase(), String(v).toLowerCase()]));
  return entries.every(([k, v]) => lower.get(k.toLowerCase()) === v.toLowerCase());
}
