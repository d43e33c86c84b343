/**
 * Which enchanted-book levels can be made by combining two books of the level below in an
 * anvil (the book-flip targets). Not in the NEU repository: NEU's `constants/enchants.json`
 * lists enchanting-table maxima (`max_xp_table_levels`) and XP costs, not anvil rules. This
 * table states the game rule as documented on the SkyBlock wiki: two books of level N combine
 * into N+1 up to a per-enchantment anvil maximum, 5 unless listed below. Levels above the
 * maximum (Sharpness VI/VII, …) only drop and are never book-flip targets.
 */
export const DEFAULT_COMBINE_MAX = 5;

/** enchantment (lower case, as in the bazaar id) → highest level reachable by combining */
export const COMBINE_MAX: Readonly<Record<string, number>> = {
  looting: 4,
  scavenger: 4,
  life_steal: 4,
  first_strike: 4,
  dedication: 4,
  telekinesis: 1,
  // Single-level or drop-only enchantments.
  compact: 1,
  cultivating: 1,
  expertise: 1,
  champion: 1,
  ultimate_one_for_all: 1,
};

/** True when two level-(level−1) books of `enchant` combine into one of `level`. */
export function combinable(enchant: string, level: number): boolean {
  return level >= 2 && level <= (COMBINE_MAX[enchant.toLowerCase()] ?? DEFAULT_COMBINE_MAX);
}
