/** The store's repositories stamp with the clock the store was opened with (runtime.ts injects it), never the system clock. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { Store } from '../../../src/store/index.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

it('accounts, API keys and partners created without a time take the injected clock', async () => {
  const dir = tempDir('store-clock');
  const clock = new ManualClock(Date.UTC(2020, 0, 1));
  const store = await Store.open({ dataDir: dir.path, clock });
  try {
    const { account } = await store.accounts.create({ tier: 'premium', days: 1 });
    assert.equal(account.createdAt, clock.now());
    assert.equal(account.tierExpiresAt, clock.now() + 86_400_000);
    const { partner } = await store.partners.create({ name: 'p' });
    assert.equal(partner.createdAt, clock.now());
    const { key } = await store.apiKeys.create({ playerUuid: '0123456789abcdef0123456789abcdef', profileUuid: null });
    assert.equal(key.createdAt, clock.now());
  } finally {
    await store.close();
    dir.remove();
  }
});
