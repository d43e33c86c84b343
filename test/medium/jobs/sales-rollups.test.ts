import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { HOUR_MS, saleVariants, weightedMedian, type VariantKind } from '../../../src/domain/sales-rollup.ts';
import { median } from '../../../src/domain/flips/common.ts';
import { SalesRollups } from '../../../src/market/sales-rollups.ts';
import { SalesRollupJob } from '../../../src/jobs/sales-rollups.ts';
import type { SalesWindow } from '../../../src/store/repositories/sale-rollups.ts';
import type { Store } from '../../../src/store/index.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { variantsSelling } from '../../helpers/variants-selling.ts';
import { sale, storeSales } from '../../helpers/auctions.ts';

const DAY = 24 * HOUR_MS;
const NOW = Date.UTC(2026, 10, 20, 12, 30, 0);

/** A deterministic spread of sales over 20 days: four variants of two tags, a few per hour at most. */
async function fill(store: Store): Promise<void> {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const rows = [];
  for (let ago = 20 * DAY; ago > 0; ago -= 37 * 60_000) {
    const v = Math.floor(rnd() * 4);
    rows.push(
      sale(NOW, ago, {
        tag: v < 3 ? 'SWORD' : 'BOW',
        item_name: v < 3 ? 'Sword' : 'Bow',
        enchantments: v === 1 ? { sharpness: 6 } : { sharpness: 5 },
        flat_nbt: v === 2 ? { rarity_upgrades: '1' } : {},
        reforge: rnd() < 0.5 ? 'sharp' : null,
        sold_price: Math.round(1000 + rnd() * 500 + v * 300),
      }),
    );
  }
  await storeSales(store, NOW, rows);
}

/** Count and exact median of every variant of `kind` from the raw sales since `from`. */
async function direct(store: Store, kind: VariantKind, from: number): Promise<Map<string, { count: number; median: number }>> {
  const groups = new Map<string, number[]>();
  for (const s of await store.flipInputs.soldBetween(from)) {
    const { key, price } = saleVariants(s)[kind];
    groups.set(key, [...(groups.get(key) ?? []), price]);
  }
  return new Map([...groups].map(([k, prices]) => [k, { count: prices.length, median: median(prices)! }]));
}

async function viaRollups(store: Store, job: SalesRollupJob, kind: VariantKind, window: SalesWindow, now: number) {
  const state = await job.catchUp(now);
  const found = await variantsSelling(store, new SalesRollups(store), kind, window, 1, state, now);
  return { state, found: new Map(found.map((v) => [v.key, { count: v.count, median: weightedMedian(v.points)! }])) };
}

