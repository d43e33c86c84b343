/**
 * A demo history backfill cut off part-way (issue 45 item 4: `kill -9` while it loads) is replayed
 * whole on the next start: what was stored already is taken again without error, and the history
 * then covers the whole span.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { ingestHistory, type HistoryBatch } from '../../../src/ingest/history.ts';
import { ResourcesIngester } from '../../../src/ingest/resources.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator } from '../../../src/simulator/index.ts';
import { Store } from '../../../src/store/index.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { SIM_START } from '../../helpers/sim-market.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const dir = tempDir('history-resume');
after(() => dir.remove());

it('a backfill cut off after a few batches is replayed whole on the next start', async () => {
  const store = await Store.open({ dataDir: dir.path });
  const clock = new ManualClock(SIM_START);
  const sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, seed: 5, auctions: 200, products: 20, backfillMs: 6 * 3_600_000, port: 0 }, { clock, tickMs: 0 });
  try {
    const ctx = testIngestContext({ store, clock, baseUrl: sim.url, source: 'simulator' });
    await new ResourcesIngester(ctx).pollItems();
    // The first run stops after 3 batches (the process was killed).
    function* firstBatches(): Iterable<HistoryBatch> {
      let n = 0;
      for (const batch of sim.backfill()) {
        if (n++ >= 3) return;
        yield batch;
      }
    }
    const cut = await ingestHistory(firstBatches(), ctx);
    const whole = await ingestHistory(sim.backfill(), ctx);
    assert.ok(whole.snapshots > cut.snapshots, `${cut.snapshots} then ${whole.snapshots}`);
  } finally {
    await sim.close();
    await store.close();
  }
});

it('a demo that finds the marker of a cut-off history loads it again (health says loading), and drops the marker once loaded', async () => {
  const { loadConfig } = await import('../../../src/config.ts');
  const { createLogger } = await import('../../../src/logger.ts');
  const { startRuntime, DEMO_HISTORY_MARKER } = await import('../../../src/runtime.ts');
  const { existsSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const data = tempDir('history-resume-demo');
  const env = { DATA_DIR: data.path, DEMO: 'true', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', SIM_AUCTIONS: '100', SIM_BACKFILL: '2h', REDIS_URL: '', DATABASE_URL: '' };
  // The first run stores live data, then "dies" mid-history: its feed rows exist and the marker is left.
  const first = await startRuntime(loadConfig(env), { logger: createLogger('silent') });
  await first.close();
  writeFileSync(join(data.path, DEMO_HISTORY_MARKER), 'cut off\n');
  const second = await startRuntime(loadConfig(env), { logger: createLogger('silent') });
  try {
    const statuses: string[] = [];
    const deadline = Date.now() + 120_000;
    for (;;) {
      const health = (await (await fetch(`${second.url}/api/health`)).json()) as { status: string };
      if (statuses.at(-1) !== health.status) statuses.push(health.status);
      if (!existsSync(join(data.path, DEMO_HISTORY_MARKER)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(existsSync(join(data.path, DEMO_HISTORY_MARKER)), false, 'the marker goes once the history is in');
    assert.ok(statuses.includes('loading'), `health: ${statuses.join(' → ')}`);
  } finally {
    await second.close();
    data.remove();
  }
});
