/**
 * How an auction's bulkier columns are stored (migration 013, issue 29): the ingester builds rows
 * with these helpers and the repositories read them back with them, so nothing else sees the
 * stored form.
 *
 * - `item_bytes`: the item's gzipped NBT as raw bytes (blob / bytea), i.e. upstream's base64
 *   `item_bytes` decoded: 25 % smaller than the base64 text, and exactly the bytes the item
 *   decoder read (`Buffer.from(…, 'base64')` is what it decodes too).
 * - `coop`: the coop members joined by `,`, the seller written as an empty entry (upstream lists
 *   the seller among them; a solo profile's `[seller]` becomes `''`), NULL when there is no coop
 *   list. A list that does not fit that form (an empty member, a member containing `,`, a first
 *   member starting with `[`) is stored as a JSON array, which is also how rows stored before
 *   migration 013 read on PostgreSQL until it converted them.
 */
import { gunzipSync } from 'node:zlib';

/** Upstream's base64 `item_bytes` as stored: the bytes it encodes. */
export function itemBytesColumn(base64: string): Buffer {
  return Buffer.from(base64, 'base64');
}

/** Cap on an item's decompressed NBT (as the ingest decoder's): stored items decoded under it once. */
const MAX_NBT_BYTES = 2 * 1024 * 1024;

/** The item's NBT (decompressed) from its stored bytes; null when they do not inflate. */
export function itemNbtOf(stored: Uint8Array | null | undefined): Uint8Array | null {
  if (!stored || stored.length < 18 || stored[0] !== 0x1f || stored[1] !== 0x8b) return null;
  try {
    return gunzipSync(stored, { maxOutputLength: MAX_NBT_BYTES, chunkSize: 4096 });
  } catch {
    return null;
  }
}

/** The stored form of a coop list (see the module comment). */
export function coopColumn(coop: readonly string[] | null | undefined, seller: string): string | null {
  if (!coop || coop.length === 0) return null;
  let compact = true;
  for (const m of coop) {
    if (m === '' || m.includes(',')) {
      compact = false;
      break;
    }
  }
  if (compact && coop[0]!.startsWith('[')) compact = false;
  if (!compact) return JSON.stringify(coop);
  let out = '';
  for (let i = 0; i < coop.length; i++) {
    if (i > 0) out += ',';
    if (coop[i] !== seller) out += coop[i];
  }
  return out;
}

/** The coop list of a stored row: [] when there is none. */
export function coopOf(stored: unknown, seller: string): string[] {
  if (stored === null || stored === undefined) return [];
  if (Array.isArray(stored)) return stored as string[];
  if (typeof stored !== 'string') return [];
  if (stored.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(stored);
      return Array.isArray(parsed) ? (parsed as string[]) : [];
    } catch {
      return [];
    }
  }
  return stored.split(',').map((m) => (m === '' ? seller : m));
}
