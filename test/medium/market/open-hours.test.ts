/**
 * The open hours (market/open-hours.ts), on SQLite and PostgreSQL: after every kind of change
 * to the stored sales the cells held equal the cells of the stored sales recomputed from scratch,
 * and the counters say which path answered (held, newer sales only, read again).
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { ALL_VARIANTS, bucketOf, cellOf, HOUR_MS, priceVariantKey } from '../../../src/domain/prices.ts';
import { OpenHours } from '../../../src/market/open-hours.ts';
import type { StoredCell } from '../../../src/store/repositories/price-rollups.ts';
import type { Store } from '../../../src/store/index.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { sale, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const MIN = 60_000;
const NOW = Date.UTC(2026, 10, 26, 12, 30);
const FROM = Date.UTC(2026, 10, 26, 11, 0);

/** The cells of `rows` (sold at or after `from`, of one variant) recomputed from scratch. */
function expected(rows: readonly AuctionsTable[], tag: string, variant: string, from: number): StoredCell[] {
  const byHour = new Map<number, AuctionsTable[]>();
  for (const r of rows) {
    if (r.tag !== tag || r.sold_at! < from) continue;
    if (variant !== ALL_VARIANTS && priceVariantKey({ tag: r.tag, tier: r.tier, flatNbt: r.flat_nbt as Record<string, string> }) !== variant) continue;
    const h = bucketOf(r.sold_at!, HOUR_MS);
    byHour.set(h, [...(byHour.get(h) ?? []), r]);
  }
  return [...byHour.entries()]
    .sort(([a], [b]) => a - b)
    .map(([at, list]) => ({ ...cellOf(list.map((r) => ({ price: r.sold_price! / r.count, count: r.count, at: r.sold_at! })))!, tag, variant, at }));
}

const plain = (cells: StoredCell[]) => cells.map((c) => ({ ...c, prices: Array.from(c.prices) }));

const pet = (ago: number, tier: string, level100: boolean, price: number) =>
  sale(NOW, ago, {
    tag: 'PET_BEE',
    item_name: level100 ? '[Lvl 100] Bee' : '[Lvl 40] Bee',
    tier,
    enchantments: {},
    sold_price: price,
    flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': tier, 'petInfo.exp': level100 ? '30000000' : '50000' },
  });

describeEachBackend('open hours', (fixture) => {
  let store: Store;
  let open: OpenHours;
  const stored: AuctionsTable[] = [];

  const add = async (rows: AuctionsTable[]) => {
    await storeSales(store, NOW, rows);
    for (const r of rows) {
      const i = stored.findIndex((s) => s.uuid === r.uuid);
      if (i >= 0) stored[i] = r;
      else stored.push(r);
    }
  };
  /** Asks, checks against the stored sales, and returns which counter moved. */
  const ask = async (tag: string, variant = ALL_VARIANTS, from = FROM) => {
    const before = { ...open.stats };
    const cells = await open.cells(tag, variant, from);
    assert.deepEqual(plain(cells), plain(expected(stored, tag, variant, from)), `${tag} ${variant}`);
    const moved = (Object.keys(before) as Array<keyof typeof before>).filter((k) => open.stats[k] !== before[k]);
    assert.equal(moved.length, 1);
    return moved[0];
  };

  before(async () => {
    store = fixture().store;
    open = new OpenHours(store, 3);
    // Before the first open hour (rolled up, not held), then the two open hours.
    await add([sale(NOW, 2 * HOUR_MS, { tag: 'HYPERION', sold_price: 1 }), ...[80, 75, 61, 40, 12].map((m, i) => sale(NOW, m * MIN, { tag: 'HYPERION', sold_price: 700_000_000 + i * 1_000_000 }))]);
    await add([pet(70 * MIN, 'LEGENDARY', true, 15_000_000), pet(50 * MIN, 'EPIC', false, 1_000_000), pet(20 * MIN, 'LEGENDARY', true, 14_000_000)]);
  });

  test('first asked: read; asked again unchanged: held', async () => {
    assert.equal(await ask('HYPERION'), 'reread');
    assert.equal(await ask('HYPERION'), 'held');
    assert.equal((await open.cells('HYPERION', ALL_VARIANTS, FROM)).length, 2);
  });

  test('a batch of newer sales: only those read', async () => {
    await add([sale(NOW, 5 * MIN, { tag: 'HYPERION', sold_price: 690_000_000 }), sale(NOW, 4 * MIN, { tag: 'HYPERION', sold_price: 720_000_000, count: 2 })]);
    assert.equal(await ask('HYPERION'), 'newer');
    assert.equal(await ask('HYPERION'), 'held');
  });

  test('a sale arriving late (older than the newest held): read again', async () => {
    await add([sale(NOW, 65 * MIN, { tag: 'HYPERION', sold_price: 650_000_000 })]);
    assert.equal(await ask('HYPERION'), 'reread');
  });

  test("a sale's time rewritten by the other feed (same count): read again", async () => {
    const moved = { ...stored.find((r) => r.tag === 'HYPERION' && r.sold_price === 702_000_000)! };
    moved.sold_at = moved.sold_at! + 30 * MIN;
    await add([moved]);
    assert.equal(await ask('HYPERION'), 'reread');
    assert.equal(await ask('HYPERION'), 'held');
  });

  test('the rollup moves on an hour: the rolled hour dropped, the rest still held', async () => {
    assert.equal(await ask('HYPERION', ALL_VARIANTS, FROM + HOUR_MS), 'held');
    await add([sale(NOW, 1 * MIN, { tag: 'HYPERION', sold_price: 710_000_000 })]);
    assert.equal(await ask('HYPERION', ALL_VARIANTS, FROM + HOUR_MS), 'newer');
  });

  test('variants: each held apart, keyed as the rollups key them; the whole tag holds them all', async () => {
    assert.equal(await ask('PET_BEE', 'LEGENDARY+100'), 'reread');
    assert.equal(await ask('PET_BEE', 'EPIC'), 'reread');
    assert.equal(await ask('PET_BEE'), 'reread');
    // A sale of another variant changes the tag's fingerprint: newer rows read, none of them this variant's.
    await add([pet(2 * MIN, 'EPIC', false, 1_100_000)]);
    assert.equal(await ask('PET_BEE', 'LEGENDARY+100'), 'newer');
    assert.equal(await ask('PET_BEE', 'EPIC'), 'newer');
    assert.equal((await open.cells('PET_BEE', 'LEGENDARY+100', FROM)).reduce((n, c) => n + c.count, 0), 2);
  });

  test('at most `capacity` tag and variant pairs held: the least recently asked dropped', async () => {
    // Capacity 3: PET_BEE '', EPIC and LEGENDARY+100 are held; HYPERION was dropped.
    assert.equal(await ask('HYPERION', ALL_VARIANTS, FROM + HOUR_MS), 'reread');
    assert.equal(await ask('HYPERION', ALL_VARIANTS, FROM + HOUR_MS), 'held');
  });

  test('a tag without open sales: no cells, held', async () => {
    assert.deepEqual(await open.cells('NOTHING_SOLD', ALL_VARIANTS, FROM), []);
    assert.equal(await ask('NOTHING_SOLD'), 'held');
  });
});
