/**
 * One upstream auction record, from its JSON text to rows: parse, validate, decode the
 * item. Runs on the ingest thread for a few records and in decode workers for a cold
 * sweep (decode-pool.ts), so it returns plain, cloneable data and never throws for bad input.
 */
import { ItemDecodeError } from '../domain/nbt.ts';
import type { AuctionRowWrite, BidsTable } from '../store/schema.ts';
import { bidRows, decodeAuctionItem, listingRow } from './records.ts';
import { check } from './upstream.ts';

export type PreparedRecord =
  | { kind: 'ok'; uuid: string; lastUpdated: number; row: AuctionRowWrite; bids: BidsTable[] }
  | { kind: 'invalid'; uuid: unknown; reason: string }
  | { kind: 'undecodable'; uuid: string; lastUpdated: number; reason: string };

export function prepareAuctionRecord(json: string): PreparedRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { kind: 'invalid', uuid: null, reason: 'not valid JSON' };
  }
  if (!check.auction.Check(raw)) {
    return { kind: 'invalid', uuid: (raw as { uuid?: unknown } | null)?.uuid ?? null, reason: 'does not match the auction schema' };
  }
  const uuid = raw.uuid.toLowerCase();
  const lastUpdated = raw.last_updated ?? raw.start;
  try {
    return { kind: 'ok', uuid, lastUpdated, row: listingRow(raw, decodeAuctionItem(raw.item_bytes)), bids: bidRows(raw) };
  } catch (err) {
    if (!(err instanceof ItemDecodeError)) throw err;
    return { kind: 'undecodable', uuid, lastUpdated, reason: err.reason };
  }
}
