/**
 * What a player or profile is worth (docs/valuation.md, "Networth"): every item of every container
 * (inventory, armour, wardrobe, ender chest, backpacks, bags, vault) valued by the valuation
 * service, the pets, the purse and the bank, per member and per container. Profiles are either
 * posted (`POST /api/networth`) or read from the ones ingestion fetched (queued like the craft
 * filter's, services/player-progress.ts: a request never calls upstream).
 */
import type { Clock } from '../clock.ts';
import { compactPlayerUuid, PLAYER_NAME } from '../domain/player-data.ts';
import { pickProfile } from '../domain/craft/progress.ts';
import { bankOfProfile, holdingsOfMember, memberNetworth, type MemberNetworth } from '../domain/valuation/networth.ts';
import { subjectOfProfilePet } from '../domain/valuation/subject.ts';
import type { ValuationSubject } from '../domain/valuation/traits.ts';
import { MAX_QUEUED_PROFILES, MAX_QUEUED_PROFILES_PER_CLIENT, PROFILE_FAILURE_TTL_MS, PROFILE_TTL_MS, type ProfileRequests } from './player-progress.ts';
import type { PlayerNameRepository } from '../store/repositories/player-names.ts';
import { ValuationInputError, type ValuationService } from './valuation.ts';

/** Most valuable items listed per member (`topItems`). */
export const TOP_ITEMS = 10;

/** What the networth service reads: the stored profiles and the player names ingestion has seen. */
export type NetworthStore = ProfileRequests & { readonly playerNames: Pick<PlayerNameRepository, 'findByName' | 'namesOf'> };

/** A player as a name or uuid resolves: the compact uuid and the name last seen (null: none stored). */
export type ResolvedPlayer = { uuid: string; name: string | null };

/** Most members of a posted profile valued (coops have up to 8). */
export const MAX_PROFILE_MEMBERS = 12;

/** One container of a member, valued. */
export interface ContainerNetworth {
  name: string;
  category: string;
  value: number;
  items: number;
  /** items whose id skymarket does not know (valued 0) */
  unknown: number;
  /** false: the container's NBT could not be read; its items are unknown and count 0 */
  readable: boolean;
}

export interface MemberNetworthDetail extends MemberNetworth {
  uuid: string;
  purse: number;
  containers: ContainerNetworth[];
  pets: { value: number; count: number; unknown: number };
  /** containers or pets past the size bounds, not valued */
  skipped: number;
  /** the member's most valuable stacks (at most TOP_ITEMS), most valuable first; pets are in `container` `pets` */
  topItems: TopItem[];
}

/** One of a member's most valuable stacks. */
export interface TopItem {
  tag: string;
  /** the container's name (`inventory`, `backpack_3` …), or `pets` */
  container: string;
  count: number;
  /** the stack's value */
  value: number;
}

export interface ProfileNetworth {
  profileId: string | null;
  cuteName: string | null;
  selected: boolean;
  bank: number;
  /** the members' totals plus the bank */
  fullValue: number;
  members: MemberNetworthDetail[];
}

