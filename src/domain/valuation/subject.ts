/**
 * The item to value, from each form it arrives in: a decoded item (Hypixel's base64 gzip NBT,
 * domain/nbt.ts), an item as plain NBT JSON (the legacy `{id, Count, tag: {display,
 * ExtraAttributes}}` layout, also as prismarine's typed `{type, value}` form), or a profile's pet
 * (`{type, tier, exp, heldItem, candyUsed, skin}`). Untrusted input: nesting past
 * `MAX_JSON_DEPTH` is refused, odd values are skipped. Pure.
 */
import { flattenExtraAttributes, type DecodedItem, type NbtPlain, type NbtPlainCompound } from '../nbt.ts';
import { isValidTag, itemTagFromExtra, readPetInfo } from '../tags.ts';
import { tierFromLore } from '../wire-enums.ts';
import type { ValuationSubject } from './traits.ts';

/** A stack's count as the valuation takes it: a whole number from 1 to 2^31 − 1 (hostile counts clamped). */
function clampCount(n: number): number {
  return Number.isFinite(n) ? Math.min(2 ** 31 - 1, Math.max(1, Math.trunc(n))) : 1;
}

/** Deepest JSON nesting an item may have (SkyBlock items nest about 8 levels). */
export const MAX_JSON_DEPTH = 32;

/** An item could not be read; `reason` is stable. */
export class SubjectError extends Error {
  override readonly name = 'SubjectError';
  constructor(
    readonly reason: 'too_deep' | 'no_item' | 'no_id' | 'bad_tag',
    message: string,
  ) {
    super(message);
  }
}

/** A decoded item as the valuation reads it; a pet's rarity is its petInfo tier. */
export function subjectOfDecoded(d: DecodedItem): ValuationSubject {
  const tier = d.pet ? d.pet.tier : tierFromLore(d.lore);
  return { tag: d.tag, tier, count: d.count, enchantments: d.enchantments, flatNbt: d.flatNbt };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks nesting depth without recursion limits of its own (an explicit stack). */
export function depthWithin(v: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 0]];
  let seen = 0;
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (d > max) return false;
    if (++seen > 200_000) return false;
    if (Array.isArray(x)) for (const y of x) stack.push([y, d + 1]);
    else if (isRecord(x)) for (const k in x) stack.push([x[k], d + 1]);
  }
  return true;
}

/** Prismarine's typed NBT (`{type: 'compound', value: {…}}`) as plain JSON; plain JSON stays as it is. Check the depth first. */
export function plain(v: unknown): unknown {
  if (isRecord(v) && typeof v['type'] === 'string' && 'value' in v && Object.keys(v).length <= 2) {
    const type = v['type'];
    const value = v['value'];
    if (type === 'compound' && isRecord(value)) {
      const out: Record<string, unknown> = {};
      for (const k in value) if (k !== '__proto__') out[k] = plain(value[k]);
      return out;
    }
    if (type === 'list' && isRecord(value) && Array.isArray(value['value'])) {
      return (value['value'] as unknown[]).map((x) => plain(value['type'] === 'compound' || value['type'] === 'list' ? { type: value['type'], value: x } : x));
    }
    return value;
  }
  return v;
}

/** A JSON value as NBT-plain (numbers, strings, lists, compounds); anything else dropped. */
function toNbtPlain(v: unknown): NbtPlain | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (Array.isArray(v)) return v.map(toNbtPlain).filter((x): x is NbtPlain => x !== undefined);
  if (isRecord(v)) {
    const out: NbtPlainCompound = {};
    for (const k in v) {
      if (k === '__proto__') continue;
      const x = toNbtPlain(v[k]);
      if (x !== undefined) out[k] = x;
    }
    return out;
  }
  return undefined;
}

/**
 * An item given as NBT JSON. Returns null for an empty slot (no `tag` and no id); throws
 * SubjectError for an item that cannot be read.
 */
