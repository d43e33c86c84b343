/**
 * The profit list filtered by a player's unlocked requirements, with the player's profile queued
 * by the request in the store, fetched by the ingest poller from a fake upstream profile endpoint
 * (UPSTREAM_API_KEY configured) or the simulator, and read back from the store; on SQLite and
 * PostgreSQL.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { levelFromXp, pickProfile, progressOfMember, trimProfiles } from '../../../src/domain/craft/progress.ts';
import { MAX_MEMBER_INVENTORY_CHARS } from '../../../src/domain/valuation/networth.ts';
import { loadNeuRepository } from '../../../src/gamedata/neu.ts';
import { Ingestion } from '../../../src/ingest/index.ts';
import { PROFILE_RETENTION_MS, ProfileIngester } from '../../../src/ingest/profiles.ts';
import { createLogger } from '../../../src/logger.ts';
import { MAX_QUEUED_PROFILES, MAX_QUEUED_PROFILES_PER_CLIENT } from '../../../src/services/player-progress.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { FakeUpstream } from '../../helpers/fake-upstream.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';
import { storeMiniRepoPricesServed, writeMiniRepo } from '../../helpers/mini-repo.ts';
import { waitUntil } from '../../helpers/wait.ts';

const UUID = '0123456789abcdef0123456789abcdef';
const OTHER = 'fedcba9876543210fedcba9876543210';

function profiles(wheatTier: number) {
  return {
    success: true,
    profiles: [
      { profile_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', cute_name: 'Apple', selected: false, members: { [UUID]: { player_data: { unlocked_coll_tiers: ['WHEAT_9'] } } } },
      {
        profile_id: 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb',
        cute_name: 'Banana',
        selected: true,
        members: {
          [UUID]: {
            player_data: { unlocked_coll_tiers: [`WHEAT_${wheatTier}`, 'INK_SACK:3_2'], experience: { SKILL_FARMING: 175 } },
            slayer: { slayer_bosses: { zombie: { claimed_levels: { level_1: true, level_2: true, level_7_special: true } } } },
            mining_core: { experience: 9500 },
          },
        },
      },
    ],
  };
}

describe('player progress from a profile (pure)', () => {
  test('levels from XP, profile choice, collections by id and name, slayers, HotM', () => {
    const table = [50, 125, 200];
    assert.equal(levelFromXp(0, table, 3), 0);
    assert.equal(levelFromXp(175, table, 3), 2);
    assert.equal(levelFromXp(1e9, table, 2), 2);
    const body = profiles(5);
    assert.equal(pickProfile(body.profiles, undefined)!.cute_name, 'Banana');
    assert.equal(pickProfile(body.profiles, 'apple')!.cute_name, 'Apple');
    assert.equal(pickProfile(body.profiles, 'AAAAAAAA-AAAA-AAAA-AAAA-AAAAAAAAAAAA')!.cute_name, 'Apple');
    assert.equal(pickProfile(body.profiles, 'Cherry'), undefined);
    const dir = tempDir('progress');
    try {
      writeMiniRepo(dir.path);
      const game = { ...loadNeuRepository(dir.path), leveling: { skill: [50, 125, 200], runecrafting: [], social: [], hotm: [0, 3000, 9000, 25000], caps: { farming: 50 } } };
      const progress = progressOfMember(pickProfile(body.profiles, undefined)!, UUID, game)!;
      assert.equal(progress.collections!.WHEAT, 5);
      assert.equal(progress.collections!['Cocoa Beans'], 2, 'by display name through game data');
      assert.equal(progress.slayers!.zombie, 7);
      assert.equal(progress.skills!.farming, 2);
      assert.equal(progress.skills!.hotm, 3);
      assert.equal(progressOfMember(pickProfile(body.profiles, undefined)!, OTHER, game), undefined);
      // What the store keeps: the same progress from a fraction of the profile (networth's containers
      // are kept up to their bound; other members and oversized containers are not).
      const noisy = profiles(5);
      const banana = noisy.profiles[1]!.members as Record<string, Record<string, unknown>>;
      banana[UUID]!.inventory = { inv_contents: { data: 'x'.repeat(10_000) }, ender_chest_contents: { data: 'y'.repeat(MAX_MEMBER_INVENTORY_CHARS) } };
      banana[OTHER] = { player_data: { unlocked_coll_tiers: ['WHEAT_9'] }, inventory: { inv_contents: { data: 'z'.repeat(10_000) } } };
      const trimmed = trimProfiles(noisy.profiles, UUID);
      assert.deepEqual(progressOfMember(pickProfile(trimmed, undefined)!, UUID, game), progress);
      assert.equal(pickProfile(trimmed, 'apple')!.cute_name, 'Apple');
      const kept = JSON.stringify(trimmed);
      assert.ok(kept.includes('x'.repeat(10_000)), 'the player\'s inventory is kept for networth');
      assert.ok(kept.length < 12_000, 'the other member and the container past the bound are not kept');
      assert.deepEqual(trimProfiles(null, UUID), []);
    } finally {
      dir.remove();
    }
  });
});

describeEachBackend('profit list filtered by the player\'s profile', (fixture) => {
  let dir: TempDir;
  let upstream: FakeUpstream;
  let t: TestApp;
  let ingester: ProfileIngester;

  before(async () => {
    dir = tempDir('craft-progress');
    writeMiniRepo(join(dir.path, 'neu'));
    const game = loadNeuRepository(join(dir.path, 'neu'));
    upstream = await new FakeUpstream()
      .on(`/v2/skyblock/profiles?uuid=${UUID}`, { body: profiles(5) }, { body: profiles(6) })
      .on(`/v2/skyblock/profiles?uuid=${OTHER}`, { status: 404, body: { success: false, cause: 'No profiles' } })
      .start();
    t = await createTestApp({ env: { DATA_DIR: dir.path, UPSTREAM_API_KEY: 'test-key' }, game, store: fixture().store });
    ingester = new ProfileIngester(testIngestContext({ store: t.store, clock: t.clock, baseUrl: upstream.url, retries: 0 }));
    await storeMiniRepoPricesServed(t);
  });
  after(async () => {
    await t.close();
    await upstream.stop();
    dir.remove();
  });

  const ids = (res: { json(): unknown }) => (res.json() as Array<{ itemId: string }>).map((r) => r.itemId);
  const filterOf = (res: { headers: Record<string, unknown> }) => String(res.headers['x-craft-filter']);

  test('unfiltered while the profile is fetched, then filtered by the unlocked collection tier', async () => {
    const first = await t.app.inject(`/api/craft/profit?player=${UUID}`);
    assert.match(filterOf(first), /^unfiltered; fetching/);
    assert.deepEqual(ids(first), ['ENCHANTED_WHEAT']);
    // The request only queued the fetch: upstream is called by the poller, once per player however often it is asked.
    await t.app.inject(`/api/craft/profit?player=${UUID.toUpperCase()}`);
    assert.equal(upstream.hits.get(`/v2/skyblock/profiles?uuid=${UUID}`), undefined, 'no upstream call on the request path');
    assert.deepEqual(await t.store.profileRequests.queued(10), [UUID]);
    assert.deepEqual(await ingester.pollOnce(), { stored: 1, failed: 0, pruned: 0 });
    assert.deepEqual(await t.store.profileRequests.queued(10), []);

    const filtered = await t.app.inject(`/api/craft/profit?player=${UUID}`);
    assert.match(filterOf(filtered), /^filtered/);
    assert.deepEqual(ids(filtered), [], 'Wheat V < Wheat VI');
    const apple = await t.app.inject(`/api/craft/profit?player=${UUID}&profile=Apple`);
    assert.deepEqual(ids(apple), ['ENCHANTED_WHEAT'], 'Wheat IX on the Apple profile');
    await ingester.pollOnce();
    assert.equal(upstream.hits.get(`/v2/skyblock/profiles?uuid=${UUID}`), 1, 'stored: one upstream call');
    // Once the profiles are old, a request queues a new fetch and is answered from the old ones meanwhile.
    t.clock.advance(11 * 60_000);
    const stale = await t.app.inject(`/api/craft/profit?player=${UUID}`);
    assert.match(filterOf(stale), /^filtered/);
    assert.deepEqual(await t.store.profileRequests.queued(10), [UUID]);
    await ingester.pollOnce();
    assert.deepEqual(ids(await t.app.inject(`/api/craft/profit?player=${UUID}`)), ['ENCHANTED_WHEAT'], 'Wheat VI now');
  });

  test('unknown players, names and missing profiles stay unfiltered with the reason', async () => {
    await t.app.inject(`/api/craft/profit?player=${OTHER}`);
    assert.deepEqual(await ingester.pollOnce(), { stored: 0, failed: 1, pruned: 0 });
    const other = await t.app.inject(`/api/craft/profit?player=${OTHER}`);
    assert.match(filterOf(other), /^unfiltered; upstream answered 404/);
    const row = await t.store.profileRequests.get(OTHER);
    assert.equal(row?.attempts, 1);
    assert.deepEqual(await t.store.profileRequests.queued(10), [], 'a failure is answered for a while before it is asked again');
    // After the failure's wait a request queues another fetch.
    t.clock.advance(61_000);
    assert.match(filterOf(await t.app.inject(`/api/craft/profit?player=${OTHER}`)), /^unfiltered; fetching/);
    await ingester.pollOnce();
    assert.equal((await t.store.profileRequests.get(OTHER))?.attempts, 2);
    t.clock.advance(61_000);
    await t.app.inject(`/api/craft/profit?player=${OTHER}`);
    assert.deepEqual(await t.store.profileRequests.queued(10), [], 'the wait doubles with each failure in a row');

    const name = await t.app.inject('/api/craft/profit?player=Notch');
    assert.match(filterOf(name), /pass the player uuid/);
    const missing = await t.app.inject(`/api/craft/profit?player=${UUID}&profile=Cherry`);
    assert.match(filterOf(missing), /no profile Cherry/);
  });

  test('one client cannot fill the queue with random players: it holds its share, others still queue (issue 45 item 5)', async () => {
    const origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const random = (i: number) => `c${i.toString(16).padStart(31, '0')}`;
    const ask = async (player: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${origin}/api/craft/profit?player=${player}`, { headers });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      return res.headers.get('x-craft-filter') ?? '';
    };
    const queuedBefore = (await t.store.profileRequests.queued(MAX_QUEUED_PROFILES)).length;
    // The attack: one address asking for 3x its share of random players.
    const filters: string[] = [];
    for (let i = 0; i < MAX_QUEUED_PROFILES_PER_CLIENT * 3; i++) filters.push(await ask(random(i)));
    assert.equal(filters.filter((f) => /^unfiltered; fetching/.test(f)).length, MAX_QUEUED_PROFILES_PER_CLIENT);
    assert.match(filters.at(-1)!, new RegExp(`^unfiltered; you have ${MAX_QUEUED_PROFILES_PER_CLIENT} player profiles queued`));
    assert.equal((await t.store.profileRequests.queued(MAX_QUEUED_PROFILES)).length, queuedBefore + MAX_QUEUED_PROFILES_PER_CLIENT);
    // Asking again for a player it has queued keeps its place; another client (an account) still queues.
    assert.match(await ask(random(0)), /^unfiltered; fetching/);
    const token = (await t.store.accounts.create({ tier: 'free', now: t.clock.now() })).token;
    assert.match(await ask(random(1000), { authorization: `Bearer ${token}` }), /^unfiltered; fetching/);
    assert.ok(await t.store.profileRequests.get(random(1000)));
    // Once fetched, the client's share is free again.
    await ingester.pollOnce();
    assert.match(await ask(random(MAX_QUEUED_PROFILES_PER_CLIENT * 3)), /^unfiltered; fetching/);
  });

  test('a full queue answers unfiltered and queues nothing; the poller prunes old requests', async () => {
    const { store } = t;
    const now = t.clock.now();
    const player = (i: number) => i.toString(16).padStart(32, '0');
    // Through the route: a full queue answers unfiltered and queues nothing.
    for (let i = 1; i <= MAX_QUEUED_PROFILES; i++) await store.profileRequests.request(player(i), now, MAX_QUEUED_PROFILES);
    assert.equal((await store.profileRequests.queued(MAX_QUEUED_PROFILES + 1)).length, MAX_QUEUED_PROFILES);
    const full = await t.app.inject(`/api/craft/profit?player=${'b'.repeat(32)}`);
    assert.match(filterOf(full), /^unfiltered; too many player profiles are queued/);
    assert.equal(await store.profileRequests.get('b'.repeat(32)), undefined);
    // Nobody waits for a request older than the retention: the poller drops them (and old fetched rows).
    t.clock.advance(PROFILE_RETENTION_MS + 1);
    const pruned = await ingester.pollOnce();
    assert.ok(pruned.pruned >= MAX_QUEUED_PROFILES, `${pruned.pruned} pruned`);
    assert.deepEqual(await store.profileRequests.queued(10), []);
  });
});

describe('profile fetches without an API key', () => {
  test('the profit list says why it is unfiltered, and nothing is queued or polled', async () => {
    const t = await createTestApp();
    try {
      const res = await t.app.inject(`/api/craft/profit?player=${UUID}`);
      assert.match(String(res.headers['x-craft-filter']), /no UPSTREAM_API_KEY/);
      assert.equal(await t.store.profileRequests.get(UUID), undefined);
      const ingestion = new Ingestion({ upstreamUrl: 'http://127.0.0.1:9', timeoutMs: 100, concurrency: 1, intervals: { auctionsMs: 1000, endedMs: 1000, bazaarMs: 1000, itemsMs: 1000, electionMs: 1000 }, store: t.store, clock: t.clock, logger: createLogger('silent'), registry: new Registry(), source: 'upstream' });
      assert.equal(ingestion.profiles, undefined);
      assert.equal('profiles' in ingestion.status(), false);
      await ingestion.stop();
    } finally {
      await t.close();
    }
  });
});

describeEachBackend('profile fetches from the simulator', (fixture) => {
  let sim: SimulatorHandle;
  let t: TestApp;
  let ingestion: Ingestion;

  before(async () => {
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, seed: 7, auctions: 300, backfillMs: 0, port: 0 }, { tickMs: 0 });
    t = await createTestApp({ env: { UPSTREAM_API_KEY: 'test-key' }, store: fixture().store });
    ingestion = new Ingestion({
      upstreamUrl: sim.url,
      upstreamApiKey: 'test-key',
      timeoutMs: 2000,
      concurrency: 2,
      // Only the profiles poller matters here: the market feeds wait an hour.
      intervals: { auctionsMs: 3_600_000, endedMs: 3_600_000, bazaarMs: 3_600_000, itemsMs: 3_600_000, electionMs: 3_600_000, profilesMs: 20 },
      store: t.store,
      clock: t.clock,
      logger: createLogger('silent'),
      registry: new Registry(),
      source: 'simulator',
    });
  });
  after(async () => {
    await ingestion.stop();
    await t.close();
    await sim.close();
  });

  test('the ingest poller fetches a queued simulated player and the route reads it from the store', async () => {
    const player = sim.market.playerUuid(3);
    const first = await t.app.inject(`/api/craft/profit?player=${player}`);
    assert.match(String(first.headers['x-craft-filter']), /^unfiltered; fetching/);
    ingestion.start();
    await waitFor(async () => (await t.store.profileRequests.get(player))?.fetchedAt != null);
    const row = (await t.store.profileRequests.get(player))!;
    assert.equal(row.lastError, null);
    assert.ok(row.profiles && row.profiles.length >= 1);
    const filtered = await t.app.inject(`/api/craft/profit?player=${player}`);
    assert.match(String(filtered.headers['x-craft-filter']), /^filtered/);
    assert.equal(ingestion.status().profiles?.failures, 0);
    // A player the simulator does not know has no profiles: said so, not an error.
    const stranger = 'c'.repeat(32);
    await t.app.inject(`/api/craft/profit?player=${stranger}`);
    await waitFor(async () => (await t.store.profileRequests.get(stranger))?.fetchedAt != null);
    assert.match(String((await t.app.inject(`/api/craft/profit?player=${stranger}`)).headers['x-craft-filter']), /^unfiltered; the player has no SkyBlock profile/);
  });
});

const waitFor = (check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> => waitUntil(check, timeoutMs, 'the condition');
