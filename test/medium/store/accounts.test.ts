/** The accounts repository on SQLite and PostgreSQL: tokens stored as hashes, tiers that expire, revocation. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { hashToken } from '../../../src/domain/credentials.ts';
import { Store } from '../../../src/store/index.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12);
const DAY = 86_400_000;

describeEachBackend('accounts repository', (fixture) => {
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
});

it('sees a revocation and a tier change made from another process at once (SQLite, the CLI beside the service)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-accounts-'));
  const service = await Store.open({ dataDir: dir });
  const cli = await Store.open({ dataDir: dir });
  try {
    const { account, token } = await service.accounts.create({ tier: 'premium', days: 30, now: NOW });
    assert.equal((await service.accounts.findByToken(token, NOW))?.tier, 'premium');
    assert.ok(await cli.accounts.setTier(account.id, 'premium_plus', 30, NOW));
    assert.equal((await service.accounts.findByToken(token, NOW))?.tier, 'premium_plus');
    assert.ok(await cli.accounts.revoke(account.id, NOW));
    assert.equal(await service.accounts.findByToken(token, NOW), null);
  } finally {
    await cli.close();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('does not read a revocation past an open transaction\'s older snapshot (SQLite)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-accounts-'));
  const service = await Store.open({ dataDir: dir });
  const cli = await Store.open({ dataDir: dir });
  try {
    const { account, token } = await service.accounts.create({ tier: 'premium', days: 30, now: NOW });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inside = new Promise<void>((resolve) => (started = resolve));
    // A read transaction on the service's connection, its snapshot taken before the revocation.
    const open = service.transaction(async (trx) => {
      await trx.selectFrom('accounts').select('id').execute();
      started();
      await gate;
    });
    await inside;
    assert.ok(await cli.accounts.revoke(account.id, NOW));
    const lookup = service.accounts.findByToken(token, NOW);
    release();
    await open;
    assert.equal(await lookup, null);
  } finally {
    await cli.close();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
