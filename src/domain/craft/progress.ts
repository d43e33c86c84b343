/**
 * A player's unlocked progress (collections, slayers, skills) read from one member of a
 * Hypixel SkyBlock profile (`/v2/skyblock/profiles`), for filtering the craft profit list.
 * Pure: the caller fetches the profile.
 */
import { bankOfProfile, trimMemberHoldings } from '../valuation/networth.ts';
import type { GameData } from '../../gamedata/types.ts';
import type { PlayerProgress } from './profit.ts';
import { compactPlayerUuid } from '../player-data.ts';

/** Where a player's progress comes from (mod uploads, the upstream profile endpoint). */
export interface PlayerProgressSource {
  lookup(player: string, profile: string | undefined): Promise<ProgressLookup>;
  close?(): Promise<void>;
}

export type ProgressLookup = { status: 'known'; progress: PlayerProgress } | { status: 'unavailable'; reason: string };

export interface ProfileLike {
  profile_id?: unknown;
  cute_name?: unknown;
  selected?: unknown;
  members?: unknown;
}

/** The profile the caller asked for (by id or cute name), else the selected one, else the first. */
export function pickProfile(profiles: unknown, wanted: string | undefined): ProfileLike | undefined {
  if (!Array.isArray(profiles)) return undefined;
  const list = profiles.filter((p): p is ProfileLike => typeof p === 'object' && p !== null);
  if (wanted) {
    const id = compactPlayerUuid(wanted);
    return list.find((p) => (id && typeof p.profile_id === 'string' && compactPlayerUuid(p.profile_id) === id) || (typeof p.cute_name === 'string' && p.cute_name.toLowerCase() === wanted.toLowerCase()));
  }
  return list.find((p) => p.selected === true) ?? list[0];
}

/**
 * The player's profiles as `progressOfMember` and `pickProfile` read them, nothing else: the
 * profile's id, name and selection, and of the player's own membership only the unlocked
 * collection tiers, skill experience, claimed slayer levels and HotM experience, plus what networth
 * values (its containers, pets, purse, bounded; and the profile's bank). What is stored per player
 * stays bounded whatever upstream sends (other members are dropped).
 */
export function trimProfiles(profiles: unknown, uuid: string): ProfileLike[] {
  if (!Array.isArray(profiles)) return [];
  const out: ProfileLike[] = [];
  for (const p of profiles) {
    if (!isRecord(p)) continue;
    const member = isRecord(p.members) ? p.members[uuid] : undefined;
    const members: Record<string, unknown> = {};
    if (isRecord(member)) {
      const playerData = isRecord(member.player_data) ? member.player_data : {};
      const bosses = isRecord(member.slayer) && isRecord(member.slayer.slayer_bosses) ? member.slayer.slayer_bosses : isRecord(member.slayer_bosses) ? member.slayer_bosses : {};
      const slayerBosses: Record<string, unknown> = {};
      for (const [boss, data] of Object.entries(bosses)) if (isRecord(data) && isRecord(data.claimed_levels)) slayerBosses[boss] = { claimed_levels: data.claimed_levels };
      const tiers = Array.isArray(playerData.unlocked_coll_tiers) ? playerData.unlocked_coll_tiers : Array.isArray(member.unlocked_coll_tiers) ? member.unlocked_coll_tiers : [];
      const experience = isRecord(playerData.experience) ? playerData.experience : {};
      const trimmed: Record<string, unknown> = {
        player_data: { unlocked_coll_tiers: tiers.filter((t) => typeof t === 'string'), experience: Object.fromEntries(Object.entries(experience).filter(([k, v]) => k.startsWith('SKILL_') && typeof v === 'number')) },
        slayer: { slayer_bosses: slayerBosses },
      };
      if (isRecord(member.mining_core) && typeof member.mining_core.experience === 'number') trimmed.mining_core = { experience: member.mining_core.experience };
      // Networth reads the member's containers, pets and purse (bounded: domain/valuation/networth.ts).
      Object.assign(trimmed, trimMemberHoldings(member));
      members[uuid] = trimmed;
    }
    out.push({
      ...(typeof p.profile_id === 'string' ? { profile_id: p.profile_id } : {}),
      ...(typeof p.cute_name === 'string' ? { cute_name: p.cute_name } : {}),
      ...(typeof p.selected === 'boolean' ? { selected: p.selected } : {}),
      ...(bankOfProfile(p) > 0 ? { banking: { balance: bankOfProfile(p) } } : {}),
      members,
    });
  }
  return out;
}

