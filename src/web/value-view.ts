/**
 * What the /value and /player pages show, shaped from the valuation and networth services'
 * answers: the pasted text read as items, each valued item as the page lists it (with its name),
 * a profile's categories and containers in the order the page shows them. No I/O.
 */
import type { ItemValueWire } from '../domain/valuation/wire.ts';
import type { ProfileNetworth } from '../services/networth.ts';

/** An auction uuid as pasted or linked: 32 hex digits, dashes allowed. */
export function auctionUuid(raw: string): string | undefined {
  const v = raw.trim().replaceAll('-', '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(v) ? v : undefined;
}

/** Pasted text the page cannot read: shown as a 400 with the message. */
export class PasteError extends Error {}

/**
 * The pasted text as the valuation service's inputs: NBT JSON (one item, a list of items, or the
 * body of `POST /api/item/value`: `{items}` / `{data}`), else one base64 gzip NBT string
 * (`item_bytes` or an inventory's `data`; whitespace and line breaks are dropped).
 */
export function pastedInputs(text: string): unknown[] {
  const t = text.trim();
  if (t === '') throw new PasteError('paste an item: base64 NBT (item_bytes or an inventory’s data) or NBT JSON');
  if (t.startsWith('{') || t.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(t);
    } catch (err) {
      throw new PasteError(`not valid JSON: ${(err as Error).message}`);
    }
    if (Array.isArray(json)) return json;
    const o = json as Record<string, unknown>;
    if (Array.isArray(o['items']) || typeof o['data'] === 'string') {
      const inputs: unknown[] = Array.isArray(o['items']) ? [...o['items']] : [];
      if (typeof o['data'] === 'string') inputs.push(o['data']);
      return inputs;
    }
    return [json];
  }
  const b64 = t.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) throw new PasteError('neither NBT JSON nor base64: base64 NBT has only letters, digits, + / and = at its end');
  return [b64];
}

/** `hasPage`: the catalog has the item (its /item page and icon exist). */
export type ValuedItemView = ItemValueWire & { name: string; hasPage: boolean };

/** A profile as the player page shows it: categories by value, containers as listed, top items named. */
export function profileView(p: ProfileNetworth, nameOf: (tag: string) => { name: string; hasPage: boolean }) {
  const m = p.members[0];
  return {
    profileId: p.profileId,
    cuteName: p.cuteName ?? p.profileId ?? 'profile',
    selected: p.selected,
    fullValue: p.fullValue,
    bank: p.bank,
    member: m
      ? {
          fullValue: m.fullValue,
          purse: m.purse,
          categories: Object.entries(m.valuePerCategory)
            .map(([category, value]) => ({ category, value }))
            .sort((a, b) => b.value - a.value || a.category.localeCompare(b.category)),
          containers: m.containers,
          pets: m.pets,
          skipped: m.skipped,
          topItems: m.topItems.map((i) => ({ ...i, ...nameOf(i.tag) })),
        }
      : null,
  };
}

/** Selected profile first, then by value. */
export function profilesInOrder<T extends { selected: boolean; fullValue: number }>(profiles: readonly T[]): T[] {
  return [...profiles].sort((a, b) => Number(b.selected) - Number(a.selected) || b.fullValue - a.fullValue);
}
