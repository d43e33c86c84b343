/** FlipsService over a fake flip engine (FlipResults): the feeds before and after a computation, no market. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FlipsService, type FlipResults } from '../../../src/services/flips.ts';
import type { ForgeFlip } from '../../../src/domain/flips/forge.ts';
import type { BazaarFlipResults } from '../../../src/market/flips.ts';

function forgeFlip(tag: string, requiredHotMLevel: number): ForgeFlip {
  return { craftData: { itemId: tag } as ForgeFlip['craftData'], duration: 3600, requiredHotMLevel, profitPerHour: 1000, requirements: null, ingredientForgeSeconds: 0 };
}

/** An engine that has computed nothing yet; tests fill in its results. */
function fakeEngine(): FlipResults & { refreshes: boolean[]; fail?: Error } {
  const engine: FlipResults & { refreshes: boolean[]; fail?: Error } = {
    lastUpdate: null,
    bazaar: null,
    auctions: null,
    crafted: null,
    attributeVariants: [],
    residual: () => [],
    refreshes: [],
    refresh: async (force = false) => {
      engine.refreshes.push(force);
      if (engine.fail) throw engine.fail;
    },
  };
  return engine;
}

describe('FlipsService (unit, over a fake engine)', () => {
  it('before the first computation every feed is empty and has no time', () => {
    const service = new FlipsService(fakeEngine(), { katUpgrades: [] });
    assert.equal(service.lastUpdate(), null);
    assert.deepEqual(service.bazaar('spread'), { computedAt: null, flips: [] });
    assert.deepEqual(service.mayor(), { computedAt: null, flips: [] });
    assert.deepEqual(service.forge(), { computedAt: null, flips: [] });
    assert.deepEqual(service.kat(), { computedAt: null, flips: [] });
    assert.deepEqual(service.attributePrices(), {});
  });

  it('a bazaar feed answers the engine\'s list of that name with its computation time', () => {
    const engine = fakeEngine();
    const spread = [{ itemTag: 'WHEAT' }] as unknown as BazaarFlipResults['spread'];
    engine.bazaar = { computedAt: 42, snapshotAt: 40, spread, demand: [], books: [], npc: [], reverseNpc: [], fusion: [], multistep: [], copper: [], residual: [] };
    engine.lastUpdate = 40;
    const service = new FlipsService(engine, { katUpgrades: [] });
    assert.deepEqual(service.bazaar('spread'), { computedAt: 42, flips: spread });
    assert.deepEqual(service.bazaar('npc'), { computedAt: 42, flips: [] });
    assert.equal(service.lastUpdate(), 40);
  });

  it('forge flips are filtered by the Heart of the Mountain tier given, and all without one', () => {
    const engine = fakeEngine();
    const flips = [forgeFlip('A', 0), forgeFlip('B', 3), forgeFlip('C', 7)];
    engine.crafted = { computedAt: 9, forge: flips, kat: [] };
    const service = new FlipsService(engine, { katUpgrades: [] });
    assert.deepEqual(service.forge().flips, flips);
    assert.deepEqual(service.forge(3).flips.map((f) => f.craftData.itemId), ['A', 'B']);
    assert.deepEqual(service.forge(0).flips.map((f) => f.craftData.itemId), ['A']);
  });

  it('refreshNow forces a recomputation and answers a failure instead of throwing it', async () => {
    const engine = fakeEngine();
    const service = new FlipsService(engine, { katUpgrades: [] });
    assert.deepEqual(await service.refreshNow(), { ok: true });
    const boom = new Error('boom');
    engine.fail = boom;
    assert.deepEqual(await service.refreshNow(), { ok: false, error: boom });
    assert.deepEqual(engine.refreshes, [true, true]);
  });
});
