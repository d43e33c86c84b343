/**
 * Writes real auction `item_bytes`: base64(gzip(big-endian NBT)) built with prismarine-nbt,
 * in the legacy 1.8 layout Hypixel serves: an unnamed root compound `{ i: [item] }`.
 *
 * Building NBT per auction is the slow part of generating 100k auctions, so items are
 * built once as a template (NBT bytes with placeholder uuid/timestamp) and each auction
 * only patches those bytes and gzips (see `ItemTemplate.instantiate`).
 */
import { gzipSync } from 'node:zlib';
import nbt from 'prismarine-nbt';
import { MATERIALS, PET_SKILL, TIER_COLOR, ENCHANTS_BY_NAME, roman } from '../gamedata/builtin/catalog.ts';
import type { AuctionItemDef, Tier } from '../gamedata/builtin/catalog.ts';
import { hash32 } from './rng.ts';

/** How the `ExtraAttributes.timestamp` of an item is written. */
export type TimestampForm = 'string' | 'long' | 'none';

/** Everything that makes one concrete item copy (besides its uuid and creation time). */
export interface ItemSpec {
  def: AuctionItemDef;
  count: number;
  /** effective tier (one above def.tier when recombobulated) */
  tier: Tier;
  modifier?: string;
  enchantments?: Readonly<Record<string, number>>;
  /** dungeon stars */
  upgradeLevel?: number;
  rarityUpgrades?: number;
  hotPotatoCount?: number;
  pet?: { exp: number; level: number; heldItem?: string; candyUsed: number };
  /** rune level for RUNE items, or an applied rune on gear */
  runes?: Readonly<Record<string, number>>;
  gems?: Readonly<Record<string, string>>;
  attributes?: Readonly<Record<string, number>>;
  hasUuid: boolean;
  timestampForm: TimestampForm;
}

/** A prebuilt item: display data for the auction row and NBT bytes awaiting a uuid and timestamp. */
export interface ItemTemplate {
  /** display.Name without colour codes: the auction's `item_name` */
  itemName: string;
  /** display.Lore joined by "\n": the auction's `item_lore` */
  itemLore: string;
  /** item name plus vanilla material and enchant names: the auction's `extra` */
  extra: string;
  tier: Tier;
  hasUuid: boolean;
  /** base64(gzip(NBT)) for this copy; `uuidHex` is ignored when the template has no uuid */
  instantiate(uuidHex: string, createdMs: number): string;
}

// Placeholders patched per copy. '~' never appears in generated names or lore.
const UUID_PH = '~~~~~~~~-~~~~-~~~~-~~~~-~~~~~~~~~~~~';
const TS_PH = '~~TIMESTAMP~~';
const LONG_PH_HI = 0x5a5a5a5a;
const LONG_PH_LO = 0x3c3c3c3c;

type Tag = { type: string; value: unknown };
const str = (value: string): Tag => ({ type: 'string', value });
const int = (value: number): Tag => ({ type: 'int', value });
const short = (value: number): Tag => ({ type: 'short', value });
const byte = (value: number): Tag => ({ type: 'byte', value });
const comp = (value: Record<string, Tag>): Tag => ({ type: 'compound', value });
const strList = (value: string[]): Tag => ({ type: 'list', value: { type: 'string', value } });

/** Removes Minecraft `§x` formatting codes. */
export function stripColors(s: string): string {
  return s.replace(/§./g, '');
}

