/** The player names repository on SQLite and PostgreSQL: names by source, confirmed names over hints. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachBackend } from '../../helpers/databases.ts';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const P1 = '0123456789abcdef0123456789abcdef';
const P2 = 'fedcba9876543210fedcba9876543210';

describeEachBackend('player names repository', (fixture) => {
  it('records player names, finds them case-insensitively and follows renames', async () => {
    const { store } = fixture();
    await store.playerNames.record([{ playerUuid: P1, name: 'Technoblade' }, { playerUuid: P2, name: 'Dream' }, { playerUuid: P1, name: 'Technoblade' }], 'mod', T0);
    assert.equal((await store.playerNames.findByName('technoBLADE'))?.playerUuid, P1);
    await store.playerNames.record([{ playerUuid: P1, name: 'Techno2' }], 'mod', T0 + 1);
    assert.equal(await store.playerNames.findByName('Technoblade'), undefined);
    assert.deepEqual(await store.playerNames.findByName('techno2'), { playerUuid: P1, name: 'Techno2', source: 'mod', seenAt: T0 + 1 });
    const names = await store.playerNames.namesOf([P1, P2, 'ab'.repeat(16)]);
    assert.deepEqual([...names.entries()].sort(), [[P1, 'Techno2'], [P2, 'Dream']]);
  });

  it('a hint never replaces a confirmed name nor takes it over; a confirmed name replaces a hint (issue 21)', async () => {
    const { store } = fixture();
    const P3 = 'cd'.repeat(16);
    await store.playerNames.record([{ playerUuid: P1, name: 'AliceReal' }], 'self', T0 + 10);
    await store.playerNames.record([{ playerUuid: P1, name: 'Renamed' }, { playerUuid: P3, name: 'ALICEREAL' }], 'mod', T0 + 20);
    assert.equal((await store.playerNames.namesOf([P1])).get(P1), 'AliceReal');
    assert.equal(await store.playerNames.findByName('Renamed'), undefined);
    assert.equal((await store.playerNames.findByName('alicereal'))?.playerUuid, P1);
    assert.equal((await store.playerNames.namesOf([P3])).get(P3), undefined);
    // A stale hint row sharing the name loses to the confirmed one however recent it is.
    await store.playerNames.record([{ playerUuid: P2, name: 'Bob' }], 'mod', T0 + 30);
    await store.playerNames.record([{ playerUuid: P3, name: 'Bob' }], 'operator', T0 + 25);
    assert.equal((await store.playerNames.findByName('bob'))?.playerUuid, P3);
    await store.playerNames.record([{ playerUuid: P2, name: 'Bobby' }], 'self', T0 + 40);
    assert.equal((await store.playerNames.namesOf([P2])).get(P2), 'Bobby');
  });
});
