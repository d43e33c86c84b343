/**
 * The valuation model: traits read from flatNbt, the parts estimate's factors, the comparables'
 * dimension rule and widening, and the combination of the two estimates.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparablesEstimate, decideDimensions, DIMENSIONS, keysOf, PreparedComparables, type ComparableListing, type ComparableSale } from '../../../../src/domain/valuation/comparables.ts';
import { APPLICATION_WORTH, partsEstimate, type PartPrices } from '../../../../src/domain/valuation/parts.ts';
import { traitsOf, type ValuationSubject } from '../../../../src/domain/valuation/traits.ts';
import { combine } from '../../../../src/domain/valuation/value.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 29);

function hyperion(flat: Record<string, string> = {}, enchantments: Record<string, number> = {}): ValuationSubject {
  return { tag: 'HYPERION', tier: 'LEGENDARY', count: 1, enchantments, flatNbt: flat };
}

const PRICES: Record<string, number> = {
  HYPERION: 800_000_000,
  ENCHANTMENT_SHARPNESS_6: 4_000_000,
  ENCHANTMENT_ULTIMATE_WISE_5: 2_000_000,
  ENCHANTMENT_OVERLOAD_5: 10_000_000,
  ENCHANTMENT_CHAMPION_1: 1_000_000,
  RECOMBOBULATOR_3000: 7_000_000,
  HOT_POTATO_BOOK: 80_000,
  FUMING_POTATO_BOOK: 1_000_000,
  FIRST_MASTER_STAR: 10_000_000,
  SECOND_MASTER_STAR: 20_000_000,
  ESSENCE_WITHER: 3_000,
  PERFECT_SAPPHIRE_GEM: 15_000_000,
  FINE_JASPER_GEM: 200_000,
  ATTRIBUTE_SHARD_MANA_POOL: 500_000,
  PET_ITEM_TIER_BOOST: 60_000_000,
  PET_ENDER_DRAGON: 500_000_000,
};
const prices: PartPrices = {
  lookup: (id) => (PRICES[id] === undefined ? undefined : { coins: PRICES[id]!, source: 'bazaar' }),
  base: (tag) => (PRICES[tag] === undefined ? undefined : { coins: PRICES[tag]!, source: 'lbin' }),
};
const stars = new Map([['HYPERION', { essence: 'ESSENCE_WITHER', perStar: [150, 300, 500, 900, 1500], coinsPerStar: [0, 0, 0, 0, 0], itemsPerStar: [{}, {}, {}, {}, {}] }]]);

describe('traits', () => {
  it('reads stars, master stars, books, recombobulator, gems and pets from flatNbt', () => {
    const t = traitsOf(
      hyperion({ upgrade_level: '7', hot_potato_count: '13', rarity_upgrades: '1', modifier: 'heroic', 'gems.COMBAT_0': 'PERFECT', 'gems.COMBAT_0_gem': 'SAPPHIRE', 'gems.JASPER_0': 'FINE', 'gems.unlocked_slots': 'COMBAT_0,JASPER_0', art_of_war_count: '1', ethermerge: '1' }),
    );
    assert.equal(t.family, 'weapon');
    assert.deepEqual([t.stars, t.masterStars, t.hotPotatoBooks, t.fumingPotatoBooks, t.recombobulated, t.reforge], [5, 2, 10, 3, true, 'heroic']);
    assert.deepEqual(t.gems.map((g) => `${g.type}:${g.quality}`).sort(), ['JASPER:FINE', 'SAPPHIRE:PERFECT']);
    assert.deepEqual(t.unlockedSlots, ['COMBAT_0', 'JASPER_0']);
    assert.deepEqual(t.applied.map((a) => a.id).sort(), ['ETHERWARP_CONDUIT', 'THE_ART_OF_WAR']);
    assert.deepEqual(t.unknownKeys, []);
    const pet = traitsOf({ tag: 'PET_ENDER_DRAGON', tier: 'LEGENDARY', count: 1, enchantments: {}, flatNbt: { 'petInfo.type': 'ENDER_DRAGON', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '30000000', 'petInfo.heldItem': 'PET_ITEM_TIER_BOOST', 'petInfo.candyUsed': '2' } });
    assert.equal(pet.family, 'pet');
    assert.equal(pet.pet!.band, '100');
    assert.equal(pet.pet!.heldItem, 'PET_ITEM_TIER_BOOST');
  });

  it('lists keys it does not know', () => {
    assert.deepEqual(traitsOf(hyperion({ brand_new_upgrade: '1' })).unknownKeys, ['brand_new_upgrade']);
  });
});

describe('parts estimate', () => {
  it('prices every part with its application worth', () => {
    const t = traitsOf(
      hyperion({ upgrade_level: '7', hot_potato_count: '12', rarity_upgrades: '1', 'gems.COMBAT_0': 'PERFECT', 'gems.COMBAT_0_gem': 'SAPPHIRE', 'attributes.mana_pool': '3' }, { sharpness: 6, ultimate_wise: 5, overload: 5, champion: 7, telekinesis: 1 }),
    );
    const p = partsEstimate(t, { prices, stars });
    const by = (kind: string) => p.parts.filter((x) => x.kind === kind);
    assert.equal(by('base')[0]!.value, 800_000_000);
    const ench = Object.fromEntries(by('enchantment').map((x) => [x.id, x.value]));
    assert.equal(ench['ENCHANTMENT_SHARPNESS_6'], 4_000_000 * 0.85);
    assert.equal(ench['ENCHANTMENT_OVERLOAD_5'], 10_000_000 * 0.35);
    // champion levels by use: only its first book was bought; telekinesis is free
    assert.equal(ench['ENCHANTMENT_CHAMPION_1'], 1_000_000 * 0.85);
    assert.equal(Object.keys(ench).length, 4);
    assert.equal(by('recombobulator')[0]!.value, 7_000_000 * APPLICATION_WORTH.recombobulator);
    assert.equal(by('hot_potato_book')[0]!.value, 10 * 80_000);
    assert.equal(by('fuming_potato_book')[0]!.value, 2 * 1_000_000 * 0.6);
    assert.equal(by('essence_star')[0]!.value, (150 + 300 + 500 + 900 + 1500) * 3_000 * 0.75);
    assert.deepEqual(by('master_star').map((x) => x.id), ['FIRST_MASTER_STAR', 'SECOND_MASTER_STAR']);
    assert.equal(by('gemstone')[0]!.id, 'PERFECT_SAPPHIRE_GEM');
    assert.equal(by('attribute')[0]!.count, 4);
    let sum = 0;
    for (const x of p.parts) sum += x.value;
    assert.equal(p.value, sum);
    assert.equal(p.unpriced, 0);
  });

  it('counts parts without a price and has no value without a base price', () => {
    const p = partsEstimate(traitsOf({ tag: 'NO_SUCH', tier: null, count: 1, enchantments: { sharpness: 5 }, flatNbt: {} }), { prices });
    assert.equal(p.value, null);
    assert.equal(p.unpriced, 2);
  });

  it('candy lowers a pet to at most 65 % of its price, except the pets whose level is their price', () => {
    const flat = (type: string) => ({ 'petInfo.type': type, 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '100', 'petInfo.candyUsed': '3' });
    const bee = partsEstimate(traitsOf({ tag: 'PET_BEE', tier: 'LEGENDARY', count: 1, enchantments: {}, flatNbt: flat('BEE') }), { prices: { lookup: () => undefined, base: () => ({ coins: 1_000_000, source: 'lbin' }) } });
    assert.equal(bee.value, 650_000);
    const dragon = partsEstimate(traitsOf({ tag: 'PET_ENDER_DRAGON', tier: 'LEGENDARY', count: 1, enchantments: {}, flatNbt: flat('ENDER_DRAGON') }), { prices });
    assert.equal(dragon.value, 500_000_000);
  });
});

function sale(price: number, flat: Record<string, string>, at = NOW - DAY): ComparableSale {
  return { price, at, keys: keysOf(traitsOf(hyperion(flat))) };
}

describe('comparables', () => {
  const recomb = (r: boolean): Record<string, string> => (r ? { rarity_upgrades: '1' } : {});
  // Recombobulated ones sell 30 % higher; the reforge moves nothing.
  const sales: ComparableSale[] = [];
  for (let i = 0; i < 8; i++) sales.push(sale(1_000 + i, { ...recomb(false), modifier: i % 2 ? 'heroic' : 'spicy' }));
  for (let i = 0; i < 8; i++) sales.push(sale(1_300 + i, { ...recomb(true), modifier: i % 2 ? 'heroic' : 'spicy' }));

  it('decides from the sales which dimensions matter', () => {
    const { dims, fromSales } = decideDimensions(sales, 'weapon');
    const names = dims.map((d) => DIMENSIONS[d]);
    assert.ok(fromSales);
    assert.ok(names.includes('recombobulated'));
    assert.ok(!names.includes('reforge'));
  });

  it('matches on what matters, widens when too few match, and says so', () => {
    const dims = decideDimensions(sales, 'weapon');
    const keys = keysOf(traitsOf(hyperion({ rarity_upgrades: '1', modifier: 'fabled' })));
    const c = comparablesEstimate('HYPERION', keys, sales, [{ uuid: 'a', price: 1_250, keys }, { uuid: 'b', price: 900, keys: sales[0]!.keys }], { now: NOW, windowMs: 7 * DAY, dims });
    assert.equal(c.count, 8);
    assert.equal(c.median, 1_303.5);
    assert.deepEqual(c.widenedBy, []);
    assert.deepEqual(c.cheapestBin, { uuid: 'a', price: 1_250 });
    assert.equal(c.cheapestOtherBin, 1_250);
    // Valuing listing 'a' itself: its own price is no alternative to it.
    const own = comparablesEstimate('HYPERION', keys, sales, [{ uuid: 'a', price: 1_250, keys }, { uuid: 'c', price: 1_400, keys }], { now: NOW, windowMs: 7 * DAY, dims, self: 'a' });
    assert.deepEqual(own.cheapestBin, { uuid: 'a', price: 1_250 });
    assert.equal(own.cheapestOtherBin, 1_400);
    assert.equal(c.fastSell, Math.round(Math.min(c.p25!, 1_249)));
    assert.ok(c.medianKey.includes('recombobulated=R'));
    assert.ok(c.matchedOn.includes('tier') && !c.matchedOn.includes('pet_level'), 'a weapon names no pet level among what it matched on');
    // Only 3 recombobulated sales in the window: the match drops dimensions until 5 match.
    const few = sales.filter((s, i) => i < 8 || i >= 13);
    const w = comparablesEstimate('HYPERION', keys, few, [], { now: NOW, windowMs: 7 * DAY, dims });
    assert.ok(w.widenedBy.includes('recombobulated'));
    assert.ok(w.count >= 5);
  });

  it('reads only sales before the valuation time and inside the window', () => {
    const dims = decideDimensions(sales, 'weapon');
    const keys = keysOf(traitsOf(hyperion({})));
    const future = comparablesEstimate('HYPERION', keys, sales, [], { now: NOW - 2 * DAY, windowMs: 7 * DAY, dims });
    assert.equal(future.count, 0);
    assert.equal(future.median, null);
  });
});

describe('prepared comparables (the indexes a held tag keeps)', () => {
  /** A seeded random source (mulberry32). */
  function rng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const random = rng(43);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const flatOf = (): Record<string, string> => {
    const f: Record<string, string> = {};
    if (random() < 0.4) f['rarity_upgrades'] = '1';
    if (random() < 0.6) f['modifier'] = pick(['heroic', 'spicy', 'fabled']);
    if (random() < 0.5) f['hot_potato_count'] = String(pick([5, 10, 15]));
    if (random() < 0.3) f['upgrade_level'] = String(pick([1, 3, 5]));
    return f;
  };
  const enchOf = (): Record<string, number> => (random() < 0.3 ? { sharpness: pick([5, 6, 7]) } : random() < 0.2 ? { ultimate_wise: 5 } : {});
  const keysOfRandom = () => keysOf(traitsOf(hyperion(flatOf(), enchOf())));
  // 300 sales over 10 days, newest first; 60 BINs.
  const sales: ComparableSale[] = Array.from({ length: 300 }, (_, i) => ({ price: 500 + Math.floor(random() * 1_000), at: NOW - i * 50 * 60_000, keys: keysOfRandom() }));
  // Coarse BIN prices: equal prices in a group, where the first listed must win.
  const bins: ComparableListing[] = Array.from({ length: 60 }, (_, i) => ({ uuid: `b${i}`, price: 400 + 100 * Math.floor(random() * 4), keys: keysOfRandom() }));
  // Random prices decide nothing: match on several dimensions, so that items widen step by step.
  const matched = new Set(['reforge', 'potato_books', 'enchantments', 'recombobulated', 'stars', 'tier', 'pet_level']);
  const dims = { dims: DIMENSIONS.flatMap((d, i) => (matched.has(d) ? [i] : [])), fromSales: false };

  it('gives the estimate the scan gives, for every item, window and minimum, as the window slides', () => {
    const prepared = new PreparedComparables(sales, dims.dims);
    assert.ok(prepared.usable);
    let widened = 0;
    for (const now of [NOW + 1, NOW - 3 * DAY, NOW - 3 * DAY + 60_000, NOW - 20 * DAY, NOW + 1]) {
      for (let i = 0; i < 300; i++) {
        const keys = i < 100 ? sales[i * 3]!.keys : keysOfRandom();
        const minCount = pick([undefined, 1, 5, 12]);
        const base = { now, windowMs: 7 * DAY, dims, ...(minCount !== undefined ? { minCount } : {}) };
        // Half the items are the cheapest matching BIN themselves (an active listing valued): never its own alternative.
        const self = i % 2 === 0 ? (comparablesEstimate('HYPERION', keys, sales, bins, base).cheapestBin?.uuid ?? undefined) : undefined;
        const opts = { ...base, ...(self !== undefined ? { self } : {}) };
        const plain = comparablesEstimate('HYPERION', keys, sales, bins, opts);
        const fast = comparablesEstimate('HYPERION', keys, sales, bins, { ...opts, prepared });
        assert.deepEqual(fast, plain, `item ${i} at ${now}`);
        if (plain.widenedBy.length > 0) widened++;
      }
    }
    assert.ok(widened > 50, `the cases widen too (${widened})`);
  });

  it('indexes once per window and BIN list, again when the window covers other sales', () => {
    const prepared = new PreparedComparables(sales, dims.dims);
    const value = (now: number, b: readonly ComparableListing[]) => comparablesEstimate('HYPERION', sales[0]!.keys, sales, b, { now, windowMs: 7 * DAY, dims, prepared });
    value(NOW + 1, bins);
    const first = prepared.builds;
    assert.ok(first >= 2, 'a sales index and a BIN index');
    value(NOW + 1, bins);
    value(NOW + 2, bins);
    assert.equal(prepared.builds, first, 'the same window and BINs: nothing rebuilt');
    // An hour earlier the newest sales are in the future: the window holds other sales.
    value(NOW - 3_600_000, bins);
    assert.ok(prepared.builds > first);
    const second = prepared.builds;
    value(NOW - 3_600_000, bins.slice(1));
    assert.ok(prepared.builds > second, 'another BIN list is indexed anew');
  });

  it('is ignored for other sales, other dimensions or sales out of order', () => {
    const prepared = new PreparedComparables(sales, dims.dims);
    const keys = sales[5]!.keys;
    const opts = { now: NOW + 1, windowMs: 7 * DAY, dims };
    const other = sales.slice(0, 50);
    assert.deepEqual(comparablesEstimate('HYPERION', keys, other, bins, { ...opts, prepared }), comparablesEstimate('HYPERION', keys, other, bins, opts));
    const otherDims = { dims: [...dims.dims], fromSales: dims.fromSales };
    assert.deepEqual(comparablesEstimate('HYPERION', keys, sales, bins, { ...opts, dims: otherDims, prepared }), comparablesEstimate('HYPERION', keys, sales, bins, opts));
    assert.equal(prepared.builds, 0);
    const shuffled = [sales[3]!, sales[0]!, ...sales.slice(4)];
    const unsorted = new PreparedComparables(shuffled, dims.dims);
    assert.equal(unsorted.usable, false);
    assert.deepEqual(comparablesEstimate('HYPERION', keys, shuffled, bins, { ...opts, prepared: unsorted }), comparablesEstimate('HYPERION', keys, shuffled, bins, opts));
  });
});

