/** Shared helpers of the simulator tests: decode item_bytes directly with prismarine-nbt + zlib. */
import { gunzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';

/** base64 → gunzip → NBT, returned as prismarine-nbt's typed tree. */
export function decodeTyped(itemBytes: string): nbt.NBT {
  return nbt.parseUncompressed(gunzipSync(Buffer.from(itemBytes, 'base64')), 'big');
}

/** Typed tag lookup: `{type, value}` of `path` inside a compound value. */
export function tagAt(root: { type: string; value: unknown }, ...path: string[]): { type: string; value: unknown } | undefined {
  let cur: { type: string; value: unknown } | undefined = root;
  for (const p of path) {
    if (!cur || cur.type !== 'compound') return undefined;
    cur = (cur.value as Record<string, { type: string; value: unknown }>)[p];
  }
  return cur;
}

/** The single item compound of an auction's item_bytes. */
export function itemOf(itemBytes: string): { type: string; value: unknown } {
  const root = decodeTyped(itemBytes);
  const list = (root.value as Record<string, { type: string; value: { type: string; value: unknown[] } }>).i;
  if (!list || list.type !== 'list' || list.value.type !== 'compound') throw new Error('root.i is not a list of compounds');
  if (list.value.value.length !== 1) throw new Error(`expected 1 item, got ${list.value.value.length}`);
  return { type: 'compound', value: list.value.value[0] };
}

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
