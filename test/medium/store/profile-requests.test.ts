/** The profile request queue (migration 016) on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const player = (i: number) => i.toString(16).padStart(32, '0');

describeEachBackend('profile requests repository', (fixture) => {
  it('queues a player once, first asked first, and refuses new players when the queue is full', async () => {
    const { store } = fixture();
    assert.equal(await store.profileRequests.request(player(1), T0, 2), 'queued');
    assert.equal(await store.profileRequests.request(player(1), T0 + 5, 2), 'queued', 'asking again keeps its place');
    assert.equal((await store.profileRequests.get(player(1)))?.requestedAt, T0);
    assert.equal(await store.profileRequests.request(player(2), T0 - 1, 2), 'queued');
    assert.equal(await store.profileRequests.request(player(3), T0, 2), 'full');
    assert.equal(await store.profileRequests.get(player(3)), undefined);
    assert.deepEqual(await store.profileRequests.queued(10), [player(2), player(1)]);
    assert.deepEqual(await store.profileRequests.queued(1), [player(2)]);
  });

  it('keeps what a fetch stored or why it failed, and queues a fetched player again when asked', async () => {
    const { store } = fixture();
    await store.profileRequests.stored(player(1), [{ cute_name: 'Apple', members: {} }], T0 + 10);
    await store.profileRequests.failed(player(2), 'upstream answered 404 for the player profile', T0 + 10);
    await store.profileRequests.failed(player(2), 'the upstream profile endpoint is unreachable', T0 + 20);
    assert.deepEqual(await store.profileRequests.get(player(1)), { playerUuid: player(1), requestedAt: T0, fetchedAt: T0 + 10, attempts: 0, lastError: null, profiles: [{ cute_name: 'Apple', members: {} }] });
    assert.deepEqual(await store.profileRequests.get(player(2)), { playerUuid: player(2), requestedAt: T0 - 1, fetchedAt: T0 + 20, attempts: 2, lastError: 'the upstream profile endpoint is unreachable', profiles: null });
    assert.deepEqual(await store.profileRequests.queued(10), []);
    // The queue has room again: a new player fits, and a fetched one is queued again (its profiles kept meanwhile).
    assert.equal(await store.profileRequests.request(player(3), T0 + 30, 2), 'queued');
    assert.equal(await store.profileRequests.request(player(1), T0 + 40, 2), 'queued');
    assert.deepEqual(await store.profileRequests.queued(10), [player(3), player(1)]);
    assert.equal((await store.profileRequests.get(player(1)))?.profiles?.length, 1);
    // A failure keeps the last good profiles beside the reason, and a success resets the count.
    await store.profileRequests.failed(player(1), 'the upstream profile endpoint is unreachable', T0 + 50);
    assert.equal((await store.profileRequests.get(player(1)))?.profiles?.length, 1);
    await store.profileRequests.stored(player(2), [], T0 + 60);
    assert.equal((await store.profileRequests.get(player(2)))?.attempts, 0);
  });

  it('prunes players neither asked for nor fetched since a time, queued ones included', async () => {
    const { store } = fixture();
    // player 1: asked T0+40, fetched T0+50; player 2: fetched T0+60; player 3: queued since T0+30.
    assert.equal(await store.profileRequests.prune(T0 + 45), 1, 'only the queued player 3 is older everywhere');
    assert.equal(await store.profileRequests.get(player(3)), undefined);
    assert.equal(await store.profileRequests.prune(T0 + 55), 1, 'player 1: asked and fetched before');
    assert.equal(await store.profileRequests.prune(T0 + 61), 1);
    assert.deepEqual(await store.profileRequests.queued(10), []);
  });
});