export function subjectOfJson(raw: unknown): ValuationSubject | null {
  if (!depthWithin(raw, MAX_JSON_DEPTH)) throw new SubjectError('too_deep', `nested deeper than ${MAX_JSON_DEPTH}`);
  const item = plain(raw);
  if (!isRecord(item)) throw new SubjectError('no_item', 'an item is an object');
  const tag = isRecord(item['tag']) ? item['tag'] : null;
  const extraRaw = tag && isRecord(tag['ExtraAttributes']) ? tag['ExtraAttributes'] : isRecord(item['ExtraAttributes']) ? item['ExtraAttributes'] : null;
  if (extraRaw === null) {
    if (tag === null && item['id'] === undefined) return null;
    throw new SubjectError('no_item', 'the item has no ExtraAttributes');
  }
  const extra = toNbtPlain(extraRaw) as NbtPlainCompound;
  if (typeof extra['id'] !== 'string' || extra['id'] === '') throw new SubjectError('no_id', 'ExtraAttributes has no string id');
  const petInfo = extra['id'] === 'PET' ? readPetInfo(extra['petInfo']) : null;
  const itemTag = itemTagFromExtra(extra, petInfo);
  if (itemTag === null || !isValidTag(itemTag)) throw new SubjectError('bad_tag', 'the id is not a valid tag');
  const display = tag && isRecord(tag['display']) ? tag['display'] : null;
  const lore = display && Array.isArray(display['Lore']) ? display['Lore'].filter((l): l is string => typeof l === 'string') : [];
  const petTier = petInfo && typeof petInfo['tier'] === 'string' ? petInfo['tier'] : null;
  const count = typeof item['Count'] === 'number' ? item['Count'] : typeof item['count'] === 'number' ? item['count'] : 1;
  const enchantments: Record<string, number> = {};
  const ench = extra['enchantments'];
  if (isRecord(ench)) for (const k in ench) if (typeof ench[k] === 'number') enchantments[k] = ench[k];
  return { tag: itemTag, tier: petTier ?? tierFromLore(lore), count: clampCount(count), enchantments, flatNbt: flattenExtraAttributes(extra) };
}

/** A profile's pet (`profile.members[uuid].pets_data.pets[i]`) as the item it would be. */
export function subjectOfProfilePet(raw: unknown): ValuationSubject | null {
  if (!isRecord(raw) || typeof raw['type'] !== 'string' || raw['type'] === '') return null;
  const info: NbtPlainCompound = {};
  for (const k of ['type', 'tier', 'exp', 'heldItem', 'candyUsed', 'skin'] as const) {
    const v = toNbtPlain(raw[k]);
    if (v !== undefined) info[k] = v;
  }
  const tag = itemTagFromExtra({ id: 'PET' }, info);
  if (tag === null || !isValidTag(tag)) return null;
  return {
    tag,
    tier: typeof info['tier'] === 'string' ? info['tier'] : null,
    count: 1,
    enchantments: {},
    flatNbt: flattenExtraAttributes({ id: 'PET', petInfo: JSON.stringify(info) }),
  };
}

/**
 * The established mod's `ItemRepresent` (`{tag, itemName, extraAttributes, enchantments,
 * description, count}`) as a subject; null when it names no item.
 */
export function subjectOfRepresent(raw: unknown): ValuationSubject | null {
  if (!depthWithin(raw, MAX_JSON_DEPTH)) throw new SubjectError('too_deep', `nested deeper than ${MAX_JSON_DEPTH}`);
  if (!isRecord(raw)) return null;
  const extra = (isRecord(raw['extraAttributes']) ? toNbtPlain(raw['extraAttributes']) : {}) as NbtPlainCompound;
  if (typeof raw['tag'] === 'string' && raw['tag'] !== '' && typeof extra['id'] !== 'string') extra['id'] = raw['tag'];
  if (typeof extra['id'] !== 'string' || extra['id'] === '') return null;
  const petInfo = extra['id'] === 'PET' ? readPetInfo(extra['petInfo']) : null;
  const derived = itemTagFromExtra(extra, petInfo);
  // A pet sent with its tag (`PET_BEE`) and no petInfo keeps its tag.
  const tag = typeof raw['tag'] === 'string' && raw['tag'].startsWith('PET_') && petInfo === null ? raw['tag'] : derived;
  if (tag === null || !isValidTag(tag)) throw new SubjectError('bad_tag', 'the tag is not a valid tag');
  const enchantments: Record<string, number> = {};
  const ench = isRecord(raw['enchantments']) ? raw['enchantments'] : isRecord(extra['enchantments']) ? extra['enchantments'] : {};
  for (const k in ench) if (typeof ench[k] === 'number' && Number.isFinite(ench[k])) enchantments[k] = ench[k];
  const lore = typeof raw['description'] === 'string' ? raw['description'].split('\n') : [];
  const petTier = petInfo && typeof petInfo['tier'] === 'string' ? petInfo['tier'] : null;
  const count = typeof raw['count'] === 'number' ? clampCount(raw['count']) : 1;
  return { tag, tier: petTier ?? tierFromLore(lore), count, enchantments, flatNbt: flattenExtraAttributes(extra) };
}
