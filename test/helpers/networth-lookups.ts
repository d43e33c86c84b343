/**
 * The prices a networth computation of real items looks up, as SkyHelper-Networth 1.x derives its
 * keys (from its public source: the item's id, its enchantments, books, stars, gems, runes,
 * upgrades and pets; lower case), written here from that description, family by family. Each
 * lookup lists its keys in the order the library tries them (a skinned item falls back to the
 * plain one, a fragged STARRED_ item to the unstarred one).
 */
import { neuConstant } from './fixtures.ts';

export interface Lookup {
  family: string;
  /** alternatives: the lookup is answered when any is in the file */
  keys: string[];
}

type Extra = Record<string, unknown>;

const MASTER_STARS = ['first_master_star', 'second_master_star', 'third_master_star', 'fourth_master_star', 'fifth_master_star'];

let reforgeStones: Map<string, string> | undefined;
/** reforge (the NBT `modifier`) → its stone's id, from NEU's reforgestones.json */
function stoneOf(modifier: string): string | undefined {
  if (!reforgeStones) {
    reforgeStones = new Map();
    for (const [id, entry] of Object.entries(neuConstant('reforgestones.json') as Record<string, { reforgeName?: string }>)) {
      if (entry.reforgeName) reforgeStones.set(entry.reforgeName.toLowerCase().replace(/[^a-z]/g, ''), id.toLowerCase());
    }
  }
  return reforgeStones.get(modifier.toLowerCase().replace(/[^a-z]/g, ''));
}

let essenceCosts: Record<string, { type?: string }> | undefined;
function essenceOf(id: string): string | undefined {
  essenceCosts ??= neuConstant('essencecosts.json') as Record<string, { type?: string }>;
  const type = essenceCosts[id]?.type;
  return type ? `essence_${type.toLowerCase()}` : undefined;
}

/** The item's own key, with the library's fallbacks. */
function baseKeys(extra: Extra): string[] | undefined {
  const id = String(extra['id']);
  const lower = id.toLowerCase();
  if (id === 'ENCHANTED_BOOK') return undefined; // valued from its enchantments
  const runes = extra['runes'] as Record<string, number> | undefined;
  if ((id === 'RUNE' || id === 'UNIQUE_RUNE') && runes) {
    const [type, level] = Object.entries(runes)[0] ?? [];
    return type ? [`rune_${type}_${level}`.toLowerCase()] : undefined;
  }
  if (id === 'NEW_YEAR_CAKE') return [`new_year_cake_${extra['new_years_cake']}`];
  if (['PARTY_HAT_CRAB', 'PARTY_HAT_CRAB_ANIMATED', 'BALLOON_HAT_2024'].includes(id) && extra['party_hat_color']) return [`${lower}_${extra['party_hat_color']}`];
  if (id === 'PARTY_HAT_SLOTH' && extra['party_hat_emoji']) return [`${lower}_${String(extra['party_hat_emoji']).toLowerCase()}`, lower];
  if (id === 'DCTR_SPACE_HELM' && extra['edition'] !== undefined) return ['dctr_space_helm_editioned'];
  if (id === 'CREATIVE_MIND' && extra['edition'] === undefined) return ['creative_mind_uneditioned'];
  const keys: string[] = [];
  if (typeof extra['skin'] === 'string') keys.push(`${lower}_skinned_${extra['skin'].toLowerCase()}`);
  if (extra['is_shiny']) keys.push(`${lower}_shiny`);
  keys.push(lower);
  if (lower.startsWith('starred_')) keys.push(lower.slice(8));
  return keys;
}

/** Pet keys: level 1 and level 100 (and 200 for the dragons that reach it), by rarity and type. */
function petLookups(pet: { type: string; tier: string; heldItem?: string | null; skin?: string | null }): Lookup[] {
  const tiers = ['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'];
  const tier = pet.heldItem === 'PET_ITEM_TIER_BOOST' ? tiers[tiers.indexOf(pet.tier) - 1] ?? pet.tier : pet.tier;
  const name = `${tier}_${pet.type}`.toLowerCase();
  const skin = pet.skin ? `_skinned_${pet.skin.toLowerCase()}` : '';
  const out: Lookup[] = [];
  for (const level of [1, 100]) out.push({ family: 'pet', keys: [...(skin ? [`lvl_${level}_${name}${skin}`] : []), `lvl_${level}_${name}`] });
  if (pet.heldItem) out.push({ family: 'pet item', keys: [pet.heldItem.toLowerCase()] });
  return out;
}

