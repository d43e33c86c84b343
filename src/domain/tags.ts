/**
 * Item tags: the key skymarket prices and indexes items by.
 *
 * A tag is the game's `ExtraAttributes.id`, except where one id covers many
 * differently priced things (DESIGN.md §4, "Item tags"):
 *
 * | ExtraAttributes                         | tag                              |
 * |-----------------------------------------|----------------------------------|
 * | `id: PET`, petInfo.type `BEE`           | `PET_BEE`                        |
 * | `id: POTION`, `potion: "haste"`         | `POTION_HASTE`                   |
 * | `id: RUNE`, runes `{BLOOD_2: 1}`        | `RUNE_BLOOD_2`                   |
 * | `id: UNIQUE_RUNE`, runes `{GRAND_X: 3}` | `UNIQUE_RUNE_GRAND_X`            |
 * | `id: ABICASE`, `model: "SUMSUNG_1"`     | `ABICASE_SUMSUNG_1`              |
 * | `id: ENCHANTED_BOOK`, one enchantment   | `ENCHANTMENT_ULTIMATE_WISE_5`    |
 *
 * Canonical tags are upper case. The established service emits some mixed
 * case tags (`POTION_haste`); requests are matched case-insensitively through
 * `normalizeTag`.
 */

/** The tag syntax, as a JSON Schema / RegExp source: letters, digits and `_:;-`, 1 to 64 characters. */
export const TAG_PATTERN_SOURCE = '^[A-Za-z0-9_:;\\-]{1,64}$';
const TAG_PATTERN = new RegExp(TAG_PATTERN_SOURCE);

/** True when `s` may be used as a tag in storage keys and file names. */
export function isValidTag(s: unknown): s is string {
  return typeof s === 'string' && TAG_PATTERN.test(s);
}

/** Canonical (upper case) form of a tag, for case-insensitive matching. */
export function normalizeTag(s: string): string {
  return s.toUpperCase();
}

/** A well-formed tag that nothing knows of; each face answers it its own way (the API: 404 `item_not_found`). */
export class UnknownTagError extends Error {
  constructor(readonly tag: string) {
    super(`could not find the item with the tag \`${tag}\``);
    this.name = 'UnknownTagError';
  }
}

/** Tag of a single-enchantment book: `ENCHANTMENT_<NAME>_<LEVEL>` (`ENCHANTMENT_ULTIMATE_WISE_5`). */
export function enchantmentBookTag(name: string, level: number | string): string {
  return `ENCHANTMENT_${name.toUpperCase()}_${level}`;
}

/** The parts of a pet's `petInfo` the tag needs. */
export interface PetInfoLike {
  type?: unknown;
}

/** Tag suffix used when a pet's type cannot be read. */
export const UNKNOWN_PET_TYPE = 'UNKNOWN';

/**
 * Parses `ExtraAttributes.petInfo`, which Hypixel stores as a JSON string
 * (older or re-encoded items may carry a compound). Returns null when it is
 * missing or unreadable.
 */
