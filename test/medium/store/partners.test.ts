/** The partners repository on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12);

describeEachBackend('partners repository', (fixture) => {
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
