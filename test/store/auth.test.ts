import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hashToken } from '../../src/domain/credentials.ts';
import { describeEachBackend } from '../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;
const PLAYER = '0123456789abcdef0123456789abcdef';

describeEachBackend('auth repositories', (fixture) => {
  it('creates accounts whose token is stored only as a hash', async () => {
    const { store } = fixture();
    const { account, token } = await store.accounts.create({ tier: 'premium', days: 30, name: 'alice', now: NOW });
    assert.equal(account.tier, 'premium');
    assert.equal(account.name, 'alice');
    assert.equal(account.tierExpiresAt, NOW + 30 * DAY);
    const rows = await store.kysely.selectFrom('accounts').selectAll().where('id', '=', account.id).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.token_hash, hashToken(token));
    assert.ok(!JSON.stringify(rows).includes(token), 'the clear token is never stored');
    const found = await store.accounts.findByToken(token, NOW);
    assert.deepEqual(found, { id: account.id, name: 'alice', tier: 'premium', tierExpiresAt: NOW + 30 * DAY });
  });

  it('falls back to free after the tier expires, and set-tier changes tier and expiry', async () => {
    const { store } = fixture();
    const { account, token } = await store.accounts.create({ tier: 'premium_plus', days: 1, now: NOW });
    assert.equal((await store.accounts.findByToken(token, NOW + DAY - 1))?.tier, 'premium_plus');
    assert.equal((await store.accounts.findByToken(token, NOW + DAY))?.tier, 'free');
    assert.ok(await store.accounts.setTier(account.id, 'starter_premium', 10, NOW + DAY));
    const again = await store.accounts.findByToken(token, NOW + 2 * DAY);
    assert.equal(again?.tier, 'starter_premium');
    assert.equal(again?.tierExpiresAt, NOW + 11 * DAY);
    assert.ok(await store.accounts.setTier(account.id, 'premium'));
    assert.equal((await store.accounts.findByToken(token, NOW + 1000 * DAY))?.tier, 'premium', 'no days = no expiry');
    assert.equal(await store.accounts.setTier(999_999, 'premium'), false);
    await assert.rejects(store.accounts.setTier(account.id, 'gold' as never), /unknown tier/);
    await assert.rejects(store.accounts.create({ tier: 'premium', days: -1 }), /days must be a positive/);
  });

  it('revokes accounts and rejects unknown or malformed tokens', async () => {
    const { store } = fixture();
    const { account, token } = await store.accounts.create({ tier: 'free', now: NOW });
    assert.ok(await store.accounts.findByToken(token, NOW));
    assert.equal(await store.accounts.revoke(account.id, NOW), true);
    assert.equal(await store.accounts.revoke(account.id, NOW), false, 'already revoked');
    assert.equal(await store.accounts.findByToken(token, NOW), null);
    assert.equal(await store.accounts.findByToken('sma_' + 'A'.repeat(43), NOW), null);
    assert.equal(await store.accounts.findByToken("' or 1=1 --", NOW), null);
    const listed = await store.accounts.list();
    assert.ok(listed.some((a) => a.id === account.id && a.revokedAt === NOW));
  });

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

  it('partner tokens', async () => {
    const { store } = fixture();
    const { partner, token } = await store.partners.create({ name: 'Acme', now: NOW });
    assert.deepEqual(await store.partners.findByToken(token), { id: partner.id, name: 'Acme' });
    assert.equal(await store.partners.findByToken(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')), null);
    assert.ok(await store.partners.revoke(partner.id));
    assert.equal(await store.partners.findByToken(token), null);
    await assert.rejects(store.partners.create({ name: ' ' }), /1-100 characters/);
  });
});