describeEachBackend('sales rollups', (fixture) => {
  it('variants selling in a window equal a direct computation over the raw sales (counts and medians)', async () => {
    const { store } = fixture();
    await fill(store);
    const rollups = new SalesRollupJob(store, new ManualClock(NOW));
    for (const [kind, window] of [['attr', '7d'], ['mayor', '14d'], ['tag', '14d']] as const) {
      const { state, found } = await viaRollups(store, rollups, kind, window, NOW);
      assert.ok(state.rolledTo > NOW - 2 * HOUR_MS && state.rolledTo <= NOW, 'every closed hour rolled');
      const from = window === '7d' ? state.aged7d : state.aged14d;
      assert.equal(from, Math.floor((NOW - (window === '7d' ? 7 : 14) * DAY) / HOUR_MS) * HOUR_MS);
      assert.deepEqual(found, await direct(store, kind, from), `${kind} over ${window}`);
    }
    // A minimum drops the variants below it.
    const state = await store.saleRollups.state();
    const few = await variantsSelling(store, new SalesRollups(store), 'attr', '7d', 10_000, state, NOW);
    assert.deepEqual(few, []);
  });

  it('sales stored after their hour was rolled up count once the window is rolled again', async () => {
    const { store } = fixture();
    const rollups = new SalesRollupJob(store, new ManualClock(NOW));
    // A replayed sale two days back, in an hour already rolled up.
    await storeSales(store, NOW, [sale(NOW, 2 * DAY + 5 * 60_000, { tag: 'BOW', item_name: 'Bow', sold_price: 5000 })]);
    const before = (await viaRollups(store, rollups, 'tag', '14d', NOW)).found.get('BOW')!;
    const truth = (await direct(store, 'tag', (await store.saleRollups.state()).aged14d)).get('BOW')!;
    assert.equal(before.count, truth.count - 1, 'not counted before the rewind');
    await rollups.rewind(NOW);
    const { state, found } = await viaRollups(store, rollups, 'tag', '14d', NOW);
    assert.deepEqual(found, await direct(store, 'tag', state.aged14d));
    assert.equal(found.get('BOW')!.count, before.count + 1, 'a rewind recounts: no sale counted twice');
  });

  it('two processes catching up at once count every hour once', async () => {
    const { store } = fixture();
    await store.saleRollups.rewind(Math.floor((NOW - 14 * DAY) / HOUR_MS) * HOUR_MS);
    const a = new SalesRollupJob(store, new ManualClock(NOW));
    const b = new SalesRollupJob(store, new ManualClock(NOW));
    await Promise.all([a.catchUp(NOW), b.catchUp(NOW)]);
    const { state, found } = await viaRollups(store, a, 'attr', '7d', NOW);
    assert.deepEqual(found, await direct(store, 'attr', state.aged7d));
  });

  it('windows age: counters follow, the windowed kinds are dropped after 14 days, tag hours kept', async () => {
    const { store } = fixture();
    const later = NOW + 8 * DAY;
    const rollups = new SalesRollupJob(store, new ManualClock(later));
    const { state, found } = await viaRollups(store, rollups, 'attr', '7d', later);
    assert.deepEqual(found, await direct(store, 'attr', state.aged7d), 'the 7-day window after 8 days');
    const mayor = await viaRollups(store, rollups, 'mayor', '14d', later);
    assert.deepEqual(mayor.found, await direct(store, 'mayor', state.aged14d));
    const gone = NOW + 40 * DAY;
    await rollups.catchUp(gone);
    const db = store.kysely;
    const kinds = await db.selectFrom('sale_variants').select(['kind']).execute();
    assert.deepEqual([...new Set(kinds.map((k) => k.kind))].sort(), ['tag'], 'attr and mayor variants left with their hours');
    const hours = await db.selectFrom('sale_hours').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.ok(Number(hours.n) > 20 * 24 * 0.8, `tag hours kept (${hours.n})`);
    const tags = await variantsSelling(store, new SalesRollups(store), 'tag', '14d', 1, await store.saleRollups.state(), gone);
    assert.deepEqual(tags, [], 'nothing sold in the last 14 days');
  });
});

describeEachBackend('sales rollups: the flip engine reads', (fixture) => {
  it('kept attribute targets and mayor items equal a fresh computation as hours roll in and age out', async () => {
    const { store } = fixture();
    await fill(store);
    const job = new SalesRollupJob(store, new ManualClock(NOW));
    const kept = new SalesRollups(store);
    for (const step of [0, 20 * 60_000, 70 * 60_000, 3 * HOUR_MS, DAY + HOUR_MS, 8 * DAY]) {
      const now = NOW + step;
      if (step > 0) {
        // New sales in the open hour and one just closed.
        await storeSales(store, now, [sale(now, 5 * 60_000, { sold_price: 1234 + step / 60_000 }), sale(now, 65 * 60_000, { tag: 'BOW', item_name: 'Bow', sold_price: 2000 })]);
      }
      const state = await job.catchUp(now);
      const tail = await kept.rawTail(state, now);
      const fresh = new SalesRollups(store);
      const expected = (await variantsSelling(store, fresh, 'attr', '7d', 3, state, now, tail)).map((v) => [v.key, v.count, weightedMedian(v.points)]).sort();
      const targets = (await kept.attributeTargets(state, tail, 3)).map((t) => [t.key, t.count, t.median]).sort();
      assert.deepEqual(targets, expected, `attribute targets after ${step / 60_000} min`);
      if (step < 7 * DAY) assert.ok(targets.length > 0, `targets after ${step / 60_000} min`);
      const mayor = await kept.mayorItems(state, tail, 3);
      const all = await variantsSelling(store, fresh, 'mayor', '14d', 3, state, now, tail);
      for (const item of mayor) {
        const ofTag = all.filter((v) => v.tag === item.tag);
        assert.equal(item.count, Math.max(...ofTag.map((v) => v.count)), `${item.tag}: its most sold variant`);
        const same = ofTag.filter((v) => v.count === item.count).sort((a, b) => (a.key < b.key ? -1 : 1))[0]!;
        assert.deepEqual(item.samples.map((x) => x.price).sort(), same.samples.map((x) => x.price).sort());
      }
      assert.deepEqual(mayor.map((m) => m.tag).sort(), [...new Set(all.map((v) => v.tag))].sort());
    }
  });
});
