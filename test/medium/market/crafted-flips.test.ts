/**
 * The flip engine's forge and Kat flips: computed from the crafting view's state, again only when
 * that state is a new one, and a failing crafting view holds back neither the other feeds nor a
 * later computation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { mapPriceSource } from '../../../src/domain/craft/prices.ts';
import type { CraftState } from '../../../src/market/craft.ts';
import { FlipEngine } from '../../../src/market/flips.ts';
import { Store } from '../../../src/store/index.ts';
import { craft, game, quote } from '../../helpers/craft.ts';
import { craftProfits } from '../../../src/domain/craft/profit.ts';
import { insert, offerRow } from '../../helpers/bazaar.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';

const T = Date.UTC(2026, 10, 23, 10, 0, 0);
const FORGED = game([craft('REFINED_X', { X: 160 }, 1, { type: 'forge', durationSeconds: 3600 })]);

function state(offer: number): CraftState {
  const prices = mapPriceSource(new Map([['X', quote('X', [[1, 100_000]])], ['REFINED_X', quote('REFINED_X', [[offer, 100]])]]));
  return { prices, profits: craftProfits(FORGED, prices) } as unknown as CraftState;
}

describe('forge and Kat flips in the flip engine', () => {
  let dir: TempDir;
  let store: Store;
  before(async () => {
    dir = tempDir('crafted-flips');
    store = await Store.open({ dataDir: dir.path });
    await insert(store, [offerRow('WHEAT', T, 10)]);
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it('recomputes when the crafting view has a new state, and only then', async () => {
    const clock = new ManualClock(T);
    let current = state(1000);
    const engine = new FlipEngine(store, clock, undefined, { pollMs: 0, craft: { game: FORGED, current: async () => current } });
    await engine.refresh();
    const first = engine.crafted!;
    assert.equal(first.forge[0]!.craftData.itemId, 'REFINED_X');
    assert.equal(first.forge[0]!.profitPerHour, 827.4, '999.9 × 0.9875 − 160 over 1 h');
    clock.advance(60_000);
    await engine.refresh();
    assert.equal(engine.crafted, first, 'the same state: nothing recomputed');
    current = state(2000);
    await engine.refresh();
    assert.notEqual(engine.crafted, first);
    assert.equal(engine.crafted!.computedAt, T + 60_000);
    assert.equal(engine.crafted!.forge[0]!.profitPerHour, 1814.9, '1,999.9 × 0.9875 − 160');
  });

  it('a failing crafting view holds back neither the other feeds nor the next computation', async () => {
    const clock = new ManualClock(T);
    let fail = true;
    const engine = new FlipEngine(store, clock, undefined, {
      pollMs: 0,
      craft: { game: FORGED, current: async () => (fail ? Promise.reject(new Error('store gone')) : state(1000)) },
    });
    await engine.refresh();
    assert.ok(engine.bazaar, 'the bazaar feeds were computed');
    assert.equal(engine.crafted, null);
    fail = false;
    await engine.refresh();
    assert.equal(engine.crafted!.forge.length, 1);
  });
});
