/**
 * The composition root (src/compose.ts) by role, on a real SQLite store: which parts each role
 * gets, and that parts handed in are used as given (what app.ts relies on for runtime.ts's parts).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { compose, type CompositionInput } from '../../../src/compose.ts';
import { loadConfig } from '../../../src/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { createMetrics } from '../../../src/metrics.ts';
import { Store } from '../../../src/store/index.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

describe('compose (the one composition root)', async () => {
  const dir = tempDir('compose');
  const store = await Store.open({ dataDir: dir.path });
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'silent' });
  const closers: Array<() => Promise<unknown>> = [];
  after(async () => {
    for (const close of closers.reverse()) await close();
    await store.close();
    dir.remove();
  });

  const input = (roles: Pick<CompositionInput, 'serveApi' | 'ingests' | 'publishesChanges'>, given?: CompositionInput['given']): CompositionInput => ({
    config,
    store,
    clock: new ManualClock(Date.UTC(2026, 10, 29)),
    logger: createLogger('silent'),
    registry: createMetrics({ defaultMetrics: false }).registry,
    dataSource: 'simulator',
    ...roles,
    ...(given ? { given } : {}),
  });
  const composed = (parts: ReturnType<typeof compose>) => {
    closers.push(async () => parts.market?.close(), async () => parts.streamHub?.close(), async () => parts.spine?.close());
    return parts;
  };

  it('role all: spine, market, hub, events and services, all built here', () => {
    const parts = composed(compose(input({ serveApi: true, ingests: true, publishesChanges: true })));
    assert.ok(parts.spine && parts.market && parts.streamHub && parts.marketEvents && parts.services);
    assert.equal(parts.store, store);
    assert.deepEqual(parts.owned, { spine: true, market: true, streamHub: true, marketEvents: true });
    assert.equal(parts.followerEvents, undefined, 'the underpriced list follows the events this process publishes');
  });

  it('role api: a market and services over a hub, no market events (they arrive through Redis); events of its own from the spine for the underpriced list', () => {
    const parts = composed(compose(input({ serveApi: true, ingests: false, publishesChanges: false })));
    assert.ok(parts.market && parts.streamHub && parts.services);
    assert.equal(parts.marketEvents, undefined);
    assert.ok(parts.followerEvents, 'the replica derives the events its underpriced list follows');
  });

  it('role ingest: a hub fed by the market events, no market and no services', () => {
    const parts = composed(compose(input({ serveApi: false, ingests: true, publishesChanges: true })));
    assert.ok(parts.spine && parts.streamHub && parts.marketEvents);
    assert.equal(parts.market, undefined);
    assert.equal(parts.services, undefined);
  });

  it('role jobs: the spine only', () => {
    const parts = composed(compose(input({ serveApi: false, ingests: false, publishesChanges: false })));
    assert.ok(parts.spine);
    assert.deepEqual([parts.market, parts.streamHub, parts.marketEvents, parts.services], [undefined, undefined, undefined, undefined]);
  });

  it('parts handed in are used as given and not owned; marketEvents null means none', () => {
    const first = composed(compose(input({ serveApi: true, ingests: true, publishesChanges: true })));
    const again = compose(input({ serveApi: true, ingests: true, publishesChanges: true }, { spine: first.spine, market: first.market, streamHub: first.streamHub, marketEvents: null, services: first.services }));
    assert.equal(again.market, first.market);
    assert.equal(again.streamHub, first.streamHub);
    assert.equal(again.services, first.services);
    assert.equal(again.spine, first.spine);
    assert.equal(again.marketEvents, undefined);
    assert.deepEqual(again.owned, { spine: false, market: false, streamHub: false, marketEvents: false });
  });
});