/** Progress of `uuid` in a profile; undefined when the player is not a member. */
export function progressOfMember(profile: ProfileLike, uuid: string, game: GameData): PlayerProgress | undefined {
  if (typeof profile.members !== 'object' || profile.members === null) return undefined;
  const member = (profile.members as Record<string, unknown>)[uuid];
  if (!isRecord(member)) return undefined;
  const playerData = isRecord(member.player_data) ? member.player_data : {};

  const collections: Record<string, number> = {};
  const tiers = Array.isArray(playerData.unlocked_coll_tiers) ? playerData.unlocked_coll_tiers : Array.isArray(member.unlocked_coll_tiers) ? member.unlocked_coll_tiers : [];
  for (const entry of tiers) {
    const m = typeof entry === 'string' ? /^(.+)_(-?\d+)$/.exec(entry) : null;
    if (!m) continue;
    const id = m[1]!;
    const tier = Number(m[2]);
    // Requirements name collections by display name ("Wheat", "Cocoa Beans"); keep the id too.
    for (const key of [id, game.items.get(id)?.name]) {
      if (key && tier > (collections[key] ?? 0)) collections[key] = tier;
    }
  }

  const slayers: Record<string, number> = {};
  const bosses = isRecord(member.slayer) && isRecord(member.slayer.slayer_bosses) ? member.slayer.slayer_bosses : isRecord(member.slayer_bosses) ? member.slayer_bosses : {};
  for (const [boss, data] of Object.entries(bosses)) {
    if (!isRecord(data) || !isRecord(data.claimed_levels)) continue;
    let level = 0;
    for (const key of Object.keys(data.claimed_levels)) {
      const m = /^level_(\d+)/.exec(key);
      if (m) level = Math.max(level, Number(m[1]));
    }
    slayers[boss] = level;
  }

  const skills: Record<string, number> = {};
  const experience = isRecord(playerData.experience) ? playerData.experience : {};
  const tables = game.leveling;
  if (tables) {
    for (const [key, xp] of Object.entries(experience)) {
      if (typeof xp !== 'number' || !key.startsWith('SKILL_')) continue;
      const name = key.slice('SKILL_'.length).toLowerCase();
      const table = name === 'runecrafting' ? tables.runecrafting : name === 'social' ? tables.social : tables.skill;
      skills[name] = levelFromXp(xp, table, tables.caps[name] ?? table.length);
    }
    const hotmXp = isRecord(member.mining_core) && typeof member.mining_core.experience === 'number' ? member.mining_core.experience : undefined;
    if (hotmXp !== undefined && tables.hotm.length > 0) {
      const tier = tables.hotm.filter((need) => hotmXp >= need).length;
      skills.hotm = tier;
      skills['heart of the mountain'] = tier;
    }
  }
  return { collections, slayers, skills };
}

/**
 * Progress from the unlocks the mod uploaded with the player's extracted state (collections,
 * skills, slayers); undefined when none was uploaded. A kind never uploaded stays absent (not
 * filtered on). Collections are keyed by id or name: both are kept so requirements (by display
 * name) and ids match.
 */
export function progressFromUploadedState(state: Record<string, unknown>, game: GameData): PlayerProgress | undefined {
  const levels = (v: unknown): Record<string, number> | undefined => {
    if (!isRecord(v)) return undefined;
    const out: Record<string, number> = {};
    for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isInteger(n) && n >= 0) out[k] = n;
    return out;
  };
  const uploaded = levels(state['collections']);
  const skills = levels(state['skills']);
  const slayers = levels(state['slayers']);
  if (!uploaded && !skills && !slayers) return undefined;
  const progress: PlayerProgress = {};
  if (uploaded) {
    const collections: Record<string, number> = {};
    for (const [key, tier] of Object.entries(uploaded)) {
      for (const k of [key, game.items.get(key)?.name]) if (k && tier > (collections[k] ?? -1)) collections[k] = tier;
    }
    progress.collections = collections;
  }
  if (skills) {
    const hotm = skills['hotm'] ?? skills['heart of the mountain'];
    progress.skills = hotm === undefined ? skills : { ...skills, hotm, 'heart of the mountain': hotm };
  }
  if (slayers) progress.slayers = slayers;
  return progress;
}

/** Level reached with `xp` when `table[i]` is the XP needed to go from level i to i + 1. */
export function levelFromXp(xp: number, table: readonly number[], cap: number): number {
  let level = 0;
  let left = xp;
  for (const need of table) {
    if (level >= cap || left < need) break;
    left -= need;
    level++;
  }
  return level;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
