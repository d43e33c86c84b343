/**
 * jobs/price-rollups.ts (the jobs leader's writer) over a real store: the stored hourly and daily cells of every tag and
 * price variant against a brute-force recomputation from the raw sales (a property test over
 * random sales: pets of several rarities and levels, runes, stacks), rolled in one go or with a
 * rewind after late sales; on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { ManualClock } from '../../../src/clock.ts';
import { ALL_VARIANTS, bucketOf, DAY_MS, HOUR_MS, priceVariantKey } from '../../../src/domain/prices.ts';
import { DIGEST_SIZE } from '../../../src/domain/sales-rollup.ts';
import { PriceRollupJob } from '../../../src/jobs/price-rollups.ts';
import type { Store } from '../../../src/store/index.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { sale, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend, IN_CI, migrateTo, openUnmigratedStore, postgresUnavailable } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0);

const saleArb = fc.record({
  kind: fc.constantFrom('item', 'pet', 'rune'),
  ago: fc.integer({ min: 20 * 60_000, max: 4 * DAY_MS }),
  unit: fc.integer({ min: 1, max: 50 }).map((p) => p * 1000),
  count: fc.integer({ min: 1, max: 64 }),
  tier: fc.constantFrom('EPIC', 'LEGENDARY'),
  high: fc.boolean(),
  level: fc.integer({ min: 1, max: 3 }),
});

type GenSale = typeof saleArb extends fc.Arbitrary<infer T> ? T : never;

function row(s: GenSale): AuctionsTable {
  if (s.kind === 'pet') {
    return sale(NOW, s.ago, { tag: 'PET_BEE', tier: s.tier, count: 1, sold_price: s.unit, enchantments: {}, flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': s.tier, 'petInfo.exp': s.high ? '30000000' : '1000' } });
  }
  if (s.kind === 'rune') return sale(NOW, s.ago, { tag: 'RUNE_BLOOD_2', tier: 'RARE', count: 1, sold_price: s.unit, enchantments: {}, flat_nbt: { 'runes.BLOOD_2': String(s.level) } });
  return sale(NOW, s.ago, { tag: 'ENCHANTED_DIAMOND', tier: 'UNCOMMON', count: s.count, sold_price: s.unit * s.count, enchantments: {} });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface Expected {
  count: number;
  items: number;
  coins: number;
  sum: number;
  min: number;
  max: number;
  prices: number[];
}

/** Brute force: every (tag, variant, period start) of the sales before `to`. */
function bruteForce(rows: AuctionsTable[], size: number, to: number): Map<string, Expected> {
  const out = new Map<string, Expected>();
  for (const r of rows) {
    if (r.sold_at! >= to) continue;
    const unit = r.sold_price! / r.count;
    const at = bucketOf(r.sold_at!, size);
    const variant = priceVariantKey({ tag: r.tag, tier: r.tier, flatNbt: r.flat_nbt as Record<string, string> });
    for (const v of new Set([ALL_VARIANTS, variant])) {
      const k = `${r.tag}|${v}|${at}`;
      const e = out.get(k) ?? { count: 0, items: 0, coins: 0, sum: 0, min: Infinity, max: -Infinity, prices: [] };
      e.count++;
      e.items += r.count;
      e.coins += r.sold_price!;
      e.sum += unit;
      e.min = Math.min(e.min, unit);
      e.max = Math.max(e.max, unit);
      e.prices.push(unit);
      out.set(k, e);
    }
  }
  return out;
}

async function compare(store: Store, rows: AuctionsTable[]): Promise<void> {
  const state = await store.priceRollups.state();
  for (const [size, table, col, to] of [
    [HOUR_MS, 'price_hours', 'hour', state.rolledTo],
    [DAY_MS, 'price_days', 'day', state.daysTo],
  ] as const) {
    const expected = bruteForce(rows, size, to);
    const { rows: stored } = await sql<{ tag: string; variant: string; at: number; count: number }>`select tag, variant, ${sql.ref(col)} as at, count from ${sql.table(table)}`.execute(store.kysely);
    assert.equal(stored.length, expected.size, `${table}: ${stored.length} rows, expected ${expected.size}`);
    for (const [k, e] of expected) {
      const [tag, variant, at] = k.split('|') as [string, string, string];
      const cells = size === HOUR_MS ? await store.priceRollups.hours(tag, variant, Number(at), Number(at) + 1) : await store.priceRollups.days(tag, variant, Number(at), Number(at) + 1);
      assert.equal(cells.length, 1, k);
      const c = cells[0]!;
      assert.deepEqual({ count: c.count, items: c.items, coins: c.coins, min: c.min, max: c.max }, { count: e.count, items: e.items, coins: e.coins, min: e.min, max: e.max }, k);
      assert.ok(Math.abs(c.sum - e.sum) < 1e-6, k);
      if (e.count <= DIGEST_SIZE) assert.deepEqual(Array.from(c.prices), [...e.prices].sort((a, b) => a - b), k);
      else assert.equal(c.prices.length, DIGEST_SIZE, k);
      if (e.count <= DIGEST_SIZE) assert.equal(median(Array.from(c.prices)), median(e.prices), k);
    }
  }
}

