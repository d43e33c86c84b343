/**
 * The key order of a stored JSON map. PostgreSQL's `jsonb` does not keep the order it was given: it
 * returns an object's keys shorter first, then by their bytes. A listing written in its NBT's order
 * would then read back in another order than the spine's change carried it, and two `api` replicas
 * (one that loaded the listing from the store, one that applied the change) would answer the same
 * listing with different bytes and ETags. Ingestion writes the maps in jsonb's order instead, so the
 * store (either engine) and the change agree.
 */

const ASCII = /^[\x00-\x7f]*$/;

/** jsonb's order of two keys: the shorter first (in UTF-8 bytes), then byte by byte. */
export function compareStoredKeys(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length !== y.length ? x.length - y.length : Buffer.compare(x, y);
}

/** The map with its keys in jsonb's order (the same object when they already are). */
export function inStoredKeyOrder<T>(map: Record<string, T>): Record<string, T> {
  const keys = Object.keys(map);
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) ordered = compareStoredKeys(keys[i - 1]!, keys[i]!) < 0;
  if (ordered) return map;
  const out: Record<string, T> = {};
  for (const key of keys.sort(compareStoredKeys)) out[key] = map[key]!;
  return out;
}
