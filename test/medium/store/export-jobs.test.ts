/** The export jobs repository on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describeEachBackend('export jobs repository', (fixture) => {
  it('export jobs: create, count queued, claim once, finish', async () => {
    const { store } = fixture();
    const jobs = store.exportJobs;
    const base = { accountId: 7, itemTag: 'HYPERION', flags: 'None', filters: { EndAfter: '1', EndBefore: '2' }, columns: ['uuid'], webhookUrl: 'https://discord.com/x' };
    const a = await jobs.create({ ...base, requestedAt: NOW });
    const b = await jobs.create({ ...base, requestedAt: NOW + 1 });
    assert.equal(a.status, 'Pending');
    assert.deepEqual(a.filters, base.filters);
    assert.equal(await jobs.countQueued(7, NOW, 300_000), 2);
    const [c1, c2] = await Promise.all([jobs.claimNext(NOW), jobs.claimNext(NOW)]);
    assert.notEqual(c1?.id, c2?.id, 'two claims never get the same job');
    assert.deepEqual([c1, c2].map((c) => c?.status), ['InProgress', 'InProgress']);
    assert.equal(await jobs.claimNext(NOW), undefined);
    await jobs.finish(a.id, { status: 'Done', at: NOW + 5, rowCount: 3 });
    await jobs.finish(b.id, { status: 'Failed', at: NOW + 5, error: 'boom' });
    assert.equal(await jobs.countQueued(7, NOW, 300_000), 0);
    const list = await jobs.forAccount(7);
    assert.deepEqual(list.map((j) => [j.id, j.status, j.rowCount, j.error]), [
      [b.id, 'Failed', null, 'boom'],
      [a.id, 'Done', 3, null],
    ]);
  });
});