async function reset(store: Store): Promise<void> {
  for (const t of ['auctions', 'price_hours', 'price_days', 'price_bin_hours', 'price_bin_days']) await sql`delete from ${sql.table(t)}`.execute(store.kysely);
  await store.kysely.updateTable('price_rollup_state').set({ rolled_to: 0, days_to: 0 }).execute();
}

describeEachBackend('price rollups against brute force', (fixture) => {
  let store: Store;
  const clock = new ManualClock(NOW);
  before(() => {
    store = fixture().store;
  });

  test('rolled in one go: every hour and day equals its raw sales', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(saleArb, { minLength: 1, maxLength: 150 }), async (sales) => {
        await reset(store);
        const rows = sales.map(row);
        await storeSales(store, NOW, rows);
        const state = await new PriceRollupJob(store, clock, undefined).catchUp(NOW);
        assert.equal(state.rolledTo, bucketOf(NOW - 10 * 60_000, HOUR_MS));
        assert.equal(state.daysTo, bucketOf(NOW, DAY_MS));
        await compare(store, rows);
      }),
      { numRuns: fixture().backend === 'sqlite' ? 12 : 5 },
    );
  });

  test('late sales: a rewind rolls the hours and days again', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(saleArb, { minLength: 1, maxLength: 80 }), fc.array(saleArb, { minLength: 1, maxLength: 40 }), async (first, late) => {
        await reset(store);
        const rows = first.map(row);
        await storeSales(store, NOW, rows);
        const rollups = new PriceRollupJob(store, clock, undefined);
        await rollups.catchUp(NOW);
        const lateRows = late.map(row);
        await storeSales(store, NOW, lateRows);
        const oldest = Math.min(...lateRows.map((r) => r.sold_at!));
        await store.priceRollups.rewind(oldest);
        await rollups.catchUp(NOW);
        await compare(store, [...rows, ...lateRows]);
      }),
      { numRuns: fixture().backend === 'sqlite' ? 8 : 3 },
    );
  });

  test('many sales in one hour: totals exact, the digest 32 quantiles', async () => {
    await reset(store);
    const rows = Array.from({ length: 200 }, (_, i) => sale(NOW, 2 * HOUR_MS + i * 1000, { tag: 'ENCHANTED_DIAMOND', count: 1 + (i % 7), sold_price: (1 + (i % 7)) * (1000 + i), enchantments: {} }));
    await storeSales(store, NOW, rows);
    await new PriceRollupJob(store, clock, undefined).catchUp(NOW);
    await compare(store, rows);
  });
});

for (const backend of ['sqlite', 'postgres'] as const) {
  test(`migration 017 on a store with sales: the first catch-up builds the whole history; down drops the tables [${backend}]`, async (t) => {
    if (backend === 'postgres' && postgresUnavailable && !IN_CI) return t.skip('PostgreSQL unreachable');
    const { store, migrator, close } = await openUnmigratedStore(backend, 'm017');
    try {
      await migrateTo(migrator, '016-profile-requests');
      // Sales stored before the upgrade, the oldest 60 days ago.
      const rows = Array.from({ length: 120 }, (_, i) => sale(NOW, 20 * 60_000 + i * 12 * HOUR_MS, { tag: i % 3 ? 'ENCHANTED_DIAMOND' : 'PET_BEE', count: 1 + (i % 4), sold_price: (1 + (i % 4)) * (1000 + i), enchantments: {}, flat_nbt: i % 3 ? {} : { 'petInfo.type': 'BEE', 'petInfo.tier': 'EPIC', 'petInfo.exp': '0' } }));
      await storeSales(store, NOW, rows);
      const up = await migrateTo(migrator, '017-price-rollups');
      assert.equal(up.error, undefined);
      assert.deepEqual(await store.priceRollups.state(), { rolledTo: 0, daysTo: 0 });
      const state = await new PriceRollupJob(store, new ManualClock(NOW), undefined).catchUp(NOW);
      const oldest = Math.min(...rows.map((r) => r.sold_at!));
      assert.equal(state.rolledTo, bucketOf(NOW - 10 * 60_000, HOUR_MS));
      assert.equal((await store.priceRollups.days('PET_BEE', 'EPIC', 0, NOW)).length > 0, true);
      assert.equal((await store.priceRollups.hours('ENCHANTED_DIAMOND', '', 0, bucketOf(oldest, HOUR_MS) + HOUR_MS)).length, 1);
      await compare(store, rows);
      const down = await migrateTo(migrator, '016-profile-requests');
      assert.equal(down.error, undefined);
      await assert.rejects(sql`select count(*) from price_hours`.execute(store.kysely));
    } finally {
      await close();
    }
  });
}
