/**
 * Synthetic sales history for memory and restart tests: `days` of sales ending at `now`, shaped
 * like an auction house's (a few hundred tags, a popular head and a long tail; pets with
 * levels and rarities, books of several enchantments, stars, potato books, recombobulators and
 * attributes), so the variants the rollups hold grow as a real market's would. Deterministic for
 * a seed; stored in batches through the store's own sales path.
 */
import { sql } from 'kysely';
import type { Store } from '../../src/store/index.ts';
import type { AuctionsTable } from '../../src/store/schema.ts';

const DAY = 86_400_000;
const ENCHANTS = ['sharpness', 'smite', 'critical', 'ender_slayer', 'giant_killer', 'looting', 'scavenger', 'vampirism', 'life_steal', 'ultimate_wise', 'ultimate_chimera', 'growth', 'protection', 'rejuvenate', 'efficiency', 'telekinesis', 'first_strike', 'luck', 'venomous', 'thunderlord'];
const TIERS = ['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY', 'MYTHIC'];
const ATTRIBUTES = ['mana_pool', 'mana_regeneration', 'veteran', 'dominance', 'lifeline', 'breeze', 'speed', 'experience'];

export interface HistoryOptions {
  now: number;
  days: number;
  /** sales in all (spread evenly over the days) */
  sales: number;
  seed?: number;
  tags?: number;
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    // xorshift32
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

/** The history in batches of `batch` sold rows, oldest first. */
export function* syntheticSales(o: HistoryOptions, batch = 20_000): Generator<AuctionsTable[]> {
  const r = rng(o.seed ?? 1);
  const tags = o.tags ?? 400;
  const span = o.days * DAY;
  const step = span / o.sales;
  let out: AuctionsTable[] = [];
  for (let i = 0; i < o.sales; i++) {
    const soldAt = Math.round(o.now - span + i * step);
    // Zipf-like popularity: a few tags sell most.
    const t = Math.min(tags - 1, Math.floor(tags * r() ** 3));
    const pet = t % 10 === 0;
    const tag = pet ? `PET_SYNTH_${t}` : `SYNTH_ITEM_${t}`;
    const tier = TIERS[Math.min(TIERS.length - 1, Math.floor(r() * 4) + (t % 3))]!;
    const enchantments: Record<string, number> = {};
    const flat: Record<string, string> = {};
    if (pet) {
      flat['petInfo.type'] = `SYNTH_${t}`;
      flat['petInfo.tier'] = tier;
      flat['petInfo.exp'] = String(Math.floor(r() ** 2 * 25_000_000));
      if (r() < 0.4) flat['petInfo.heldItem'] = `PET_ITEM_${Math.floor(r() * 12)}`;
    } else {
      const n = Math.floor(r() * 5);
      for (let e = 0; e < n; e++) enchantments[ENCHANTS[Math.floor(r() * ENCHANTS.length)]!] = 1 + Math.floor(r() * 6);
      if (r() < 0.5) flat['upgrade_level'] = String(Math.floor(r() * 6));
      if (r() < 0.4) flat['hot_potato_count'] = String(Math.floor(r() * 16));
      if (r() < 0.3) flat['rarity_upgrades'] = '1';
      if (t % 7 === 0) {
        flat[`attributes.${ATTRIBUTES[Math.floor(r() * ATTRIBUTES.length)]}`] = String(1 + Math.floor(r() * 10));
        flat[`attributes.${ATTRIBUTES[Math.floor(r() * ATTRIBUTES.length)]}`] = String(1 + Math.floor(r() * 10));
      }
    }
    const price = Math.round((10_000 + t * 1_000) * (0.7 + r() * 0.6) * (1 + Object.keys(enchantments).length * 0.1));
    const uuid = (0x10000000 + i).toString(16).padStart(32, 'a');
    out.push({
      uuid,
      tag,
      item_name: pet ? `[Lvl ${1 + Math.floor(r() * 100)}] Synth ${t}` : `Synth Item ${t}`,
      count: 1,
      seller: 'a'.repeat(32),
      profile_id: null,
      coop: null,
      start_at: soldAt - 3_600_000,
      end_at: soldAt,
      starting_bid: price,
      highest_bid: price,
      bin: true,
      tier,
      category: pet ? 'MISC' : 'WEAPON',
      reforge: r() < 0.5 ? 'sharp' : null,
      item_uid: null,
      item_created_at: null,
      enchantments,
      flat_nbt: flat,
      item_bytes: new Uint8Array(0),
      state: 'sold',
      last_updated: soldAt,
      sold_price: price,
      buyer: 'b'.repeat(32),
      sold_at: soldAt,
      buyer_profile: null,
    });
    if (out.length >= batch) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}

/** Stores the synthetic history as auctions_ended batches; returns the sales stored. */
export async function storeSyntheticSales(store: Store, o: HistoryOptions): Promise<number> {
  let n = 0;
  for (const rows of syntheticSales(o)) {
    const last = rows[rows.length - 1]!.sold_at!;
    await store.auctions.recordSales(rows, [], { name: 'auctions_ended', lastUpdated: last, storedAt: last, records: rows.length, source: 'simulator' });
    n += rows.length;
  }
  return n;
}

/**
 * Many sales quickly: an eighth of them generated and stored, then copied seven times in SQL, each
 * copy with new uuids (generated ones start with 'a', a copy's with its digit) a minute or so earlier.
 * Returns the sold rows the store then holds.
 */
export async function storeManySales(store: Store, o: HistoryOptions): Promise<number> {
  const copies = 8;
  await storeSyntheticSales(store, { ...o, sales: Math.ceil(o.sales / copies) });
  const columns = sql.raw(
    'tag, item_name, count, seller, profile_id, coop, start_at, end_at, starting_bid, highest_bid, bin, tier, category, reforge, item_uid, item_created_at, enchantments, flat_nbt, item_bytes, state, last_updated, sold_price, buyer, buyer_profile',
  );
  // PostgreSQL (migration 019): a copy is filed in auction_keys under its original's month and
  // lands in that month's partition.
  const month = sql.raw(store.dialect === 'postgres' ? ', month' : '');
  for (let k = 1; k < copies; k++) {
    if (store.dialect === 'postgres') {
      await sql`insert into auction_keys (uuid, month) select ${String(k)} || substr(uuid, 2), month from auction_keys where uuid like 'a%'`.execute(store.kysely);
    }
    await sql`insert into auctions (uuid, ${columns}, sold_at${month})
      select ${String(k)} || substr(uuid, 2), ${columns}, sold_at - ${k * 61_000}${month}
      from auctions where state = 'sold' and uuid like 'a%'`.execute(store.kysely);
  }
  const r = await store.kysely.selectFrom('auctions').select((eb) => eb.fn.countAll<number>().as('n')).where('state', '=', 'sold').executeTakeFirstOrThrow();
  return Number(r.n);
}
