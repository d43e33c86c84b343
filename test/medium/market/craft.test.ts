import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { builtinGameData } from '../../../src/gamedata/builtin.ts';
import { CraftMarket } from '../../../src/market/craft.ts';
import type { Store } from '../../../src/store/index.ts';
import { offerRow } from '../../helpers/bazaar.ts';
import { openTestStore } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('crafting view', () => {
  let store: Store;
  let close: () => Promise<void>;
  before(async () => {
    ({ store, close } = await openTestStore('sqlite'));
  });
  after(() => close());

  const snapshot = async (ts: number, wheat: number, enchanted: number) => {
    await store.bazaar.insertSnapshot([offerRow('WHEAT', ts, wheat), offerRow('ENCHANTED_WHEAT', ts, enchanted)], { name: 'bazaar', lastUpdated: ts, storedAt: ts, records: 2, source: 'simulator' });
  };

  test('rebuilds only when a feed moved, and then reflects the new prices', async () => {
    const view = new CraftMarket({ store, game: builtinGameData(), clock: new ManualClock(NOW) });
    const empty = await view.current();
    assert.deepEqual(empty.profits, []);
    assert.equal(await view.current(), empty, 'nothing moved: the same state');
    await snapshot(NOW, 2, 1000);
    const first = await view.current();
    assert.notEqual(first, empty);
    const row = first.profits.find((p) => p.itemId === 'ENCHANTED_WHEAT')!;
    assert.equal(row.craftCost, 320);
    assert.equal(row.sellPrice, 999.9);
    await snapshot(NOW + 20_000, 2, 300);
    const second = await view.current();
    assert.equal(second.profits.find((p) => p.itemId === 'ENCHANTED_WHEAT'), undefined, 'no longer profitable');
    assert.equal(second.prices.derpy, false);
    // Concurrent callers share one rebuild; the mayor is read with it (Derpy raises auction fees).
    await store.elections.upsert({ year: 400, mayorKey: 'derpy', mayorName: 'Derpy', payload: {}, updatedAt: NOW });
    await store.feeds.record({ name: 'election', lastUpdated: NOW, storedAt: NOW, records: 1, source: 'simulator' });
    await snapshot(NOW + 40_000, 2, 1000);
    const [a, b] = await Promise.all([view.current(), view.current()]);
    assert.equal(a, b);
    assert.equal(a.prices.derpy, true);
  });
});
