/**
 * SkyBlock pet levelling: the XP ladder and level-from-XP computation.
 *
 * The numbers are data transcribed from the NotEnoughUpdates item repository
 * (NotEnoughUpdates/NotEnoughUpdates-REPO, `constants/pets.json`, MIT):
 * `pet_levels`, `pet_rarity_offset` and `custom_pet_leveling`. The test
 * suite compares these tables against that file when it is available, so a
 * drift in the game data shows up as a failing test rather than wrong levels.
 */

/**
 * XP needed to go from one level to the next, for the shared ladder.
 * A pet of rarity R starts reading at `PET_RARITY_OFFSET[R]`: step i (level
 * i+1 → i+2) costs `PET_XP_PER_LEVEL[offset + i]`.
 */
export const PET_XP_PER_LEVEL: readonly number[] = [
  100, 110, 120, 130, 145, 160, 175, 190, 210, 230,
  250, 275, 300, 330, 360, 400, 440, 490, 540, 600,
  660, 730, 800, 880, 960, 1050, 1150, 1260, 1380, 1510,
  1650, 1800, 1960, 2130, 2310, 2500, 2700, 2920, 3160, 3420,
  3700, 4000, 4350, 4750, 5200, 5700, 6300, 7000, 7800, 8700,
  9700, 10800, 12000, 13300, 14700, 16200, 17800, 19500, 21300, 23200,
  25200, 27400, 29800, 32400, 35200, 38200, 41400, 44800, 48400, 52200,
  56200, 60400, 64800, 69400, 74200, 79200, 84700, 90700, 97200, 104200,
  111700, 119700, 128200, 137200, 146700, 156700, 167700, 179700, 192700, 206700,
  221700, 237700, 254700, 272700, 291700, 311700, 333700, 357700, 383700, 411700,
  441700, 476700, 516700, 561700, 611700, 666700, 726700, 791700, 861700, 936700,
  1016700, 1101700, 1191700, 1286700, 1386700, 1496700, 1616700, 1746700, 1886700,
];

/** Where each rarity starts reading `PET_XP_PER_LEVEL`. */
export const PET_RARITY_OFFSET: Readonly<Record<string, number>> = {
  COMMON: 0,
  UNCOMMON: 6,
  RARE: 11,
  EPIC: 16,
  LEGENDARY: 20,
  MYTHIC: 20,
};

/** Per-pet exceptions to the shared ladder. */
export interface PetLevelingRule {
  /** highest reachable level (default 100) */
  maxLevel?: number;
  /** XP per level appended after the shared ladder (levels above 100) */
  extraXpPerLevel?: number;
  /** rarity offsets replacing PET_RARITY_OFFSET for this pet */
  rarityOffset?: Readonly<Record<string, number>>;
}

/** Dragons go to level 200 at a flat 1,886,700 XP per level above 100; Bingo ignores rarity. */
export const PET_CUSTOM_LEVELING: Readonly<Record<string, PetLevelingRule>> = {
  GOLDEN_DRAGON: { maxLevel: 200, extraXpPerLevel: 1_886_700 },
  JADE_DRAGON: { maxLevel: 200, extraXpPerLevel: 1_886_700 },
  ROSE_DRAGON: { maxLevel: 200, extraXpPerLevel: 1_886_700 },
  BINGO: { rarityOffset: { COMMON: 0, UNCOMMON: 0, RARE: 0, EPIC: 0, LEGENDARY: 0, MYTHIC: 0 } },
};

const DEFAULT_MAX_LEVEL = 100;

/**
 * Level of a pet from its total XP. Unknown rarities read the ladder from the
 * start (offset 0); negative or non-finite XP counts as 0. Never above the
 * pet's max level (100, or 200 for the dragons in PET_CUSTOM_LEVELING).
 */
export function petLevel(type: string, tier: string, exp: number): number {
  const rule = PET_CUSTOM_LEVELING[type];
  const maxLevel = rule?.maxLevel ?? DEFAULT_MAX_LEVEL;
  const offset = (rule?.rarityOffset ?? PET_RARITY_OFFSET)[tier] ?? 0;
  let remaining = Number.isFinite(exp) && exp > 0 ? exp : 0;
  let level = 1;
  while (level < maxLevel) {
    const need = PET_XP_PER_LEVEL[offset + level - 1] ?? rule?.extraXpPerLevel;
    if (need === undefined || remaining < need) break;
    remaining -= need;
    level++;
  }
  return level;
}