/** The stored-profile lookup: the networth, or why not (queued, failed, absent). */
export type StoredNetworth =
  | { status: 'known'; fetchedAt: number; profiles: ProfileNetworth[] }
  | { status: 'queued' | 'refused' | 'failed' | 'absent'; reason: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class NetworthService {
  constructor(
    private readonly valuation: ValuationService,
    private readonly store: NetworthStore,
    private readonly clock: Clock,
  ) {}

  /**
   * A player named by uuid (32 hex digits, dashes allowed) or by a Minecraft name skymarket has
   * seen (sellers, bidders, mod users: the player-name store; upstream is never asked here).
   * `invalid`: neither a uuid nor a well-formed name; `unknown`: a name never seen.
   */
  async resolvePlayer(nameOrUuid: string): Promise<ResolvedPlayer | 'invalid' | 'unknown'> {
    const uuid = compactPlayerUuid(nameOrUuid);
    if (uuid) return { uuid, name: (await this.store.playerNames.namesOf([uuid])).get(uuid) ?? null };
    if (!PLAYER_NAME.test(nameOrUuid)) return 'invalid';
    const known = await this.store.playerNames.findByName(nameOrUuid);
    return known ? { uuid: known.playerUuid, name: known.name } : 'unknown';
  }

  /** A profile's networth: every member (at most MAX_PROFILE_MEMBERS), or only `onlyMember`. */
  async ofProfile(profile: unknown, onlyMember?: string): Promise<ProfileNetworth> {
    const p = isRecord(profile) ? profile : {};
    const members = isRecord(p['members']) ? Object.entries(p['members']) : [];
    const chosen = (onlyMember ? members.filter(([uuid]) => compactPlayerUuid(uuid) === onlyMember) : members).slice(0, MAX_PROFILE_MEMBERS);
    const out: MemberNetworthDetail[] = [];
    for (const [uuid, member] of chosen) out.push(await this.ofMember(uuid, member));
    const bank = Math.round(bankOfProfile(p));
    let fullValue = bank;
    for (const m of out) fullValue += m.fullValue;
    return {
      profileId: typeof p['profile_id'] === 'string' ? p['profile_id'] : null,
      cuteName: typeof p['cute_name'] === 'string' ? p['cute_name'] : null,
      selected: p['selected'] === true,
      bank,
      fullValue,
      members: out,
    };
  }

  /**
   * The player's stored profiles valued (one, when `profile` names it by uuid or name), queuing a
   * fetch when they are missing or old; `client` is who asks, for the per-client share of the queue.
   */
  async ofPlayer(playerUuid: string, profile: string | undefined, client?: string): Promise<StoredNetworth> {
    const now = this.clock.now();
    const row = await this.store.profileRequests.get(playerUuid);
    const queued = row !== undefined && (row.fetchedAt === null || row.requestedAt > row.fetchedAt);
    const ttl = row?.lastError ? Math.min(3_600_000, PROFILE_FAILURE_TTL_MS * 2 ** Math.max(0, Math.min(6, row.attempts - 1))) : PROFILE_TTL_MS;
    const fresh = row?.fetchedAt != null && now - row.fetchedAt < ttl;
    let outcome = 'queued';
    if (!queued && !fresh) {
      const asker = client === undefined ? undefined : { key: client, perClient: MAX_QUEUED_PROFILES_PER_CLIENT };
      outcome = await this.store.profileRequests.request(playerUuid, now, MAX_QUEUED_PROFILES, asker);
    }
    // The last profiles fetched answer, even while a newer fetch is queued.
    if (row?.profiles && row.fetchedAt !== null) {
      const list = profile === undefined ? row.profiles : [pickProfile(row.profiles, profile)].filter((p) => p !== undefined);
      if (list.length === 0) return { status: 'absent', reason: profile ? `the player has no profile ${profile}` : 'the player has no SkyBlock profile' };
      const profiles: ProfileNetworth[] = [];
      for (const p of list) profiles.push(await this.ofProfile(p, playerUuid));
      return { status: 'known', fetchedAt: row.fetchedAt, profiles };
    }
    if (row?.lastError && fresh) return { status: 'failed', reason: row.lastError };
    if (outcome === 'full') return { status: 'refused', reason: 'too many player profiles are queued for fetching; retry in a minute' };
    if (outcome === 'client_full') return { status: 'refused', reason: `you have ${MAX_QUEUED_PROFILES_PER_CLIENT} player profiles queued for fetching already; retry in a minute` };
    return { status: 'queued', reason: 'fetching the player profile from upstream; retry in a few seconds' };
  }

  private async ofMember(uuid: string, member: unknown): Promise<MemberNetworthDetail> {
    const h = holdingsOfMember(member);
    // Every container's items and the pets are valued in one call (one price snapshot), then attributed back.
    const subjects: Array<ValuationSubject | null> = [];
    const owner: number[] = [];
    const containers: ContainerNetworth[] = h.inventories.map((inv, i) => {
      const c: ContainerNetworth = { name: inv.name, category: inv.category, value: 0, items: 0, unknown: 0, readable: inv.data !== null };
      if (inv.data === null || inv.data === '') return c;
      try {
        for (const s of this.valuation.readItems([inv.data])) {
          subjects.push(s);
          owner.push(i);
        }
      } catch (err) {
        // Invalid NBT, a gzip bomb, too many slots: this container counts 0, the rest is valued.
        if (!(err instanceof ValuationInputError)) throw err;
        c.readable = false;
      }
      return c;
    });
    const pets = { value: 0, count: 0, unknown: 0 };
    const PET = -1;
    for (const raw of h.pets) {
      const s = subjectOfProfilePet(raw);
      if (s === null) {
        pets.unknown++;
        continue;
      }
      subjects.push(s);
      owner.push(PET);
    }
    const stacks: TopItem[] = [];
    const perCategory = new Map<string, number>();
    const addTo = (category: string, v: number) => perCategory.set(category, (perCategory.get(category) ?? 0) + v);
    for (const c of containers) addTo(c.category, 0);
    for (const v of await this.valuation.valueItems(subjects)) {
      const stack = Math.max(0, (v.valuation.combined.value ?? 0) * v.valuation.count);
      const o = owner[v.index]!;
      if (stack > 0) stacks.push({ tag: v.valuation.tag, container: o === PET ? 'pets' : containers[o]!.name, count: v.valuation.count, value: Math.round(stack) });
      if (o === PET) {
        pets.count++;
        pets.value += stack;
        if (!v.known) pets.unknown++;
        continue;
      }
      const c = containers[o]!;
      c.items++;
      c.value += stack;
      if (!v.known) c.unknown++;
    }
    for (const c of containers) c.value = Math.round(c.value);
    pets.value = Math.round(pets.value);
    for (const c of containers) if (c.value > 0) addTo(c.category, c.value);
    if (h.pets.length > 0) addTo('pets', pets.value);
    addTo('purse', h.purse);
    const total = memberNetworth(perCategory);
    const topItems = stacks.sort((a, b) => b.value - a.value).slice(0, TOP_ITEMS);
    return { uuid: compactPlayerUuid(uuid) ?? uuid, ...total, purse: Math.round(h.purse), containers, pets, skipped: h.skipped, topItems };
  }
}
