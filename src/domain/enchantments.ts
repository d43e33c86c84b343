/**
 * Enchantment names as they appear in `ExtraAttributes.enchantments` (lower case),
 * for the per-enchantment filters and the `Enchantment` filter. Game identifiers,
 * listed from the game (NEU repository `constants/enchants.json`, MIT, plus a few
 * renamed or retired ones that still appear on old items).
 */
export const ENCHANTMENT_NAMES: ReadonlySet<string> = new Set(
  `absorb aiming angler aqua_affinity bane_of_arthropods big_brain blast_protection blessing caster cayenne champion chance
charm cleave compact corruption counter_strike critical cubism cultivating dedication delicate depth_strider divine_gift
dragon_hunter dragon_tracer efficiency ender_slayer execute experience expertise feast feather_falling ferocious_mana
fire_aspect fire_protection first_strike flame fortune frail frost_walker giant_killer green_thumb growth hardened_mana
harvesting hecatomb ice_cold impaling infinite_quiver karma knockback lapidary lethality life_steal looting luck
luck_of_the_sea lure magmarizer magnet mana_steal mana_vampire overload paleontologist pesterminator petalfall piercing
piscary power pristine projectile_protection prosecute prosperity protection punch quantum quick_bite rainbow reflection
rejuvenate replenish respiration respite scavenger sharpness silk_touch small_brain smarty_pants smelting_touch smite
smoldering snipe spiked_hook strong_mana sugar_rush syphon tabasco telekinesis thorns thunderbolt thunderlord tidal
titan_killer toxophilite transylvanian triple_strike true_protection turbo_cactus turbo_cane turbo_carrot turbo_coco
turbo_melon turbo_moonflower turbo_mushrooms turbo_potato turbo_pumpkin turbo_rose turbo_sunflower turbo_warts turbo_wheat
ultimate_bank ultimate_bobbin_time ultimate_chimera ultimate_combo ultimate_duplex ultimate_fatal_tempo
ultimate_first_impression ultimate_flash ultimate_flowstate ultimate_habanero_tactics ultimate_inferno ultimate_jerry
ultimate_last_stand ultimate_legion ultimate_missile ultimate_no_pain_no_gain ultimate_one_for_all ultimate_refrigerate
ultimate_reiterate ultimate_rend ultimate_soul_eater ultimate_sunset ultimate_swarm ultimate_the_one ultimate_wisdom
ultimate_wise vampirism venomous vicious`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Filter-key aliases: `prismatic` is pristine's current in-game name; `experience` and `mana_steal`
 * are also attribute names (the attribute wins), so their enchantment filters get a suffix.
 */
export const ENCHANTMENT_ALIASES: Readonly<Record<string, string>> = {
  prismatic: 'pristine',
  experienceenchant: 'experience',
  manastealenchant: 'mana_steal',
  // Syphon was renamed Drain in game
  drain: 'syphon',
};

/**
 * The colour code the detail view gives an enchantment: light purple for ultimate
 * enchantments, dark purple from level 6 (above what an enchanting table gives), blue otherwise.
 */
export function enchantmentColor(name: string, level: number): string {
  if (name.startsWith('ultimate_')) return '§d';
  if (level >= 6) return '§5';
  return '§9';
}

/** Attributes (Kuudra armour and equipment), lower case as stored in `ExtraAttributes.attributes`. */
export const ATTRIBUTE_NAMES: ReadonlySet<string> = new Set(
  `lifeline breeze speed experience mana_pool life_regeneration blazing_resistance arachno_resistance undead_resistance
blazing_fortune fishing_experience double_hook infection trophy_hunter fisherman hunter fishing_speed life_recovery
ignition combo attack_speed midas_touch mana_regeneration veteran mending ender_resistance dominance ender mana_steal
blazing elite arachno undead warrior deadeye fortitude magic_find`
    .split(/\s+/)
    .filter(Boolean),
);
