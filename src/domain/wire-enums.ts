/**
 * The established service's wire enums (api-shapes.md §1-2; Coflnet's generated client schema
 * `skyApi.schemas.ts`: `Reforge`, `Category`, `Tier`), restated as data, and the rules that map
 * what upstream and the game store onto them. Pure: no I/O.
 *
 * Upstream spells these differently: the auctions feed sends categories in lower case
 * (`armor`), the item NBT stores the reforge as the game's modifier id (`ancient`,
 * `renowned`, `aote_stone`), and old items say `SUPREME` for `DIVINE`. Clients generated from
 * the established schema accept only the exact spellings below.
 */

/**
 * Every `Reforge` value of the established schema (171), in its order and exact spelling:
 * some capitalised (`Fabled`), most in lower case (`ancient`), one misspelt (`RENOWED`).
 */
export const REFORGES: readonly string[] = [
  'None', 'Demonic', 'Forceful', 'Gentle', 'Godly', 'Hurtful', 'Keen', 'Strong', 'Superior', 'Unpleasant', 'Zealous',
  'Odd', 'Rich', 'Epic', 'Fair', 'Fast', 'Heroic', 'Legendary', 'Spicy', 'Deadly', 'Fine', 'Grand', 'Hasty', 'Neat',
  'Papid', 'Unreal', 'Clean', 'Fierce', 'Heavy', 'Light', 'Mythic', 'Pure', 'Smart', 'Titanic', 'Wise', 'Very',
  'Highly', 'Bizarre', 'Itchy', 'Omnious', 'Pleasant', 'Pretty', 'Shiny', 'Simple', 'Strange', 'Vivid', 'Ominous',
  'Sharp', 'Rapid', 'Necrotic', 'Fabled', 'Precise', 'Giant', 'warped_on_aote', 'Spiritual', 'Treacherous', 'RENOWED',
  'Reinforced', 'rich_bow', 'Spiked', 'Perfect', 'Magnetic', 'Loving', 'Gilded', 'odd_sword', 'Salty', 'Silky',
  'Refined', 'suspicious', 'toil', 'empowered', 'fruitful', 'blessed', 'shaded', 'awkward', 'dirty', 'undead', 'cubic',
  'bloody', 'moil', 'ridiculous', 'rich_sword', 'warped', 'odd_bow', 'candied', 'submerged', 'ancient', 'withered',
  'sweet', 'fleet', 'stellar', 'mithraic', 'Auspicious', 'headstrong', 'stiff', 'bulky', 'lucky', 'bountiful',
  'heated', 'jaded', 'ambered', 'double_bit', 'excellent', 'fortunate', 'prospector', 'lush', 'sturdy', 'lumberjack',
  'unyielding', 'great', 'robust', 'rugged', 'zooming', 'peasant', 'strengthened', 'glistening', 'waxed', 'fortified',
  'green_thumb', 'pitchin', 'coldfusion', 'bustling', 'earthy', 'mossy', 'blooming', 'rooted', 'festive', 'snowy',
  'Unknown', 'Any', 'chomp', 'full_jaw_fanging_kit', 'presumed_gallon_of_red_paint', 'displaced_leech',
  'Fang_tastic_chocolate_chip', 'bubba_blister', 'fanged', 'blood_soaked', 'stained', 'menacing', 'hefty', 'soft',
  'honored', 'blended', 'astute', 'colossal', 'brilliant', 'greater_spook', 'beady', 'buzzing', 'jerry_stone', 'hyper',
  'coldfused', 'Earthly', 'glacial', 'lustrous', 'blazing', 'scraped', 'royal', 'dimensional', 'squeaky', 'trashy',
  'calcified', 'groovy', 'moonglade', 'bloodshot', 'blood_shot', 'erudite', 'lunar', 'sunny', 'mantid'
];

/** Modifier ids the game stores that the established enum spells as another value (aliases in its C# enum). */
const REFORGE_ALIASES: Readonly<Record<string, string>> = {
  renowned: 'RENOWED',
  aote_stone: 'warped_on_aote',
  aotestone: 'warped_on_aote',
};

const REFORGE_BY_LOWER = new Map(REFORGES.map((r) => [r.toLowerCase(), r]));

/**
 * The `Reforge` value of an item's modifier: `None` without one, the enum's own spelling when the
 * modifier names a value (case-insensitively, as the established service parses it), `Unknown` otherwise.
 */
export function reforgeName(modifier: string | null | undefined): string {
  if (!modifier) return 'None';
  const lower = modifier.toLowerCase();
  return REFORGE_ALIASES[lower] ?? REFORGE_BY_LOWER.get(lower) ?? 'Unknown';
}

/** The established `Category` enum: seven upper-case values and two lower-case ones, exactly so. */
export const CATEGORIES: readonly string[] = ['UNKNOWN', 'WEAPON', 'ARMOR', 'ACCESSORIES', 'CONSUMABLES', 'BLOCKS', 'MISC', 'cosmetic', 'dyes'];

const CATEGORY_BY_LOWER = new Map(CATEGORIES.map((c) => [c.toLowerCase(), c]));

/** The `Category` value of an auction's category (upstream sends `armor`, `misc` …); `UNKNOWN` when absent or not in the enum. */
export function categoryName(raw: string | null | undefined): string {
  return (raw && CATEGORY_BY_LOWER.get(raw.toLowerCase())) || 'UNKNOWN';
}

/** The established `Tier` enum. */
export const TIERS: readonly string[] = ['UNKNOWN', 'COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'SPECIAL', 'VERY_SPECIAL', 'MYTHIC', 'DIVINE', 'ULTIMATE'];

const TIER_SET = new Set(TIERS);

/** The `Tier` value of a stored rarity: `SUPREME` (the old name of `DIVINE`) becomes `DIVINE`; absent or unknown rarities `UNKNOWN`. */
export function tierName(raw: string | null | undefined): string {
  if (!raw) return 'UNKNOWN';
  const upper = raw.toUpperCase().replace(' ', '_');
  if (upper === 'SUPREME') return 'DIVINE';
  return TIER_SET.has(upper) ? upper : 'UNKNOWN';
}

/** Rarity words as they stand on an item's last lore lines (`VERY SPECIAL` before `SPECIAL`). */
const LORE_RARITIES = ['VERY SPECIAL', 'SPECIAL', 'DIVINE', 'MYTHIC', 'LEGENDARY', 'EPIC', 'RARE', 'UNCOMMON', 'COMMON', 'SUPREME', 'ULTIMATE'];

/** An item's rarity read from its lore: the last line that names one ("§6§lLEGENDARY SWORD"), or null. */
export function tierFromLore(lore: readonly string[]): string | null {
  for (let i = lore.length - 1; i >= 0; i--) {
    const line = lore[i]!.replace(/§./g, '').trim().toUpperCase();
    const match = LORE_RARITIES.find((r) => line.startsWith(r) || line.startsWith(`A ${r}`));
    if (match) return match.replace(' ', '_');
  }
  return null;
}
