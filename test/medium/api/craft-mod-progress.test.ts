/**
 * The craft profit list filtered by the unlocks the player's mod uploaded (collections, skills,
 * slayers in the extracted state): the upload shape is validated, the lookup reads the stored
 * state on both backends, and the endpoint filters with them before asking upstream.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { progressFromUploadedState } from '../../../src/domain/craft/progress.ts';
import { filterByProgress, type ProfitableCraft } from '../../../src/domain/craft/profit.ts';
import { loadNeuRepository } from '../../../src/gamedata/neu.ts';
import { validators } from '../../../src/mod/messages.ts';
import { UploadedProgress } from '../../../src/services/player-progress.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';
import { storeMiniRepoPricesServed, writeMiniRepo } from '../../helpers/mini-repo.ts';

const UUID = '0123456789abcdef0123456789abcdef';
const PROFILE = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

function miniGame() {
  const dir = tempDir('modprog');
  try {
    writeMiniRepo(dir.path);
    return loadNeuRepository(dir.path);
  } finally {
    dir.remove();
  }
}

describe('uploaded unlocks (pure)', () => {
  const game = miniGame();
  test('the mod may upload collections, skills and slayers; bad values are refused', () => {
    const ok = validators['state.upload'];
    assert.equal(ok.Check({ state: { collections: { WHEAT: 6, 'INK_SACK:3': 2 }, skills: { farming: 20, hotm: 3 }, slayers: { zombie: 7 } } }), true);
    assert.equal(ok.Check({ state: { collections: { WHEAT: -1 } } }), false);
    assert.equal(ok.Check({ state: { collections: { WHEAT: 2.5 } } }), false);
    assert.equal(ok.Check({ state: { skills: { farming: '20' } } }), false);
    assert.equal(ok.Check({ state: { slayers: { zombie: 99 } } }), false);
    assert.equal(ok.Check({ state: { collections: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`C${i}`, 1])) } }), false);
  });
  test('progress from the state: ids and names, HotM alias, absent kinds not filtered on', () => {
    assert.equal(progressFromUploadedState({ purse: 5 }, game), undefined);
    const p = progressFromUploadedState({ collections: { WHEAT: 5 }, skills: { hotm: 4 } }, game)!;
    assert.equal(p.collections!['WHEAT'], 5);
    assert.equal(p.skills!['heart of the mountain'], 4);
    assert.equal(p.slayers, undefined);
    const craft = (itemId: string, reqCollection: ProfitableCraft['reqCollection'], reqSlayer: ProfitableCraft['reqSlayer'] = null) => ({ itemId, reqCollection, reqSlayer, reqSkill: null }) as ProfitableCraft;
    const list = [craft('A', { name: 'Wheat', level: 6 }), craft('B', { name: 'WHEAT', level: 5 }), craft('C', null, { name: 'zombie', level: 9 })];
    // Wheat V unlocked: A needs VI; C's slayer requirement is unknown to this upload, so it stays.
    assert.deepEqual(filterByProgress(list, p).map((c) => c.itemId), ['B', 'C']);
    assert.deepEqual(filterByProgress(list, { ...p, slayers: { zombie: 3 } }).map((c) => c.itemId), ['B']);
  });
});

describeEachBackend('uploaded unlocks lookup', (fixture) => {
  const game = miniGame();
  it('known for the uploading player and its synced profile only', async () => {
    const { store } = fixture();
    const source = new UploadedProgress(store, game);
    assert.equal((await source.lookup(UUID, undefined)).status, 'unavailable');
    await store.players.mergeState(UUID, PROFILE, { purse: 10 }, 1);
    assert.match(((await source.lookup(UUID, undefined)) as { reason: string }).reason, /no collections/);
    await store.players.mergeState(UUID, PROFILE, { collections: { WHEAT: 6 }, slayers: { zombie: 2 } }, 2);
    const found = await source.lookup('01234567-89ab-cdef-0123-456789abcdef', undefined);
    assert.equal(found.status, 'known');
    assert.equal(found.status === 'known' && found.progress.collections!['WHEAT'], 6);
    assert.equal((await source.lookup(UUID, 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb')).status, 'known');
    assert.equal((await source.lookup(UUID, 'Banana')).status, 'unavailable', 'profile names are not known from the mod');
    assert.equal((await source.lookup(UUID, 'cccccccccccccccccccccccccccccccc')).status, 'unavailable');
    assert.equal((await source.lookup('Notch', undefined)).status, 'unavailable');
  });
});

describe('profit list filtered by the mod\'s uploaded unlocks (HTTP)', () => {
  let dir: TempDir;
  let t: TestApp;
  before(async () => {
    dir = tempDir('craft-mod');
    writeMiniRepo(join(dir.path, 'neu'));
    const game = loadNeuRepository(join(dir.path, 'neu'));
    t = await createTestApp({ env: { DATA_DIR: dir.path }, game });
    await storeMiniRepoPricesServed(t);
  });
  after(async () => {
    await t.close();
    dir.remove();
  });
  const ids = (res: { json(): unknown }) => (res.json() as Array<{ itemId: string }>).map((r) => r.itemId);

  test('unfiltered without an upload, filtered by the uploaded tier, listed once unlocked', async () => {
    const before = await t.app.inject(`/api/craft/profit?player=${UUID}`);
    assert.match(String(before.headers['x-craft-filter']), /^unfiltered; no collections, skills or slayers uploaded/);
    assert.deepEqual(ids(before), ['ENCHANTED_WHEAT']);
    await t.store.players.mergeState(UUID, PROFILE, { collections: { WHEAT: 5 } }, t.clock.now());
    const locked = await t.app.inject(`/api/craft/profit?player=${UUID}`);
    assert.match(String(locked.headers['x-craft-filter']), /^filtered; by the collections, slayers and skills the player's mod uploaded/);
    assert.deepEqual(ids(locked), [], 'Wheat V < Wheat VI');
    await t.store.players.mergeState(UUID, PROFILE, { collections: { WHEAT: 6 } }, t.clock.now());
    assert.deepEqual(ids(await t.app.inject(`/api/craft/profit?player=${UUID}&profile=${PROFILE}`)), ['ENCHANTED_WHEAT']);
    const other = await t.app.inject(`/api/craft/profit?player=${UUID}&profile=Apple`);
    assert.match(String(other.headers['x-craft-filter']), /^unfiltered; the mod's upload is not for profile Apple/);
    assert.equal((await t.app.inject(`/api/craft/profit?player=${UUID}&profile=${'x'.repeat(40)}`)).statusCode, 400);
  });
});