describe('combining', () => {
  const parts = { value: 2_000, parts: [{ kind: 'base' as const, id: 'X', unitPrice: 2_000, source: 'lbin' as const, count: 1, factor: 1, value: 2_000 }], unpriced: 0 };
  const comps = (count: number, median: number | null, widenedBy: string[] = [], cheapestOtherBin: number | null = null) =>
    ({ median, p25: median, p75: median, count, matchedOn: [], widenedBy, decidedFromSales: true, cheapestBin: null, cheapestOtherBin, fastSell: null, itemKey: 'X', medianKey: 'X', lbinKey: 'X' }) as Parameters<typeof combine>[0];

  it('trusts eight tight comparables fully, fewer or widened ones less', () => {
    assert.equal(combine(comps(8, 1_000), parts, 1).value, 1_000);
    assert.equal(combine(comps(4, 1_000), parts, 1).value, 1_500);
    const widened = combine(comps(8, 1_000, ['reforge']), parts, 1);
    assert.equal(widened.value, 0.75 * 1_000 + 0.25 * 2_000);
    assert.equal(widened.method, 'blend');
  });

  it('falls back to either estimate alone', () => {
    assert.equal(combine(comps(0, null), parts, 1).method, 'parts');
    assert.equal(combine(comps(0, null), parts, 1).value, 2_000);
    assert.equal(combine(comps(3, 900), { value: null, parts: [], unpriced: 1 }, 1).value, 900);
    assert.equal(combine(comps(0, null), { value: null, parts: [], unpriced: 1 }, 1).value, null);
  });

  it('lowers a value above the cheapest other matching BIN by as much as the comparables leave untrusted', () => {
    // Blend 1,500 (4 comparables at 1,000: w 0.5, parts 2,000), an equivalent listed at 1,200: 0.5 × 1,500 + 0.5 × 1,200.
    const blend = combine(comps(4, 1_000, [], 1_200), parts, 1);
    assert.equal(blend.value, 1_350);
    assert.equal(blend.cappedAtBin, true);
    assert.equal(blend.method, 'blend');
    // Parts alone (w 0): the ceiling itself.
    assert.equal(combine(comps(0, null, [], 1_100), parts, 1).value, 1_100);
    // Three comparables alone at 900 (w 3/8), an equivalent at 800.
    assert.equal(combine(comps(3, 900, [], 800), { value: null, parts: [], unpriced: 1 }, 1).value, (3 / 8) * 900 + (5 / 8) * 800);
    // Full comparables (w 1) are left alone; so is a value below the ceiling, or one without another BIN.
    const full = combine(comps(8, 1_000, [], 700), parts, 1);
    assert.equal(full.value, 1_000);
    assert.equal(full.cappedAtBin, false);
    const below = combine(comps(4, 1_000, [], 1_600), parts, 1);
    assert.equal(below.value, 1_500);
    assert.equal(below.cappedAtBin, false);
    assert.equal(combine(comps(4, 1_000), parts, 1).value, 1_500);
    assert.equal(combine(comps(0, null, [], 1_000), { value: null, parts: [], unpriced: 1 }, 1).value, null);
  });
});

describe('hostile items', () => {
  it('refuses JSON nested past the depth, clamps counts, keeps values finite', async () => {
    const { subjectOfJson, SubjectError, MAX_JSON_DEPTH } = await import('../../../../src/domain/valuation/subject.ts');
    let deep: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH + 5; i++) deep = { a: deep };
    assert.throws(() => subjectOfJson({ tag: { ExtraAttributes: { id: 'HYPERION', x: deep } } }), SubjectError);
    const s = subjectOfJson({ Count: 1e300, tag: { ExtraAttributes: { id: 'HYPERION', hot_potato_count: 1e300, 'attributes': { mana_pool: 1e9 } } } })!;
    assert.equal(s.count, 2 ** 31 - 1);
    const p = partsEstimate(traitsOf(s), { prices });
    assert.ok(Number.isFinite(p.value!));
    assert.equal(p.parts.find((x) => x.kind === 'fuming_potato_book')!.count, 5);
    assert.equal(subjectOfJson({}), null);
  });
});
