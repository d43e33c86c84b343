/**
 * Issue 44 ("Small things"): a fresh demo serves every averages file from its first minute. The
 * replayed history records each hour's lowest BIN from the BIN listings its sales were, so the
 * lowest-BIN averages do not wait for an hour to close after the start.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../../src/clock.ts';
import { loadConfig } from '../../../src/config.ts';
import { HOUR_MS } from '../../../src/domain/prices.ts';
import { ingestHistory } from '../../../src/ingest/history.ts';
import { ResourcesIngester } from '../../../src/ingest/resources.ts';
import { createLogger } from '../../../src/logger.ts';
import { DEMO_HISTORY_MARKER, startRuntime } from '../../../src/runtime.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator } from '../../../src/simulator/index.ts';
import { Store } from '../../../src/store/index.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { SIM_START } from '../../helpers/sim-market.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const dir = tempDir('history-lowest-bins');
after(() => dir.remove());

it('each replayed history hour records the lowest BIN of the listings its BIN sales were', async () => {
  const store = await Store.open({ dataDir: dir.path });
  const clock = new ManualClock(SIM_START);
  const sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, seed: 7, auctions: 300, products: 5, backfillMs: 3 * HOUR_MS, port: 0 }, { clock, tickMs: 0 });
  try {
    const ctx = testIngestContext({ store, clock, baseUrl: sim.url, source: 'simulator' });
    await new ResourcesIngester(ctx).pollItems();
    await ingestHistory(sim.backfill(), ctx);
    const sales = (await store.flipInputs.soldBetween(SIM_START - 3 * HOUR_MS, SIM_START)).filter((s) => s.count === 1);
    assert.ok(sales.length > 0);
    // Every BIN sale of a history hour was a listing in that hour: the hour's recorded lowest BIN of
    // its tag is at most its price, and is itself a real listing of the history (a stored BIN sale
    // listed in that hour, at its price per item).
    let checked = 0;
    for (let hour = SIM_START - 3 * HOUR_MS; hour < SIM_START; hour += HOUR_MS) {
      const inHour = sales.filter((s) => s.at >= hour && s.at < hour + HOUR_MS).slice(0, 25);
      assert.ok(inHour.length > 0, `sales in hour ${new Date(hour).toISOString()}`);
      for (const sale of inHour) {
        if (!(await store.auctions.get(sale.uuid))?.bin) continue;
        const [bin] = await store.priceRollups.binHours(sale.tag, '', hour, hour + HOUR_MS);
        assert.ok(bin, `a lowest BIN of ${sale.tag} at ${new Date(hour).toISOString()}`);
        assert.ok(bin.lowest <= sale.price, `${bin.lowest} ≤ ${sale.price}`);
        const listing = await store.auctions.get(bin.uuid);
        assert.ok(listing && listing.bin && listing.start_at !== null && listing.sold_at !== null, `${bin.uuid} is a stored BIN sale`);
        assert.ok(listing.start_at! < hour + HOUR_MS && listing.sold_at! >= hour, `${bin.uuid} was listed in the hour`);
        assert.equal(bin.lowest, listing.starting_bid / listing.count);
        checked++;
      }
    }
    assert.ok(checked > 0);
    // Taken again (a cut-off replay resumed), the record stays the same.
    const before = await store.priceRollups.binHours(sales[0]!.tag, '', SIM_START - 3 * HOUR_MS, SIM_START);
    await ingestHistory(sim.backfill(), ctx);
    assert.deepEqual(await store.priceRollups.binHours(sales[0]!.tag, '', SIM_START - 3 * HOUR_MS, SIM_START), before);
  } finally {
    await sim.close();
    await store.close();
  }
});

it('a fresh demo serves non-empty averages files as soon as its history is loaded', async () => {
  const data = tempDir('history-lowest-bins-demo');
  const env = { DATA_DIR: data.path, DEMO: 'true', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', SIM_AUCTIONS: '150', SIM_BACKFILL: '3h', REDIS_URL: '', DATABASE_URL: '' };
  const runtime = await startRuntime(loadConfig(env), { logger: createLogger('silent') });
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const health = (await (await fetch(`${runtime.url}/api/health`)).json()) as { status: string };
      if (health.status !== 'loading' && !existsSync(join(data.path, DEMO_HISTORY_MARKER))) break;
      assert.ok(Date.now() < deadline, 'the demo history loads');
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const path of ['/neu/auction_averages_lbin/1day.json', '/neu/auction_averages_lbin/7day.json', '/resources/auctions/neu/average-lbin/3day', '/neu/auction_averages/1day.json']) {
      const res = await fetch(`${runtime.url}${path}`);
      assert.equal(res.status, 200, `${path}: ${res.status}`);
      const body = (await res.json()) as Record<string, unknown>;
      assert.ok(Object.keys(body).length > 0, `${path} has entries`);
    }
  } finally {
    await runtime.close();
    data.remove();
  }
});
