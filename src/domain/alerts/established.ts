/**
 * The established service's listener (`Listener`, `SubType` bit flags) read as a skymarket alert
 * spec. Pure: the caller says whether the topic is a bazaar product.
 */
import { AlertSpecError, type AlertSpec } from './spec.ts';
import { parseAlertSpec } from './spec.ts';

/** SubType flags (the established client's integers). */
export const SUB_TYPE = {
  PRICE_LOWER_THAN: 1,
  PRICE_HIGHER_THAN: 2,
  OUTBID: 4,
  SOLD: 8,
  BIN: 16,
  USE_SELL_NOT_BUY: 32,
  AUCTION: 64,
  PLAYER: 128,
  REMOVE_ON_MATCH: 256,
  PLAYER_CREATES_AUCTION: 512,
} as const;

/** The listener's fields skymarket reads. */
export interface ListenerInput {
  topicId: string;
  price: number;
  type: number;
  filter: string | null;
}

function filtersOf(raw: string | null): Record<string, string> | undefined {
  if (raw === null || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new AlertSpecError('invalid_alert', '`filter` has to be a JSON object of filter names to values.');
  }
  return parsed as Record<string, string>;
}

/**
 * The spec a listener means: PLAYER / PLAYER_CREATES_AUCTION with a player uuid → that player's
 * new auctions; PRICE_LOWER_THAN on an item → its new listings at or under `price` (BIN ones when
 * BIN is set); PRICE_HIGHER_THAN on an item → its lowest BIN rising to `price`; either on a
 * bazaar product → its instant-buy price (instant-sell with USE_SELL_NOT_BUY) crossing `price`.
 * Outbid, sold and auction listeners concern one player's bids, which skymarket does not follow: refused.
 */
export function listenerSpec(l: ListenerInput, isProduct: boolean): AlertSpec {
  const has = (flag: number) => (l.type & flag) !== 0;
  if (has(SUB_TYPE.PLAYER) || has(SUB_TYPE.PLAYER_CREATES_AUCTION)) return parseAlertSpec({ kind: 'player_auctions', player: l.topicId });
  const lower = has(SUB_TYPE.PRICE_LOWER_THAN);
  const higher = has(SUB_TYPE.PRICE_HIGHER_THAN);
  if (lower === higher) {
    throw new AlertSpecError('invalid_alert', 'skymarket answers listeners of PRICE_LOWER_THAN (1) or PRICE_HIGHER_THAN (2), optionally with BIN (16) or USE_SELL_NOT_BUY (32), and PLAYER (128); outbid, sold and auction listeners are not offered.');
  }
  if (isProduct) {
    return parseAlertSpec({ kind: 'bazaar_price', product: l.topicId, side: has(SUB_TYPE.USE_SELL_NOT_BUY) ? 'sell' : 'buy', direction: lower ? 'below' : 'above', threshold: l.price });
  }
  const filters = filtersOf(l.filter);
  if (lower) return parseAlertSpec({ kind: 'listing', tag: l.topicId, maxPrice: l.price, binOnly: has(SUB_TYPE.BIN), ...(filters ? { filters } : {}) });
  return parseAlertSpec({ kind: 'lowest_bin', tag: l.topicId, direction: 'above', threshold: l.price });
}
