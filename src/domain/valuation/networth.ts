/**
 * A SkyBlock profile as networth reads it (docs/valuation.md, "Networth"): which of a member's
 * inventories hold items (as base64 gzip NBT), the pets, the purse, and the profile's bank; and
 * the trimmed copy of them kept with the fetched profiles. Pure: the service values the items.
 * Both layouts upstream has used are read: `member.inventory.inv_contents` (v2 since 2023) and
 * `member.inv_contents` (before).
 */

/** Where a member's item containers are, and the category each counts in. */
const CONTAINERS: ReadonlyArray<{ key: string; category: string }> = [
  { key: 'inv_contents', category: 'inventory' },
  { key: 'inv_armor', category: 'armor' },
  { key: 'equipment_contents', category: 'equipment' },
  { key: 'wardrobe_contents', category: 'wardrobe' },
  { key: 'ender_chest_contents', category: 'ender_chest' },
  { key: 'personal_vault_contents', category: 'personal_vault' },
];
const BAGS: ReadonlyArray<{ key: string; category: string }> = [
  { key: 'talisman_bag', category: 'accessories' },
  { key: 'potion_bag', category: 'potion_bag' },
  { key: 'fishing_bag', category: 'fishing_bag' },
  { key: 'quiver', category: 'quiver' },
];

/** Most base64 characters of inventory data kept (and read) per member: a full real member holds about 300 KB. */
export const MAX_MEMBER_INVENTORY_CHARS = 2 * 1024 * 1024;
/** Most pets kept (and valued) per member. */
export const MAX_MEMBER_PETS = 600;
/** Most backpacks read per member (the game has 18). */
export const MAX_BACKPACKS = 30;

/** One container of a member: its name (`backpack_3`), its category (`backpacks`), its NBT. */
export interface MemberInventory {
  name: string;
  category: string;
  /** base64 gzip NBT; null when the container is present but unreadable as such (counted, valued 0) */
  data: string | null;
}

export interface MemberHoldings {
  inventories: MemberInventory[];
  /** pets as upstream lists them (`pets_data.pets`), reduced to the valued scalar fields; null for an entry that is no object */
  pets: Array<Record<string, unknown> | null>;
  /** coins in the purse */
  purse: number;
  /** containers past the size bound, not read */
  skipped: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const coins = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** `{type, data}` as its data; null when it holds no string. */
function dataOf(elem: unknown): string | null {
  return isRecord(elem) && typeof elem['data'] === 'string' ? elem['data'] : null;
}

/** The fields a pet is valued by, scalars only (nested values from untrusted input never reach the NBT reader); null for a non-object. */
function petFields(raw: unknown): Record<string, unknown> | null {
  if (!isRecord(raw)) return null;
  const kept: Record<string, unknown> = {};
  for (const k of ['type', 'tier', 'exp', 'heldItem', 'candyUsed', 'skin']) {
    const v = raw[k];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) kept[k] = v;
  }
  return kept;
}

/** A member's containers, pets and purse, bounded in size; anything malformed is skipped or read as unreadable, never thrown. */
export function holdingsOfMember(member: unknown): MemberHoldings {
  const out: MemberHoldings = { inventories: [], pets: [], purse: 0, skipped: 0 };
  if (!isRecord(member)) return out;
  const inv = isRecord(member['inventory']) ? member['inventory'] : member;
  let budget = MAX_MEMBER_INVENTORY_CHARS;
  const add = (name: string, category: string, elem: unknown) => {
    if (elem === undefined || elem === null) return;
    const data = dataOf(elem);
    if (data !== null && data.length > budget) {
      out.skipped++;
      return;
    }
    if (data !== null) budget -= data.length;
    out.inventories.push({ name, category, data });
  };
  for (const c of CONTAINERS) add(c.category, c.category, inv[c.key]);
  const bags = isRecord(inv['bag_contents']) ? inv['bag_contents'] : inv;
  for (const b of BAGS) add(b.category, b.category, bags[b.key]);
  const backpacks = inv['backpack_contents'];
  if (isRecord(backpacks)) {
    const keys = Object.keys(backpacks).sort((a, b) => Number(a) - Number(b));
    for (const k of keys.slice(0, MAX_BACKPACKS)) add(`backpack_${k}`, 'backpacks', backpacks[k]);
    out.skipped += Math.max(0, keys.length - MAX_BACKPACKS);
  }
  const petsData = isRecord(member['pets_data']) ? member['pets_data']['pets'] : member['pets'];
  if (Array.isArray(petsData)) {
    out.pets = petsData.slice(0, MAX_MEMBER_PETS).map(petFields);
    out.skipped += Math.max(0, petsData.length - MAX_MEMBER_PETS);
  }
  const currencies = isRecord(member['currencies']) ? member['currencies'] : member;
  out.purse = coins(currencies['coin_purse']);
  return out;
}

/** The profile's shared bank balance (0 when the bank API is off). */
export function bankOfProfile(profile: unknown): number {
  return isRecord(profile) && isRecord(profile['banking']) ? coins(profile['banking']['balance']) : 0;
}

/** What networth keeps of a member when the profiles are stored: the containers (bounded), the pets' valued fields, the purse. */
export function trimMemberHoldings(member: unknown): Record<string, unknown> {
  const h = holdingsOfMember(member);
  const inventory: Record<string, unknown> = {};
  const bagContents: Record<string, unknown> = {};
  const backpacks: Record<string, unknown> = {};
  for (const i of h.inventories) {
    const elem = { data: i.data };
    if (i.category === 'backpacks') backpacks[i.name.slice('backpack_'.length)] = elem;
    else {
      const c = CONTAINERS.find((x) => x.category === i.category);
      if (c) inventory[c.key] = elem;
      else bagContents[BAGS.find((x) => x.category === i.category)!.key] = elem;
    }
  }
  if (Object.keys(bagContents).length > 0) inventory['bag_contents'] = bagContents;
  if (Object.keys(backpacks).length > 0) inventory['backpack_contents'] = backpacks;
  return { inventory, pets_data: { pets: h.pets }, currencies: { coin_purse: h.purse } };
}

/** One member's networth by category; `fullValue` is their sum. */
export interface MemberNetworth {
  fullValue: number;
  valuePerCategory: Record<string, number>;
}

/** Adds per-category values up into the member's total (rounded to whole coins, as the total is). */
export function memberNetworth(perCategory: ReadonlyMap<string, number>): MemberNetworth {
  const valuePerCategory: Record<string, number> = {};
  let fullValue = 0;
  for (const [category, value] of perCategory) {
    const v = Math.round(value);
    valuePerCategory[category] = v;
    fullValue += v;
  }
  return { fullValue, valuePerCategory };
}
