/**
 * The profit list filtered by a player's unlocked requirements, with the player's profile
 * fetched from a fake upstream profile endpoint (UPSTREAM_API_KEY configured).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { levelFromXp, pickProfile, progressOfMember } from '../../src/domain/craft/progress.ts';
import { loadNeuRepository } from '../../src/gamedata/neu.ts';
import { HypixelClient } from '../../src/ingest/hypixel-client.ts';
import { UpstreamProfileProgress, upstreamProfileProgress } from '../../src/ingest/profiles.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { FakeUpstream } from '../helpers/fake-upstream.ts';
import { tempDir, type TempDir } from '../helpers/temp-dir.ts';
import { storeMiniRepoPrices, writeMiniRepo } from '../gamedata/helpers.ts';

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
    } finally {
      dir.remove();
    }
  });
});

describe('profit list filtered by the player\'s profile', () => {
  let dir: TempDir;
  let upstream: FakeUpstream;
  let t: TestApp;

  before(async () => {
    dir = tempDir('craft-progress');
    writeMiniRepo(join(dir.path, 'neu'));
    const game = loadNeuRepository(join(dir.path, 'neu'));
    upstream = await new FakeUpstream()
      .on(`/v2/skyblock/profiles?uuid=${UUID}`, { body: profiles(5) }, { body: profiles(6) })
      .on(`/v2/skyblock/profiles?uuid=${OTHER}`, { status: 404, body: { success: false, cause: 'No profiles' } })
      .start();
    t = await createTestApp({
      env: { DATA_DIR: dir.path },
      game,
      craftProgress: upstreamProfileProgress({ upstreamUrl: upstream.url, upstreamApiKey: 'test-key', timeoutMs: 2000, clock: { now: () => t.clock.now() } }),
    });
    await storeMiniRepoPrices(t.store, t.clock.now());
  });
  after(async () => {
    await t.close();
    await upstream.stop();
    dir.remove();
  });

  const ids = (res: { json(): unknown }) => (res.json() as Array<{ itemId: string }>).map((r) => r.itemId);

  test('unfiltered while the profile is fetched, then filtered by the unlocked collection tier', async () => {
    const first = await t.app.inject(`/api/craft/profit?player=${UUID}`);
    assert.match(String(first.headers['x-craft-filter']), /^unfiltered; fetching/);
    assert.deepEqual(ids(first), ['ENCHANTED_WHEAT']);
    await waitFor(async () => !String((await t.app.inject(`/api/craft/profit?player=${UUID}`)).headers['x-craft-filter']).includes('fetching'));
    const filtered = await t.app.inject(`/api/craft/profit?player=${UUID}`);
    assert.match(String(filtered.headers['x-craft-filter']), /^filtered/);
    assert.deepEqual(ids(filtered), [], 'Wheat V < Wheat VI');
    const apple = await t.app.inject(`/api/craft/profit?player=${UUID}&profile=Apple`);
    assert.deepEqual(ids(apple), ['ENCHANTED_WHEAT'], 'Wheat IX on the Apple profile');
    assert.equal(upstream.hits.get(`/v2/skyblock/profiles?uuid=${UUID}`), 1, 'cached: one upstream call');
    // After the cache expires the next fetch sees the new tier.
    t.clock.advance(11 * 60_000);
    await t.app.inject(`/api/craft/profit?player=${UUID}`);
    await waitFor(async () => ids(await t.app.inject(`/api/craft/profit?player=${UUID}`)).length === 1);
  });

  test('unknown players, names and missing profiles stay unfiltered with the reason', async () => {
    await t.app.inject(`/api/craft/profit?player=${OTHER}`);
    await waitFor(async () => String((await t.app.inject(`/api/craft/profit?player=${OTHER}`)).headers['x-craft-filter']).includes('404'));
    const name = await t.app.inject('/api/craft/profit?player=Notch');
    assert.match(String(name.headers['x-craft-filter']), /pass the player uuid/);
    const missing = await t.app.inject(`/api/craft/profit?player=${UUID}&profile=Cherry`);
    assert.match(String(missing.headers['x-craft-filter']), /no profile Cherry/);
  });

  test('no source without an API key', () => {
    assert.equal(upstreamProfileProgress({ upstreamUrl: upstream.url, upstreamApiKey: undefined, timeoutMs: 1000, clock: { now: () => 0 } }), undefined);
    const source = new UpstreamProfileProgress(new HypixelClient({ baseUrl: upstream.url }), loadNeuRepository(join(dir.path, 'neu')), { now: () => 0 });
    return source.close();
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
