/**
 * Decoding of Hypixel `item_bytes` (base64 → gzip → big-endian NBT) into
 * normalized item records.
 *
 * The root is an unnamed compound `{ i: List<Compound> }`: one item for an
 * auction, many for an inventory. Items come in the legacy 1.8 layout
 * (`Count`, `tag.display`, `tag.ExtraAttributes`), which is what Hypixel's API
 * serves, or in the 1.21 component layout (`count`, `components` with
 * `minecraft:custom_data`, `minecraft:custom_name`, `minecraft:lore`) that
 * newer clients upload.
 *
 * Input is untrusted. Every failure is an `ItemDecodeError` with a short
 * reason code, so callers can count and skip; sizes are capped and the NBT
 * structure is checked before prismarine-nbt builds objects from it (its
 * parser would otherwise spin for hours on a few KB of lists of TAG_End).
 */
import { gunzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import { petLevel } from './pets.ts';
import { isValidTag, itemTagFromExtra, readPetInfo } from './tags.ts';

// ---------------------------------------------------------------------------
// Public types

/** Why an item blob could not be decoded. */
export type ItemDecodeReason =
  /** not a string, or not base64 */
  | 'bad_base64'
  /** not gzip, or a corrupt gzip stream */
  | 'bad_gzip'
  /** compressed or decompressed size above the limit */
  | 'too_large'
  /** malformed, truncated or too deeply nested NBT, or an unexpected root */
  | 'bad_nbt'
  /** no item in the list, or an item without ExtraAttributes */
  | 'no_item'
  /** ExtraAttributes without a string `id` */
  | 'no_id'
  /** the derived tag is not a valid tag (see `isValidTag`) */
  | 'bad_tag';

/** A blob that cannot be decoded. `reason` is stable and meant for counters. */
export class ItemDecodeError extends Error {
  override readonly name = 'ItemDecodeError';
  constructor(
    readonly reason: ItemDecodeReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${reason}: ${message}`, options);
  }
}

/** A pet's data from `ExtraAttributes.petInfo`. */
export interface DecodedPet {
  /** pet type as in petInfo, e.g. `BEE` */
  type: string;
  /** rarity as in petInfo, e.g. `LEGENDARY` (`COMMON` when missing) */
  tier: string;
  /** total pet XP */
  exp: number;
  /** level computed from `exp`, `tier` and `type` (see pets.ts) */
  level: number;
  /** held pet item id, e.g. `PET_ITEM_TIER_BOOST`, or null */
  heldItem: string | null;
  /** pet candies used */
  candyUsed: number;
  /** pet skin id (without the `PET_SKIN_` prefix, as stored), or null */
  skin: string | null;
}

/** A potion's effect from `ExtraAttributes.potion` / `potion_level`. */
export interface DecodedPotion {
  /** effect type as stored, e.g. `haste` */
  type: string;
  /** potion level, 0 when missing */
  level: number;
}

/** One decoded item. */
export interface DecodedItem {
  /** canonical skymarket tag, e.g. `HYPERION`, `PET_BEE`, `ENCHANTMENT_SHARPNESS_5` (see tags.ts) */
  tag: string;
  /** raw `ExtraAttributes.id` */
  id: string;
  /** `ExtraAttributes.uuid` as stored (dashed), or null */
  itemUuid: string | null;
  /** last 12 hex digits of the uuid without dashes, lower case, or null */
  uid: string | null;
  /** stack size (`Count` byte, or `count` in the 1.21 layout), 1 when missing */
  count: number;
  /** display name with § colour codes stripped; equals the auction's `item_name` */
  name: string;
  /** display name with colour codes */
  rawName: string;
  /** `display.Lore` lines with colour codes; joined by `\n` they equal the auction's `item_lore` */
  lore: string[];
  /** enchantment name (lower case, as stored) → level */
  enchantments: Record<string, number>;
  /** reforge (`modifier`, e.g. `spiritual`), or null */
  reforge: string | null;
  /** stars: `upgrade_level`, else `dungeon_item_level`, else 0 */
  stars: number;
  /** recombobulator count (`rarity_upgrades`), 0 when missing */
  rarityUpgrades: number;
  /** hot and fuming potato books (`hot_potato_count`), 0 when missing */
  hotPotatoCount: number;
  /** pet data, or null for anything that is not a pet */
  pet: DecodedPet | null;
  /** rune type → level (`runes`) */
  runes: Record<string, number>;
  /** attribute → level (`attributes`) */
  attributes: Record<string, number>;
  /**
   * Gemstones, flattened: slot → quality (`SAPPHIRE_0: "FINE"`), plus the
   * stored `<slot>_gem` entries naming the gem in universal slots
   * (`COMBAT_0_gem: "JASPER"`). A slot stored as an object `{quality, uuid}`
   * becomes its quality. `unlocked_slots` is left out (it is in flatNbt).
   */
  gems: Record<string, string>;
  /** potion effect, or null when there is no `potion` string */
  potion: DecodedPotion | null;
  /**
   * When the item was created, epoch ms, or null. From `timestamp`: a number
   * of epoch ms, or a string `M/d/yy h:mm AM` (or 24 h `M/d/yy H:mm`) read as UTC.
   */
  createdAt: number | null;
  /**
   * Leather colour as `"r:g:b"`: the displayed `display.color` (dyes
   * included), else `ExtraAttributes.color`; null for undyed items.
   */
  color: string | null;
  /** skin: the pet's skin, else `ExtraAttributes.skin`; null when none */
  skin: string | null;
  /**
   * ExtraAttributes without `enchantments`, `id`, `originTag`, `uuid` and
   * `timestamp`, flattened for filters: all values are strings; nested
   * compounds become `parent.key`, lists of compounds `parent.0.key`, lists
   * of scalars one comma-joined value, and the petInfo JSON `petInfo.key`.
   */
  flatNbt: Record<string, string>;
}

/** Options for the decoders. */
export interface DecodeOptions {
  /** decompressed size limit in bytes (default `MAX_NBT_BYTES`) */
  maxBytes?: number;
  /**
   * In a multi-item list, skip items that fail (no ExtraAttributes, no id,
   * bad tag) instead of throwing. Empty slots are always skipped.
   */
  skipInvalid?: boolean;
}

/** Default cap on decompressed NBT: an auction item is ~1-3 KB, a full backpack well under 1 MB. */
export const MAX_NBT_BYTES = 2 * 1024 * 1024;
/** Deepest NBT nesting accepted; SkyBlock items nest about 8 levels. */
export const MAX_NBT_DEPTH = 64;

// ---------------------------------------------------------------------------
// Entry points

/** Decodes every item of an `item_bytes` string (base64 of gzipped NBT). */
export function decodeItemBytes(base64: string, options?: DecodeOptions): DecodedItem[] {
  return decodeNbtItems(gunzipBase64(base64, options?.maxBytes ?? MAX_NBT_BYTES), options);
}

/** The NBT bytes of an `item_bytes` string (base64 of gzip), inflated to at most `maxBytes`. */
export function inflateItemBytes(base64: string, maxBytes = MAX_NBT_BYTES): Buffer {
  return gunzipBase64(base64, maxBytes);
}

/**
 * Fast path for auctions: decodes only the first item of an `item_bytes`
 * string (auctions hold exactly one).
 */
export function decodeAuctionItem(base64: string, options?: DecodeOptions): DecodedItem {
  const items = itemList(parseRoot(gunzipBase64(base64, options?.maxBytes ?? MAX_NBT_BYTES)));
  for (const item of items) {
    if (!isEmptySlot(item)) return decodeItemGuarded(item);
  }
  throw new ItemDecodeError('no_item', 'the item list is empty');
}

/**
 * The raw `ExtraAttributes` of an auction's item as plain nested JSON (the
 * `nbtData.data` of the auction detail): every key as stored, longs beyond
 * ±2^53 as decimal strings. Throws ItemDecodeError like the decoders.
 */
export function auctionExtraAttributes(base64: string, options?: DecodeOptions): NbtPlainCompound {
  return auctionExtraAttributesOfNbt(gunzipBase64(base64, options?.maxBytes ?? MAX_NBT_BYTES), options);
}

/** `auctionExtraAttributes` of already decompressed (gunzipped) NBT bytes. */
export function auctionExtraAttributesOfNbt(raw: Uint8Array, options?: DecodeOptions): NbtPlainCompound {
  const maxBytes = options?.maxBytes ?? MAX_NBT_BYTES;
  if (raw.length > maxBytes) throw new ItemDecodeError('too_large', `${raw.length} bytes of NBT`);
  const items = itemList(parseRoot(raw));
  const item = items.find((i) => !isEmptySlot(i));
  if (!item) throw new ItemDecodeError('no_item', 'the item list is empty');
  try {
    const tag = own(item, 'tag');
    if (tag?.type === 'compound') {
      const ea = own(tag.value as TagCompound, 'ExtraAttributes');
      if (ea?.type === 'compound') return plainCompound(ea.value as TagCompound);
    }
    const components = own(item, 'components');
    if (components?.type === 'compound') {
      const data = own(components.value as TagCompound, 'minecraft:custom_data');
      if (data?.type === 'compound') return plainCompound(data.value as TagCompound);
    }
  } catch (err) {
    throw new ItemDecodeError('bad_nbt', (err as Error)?.message ?? String(err), { cause: err });
  }
  throw new ItemDecodeError('no_item', 'item has no ExtraAttributes');
}

/** Decodes every item of already decompressed (gunzipped) NBT bytes. */
export function decodeNbtItems(raw: Uint8Array, options?: DecodeOptions): DecodedItem[] {
  const maxBytes = options?.maxBytes ?? MAX_NBT_BYTES;
  if (raw.length > maxBytes) throw new ItemDecodeError('too_large', `${raw.length} bytes of NBT`);
  const items = itemList(parseRoot(raw));
  const out: DecodedItem[] = [];
  for (const item of items) {
    if (isEmptySlot(item)) continue;
    try {
      out.push(decodeItemGuarded(item));
    } catch (err) {
      if (!options?.skipInvalid || items.length === 1) throw err;
    }
  }
  if (out.length === 0) throw new ItemDecodeError('no_item', 'no decodable item in the list');
  return out;
}

/**
 * Every slot of already decompressed NBT, in order: an empty slot, or an item that cannot be
 * decoded (no ExtraAttributes, no id, a bad tag), is null. For inventories valued slot by slot.
 */
export function decodeNbtSlots(raw: Uint8Array, options?: DecodeOptions): Array<DecodedItem | null> {
  const maxBytes = options?.maxBytes ?? MAX_NBT_BYTES;
  if (raw.length > maxBytes) throw new ItemDecodeError('too_large', `${raw.length} bytes of NBT`);
  return itemList(parseRoot(raw)).map((item) => {
    if (isEmptySlot(item)) return null;
    try {
      return decodeItemGuarded(item);
    } catch (err) {
      if (err instanceof ItemDecodeError && err.reason !== 'bad_nbt') return null;
      throw err;
    }
  });
}

// ---------------------------------------------------------------------------
// base64 + gzip

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;
/** gunzipBase64's reused input buffer (grown to the largest item seen) */
let scratch = Buffer.allocUnsafeSlow(16 * 1024);

function gunzipBase64(base64: string, maxBytes: number): Buffer {
  if (typeof base64 !== 'string' || base64.length === 0) {
    throw new ItemDecodeError('bad_base64', 'expected a non-empty string');
  }
  // gzip output is never much larger than its input, so base64 this long
  // (1.5x maxBytes of gzip) cannot inflate to less than maxBytes.
  if (base64.length > maxBytes * 2) throw new ItemDecodeError('too_large', `${base64.length} base64 chars`);
  if (!BASE64.test(base64)) throw new ItemDecodeError('bad_base64', 'not base64');
  // Decoded into one reused buffer (gunzip copies out of it), not a new Buffer per item: those
  // came from Node's shared 8 KB pool, beside the item bytes a cold sweep keeps for its rows
  // until they are stored, and each pinned its slab for as long (docs/performance.md).
  const size = Math.ceil((base64.length * 3) / 4);
  if (scratch.length < size) scratch = Buffer.allocUnsafeSlow(size);
  return gunzip(scratch.subarray(0, scratch.write(base64, 'base64')), maxBytes);
}

function gunzip(compressed: Buffer, maxBytes: number): Buffer {
  if (compressed.length < 18 || compressed[0] !== 0x1f || compressed[1] !== 0x8b) {
    throw new ItemDecodeError('bad_gzip', 'no gzip header');
  }
  try {
    // 4 KB chunks: auction items inflate to 1-3 KB, and the 16 KB default
    // chunk costs a measurable allocation per item.
    return gunzipSync(compressed, { maxOutputLength: maxBytes, chunkSize: 4096 });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ItemDecodeError('too_large', `more than ${maxBytes} bytes decompressed`, { cause: err });
    }
    throw new ItemDecodeError('bad_gzip', (err as Error).message, { cause: err });
  }
}

// ---------------------------------------------------------------------------
// NBT structure check and parsing

const TAG_END = 0;
const TAG_BYTE_ARRAY = 7;
const TAG_STRING = 8;
const TAG_LIST = 9;
const TAG_COMPOUND = 10;
const TAG_INT_ARRAY = 11;
const TAG_LONG_ARRAY = 12;
/** Payload size of fixed-size tags 1-6, and element size of arrays 7, 11, 12. */
const FIXED_SIZE = [0, 1, 2, 4, 8, 4, 8, 1, 0, 0, 0, 4, 8];
/** Fewest bytes one list element of each tag type can take, to bound list counts. */
const MIN_SIZE = [0, 1, 2, 4, 8, 4, 8, 4, 2, 5, 1, 4, 4];

/**
 * Walks the NBT structure without building values and rejects what
 * prismarine-nbt would mishandle: truncation at a tag boundary (it accepts a
 * compound cut off at the end of the buffer), lists of TAG_End with a count
 * (it loops `count` times over zero bytes, so nested ones never finish), list
 * and array counts larger than the remaining bytes, and nesting deeper than
 * MAX_NBT_DEPTH. Afterwards parsing costs at most linear time in the size.
 */
function checkNbt(buf: Uint8Array): void {
  scan.buf = buf;
  scan.pos = 0;
  need(1);
  if (buf[scan.pos++] !== TAG_COMPOUND) throw new ItemDecodeError('bad_nbt', 'root is not a compound');
  skipString();
  payload(TAG_COMPOUND, 0);
}

// Scanner state lives at module level rather than in closures: the check is
// synchronous and not re-entrant, and per-call closures cost measurable time.
const scan: { buf: Uint8Array; pos: number } = { buf: new Uint8Array(0), pos: 0 };

function need(n: number): void {
  if (n < 0 || scan.pos + n > scan.buf.length) throw new ItemDecodeError('bad_nbt', `truncated at byte ${scan.pos}`);
}

function skipString(): void {
  need(2);
  const { buf, pos } = scan;
  const len = (buf[pos]! << 8) | buf[pos + 1]!;
  scan.pos = pos + 2;
  need(len);
  scan.pos += len;
}

/** Reads a list/array length and checks that `n * elementSize` bytes remain. */
function readCount(elementSize: number): number {
  need(4);
  const { buf, pos } = scan;
  // Big-endian int32; `| 0` keeps the sign of the top byte.
  const n = ((buf[pos]! << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!) | 0;
  if (n < 0) throw new ItemDecodeError('bad_nbt', `negative length at byte ${scan.pos}`);
  scan.pos += 4;
  need(n * elementSize);
  return n;
}

function payload(type: number, depth: number): void {
  if (depth > MAX_NBT_DEPTH) throw new ItemDecodeError('bad_nbt', 'nested too deeply');
  switch (type) {
    case TAG_STRING:
      skipString();
      return;
    case TAG_LIST: {
      need(1);
      const elementType = scan.buf[scan.pos++]!;
      if (elementType > TAG_LONG_ARRAY) throw new ItemDecodeError('bad_nbt', `bad list type ${elementType}`);
      const n = readCount(MIN_SIZE[elementType]!);
      if (elementType === TAG_END) {
        if (n !== 0) throw new ItemDecodeError('bad_nbt', 'non-empty list of TAG_End');
        return;
      }
      for (let i = 0; i < n; i++) payload(elementType, depth + 1);
      return;
    }
    case TAG_COMPOUND:
      for (;;) {
        need(1);
        const t = scan.buf[scan.pos++]!;
        if (t === TAG_END) return;
        if (t > TAG_LONG_ARRAY) throw new ItemDecodeError('bad_nbt', `bad tag type ${t}`);
        skipString();
        payload(t, depth + 1);
      }
    case TAG_BYTE_ARRAY:
    case TAG_INT_ARRAY:
    case TAG_LONG_ARRAY: {
      const size = FIXED_SIZE[type]!;
      const n = readCount(size);
      scan.pos += n * size;
      return;
    }
    default: {
      const size = FIXED_SIZE[type]!;
      need(size);
      scan.pos += size;
    }
  }
}

/** prismarine-nbt's typed tree: every value carries its tag type. */
interface Tag {
  type: string;
  value: unknown;
}
type TagCompound = Record<string, Tag | undefined>;
interface TagList {
  type: string;
  value: unknown[];
}

function parseRoot(raw: Uint8Array): TagCompound {
  checkNbt(raw);
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  try {
    return nbt.parseUncompressed(buf, 'big').value as TagCompound;
  } catch (err) {
    throw new ItemDecodeError('bad_nbt', (err as Error).message, { cause: err });
  }
}

function itemList(root: TagCompound): TagCompound[] {
  const list = own(root, 'i');
  if (list?.type !== 'list') throw new ItemDecodeError('no_item', 'root has no list `i`');
  const l = list.value as TagList;
  if (l.type === 'end') return [];
  if (l.type !== 'compound') throw new ItemDecodeError('no_item', 'list `i` does not hold compounds');
  return l.value as TagCompound[];
}

function isEmptySlot(item: TagCompound): boolean {
  for (const key in item) if (Object.hasOwn(item, key)) return false;
  return true;
}

/**
 * Field lookup in a parsed compound. prismarine stores compounds in plain
 * objects, so a hostile `__proto__` key swaps in a prototype holding only
 * `type` and `value`; the fixed names looked up here can therefore only
 * resolve to real entries (or Object.prototype members, which fail the
 * callers' `type` checks). A direct read is safe and cheaper than hasOwn.
 */
function own(c: TagCompound, key: string): Tag | undefined {
  return c[key];
}

/** Decodes one item and turns anything unexpected into an ItemDecodeError. */
function decodeItemGuarded(item: TagCompound): DecodedItem {
  try {
    return decodeItem(item);
  } catch (err) {
    if (err instanceof ItemDecodeError) throw err;
    throw new ItemDecodeError('bad_nbt', (err as Error)?.message ?? String(err), { cause: err });
  }
}

// ---------------------------------------------------------------------------
// Typed tree → plain values

/** NBT as plain JS: numbers (longs within ±2^53; larger ones as exact decimal strings), strings, arrays, objects. */
export type NbtPlain = number | string | NbtPlain[] | NbtPlainCompound;
/** A plain NBT compound. */
export interface NbtPlainCompound {
  [key: string]: NbtPlain;
}

const TWO_32 = 4294967296;
/** |hi| below this keeps hi·2^32 + lo within the safe integer range. */
const SAFE_HI = 0x200000;

/**
 * An NBT long (prismarine's `[hi, lo]`, both signed 32-bit) as a number when
 * it is a safe integer, else as an exact decimal string.
 */
export function longToPlain(pair: readonly [number, number]): number | string {
  const [hi, lo] = pair;
  if (hi > -SAFE_HI && hi < SAFE_HI) return hi * TWO_32 + (lo >>> 0);
  return ((BigInt(hi) << 32n) | BigInt(lo >>> 0)).toString();
}

function plainOf(tag: Tag): NbtPlain {
  switch (tag.type) {
    case 'compound':
      return plainCompound(tag.value as TagCompound);
    case 'list': {
      const l = tag.value as TagList;
      return plainList(l.type, l.value);
    }
    case 'long':
      return longToPlain(tag.value as [number, number]);
    case 'longArray':
      return (tag.value as [number, number][]).map(longToPlain);
    default:
      // byte, short, int, float, double, string, byteArray, intArray
      return tag.value as NbtPlain;
  }
}

function plainCompound(c: TagCompound): NbtPlainCompound {
  const out: NbtPlainCompound = {};
  for (const key of Object.keys(c)) {
    // Assigning `__proto__` would replace the object's prototype.
    if (key === '__proto__') continue;
    out[key] = plainOf(c[key]!);
  }
  return out;
}

function plainList(type: string, values: unknown[]): NbtPlain[] {
  switch (type) {
    case 'compound':
      return values.map((v) => plainCompound(v as TagCompound));
    case 'list':
      return values.map((v) => plainList((v as TagList).type, (v as TagList).value));
    case 'long':
      return values.map((v) => longToPlain(v as [number, number]));
    case 'longArray':
      return values.map((v) => (v as [number, number][]).map(longToPlain));
    case 'end':
      return [];
    default:
      return values as NbtPlain[];
  }
}

// ---------------------------------------------------------------------------
// Item record

function decodeItem(item: TagCompound): DecodedItem {
  const tag = own(item, 'tag');
  const components = own(item, 'components');
  let extra: NbtPlainCompound | null = null;
  let rawName = '';
  let lore: string[] = [];
  let displayColor: number | null = null;
  let count = 1;

  if (tag?.type === 'compound') {
    const t = tag.value as TagCompound;
    const ea = own(t, 'ExtraAttributes');
    if (ea?.type === 'compound') extra = plainCompound(ea.value as TagCompound);
    const display = own(t, 'display');
    if (display?.type === 'compound') {
      const d = display.value as TagCompound;
      const name = own(d, 'Name');
      if (name?.type === 'string') rawName = name.value as string;
      const l = own(d, 'Lore');
      if (l?.type === 'list') {
        const list = l.value as TagList;
        // A list of strings can be handed out as parsed; nothing else shares it.
        if (list.type === 'string') lore = list.value as string[];
      }
      const color = own(d, 'color');
      if (color?.type === 'int') displayColor = color.value as number;
    }
    const c = own(item, 'Count');
    if (c !== undefined && typeof c.value === 'number') count = c.value;
  } else if (components?.type === 'compound') {
    // 1.21 data components
    const comps = plainCompound(components.value as TagCompound);
    const data = comps['minecraft:custom_data'];
    if (isCompound(data)) extra = data;
    const name = comps['minecraft:custom_name'] ?? comps['minecraft:item_name'];
    if (name !== undefined) rawName = textToLegacy(name);
    const l = comps['minecraft:lore'];
    if (Array.isArray(l)) lore = l.map(textToLegacy);
    const dyed = comps['minecraft:dyed_color'];
    const rgb = isCompound(dyed) ? dyed['rgb'] : dyed;
    if (typeof rgb === 'number') displayColor = rgb;
    const c = own(item, 'count');
    if (c !== undefined && typeof c.value === 'number') count = c.value;
  }

  if (extra === null) throw new ItemDecodeError('no_item', 'item has no ExtraAttributes');
  const id = extra['id'];
  if (typeof id !== 'string' || id === '') throw new ItemDecodeError('no_id', 'ExtraAttributes has no string id');

  const petInfo = id === 'PET' ? readPetInfo(extra['petInfo']) : null;
  const itemTag = itemTagFromExtra(extra, petInfo);
  if (!isValidTag(itemTag)) throw new ItemDecodeError('bad_tag', `invalid tag derived from id ${JSON.stringify(id).slice(0, 80)}`);

  const uuid = extra['uuid'];
  const itemUuid = typeof uuid === 'string' ? uuid : null;
  const pet = petInfo === null ? null : decodePet(petInfo);
  const potionType = extra['potion'];
  const eaColor = extra['color'];
  const eaSkin = extra['skin'];

  return {
    tag: itemTag,
    id,
    itemUuid,
    uid: itemUuid === null ? null : uidOf(itemUuid),
    count,
    name: stripColorCodes(rawName),
    rawName,
    lore,
    enchantments: numberRecord(extra['enchantments']),
    reforge: typeof extra['modifier'] === 'string' ? extra['modifier'] : null,
    stars: num(extra['upgrade_level']) ?? num(extra['dungeon_item_level']) ?? 0,
    rarityUpgrades: num(extra['rarity_upgrades']) ?? 0,
    hotPotatoCount: num(extra['hot_potato_count']) ?? 0,
    pet,
    runes: numberRecord(extra['runes']),
    attributes: numberRecord(extra['attributes']),
    gems: gemsOf(extra['gems']),
    potion:
      typeof potionType === 'string' && potionType !== ''
        ? { type: potionType, level: num(extra['potion_level']) ?? 0 }
        : null,
    createdAt: parseItemTimestamp(extra['timestamp']),
    color:
      displayColor !== null
        ? `${(displayColor >> 16) & 255}:${(displayColor >> 8) & 255}:${displayColor & 255}`
        : typeof eaColor === 'string'
          ? eaColor
          : null,
    skin: pet?.skin ?? (typeof eaSkin === 'string' ? eaSkin : null),
    flatNbt: flattenExtra(extra, petInfo),
  };
}

function decodePet(info: Record<string, unknown>): DecodedPet {
  const type = typeof info['type'] === 'string' ? info['type'] : '';
  const tier = typeof info['tier'] === 'string' ? info['tier'] : 'COMMON';
  const exp = num(info['exp']) ?? 0;
  const heldItem = info['heldItem'];
  const skin = info['skin'];
  return {
    type,
    tier,
    exp,
    level: petLevel(type, tier, exp),
    heldItem: typeof heldItem === 'string' ? heldItem : null,
    candyUsed: num(info['candyUsed']) ?? 0,
    skin: typeof skin === 'string' ? skin : null,
  };
}

/** Last 12 hex digits of a uuid, lower case; null when the uuid is not hex. */
function uidOf(uuid: string): string | null {
  // Dashed uuids end in a 12-digit group: no need to strip the dashes.
  const hex = uuid.length === 36 && uuid.charCodeAt(23) === 45 ? uuid : uuid.replaceAll('-', '');
  if (hex.length < 12) return null;
  const uid = hex.slice(-12).toLowerCase();
  for (let i = 0; i < 12; i++) {
    const c = uid.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return null;
  }
  return uid;
}

function isCompound(v: NbtPlain | undefined): v is NbtPlainCompound {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function numberRecord(v: NbtPlain | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isCompound(v)) return out;
  for (const key of Object.keys(v)) {
    const n = v[key];
    if (typeof n === 'number') out[key] = n;
  }
  return out;
}

function gemsOf(v: NbtPlain | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isCompound(v)) return out;
  for (const key of Object.keys(v)) {
    const g = v[key];
    if (typeof g === 'string') out[key] = g;
    else if (isCompound(g) && typeof g['quality'] === 'string') out[key] = g['quality'];
  }
  return out;
}

// ---------------------------------------------------------------------------
// Names, text components, timestamps, flattening

const COLOR_CODE = /§./gs;

/** Removes Minecraft § formatting codes (`§6Hyperion` → `Hyperion`). */
export function stripColorCodes(s: string): string {
  return s.indexOf('§') === -1 ? s : s.replace(COLOR_CODE, '');
}

const COLOR_NAMES: Readonly<Record<string, string>> = {
  black: '0', dark_blue: '1', dark_green: '2', dark_aqua: '3', dark_red: '4', dark_purple: '5',
  gold: '6', gray: '7', dark_gray: '8', blue: '9', green: 'a', aqua: 'b', red: 'c',
  light_purple: 'd', yellow: 'e', white: 'f',
};
const FORMAT_FLAGS: readonly [string, string][] = [
  ['obfuscated', 'k'], ['bold', 'l'], ['strikethrough', 'm'], ['underlined', 'n'], ['italic', 'o'],
];

/**
 * A 1.21 text component (a JSON string up to 1.21.4, an NBT compound or list
 * since 1.21.5) as a legacy § string, so names and lore read the same in
 * both layouts.
 */
function textToLegacy(v: unknown): string {
  if (typeof v === 'string') {
    const c = v.charCodeAt(0);
    // '{', '[' or '"' starts JSON text; anything else is literal text.
    if (c === 123 || c === 91 || c === 34) {
      try {
        return componentToLegacy(JSON.parse(v), 0);
      } catch {
        return v;
      }
    }
    return v;
  }
  return componentToLegacy(v, 0);
}

function componentToLegacy(v: unknown, depth: number): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (depth > 16 || typeof v !== 'object' || v === null) return '';
  if (Array.isArray(v)) return v.map((x) => componentToLegacy(x, depth + 1)).join('');
  const o = v as Record<string, unknown>;
  let s = '';
  const color = o['color'];
  if (typeof color === 'string' && Object.hasOwn(COLOR_NAMES, color)) s += `§${COLOR_NAMES[color]}`;
  for (const [flag, code] of FORMAT_FLAGS) if (o[flag] === true || o[flag] === 1) s += `§${code}`;
  const text = o['text'] ?? o[''];
  if (typeof text === 'string') s += text;
  const extra = o['extra'];
  if (Array.isArray(extra)) for (const e of extra) s += componentToLegacy(e, depth + 1);
  return s;
}

const TIMESTAMP = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4}) (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?([AaPp])\.?[Mm]\.?)?$/;

/**
 * `ExtraAttributes.timestamp` as epoch ms, or null. Accepts a number of epoch
 * ms (newer items) or a string `M/d/yy h:mm AM|PM`, also with a 4-digit year,
 * seconds, or a 24-hour clock.
 *
 * The strings are wall-clock time of Hypixel's servers, US Eastern (America/New_York):
 * in the 2022 auction fixture, items listed right after their creation start
 * exactly 4 h (EDT, UTC-4) after the timestamp read as UTC, never earlier.
 */
export function parseItemTimestamp(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? Math.trunc(v) : null;
  if (typeof v !== 'string') return null;
  const m = TIMESTAMP.exec(v.trim());
  if (!m) return null;
  const month = Number(m[1]);
  const day = Number(m[2]);
  let year = Number(m[3]);
  if (m[3]!.length === 2) year += 2000;
  let hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const half = m[7]?.toUpperCase();
  if (half !== undefined) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (half === 'P' ? 12 : 0);
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  return easternWallTimeToUtc(year, month, day, hour, minute, second);
}

const EASTERN = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});
/** UTC offsets of New York per UTC day (NaN on the two DST-change days, which go per hour). */
const easternOffsetByDay = new Map<number, number>();
const easternOffsetByHour = new Map<number, number>();

function intlEasternOffset(instant: number): number {
  const parts: Record<string, number> = {};
  for (const p of EASTERN.formatToParts(instant)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(instant / 1000) * 1000;
}

/** Offset of America/New_York from UTC at the instant `utcMs` (negative: behind UTC). */
function easternOffsetAt(utcMs: number): number {
  const dayKey = Math.floor(utcMs / 86_400_000);
  let day = easternOffsetByDay.get(dayKey);
  if (day === undefined) {
    const start = intlEasternOffset(dayKey * 86_400_000);
    day = start === intlEasternOffset(dayKey * 86_400_000 + 86_399_000) ? start : NaN;
    if (easternOffsetByDay.size > 50_000) easternOffsetByDay.clear();
    easternOffsetByDay.set(dayKey, day);
  }
  if (!Number.isNaN(day)) return day;
  const hourKey = Math.floor(utcMs / 3_600_000);
  let hour = easternOffsetByHour.get(hourKey);
  if (hour === undefined) {
    hour = intlEasternOffset(hourKey * 3_600_000);
    easternOffsetByHour.set(hourKey, hour);
  }
  return hour;
}

/** The instant at which New York's clocks showed the given wall time (DST-aware). */
function easternWallTimeToUtc(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute, second);
  // Two passes settle the offset across a DST change.
  let utc = asUtc - easternOffsetAt(asUtc);
  utc = asUtc - easternOffsetAt(utc);
  return utc;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const FLAT_SKIP = new Set(['enchantments', 'id', 'originTag', 'uuid', 'timestamp']);

/**
 * ExtraAttributes given as plain JSON (an item sent as decoded NBT, a profile's item) flattened as
 * the decoders flatten them (`DecodedItem.flatNbt`): the same keys whichever way the item came.
 */
export function flattenExtraAttributes(extra: NbtPlainCompound): Record<string, string> {
  return flattenExtra(extra, null);
}

function flattenExtra(extra: NbtPlainCompound, petInfo: Record<string, unknown> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(extra)) {
    if (FLAT_SKIP.has(key)) continue;
    const v = extra[key]!;
    if (key === 'petInfo' && typeof v === 'string') {
      const info = petInfo ?? readPetInfo(v);
      if (info !== null) {
        flattenJson(info, 'petInfo.', out);
        continue;
      }
    }
    flattenInto(v, key, out);
  }
  return out;
}

function flattenInto(v: NbtPlain, key: string, out: Record<string, string>): void {
  if (typeof v === 'string') out[key] = v;
  else if (typeof v === 'number') out[key] = String(v);
  else if (Array.isArray(v)) {
    if (v.length === 0) return;
    if (v.every((x) => typeof x !== 'object')) out[key] = v.join(',');
    else for (let i = 0; i < v.length; i++) flattenInto(v[i]!, `${key}.${i}`, out);
  } else {
    for (const k of Object.keys(v)) flattenInto(v[k]!, `${key}.${k}`, out);
  }
}

function flattenJson(o: Record<string, unknown>, prefix: string, out: Record<string, string>): void {
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (typeof v === 'string') out[prefix + k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[prefix + k] = String(v);
  }
}
