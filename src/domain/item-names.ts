/**
 * Names of items as people type them: the readable name of a catalog entry, the key an alias is
 * looked up by, and the NEU internal names (ecosystem.md §3) that resolve to a skymarket tag.
 */
import { enchantmentBookTag, neuIdToTag, romanLevel, titleCase } from './tags.ts';

/** Minecraft formatting codes (`§6`, `§l` …). */
const FORMATTING = /§./g;

export function stripFormatting(s: string): string {
  return s.replace(FORMATTING, '');
}

/**
 * NEU repository entries that are not items but creatures and characters shown in its
 * bestiary and NPC lists ("Jerry (NPC)", "Sven Packmaster (Boss)"): kept out of the catalog.
 */
const NOT_AN_ITEM = /\((?:NPC|Rift NPC|Monster|Sea Creature|Boss|Miniboss|Animal|Pest|Mayor|Retired Mayor|Mythological Creature)\)$/;

export function isCreatureEntry(name: string): boolean {
  return NOT_AN_ITEM.test(name);
}

const BOOK = /^ENCHANTMENT_(.+)_(\d+)$/;

/**
 * The readable name of an item for the catalog: formatting removed, NEU's pet level template and
 * rune glyph dropped, and enchanted books named after their enchantment ("Ultimate Wise V"), as
 * every book is "Enchanted Book" in the game data.
 */