/** The 2022 in-game timestamp format, "M/d/yy h:mm AM", in UTC. */
export function formatItemTimestamp(ms: number): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${String(d.getUTCFullYear() % 100).padStart(2, '0')} ${h12}:${mm} ${h < 12 ? 'AM' : 'PM'}`;
}

/** Approximate total pet exp for level 100 by tier (simulated curve, not the game's table). */
const PET_MAX_EXP: Readonly<Partial<Record<Tier, number>>> = {
  COMMON: 5_624_785,
  UNCOMMON: 8_644_220,
  RARE: 12_626_665,
  EPIC: 18_608_500,
  LEGENDARY: 25_353_230,
  MYTHIC: 25_353_230,
};

/** Exp needed for a pet level on the simulator's approximate (cubic) curve. */
export function petExpForLevel(level: number, tier: Tier): number {
  const max = PET_MAX_EXP[tier] ?? 25_353_230;
  if (level <= 1) return 0;
  return Math.round(max * Math.pow((level - 1) / 99, 3));
}

/** Inverse of petExpForLevel. */
export function petLevelForExp(exp: number, tier: Tier): number {
  const max = PET_MAX_EXP[tier] ?? 25_353_230;
  if (exp <= 0) return 1;
  return Math.min(100, 1 + Math.floor(99 * Math.cbrt(Math.min(1, exp / max)) + 1e-9));
}

function capitalize(s: string): string {
  return s
    .split('_')
    .map((w) => (w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');
}

function enchantDisplay(name: string, level: number): string {
  const def = ENCHANTS_BY_NAME.get(name);
  const disp = def ? def.display : capitalize(name);
  return name.startsWith('ultimate_') ? `§d§l${disp} ${roman(level)}` : `§9${disp} ${roman(level)}`;
}

function fakeTexture(key: string): { id: string; value: string } {
  const h = (n: number) => hash32(key, n).toString(16).padStart(8, '0');
  const hex = Array.from({ length: 8 }, (_, i) => h(i)).join('');
  const id = `${h(10)}-${h(11).slice(0, 4)}-3${h(12).slice(0, 3)}-a${h(13).slice(0, 3)}-${h(14)}${h(15).slice(0, 4)}`;
  const json = `{"textures":{"SKIN":{"url":"http://textures.minecraft.net/texture/${hex}"}}}`;
  return { id, value: Buffer.from(json).toString('base64') };
}

function rarityLine(tier: Tier, itemClass: string, dungeon: boolean, recombobulated: boolean): string {
  const c = TIER_COLOR[tier];
  const cls = itemClass === 'NONE' || itemClass === 'PET' ? '' : ` ${itemClass.replace(/_/g, ' ')}`;
  const text = `${tier.replace('_', ' ')}${dungeon ? ' DUNGEON' : ''}${cls}`;
  return recombobulated ? `${c}§l§ka§r ${c}§l${c}§l${text} ${c}§l§ka` : `${c}§l${text}`;
}

/** Builds display name, lore and the NBT compound of one item (uuid/timestamp as placeholders). */
function buildItem(spec: ItemSpec): { name: string; lore: string[]; extra: string; root: Tag } {
  const { def, tier } = spec;
  const mat = MATERIALS[def.material] ?? { id: 1, damage: 0, name: 'Stone' };
  const color = TIER_COLOR[tier];
  const lore: string[] = [];
  let name: string;
  const ea: Record<string, Tag> = {};
  let damage = mat.damage;

  if (def.kind === 'pet' && spec.pet) {
    name = `§7[Lvl ${spec.pet.level}] ${color}${def.name}`;
    lore.push(`§8${PET_SKILL.get(def.petType ?? '') ?? 'Combat'} Pet`, '');
    lore.push(`§7Strength: §c+${Math.round(spec.pet.level / 2)}`, `§7Crit Damage: §9+${Math.round(spec.pet.level / 2)}%`, '');
    if (spec.pet.heldItem) lore.push(`§6Held Item: ${capitalize(spec.pet.heldItem.replace(/^PET_ITEM_/, '').toLowerCase())}`, '');
    lore.push(spec.pet.level >= 100 ? '§b§lMAX LEVEL' : `§7Progress to Level ${spec.pet.level + 1}: §e0%`, '');
    lore.push('§7§eRight-click to add this pet to', '§eyour pet menu!', '', `${color}§l${tier}`);
    const petInfo: Record<string, unknown> = { type: def.petType, active: false, exp: spec.pet.exp, tier, hideInfo: false };
    if (spec.pet.heldItem) petInfo.heldItem = spec.pet.heldItem;
    petInfo.candyUsed = spec.pet.candyUsed;
    if (spec.hasUuid) petInfo.uuid = UUID_PH;
    petInfo.hideRightClick = false;
    ea.petInfo = str(JSON.stringify(petInfo));
  } else if (def.kind === 'rune') {
    const level = Object.values(spec.runes ?? {})[0] ?? 1;
    name = `${color}◆ ${def.name} ${roman(level)}`;
    lore.push('§7Apply this rune to an item to', '§7give it a cosmetic effect.', '', '§7Combine two of the same level', '§7together at the Runic', '§7Pedestal!', '', `${color}§l${tier} COSMETIC`);
    ea.runes = comp(Object.fromEntries(Object.entries(spec.runes ?? {}).map(([k, v]) => [k, int(v)])));
  } else if (def.kind === 'potion') {
    const level = def.potionLevel ?? 1;
    name = `${color}${def.name}`;
    lore.push(`§7Boosts your ${capitalize(def.potion ?? 'speed')} by a`, `§7lot for §a3:00§7.`, '', `${color}§l${tier}`);
    ea.potion_level = int(level);
    ea.potion = str(def.potion ?? 'speed');
    ea.potion_type = str('POTION');
    ea.effects = { type: 'list', value: { type: 'compound', value: [{ level: int(level), effect: str(def.potion ?? 'speed'), duration_ticks: int(3600) }] } };
    damage = 8194 + (hash32(def.key) % 12);
  } else if (def.kind === 'book') {
    name = `${TIER_COLOR.COMMON}Enchanted Book`;
    for (const [e, l] of Object.entries(spec.enchantments ?? {})) lore.push(enchantDisplay(e, l));
    lore.push('§7Use this on an item in an Anvil', '§7to apply it!', '', `${color}§l${tier}`);
  } else {
    const reforge = spec.modifier ? `${capitalize(spec.modifier)} ` : '';
    const stars = spec.upgradeLevel ? ` ${'§6✪'.repeat(spec.upgradeLevel)}` : '';
    name = `${color}${reforge}${def.name}${stars}`;
    if (def.kind === 'weapon') lore.push(`§7Damage: §c+${Math.round(Math.log10(def.fairPrice + 10) * 40)}`, `§7Strength: §c+${Math.round(Math.log10(def.fairPrice + 10) * 20)}`);
    if (def.kind === 'armor') lore.push(`§7Health: §a+${Math.round(Math.log10(def.fairPrice + 10) * 30)}`, `§7Defense: §a+${Math.round(Math.log10(def.fairPrice + 10) * 25)}`);
    if (spec.hotPotatoCount) lore.push(`§7Hot Potato Books: §e+${spec.hotPotatoCount}`);
    if (spec.gems && Object.keys(spec.gems).length) lore.push(` ${Object.keys(spec.gems).map(() => '§6[§c❁§6]').join(' ')}`);
    if (spec.attributes) for (const [a, l] of Object.entries(spec.attributes)) lore.push(`§b${capitalize(a)} ${roman(l)}`);
    const enchants = Object.entries(spec.enchantments ?? {});
    if (enchants.length) {
      lore.push('');
      for (const [e, l] of enchants) lore.push(enchantDisplay(e, l));
    }
    if (def.kind === 'accessory') lore.push('§7A powerful accessory that', '§7boosts your stats.');
    if (def.kind === 'plain' || def.kind === 'stack') lore.push(`§7A useful ${def.itemClass.toLowerCase().replace(/_/g, ' ')}.`);
    lore.push('', rarityLine(tier, def.itemClass, !!def.dungeon, !!spec.rarityUpgrades));
  }

  // ExtraAttributes key order loosely follows real items: modifiers first, id, uuid, timestamp last.
  if (spec.rarityUpgrades) ea.rarity_upgrades = int(spec.rarityUpgrades);
  if (spec.hotPotatoCount) ea.hot_potato_count = int(spec.hotPotatoCount);
  if (spec.runes && def.kind !== 'rune') ea.runes = comp(Object.fromEntries(Object.entries(spec.runes).map(([k, v]) => [k, int(v)])));
  if (spec.gems) ea.gems = gemsTag(def.id, def.gemSlots ?? [], spec.gems);
  if (spec.attributes) ea.attributes = comp(Object.fromEntries(Object.entries(spec.attributes).map(([k, v]) => [k, int(v)])));
  if (def.dungeon) ea.dungeon_item_level = int(spec.upgradeLevel ?? 0);
  if (spec.upgradeLevel) ea.upgrade_level = int(spec.upgradeLevel);
  if (spec.modifier) ea.modifier = str(spec.modifier);
  ea.id = str(def.id);
  if (spec.enchantments && Object.keys(spec.enchantments).length) {
    ea.enchantments = comp(Object.fromEntries(Object.entries(spec.enchantments).map(([k, v]) => [k, int(v)])));
  }
  if (spec.hasUuid) ea.uuid = str(UUID_PH);
  if (spec.timestampForm === 'string') ea.timestamp = str(TS_PH);
  else if (spec.timestampForm === 'long') ea.timestamp = { type: 'long', value: [LONG_PH_HI, LONG_PH_LO] };

  const tag: Record<string, Tag> = {};
  if (spec.enchantments && Object.keys(spec.enchantments).length) tag.ench = { type: 'list', value: { type: 'end', value: [] } };
  tag.HideFlags = int(254);
  if (mat.id === 397) {
    const t = fakeTexture(def.key);
    tag.SkullOwner = comp({ Id: str(t.id), Properties: comp({ textures: { type: 'list', value: { type: 'compound', value: [{ Value: str(t.value) }] } } }) });
  }
  const display: Record<string, Tag> = { Lore: strList(lore), Name: str(name) };
  if (def.material.startsWith('LEATHER_')) display.color = int(hash32(def.key, 'color') & 0xffffff);
  tag.display = comp(display);
  tag.ExtraAttributes = comp(ea);

  const item = { id: short(mat.id), Count: byte(spec.count), tag: comp(tag), Damage: short(damage) };
  const root: Tag = { type: 'compound', value: { i: { type: 'list', value: { type: 'compound', value: [item] } } } };

  const enchNames = Object.keys(spec.enchantments ?? {}).map((e) => capitalize(e.replace(/^ultimate_/, '')));
  const itemName = stripColors(name);
  const extra = [itemName, mat.name, ...enchNames].join(' ');
  return { name, lore, extra, root };
}

/** NBT bytes (uncompressed) of a root compound, via prismarine-nbt. */
function writeNbt(root: Tag): Buffer {
  return nbt.writeUncompressed({ name: '', ...(root as { type: 'compound'; value: Record<string, never> }) } as nbt.NBT, 'big');
}

function allIndexes(buf: Buffer, needle: Buffer): number[] {
  const out: number[] = [];
  let i = buf.indexOf(needle);
  while (i >= 0) {
    out.push(i);
    i = buf.indexOf(needle, i + needle.length);
  }
  return out;
}

const UUID_PH_BUF = Buffer.from(UUID_PH, 'latin1');
const TS_PH_BUF = Buffer.from(TS_PH, 'latin1');
const GZIP_OPTIONS = { level: 6, windowBits: 11, memLevel: 3 } as const;
const LONG_PH_BUF = Buffer.from([0x5a, 0x5a, 0x5a, 0x5a, 0x3c, 0x3c, 0x3c, 0x3c]);

/** Builds a reusable template for one item variant. */
export function buildItemTemplate(spec: ItemSpec): ItemTemplate {
  const built = buildItem(spec);
  const raw = writeNbt(built.root);
  const uuidOffsets = spec.hasUuid ? allIndexes(raw, UUID_PH_BUF) : [];
  let tsOffset = -1;
  if (spec.timestampForm === 'string') tsOffset = raw.indexOf(TS_PH_BUF);
  else if (spec.timestampForm === 'long') tsOffset = raw.indexOf(LONG_PH_BUF);
  if (spec.timestampForm !== 'none' && tsOffset < 0) throw new Error('item template: timestamp placeholder not found');
  const itemLore = built.lore.join('\n');
  const itemName = stripColors(built.name);

  return {
    itemName,
    itemLore,
    extra: built.extra,
    tier: spec.tier,
    hasUuid: spec.hasUuid,
    instantiate(uuidHex: string, createdMs: number): string {
      let buf: Buffer;
      let shift = 0;
      if (spec.timestampForm === 'string') {
        const ts = Buffer.from(formatItemTimestamp(createdMs), 'latin1');
        const len = Buffer.allocUnsafe(2);
        len.writeUInt16BE(ts.length, 0);
        // The 2-byte NBT string length sits right before the placeholder.
        buf = Buffer.concat([raw.subarray(0, tsOffset - 2), len, ts, raw.subarray(tsOffset + TS_PH_BUF.length)]);
        shift = ts.length - TS_PH_BUF.length;
      } else {
        buf = Buffer.from(raw);
        if (spec.timestampForm === 'long') buf.writeBigInt64BE(BigInt(Math.round(createdMs)), tsOffset);
      }
      if (uuidOffsets.length) {
        const dashed = Buffer.from(`${uuidHex.slice(0, 8)}-${uuidHex.slice(8, 12)}-${uuidHex.slice(12, 16)}-${uuidHex.slice(16, 20)}-${uuidHex.slice(20, 32)}`, 'latin1');
        for (const off of uuidOffsets) dashed.copy(buf, tsOffset >= 0 && off > tsOffset ? off + shift : off);
      }
      // A small window/memLevel: items are ~1 KB, and zlib's per-call setup dominates otherwise.
      return gzipSync(buf, GZIP_OPTIONS).toString('base64');
    },
  };
}

/** One-off encoding without keeping a template (tests, small tools). */
export function encodeItem(spec: ItemSpec, uuidHex: string, createdMs: number): { itemBytes: string; itemName: string; itemLore: string; extra: string } {
  const t = buildItemTemplate(spec);
  return { itemBytes: t.instantiate(uuidHex, createdMs), itemName: t.itemName, itemLore: t.itemLore, extra: t.extra };
}

/** Universal gem slots name their gem in `<slot>_gem` (chosen per item, no extra randomness). */
const UNIVERSAL_GEMS: Readonly<Record<string, readonly string[]>> = { COMBAT: ['JASPER', 'SAPPHIRE'], DEFENSIVE: ['AMETHYST', 'RUBY'] };

/** `gems` as real items store it: slot → quality, `<slot>_gem` for universal slots, and the unlocked slots. */
function gemsTag(itemId: string, slots: readonly string[], gems: Readonly<Record<string, string>>): Tag {
  const out: Record<string, Tag> = {};
  for (const [slot, quality] of Object.entries(gems)) {
    out[slot] = str(quality);
    const choices = UNIVERSAL_GEMS[slot.replace(/_\d+$/, '')];
    if (choices) out[`${slot}_gem`] = str(choices[(itemId.length + slot.length) % choices.length]!);
  }
  out.unlocked_slots = strList([...slots]);
  return comp(out);
}
