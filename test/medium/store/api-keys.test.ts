/** The player API keys repository on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;
const PLAYER = '0123456789abcdef0123456789abcdef';

describeEachBackend('api keys repository', (fixture) => {
  it('player API keys: bound to a player, 180 days, revocable', async () => {
    const { store } = fixture();
    const { key, token } = await store.apiKeys.create({ playerUuid: PLAYER.toUpperCase(), profileUuid: '01234567-89ab-cdef-0123-456789abcdee', now: NOW });
    assert.equal(key.playerUuid, PLAYER);
    assert.equal(key.profileUuid, '0123456789abcdef0123456789abcdee');
    assert.equal(key.expiresAt, NOW + 180 * DAY);
    assert.deepEqual(await store.apiKeys.findByToken(token, NOW), {
      id: key.id,
      playerUuid: PLAYER,
      profileUuid: '0123456789abcdef0123456789abcdee',
      expiresAt: NOW + 180 * DAY,
    });
    assert.equal((await store.apiKeys.check(token, NOW + 180 * DAY)).status, 'expired');
    assert.equal(await store.apiKeys.findByToken(token, NOW + 180 * DAY), null);
    assert.equal((await store.apiKeys.check('sk_' + 'B'.repeat(43), NOW)).status, 'unknown');
    assert.equal((await store.apiKeys.check('nope', NOW)).status, 'malformed');
    assert.ok(await store.apiKeys.revoke(key.id, NOW));
    assert.equal((await store.apiKeys.check(token, NOW)).status, 'revoked');
    assert.equal((await store.apiKeys.list(PLAYER)).length, 1);
    await assert.rejects(store.apiKeys.create({ playerUuid: 'bob' }), /player must be a uuid/);
    await assert.rejects(store.apiKeys.create({ playerUuid: PLAYER, profileUuid: 'x' }), /profile must be a uuid/);
  });
});