/** Every lookup a networth computation of one item makes. */
export function itemLookups(item: Record<string, unknown>): Lookup[] {
  const extra = ((item['tag'] as Record<string, unknown> | undefined)?.['ExtraAttributes'] ?? {}) as Extra;
  if (typeof extra['id'] !== 'string') return [];
  const id = extra['id'];
  if (id === 'PET' && extra['petInfo']) {
    const info = typeof extra['petInfo'] === 'string' ? (JSON.parse(extra['petInfo']) as Record<string, string>) : (extra['petInfo'] as Record<string, string>);
    return petLookups({ type: info['type']!, tier: info['tier']!, heldItem: info['heldItem'] ?? null, skin: info['skin'] ?? null });
  }
  const out: Lookup[] = [];
  const base = baseKeys(extra);
  if (base) out.push({ family: 'item', keys: base });
  const enchantments = (extra['enchantments'] ?? {}) as Record<string, number>;
  for (const [name, level] of Object.entries(enchantments)) out.push({ family: 'enchantment', keys: [`enchantment_${name.toLowerCase()}_${level}`] });
  const hpb = Number(extra['hot_potato_count'] ?? 0);
  if (hpb > 0) out.push({ family: 'potato book', keys: ['hot_potato_book'] });
  if (hpb > 10) out.push({ family: 'potato book', keys: ['fuming_potato_book'] });
  if (Number(extra['rarity_upgrades'] ?? 0) > 0) out.push({ family: 'recombobulator', keys: ['recombobulator_3000'] });
  if (typeof extra['modifier'] === 'string') {
    const stone = stoneOf(extra['modifier']);
    if (stone) out.push({ family: 'reforge stone', keys: [stone] });
  }
  const stars = Number(extra['upgrade_level'] ?? extra['dungeon_item_level'] ?? 0);
  if (stars > 0) {
    const essence = essenceOf(id);
    if (essence) out.push({ family: 'essence (stars)', keys: [essence] });
    for (let i = 5; i < Math.min(stars, 10); i++) out.push({ family: 'master star', keys: [MASTER_STARS[i - 5]!] });
  }
  const gems = (extra['gems'] ?? {}) as Record<string, unknown>;
  for (const [slot, value] of Object.entries(gems)) {
    if (slot.endsWith('_gem') || slot === 'unlocked_slots') continue;
    const quality = typeof value === 'string' ? value : (value as { quality?: string } | null)?.quality;
    const type = (gems[`${slot}_gem`] as string | undefined) ?? slot.replace(/_\d+$/, '');
    if (quality) out.push({ family: 'gemstone', keys: [`${quality}_${type}_gem`.toLowerCase()] });
  }
  const runes = extra['runes'] as Record<string, number> | undefined;
  if (runes && id !== 'RUNE' && id !== 'UNIQUE_RUNE') for (const [type, level] of Object.entries(runes)) out.push({ family: 'rune (applied)', keys: [`rune_${type}_${level}`.toLowerCase()] });
  const attributes = (extra['attributes'] ?? {}) as Record<string, number>;
  for (const [name, level] of Object.entries(attributes)) if (level > 1) out.push({ family: 'attribute', keys: [`attribute_shard_${name.toLowerCase()}`] });
  for (const [field, key] of [
    ['farming_for_dummies_count', 'farming_for_dummies'],
    ['wood_singularity_count', 'wood_singularity'],
    ['tuned_transmission', 'transmission_tuner'],
    ['jalapeno_count', 'jalapeno_book'],
    ['mana_disintegrator_count', 'mana_disintegrator'],
    ['art_of_war_count', 'the_art_of_war'],
    ['artOfPeaceApplied', 'the_art_of_peace'],
    ['ethermerge', 'etherwarp_conduit'],
    ['sack_pss', 'pocket_sack_in_a_sack'],
  ] as const) {
    if (extra[field]) out.push({ family: 'upgrade', keys: [key] });
  }
  if (typeof extra['power_ability_scroll'] === 'string') out.push({ family: 'upgrade', keys: [extra['power_ability_scroll'].toLowerCase()] });
  if (typeof extra['dye_item'] === 'string') out.push({ family: 'dye', keys: [extra['dye_item'].toLowerCase()] });
  if (typeof extra['talisman_enrichment'] === 'string') out.push({ family: 'enrichment', keys: [`talisman_enrichment_${extra['talisman_enrichment'].toLowerCase()}`] });
  for (const scroll of (extra['ability_scroll'] as string[] | undefined) ?? []) out.push({ family: 'upgrade', keys: [scroll.toLowerCase()] });
  for (const year of (extra['new_year_cake_bag_years'] as number[] | undefined) ?? []) out.push({ family: 'cake bag', keys: [`new_year_cake_${year}`] });
  return out;
}

/** Every lookup of SkyHelper's example profile (test/fixtures/skyhelper): its inventories, sacks, essence and pets. */
export function profileLookups(data: Record<string, unknown>): Lookup[] {
  const out: Lookup[] = [];
  for (const [section, value] of Object.entries(data)) {
    if (!Array.isArray(value)) continue;
    for (const entry of value as Array<Record<string, unknown>>) {
      if (section === 'pets') out.push(...petLookups(entry as unknown as { type: string; tier: string; heldItem?: string | null; skin?: string | null }));
      else if (section === 'sacks') out.push({ family: 'sack item', keys: [String(entry['id']).toLowerCase()] });
      else if (section === 'essence') out.push({ family: 'essence', keys: [String(entry['id']).toLowerCase()] });
      else out.push(...itemLookups(entry));
    }
  }
  return out;
}

export interface Coverage {
  lookups: number;
  answered: number;
  share: number;
  /** per family: lookups, answered, and up to `examples` missing keys */
  families: Record<string, { lookups: number; answered: number; missing: string[] }>;
}

export function coverageOf(lookups: readonly Lookup[], file: Readonly<Record<string, number>>, examples = 8): Coverage {
  const families: Coverage['families'] = {};
  let answered = 0;
  for (const l of lookups) {
    const f = (families[l.family] ??= { lookups: 0, answered: 0, missing: [] });
    f.lookups++;
    if (l.keys.some((k) => file[k] !== undefined)) {
      f.answered++;
      answered++;
    } else if (f.missing.length < examples && !f.missing.includes(l.keys.at(-1)!)) f.missing.push(l.keys.at(-1)!);
  }
  return { lookups: lookups.length, answered, share: lookups.length ? answered / lookups.length : 0, families };
}