export function catalogName(tag: string, rawName: string | null): string {
  const book = BOOK.exec(tag);
  if (book && (rawName === null || /enchanted book/i.test(rawName))) return `${titleCase(book[1]!)} ${romanLevel(Number(book[2]))}`;
  if (rawName === null || rawName.trim() === '') return titleCase(tag.replace(/[:;-]/g, '_'));
  return stripFormatting(rawName)
    .replace(/^\[Lvl \{LVL\}\]\s*/, '')
    .replace(/^◆\s*/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The key an alias is looked up by: no formatting, one space between words, lower case. */
export function aliasKey(s: string): string {
  return stripFormatting(s).replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Pet rarities in NEU's order: the `N` of a pet's NEU id `TYPE;N`. */
export const PET_RARITIES = ['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'] as const;

/**
 * The tags a NEU internal name may stand for, most likely first: `NAME;N` is a pet or an enchanted
 * book (the id alone cannot tell), `NAME_RUNE;N` a rune, `POTION_X;N` a potion, `ID-DAMAGE` a
 * damage variant (`INK_SACK-4` is the bazaar's `INK_SACK:4`), else the id itself.
 */
export function neuIdCandidates(neuId: string): string[] {
  const id = neuId.toUpperCase();
  const semi = id.indexOf(';');
  if (semi !== -1) {
    const name = id.slice(0, semi);
    const level = id.slice(semi + 1);
    const out = [neuIdToTag(id), neuIdToTag(id, 'minecraft:skull'), name];
    if (/^\d+$/.test(level)) out.push(enchantmentBookTag(name, level));
    return [...new Set(out)];
  }
  const damage = /^(.+)-(\d+)$/.exec(id);
  return damage ? [`${damage[1]}:${damage[2]}`, damage[1]!, id] : [id];
}

/** True for a pet's tag (not a pet skin or pet item): one tag covers the pet at every rarity. */
export function isPetTag(tag: string): boolean {
  return tag.startsWith('PET_') && !tag.startsWith('PET_SKIN_') && !tag.startsWith('PET_ITEM_');
}

/** Words a player may search an item by beside its name and tag: its kind and a book's level. */
export function searchKeywords(tag: string): string {
  const words: string[] = [];
  if (isPetTag(tag)) words.push('pet');
  const book = BOOK.exec(tag);
  // A book's level both ways ("ultimate wise 5", "ultimate wise v"); not the word "book", which
  // every one of the ~1,000 books would share.
  if (book) words.push(book[2]!, romanLevel(Number(book[2])).toLowerCase());
  return words.join(' ');
}

const TIER_WORDS = new Map([
  ['common', 'COMMON'],
  ['uncommon', 'UNCOMMON'],
  ['rare', 'RARE'],
  ['epic', 'EPIC'],
  ['legendary', 'LEGENDARY'],
  ['mythic', 'MYTHIC'],
  ['divine', 'DIVINE'],
  ['special', 'SPECIAL'],
]);

/**
 * A search split into its words and the rarity it names ("ender dragon legendary" → "ender
 * dragon" and LEGENDARY): a rarity ranks items, it does not have to be in their names. A search
 * of nothing but a rarity stays as it is.
 */
export function splitRarity(term: string): { text: string; tier: string | null } {
  let tier: string | null = null;
  const rest: string[] = [];
  for (const word of term.trim().split(/\s+/)) {
    const t = TIER_WORDS.get(word.toLowerCase());
    if (t && tier === null) tier = t;
    else rest.push(word);
  }
  return rest.length === 0 ? { text: term, tier: null } : { text: rest.join(' '), tier };
}

/**
 * The words of a tag worth indexing beside the name: a book's tag without its ENCHANTMENT_
 * prefix (every book shares it), a pet's without PET_.
 */
export function tagWords(tag: string): string {
  return tag.replace(/^ENCHANTMENT_/, '').replace(/^PET_(?!SKIN_|ITEM_)/, '');
}

/** Initials of a name's words ("Aspect of the Dragons" → "aotd"), for acronym searches. */
export function initials(name: string): string {
  return name
    .toLowerCase()
    .split(/[\s-]+/)
    .filter((w) => /^[a-z0-9]/.test(w))
    .map((w) => w[0])
    .join('');
}

/** The rarity index NEU writes after a pet's type (`BEE;4` is a legendary Bee). */
export const PET_RARITY_INDEX: Readonly<Record<string, number>> = { COMMON: 0, UNCOMMON: 1, RARE: 2, EPIC: 3, LEGENDARY: 4, MYTHIC: 5 };

/** What an item's NEU id is computed from: its tag, rarity and flattened ExtraAttributes. */
export interface NeuIdSubject {
  tag: string;
  tier: string | null;
  flatNbt: Readonly<Record<string, string>>;
}

function singleEntry(flat: Readonly<Record<string, string>>, prefix: string): [string, string] | undefined {
  let found: [string, string] | undefined;
  for (const key in flat) {
    if (!key.startsWith(prefix)) continue;
    if (found) return undefined;
    found = [key.slice(prefix.length), flat[key]!];
  }
  return found;
}

/** NEU keeps one item per hat colour (crab and balloon hats) or emoji (sloth hats). */
function hatVariant(tag: string, flat: Readonly<Record<string, string>>): string | undefined {
  if (tag === 'PARTY_HAT_CRAB' || tag === 'PARTY_HAT_CRAB_ANIMATED' || /^BALLOON_HAT_\d+$/.test(tag)) {
    const color = flat['party_hat_color'];
    if (color === undefined || !/^[a-z_]+$/i.test(color)) return undefined;
    return tag.endsWith('_ANIMATED') ? `PARTY_HAT_CRAB_${color.toUpperCase()}_ANIMATED` : `${tag}_${color.toUpperCase()}`;
  }
  if (tag === 'PARTY_HAT_SLOTH') {
    const emoji = flat['party_hat_emoji'];
    return emoji !== undefined && /^[a-z_]+$/i.test(emoji) ? `${tag}_${emoji.toUpperCase()}` : undefined;
  }
  return undefined;
}

/**
 * An item's NEU internal name, as NEU computes it (the inverse of `neuIdToTag`): pets
 * `TYPE;RARITY_INDEX` (the pet's own rarity, `petInfo.tier`), enchanted books `NAME;LEVEL`, runes
 * (unique ones too) `TYPE_RUNE;LEVEL`, potions `POTION_TYPE;LEVEL`, attribute shards
 * `ATTRIBUTE_SHARD_NAME;LEVEL`, party and balloon hats by colour or emoji (`PARTY_HAT_CRAB_RED`,
 * `PARTY_HAT_CRAB_RED_ANIMATED`, `BALLOON_HAT_2024_AQUA`, `PARTY_HAT_SLOTH_COOL`), anything else its
 * tag with `:` written `-` (`INK_SACK:3` → `INK_SACK-3`).
 * Bazaar products pass an empty `flatNbt`.
 */
export function neuIdOf(s: NeuIdSubject): string {
  const tag = s.tag;
  if (isPetTag(tag)) {
    const index = PET_RARITY_INDEX[s.flatNbt['petInfo.tier'] ?? s.tier ?? 'COMMON'];
    return index === undefined ? tag.slice(4) : `${tag.slice(4)};${index}`;
  }
  const book = BOOK.exec(tag);
  if (book) return `${book[1]};${book[2]}`;
  if (tag.startsWith('RUNE_') || tag.startsWith('UNIQUE_RUNE_')) {
    const rune = singleEntry(s.flatNbt, 'runes.');
    if (rune && /^\d+$/.test(rune[1])) return `${rune[0].toUpperCase()}_RUNE;${rune[1]}`;
  }
  if (tag.startsWith('POTION_')) {
    const level = s.flatNbt['potion_level'];
    if (level !== undefined && /^\d+$/.test(level)) return `${tag};${level}`;
  }
  const hat = hatVariant(tag, s.flatNbt);
  if (hat) return hat;
  if (tag === 'ATTRIBUTE_SHARD') {
    const attribute = singleEntry(s.flatNbt, 'attributes.');
    if (attribute && /^\d+$/.test(attribute[1])) return `ATTRIBUTE_SHARD_${attribute[0].toUpperCase()};${attribute[1]}`;
  }
  return tag.replace(/:/g, '-');
}
