/**
 * Issue 43, split deployment: an ingest composition (role ingest: the market's events, no market,
 * no services) writes a PostgreSQL schema and relays its changes and events over one Redis prefix;
 * two api replicas (their own stores on the same schema, no market events) serve
 * `GET /api/flip/auctions`. Each replica derives the market's events from the spine it follows and
 * values the new BIN listings itself: both serve the same non-empty list, and each kept listing is
 * on the shared live feed as `auction.underpriced` exactly once (the replicas claim it).
 */
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { after, before, describe, it } from 'node:test';
import { compose, type Composition } from '../../../src/compose.ts';
import { loadConfig } from '../../../src/config.ts';
import type { DraftEvent } from '../../../src/domain/stream-events.ts';
import { createLogger } from '../../../src/logger.ts';
import { createMetrics } from '../../../src/metrics.ts';
import { Store } from '../../../src/store/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { IN_CI, POSTGRES_TEST_URL, dropSchema, postgresUnavailable, uniqueSchema } from '../../helpers/databases.ts';
import { dropRedisPrefix, probeRedis } from '../../helpers/services.ts';
import { fillFromSimulator, type SimMarket } from '../../helpers/sim-market.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { waitUntil } from '../../helpers/wait.ts';

const REDIS_URL = process.env.REDIS_URL_TEST ?? 'redis://127.0.0.1:6379';
const redisUnavailable = await probeRedis(REDIS_URL);

interface Row {
  uuid: string;
  price: number;
  value: number;
  profit: number;
}

describe('api replicas serve the underpriced list and feed [postgres + redis]', { skip: (postgresUnavailable || redisUnavailable) && !IN_CI ? 'PostgreSQL or Redis unreachable' : false, timeout: 300_000 }, () => {
  const schema = uniqueSchema('under');
  const prefix = `skymarket-test:${schema}:`;
  const env = { REDIS_URL, REDIS_PREFIX: prefix, FLIPS_POLL_MS: '0' };
  const dir = tempDir('underpriced-replicas');
  const stores: Store[] = [];
  let sim: SimMarket;
  let ingest: Composition;
  let replicas: TestApp[] = [];

  const open = async () => {
    const store = await Store.open({ databaseUrl: POSTGRES_TEST_URL, dataDir: dir.path, schema });
    stores.push(store);
    return store;
  };

  before(async () => {
    const writer = await open();
    // History (4 hours of sales to value against) and two generations, written before the processes start.
    sim = await fillFromSimulator(writer, { auctions: 600, historyHours: 4, detailedMinutes: 20, generations: 2 });
    // The ingest process's composition: the spine relays its store's changes to Redis, its events fill the hub.
    const config = loadConfig({ ...env, ROLE: 'ingest', DATA_DIR: dir.path, LOG_LEVEL: 'silent' });
    ingest = compose({ config, store: writer, clock: sim.clock, logger: createLogger('silent'), registry: createMetrics({ defaultMetrics: false }).registry, dataSource: 'simulator', serveApi: false, ingests: true, publishesChanges: true });
    assert.equal(ingest.services, undefined, 'role ingest has no services: the list is not computed there');
    await ingest.streamHub!.start();
    await ingest.marketEvents!.start();
    // Two api replicas: no market events of their own (as `--role api`), each on its own connection.
    for (let i = 0; i < 2; i++) {
      const t = await createTestApp({ store: await open(), env: { ...env, ROLE: 'api' }, dataSource: 'simulator', context: { marketEvents: null } });
      t.clock.set(sim.clock.now());
      replicas.push(t);
    }
  });
  after(async () => {
    for (const t of replicas) await t.close();
    replicas = [];
    ingest?.marketEvents?.stop();
    await ingest?.streamHub?.close();
    await ingest?.spine?.close();
    await sim?.close();
    for (const s of stores) await s.close();
    await dropSchema(schema);
    await dropRedisPrefix(REDIS_URL, prefix);
    dir.remove();
  });

  const list = async (t: TestApp) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/flip/auctions?limit=500' });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    return res.json() as Row[];
  };

  it('both replicas list the same underpriced listings, and each is told on the shared feed once', async () => {
    const [a, b] = replicas as [TestApp, TestApp];
    // New generations, as the ingest leader writes them: the replicas follow them over Redis.
    for (let g = 0; g < 8; g++) {
      sim.clock.advance(60_000);
      for (const t of replicas) t.clock.set(sim.clock.now());
      sim.sim.market.advanceTo(sim.clock.now());
      await sim.auctions.pollOnce();
      await sim.ended.pollOnce();
      await ingest.spine!.redis!.flushed();
      const head = await ingest.spine!.source.head();
      // Both replicas' lists took every change written so far (their views follow the same stream).
      await waitUntil(() => replicas.every((t) => t.app.market.followers.all.every((f) => f.seq >= head)), 60_000, `the replicas at change ${head}`);
      for (const t of replicas) await t.app.services.underpriced.idle();
      if (g >= 2 && a.app.services.underpriced.size >= 3) break;
    }
    const [onA, onB] = [await list(a), await list(b)];
    assert.ok(onA.length > 0, 'the api replica lists underpriced listings (it listed none before issue 43\'s fix)');
    assert.deepEqual(onB.map((r) => [r.uuid, r.price, r.value]), onA.map((r) => [r.uuid, r.price, r.value]), 'both replicas serve the same list');
    for (const r of onA) assert.ok(r.profit > 0 && r.price < r.value, `${r.uuid}: ${r.price} against ${r.value}`);

    // The shared feed: every listing a replica kept is there as `auction.underpriced`, once.
    const kept = new Set(onA.map((r) => r.uuid));
    const told = new Map<string, number>();
    const redis = new Redis(REDIS_URL);
    try {
      // Polled: the claiming replica's append may still be on its way.
      await waitUntil(
        async () => {
          told.clear();
          for (const [, fields] of await redis.xrange(`${prefix}stream:events`, '-', '+')) {
            const events = JSON.parse(fields[fields.indexOf('events') + 1]!) as DraftEvent[];
            for (const e of events) if (e.topic === 'auction.underpriced') told.set(e.uuid, (told.get(e.uuid) ?? 0) + 1);
          }
          return [...kept].every((u) => told.has(u));
        },
        20_000,
        'every kept listing on the shared feed',
        50,
      );
    } finally {
      redis.disconnect();
    }
    for (const uuid of kept) assert.equal(told.get(uuid), 1, `${uuid} told once on the shared feed`);
  });
});
