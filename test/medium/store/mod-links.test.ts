/** The mod links repository (account ↔ player through a challenge bid) on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runModRetention } from '../../../src/jobs/mod-retention.ts';
import { LINK_CHALLENGE_TTL_MS } from '../../../src/store/repositories/mod-links.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const P1 = '0123456789abcdef0123456789abcdef';
const P2 = 'fedcba9876543210fedcba9876543210';

describeEachBackend('mod links repository', (fixture) => {
  it('links an account when ingestion sees the challenge bid from the right player in time', async () => {
    const { store } = fixture();
    const c = await store.modLinks.startChallenge(7, P1, 'Alice', T0);
    assert.ok(c.amount >= 1000 && c.amount <= 99_999);
    const c2 = await store.modLinks.startChallenge(8, P2, null, T0);
    assert.notEqual(c.amount, c2.amount);
    // wrong bidder, wrong amount, bid placed before the challenge: no link
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P2, amount: c.amount, placed_at: T0 + 1 }], T0 + 2), []);
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P1, amount: c.amount + 1, placed_at: T0 + 1 }], T0 + 2), []);
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P1, amount: c.amount, placed_at: T0 - 1 }], T0 + 2), []);
    assert.equal(await store.modLinks.linkOf(7), undefined);
    const dashed = `${P1.slice(0, 8)}-${P1.slice(8, 12)}-${P1.slice(12, 16)}-${P1.slice(16, 20)}-${P1.slice(20)}`;
    const linked = await store.modLinks.linkFromBids([{ bidder: dashed, amount: c.amount, placed_at: T0 + 5 }], T0 + 10);
    assert.equal(linked.length, 1);
    assert.deepEqual(await store.modLinks.linkOf(7), { accountId: 7, playerUuid: P1, playerName: 'Alice', linkedAt: T0 + 10, method: 'bid' });
    assert.equal(await store.modLinks.challengeOf(7, T0 + 10), undefined, 'the challenge closes once used');
    // An expired challenge no longer links, and retention drops it.
    const late = T0 + LINK_CHALLENGE_TTL_MS + 1;
    assert.deepEqual(await store.modLinks.linkFromBids([{ bidder: P2, amount: c2.amount, placed_at: late - 2 }], late), []);
    assert.equal((await runModRetention(store, late)).challenges, 1);
    // Operator link replaces the earlier one.
    await store.modLinks.link(7, P2, null, 'operator', late);
    assert.equal((await store.modLinks.linkOf(7))?.playerUuid, P2);
  });
});
