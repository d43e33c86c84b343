/** The feeds repository (each feed's last update) on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';

describeEachBackend('feeds repository', (fixture) => {
  it('records feed state and overwrites it per feed', async () => {
    const { store } = fixture();
    const lastUpdated = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    await store.feeds.record({ name: 'auctions', lastUpdated, storedAt: lastUpdated + 500, records: 60000, source: 'upstream' });
    await store.feeds.record({ name: 'auctions', lastUpdated: lastUpdated + 60000, storedAt: lastUpdated + 60500, records: 60123, source: 'upstream' });
    await store.feeds.record({ name: 'bazaar', lastUpdated, storedAt: lastUpdated, records: 1500, source: 'simulator' });
    const feeds = await store.feeds.all();
    assert.equal(feeds.length, 2);
    const auctions = await store.feeds.get('auctions');
    assert.deepEqual(auctions, {
      name: 'auctions',
      lastUpdated: lastUpdated + 60000,
      storedAt: lastUpdated + 60500,
      records: 60123,
      source: 'upstream',
    });
    // int8 comes back as a number on both dialects, exactly.
    assert.equal(typeof auctions?.lastUpdated, 'number');
  });
});