export function readPetInfo(value: unknown): Record<string, unknown> | null {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      return isRecord(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
  return isRecord(value) ? value : null;
}

/**
 * Canonical tag of an item from its (plain, simplified) ExtraAttributes.
 * Returns null when there is no usable string `id`. The result is not
 * validated: callers check it with `isValidTag` before storing it.
 *
 * @param petInfo an already parsed petInfo, to avoid parsing it twice
 */
export function itemTagFromExtra(
  extra: Readonly<Record<string, unknown>>,
  petInfo?: PetInfoLike | null,
): string | null {
  const id = extra['id'];
  if (typeof id !== 'string' || id === '') return null;
  switch (id) {
    case 'PET': {
      const info = petInfo === undefined ? readPetInfo(extra['petInfo']) : petInfo;
      const type = info?.type;
      return `PET_${typeof type === 'string' && type !== '' ? type.toUpperCase() : UNKNOWN_PET_TYPE}`;
    }
    case 'POTION': {
      const potion = extra['potion'];
      return typeof potion === 'string' && potion !== '' ? `POTION_${potion.toUpperCase()}` : id;
    }
    case 'ABICASE': {
      const model = extra['model'];
      return typeof model === 'string' && model !== '' ? `ABICASE_${model.toUpperCase()}` : id;
    }
    case 'ENCHANTED_BOOK': {
      const enchantments = extra['enchantments'];
      if (!isRecord(enchantments)) return id;
      const names = Object.keys(enchantments);
      if (names.length !== 1) return id;
      const name = names[0]!;
      const level = enchantments[name];
      return typeof level === 'number' ? enchantmentBookTag(name, level) : id;
    }
  }
  if (id.endsWith('RUNE')) {
    const runes = extra['runes'];
    if (isRecord(runes)) {
      // Rune items carry exactly one entry; the first key is the rune type.
      for (const name in runes) {
        if (Object.hasOwn(runes, name)) return `${id}_${name.toUpperCase()}`;
      }
    }
  }
  return id;
}

/**
 * Maps a NotEnoughUpdates repository id (`items/<ID>.json`, also used in
 * NEU's `bazaarstocks.json`) to a skymarket tag.
 *
 * | NEU id                          | tag                        | rule |
 * |---------------------------------|----------------------------|------|
 * | `ULTIMATE_WISE;5`               | `ENCHANTMENT_ULTIMATE_WISE_5` | `NAME;LEVEL` enchanted book |
 * | `BEE;4`                         | `PET_BEE`                  | `NAME;RARITY_INDEX` pet (material `minecraft:skull`) |
 * | `BLOOD_2_RUNE;1`                | `RUNE_BLOOD_2`             | `TYPE_RUNE;LEVEL` rune |
 * | `POTION_SPEED;5`                | `POTION_SPEED`             | `POTION_TYPE;LEVEL` potion |
 * | `ATTRIBUTE_SHARD_BREEZE;1`      | `ATTRIBUTE_SHARD_BREEZE`   | other `X;N`: the level is dropped |
 * | `INK_SACK-4`                    | `INK_SACK`                 | vanilla `ID-DAMAGE`: the id part |
 * | `HYPERION`                      | `HYPERION`                 | anything else is the SkyBlock id |
 *
 * `material` is the NEU item's `itemid` (its vanilla material).
 * Pets and enchanted books share the `NAME;N` form; pass the NEU item's
 * `itemid` as `material` to tell them apart (`minecraft:skull` → pet).
 * Without it, `NAME;N` is read as an enchanted book, which is what the
 * bazaar lists. Unique runes cannot be told from ordinary runes by their NEU
 * id and map to `RUNE_<TYPE>`. Shards and damage-variant materials are
 * better mapped through NEU's `bazaarstocks.json` when the bazaar id is what
 * is wanted (`INK_SACK-4` is `INK_SACK:4` there).
 */
export function neuIdToTag(neuId: string, material?: string): string {
  const semi = neuId.indexOf(';');
  if (semi === -1) {
    const damage = /^(.+)-\d+$/.exec(neuId);
    return damage ? damage[1]! : neuId;
  }
  const name = neuId.slice(0, semi);
  const level = neuId.slice(semi + 1);
  if (name.endsWith('_RUNE')) return `RUNE_${name.slice(0, -'_RUNE'.length)}`;
  if (name.startsWith('POTION_') || name.startsWith('ATTRIBUTE_SHARD_')) return name;
  if (material === 'minecraft:skull') return `PET_${name}`;
  if (material !== undefined && material !== 'minecraft:enchanted_book') return name;
  return enchantmentBookTag(name, level);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const ROMAN = ['', 'I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'];

/** Roman numeral of a level 1–10, else the level as written. */
export function romanLevel(level: number | string): string {
  return ROMAN[Number(level)] ?? String(level);
}

/** `ULTIMATE_WISE` → `Ultimate Wise`: words split at underscores, each capitalised. */
export function titleCase(words: string): string {
  return words
    .toLowerCase()
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');
}

/** A readable name for products the items resource does not list (enchanted books, shards …). */
export function displayName(tag: string): string {
  const book = /^ENCHANTMENT_(?:ULTIMATE_)?(.+)_(\d+)$/.exec(tag);
  if (book) return `${titleCase(book[1]!)} ${romanLevel(book[2]!)}`;
  return titleCase(tag);
}
