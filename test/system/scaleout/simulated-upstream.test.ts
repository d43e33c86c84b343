/**
 * The scale-out fed by `skymarket simulate` says its data is simulated, as the demo does: the
 * simulator (a spawned process) marks every answer, ingestion (configured for an upstream, as an
 * ingest process is) records the feeds as simulated, and the service says so in health, the
 * banner, the footer, the page labels and on the data page.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { Ingestion } from '../../../src/ingest/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { freePort } from '../../helpers/services.ts';

const BIN = join(import.meta.dirname, '../../../bin/skymarket.js');

describe('a service fed by a spawned `skymarket simulate`', () => {
  let simulator: ChildProcess;
  let output = '';
  let upstream: string;
  let t: TestApp;
  let ingestion: Ingestion;

  before(async () => {
    const port = await freePort();
    simulator = spawn(process.execPath, [BIN, 'simulate', '--port', String(port)], {
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', SIM_AUCTIONS: '300', SIM_BACKFILL: '30m', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    simulator.stdout!.on('data', (d) => (output += d));
    simulator.stderr!.on('data', (d) => (output += d));
    upstream = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    let ready = false;
    while (!ready && Date.now() < deadline && simulator.exitCode === null) {
      ready = (await fetch(`${upstream}/v2/skyblock/bazaar`).catch(() => undefined))?.status === 200;
      if (!ready) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(ready, `the simulator answers: ${output}`);

    t = await createTestApp({ env: { WEB_PAGE_CACHE_MS: '0' } });
    t.clock.set(Date.now());
    ingestion = new Ingestion({
      upstreamUrl: upstream,
      timeoutMs: 10_000,
      concurrency: 2,
      intervals: { auctionsMs: 60_000, endedMs: 60_000, bazaarMs: 60_000, itemsMs: 60_000, electionMs: 60_000 },
      store: t.store,
      clock: t.clock,
      logger: createLogger('silent'),
      registry: new Registry(),
      // What an ingest process of the scale-out is configured with: an upstream URL, no demo.
      source: 'upstream',
    });
  });

  after(async () => {
    await ingestion?.stop();
    await t?.close();
    simulator?.kill('SIGTERM');
  });

  it('reports real data before anything is ingested, simulated data once the simulator fed it', async () => {
    const before = (await t.app.inject('/api/health')).json() as { dataSource: string; simulated: boolean };
    assert.deepEqual([before.dataSource, before.simulated], ['upstream', false]);

    await ingestion.resources.pollItems();
    await ingestion.resources.pollElection();
    await ingestion.bazaar.pollOnce();
    await ingestion.auctions.pollOnce();

    const health = (await t.app.inject('/api/health')).json() as { dataSource: string; simulated: boolean; feeds: Record<string, { source: string }> };
    assert.deepEqual([health.dataSource, health.simulated], ['simulator', true]);
    for (const feed of ['auctions', 'bazaar', 'items', 'election']) assert.equal(health.feeds[feed]?.source, 'simulator', feed);
  });

  it('says so on every page: banner, footer, the data page, the chart labels', async () => {
    const home = (await t.app.inject('/')).body;
    assert.match(home, /<p class="banner" role="note">Simulated market data/);
    assert.match(home, /simulated by the skymarket simulator, not from the Hypixel API/);
    assert.doesNotMatch(home, /· from the Hypixel API ·/);

    const data = (await t.app.inject('/data')).body;
    assert.match(data, /id="simulated"><strong>The data this service serves now is simulated/);

    const tag = (await t.store.kysely.selectFrom('auctions').select('tag').limit(1).executeTakeFirstOrThrow()).tag;
    const item = await t.app.inject(`/item/${tag}`);
    assert.equal(item.statusCode, 200, item.body.slice(0, 300));
    assert.match(item.body, /From simulated sales/);
    assert.doesNotMatch(item.body, /From real sales/);

    const product = (await t.store.kysely.selectFrom('bazaar_snapshots').select('product_id').limit(1).executeTakeFirstOrThrow()).product_id;
    const bazaar = await t.app.inject(`/bazaar/${product}`);
    assert.equal(bazaar.statusCode, 200, bazaar.body.slice(0, 300));
    assert.match(bazaar.body, /OHLC of simulated 20-second snapshots/);
  });
});
