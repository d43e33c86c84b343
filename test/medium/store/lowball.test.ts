/** The lowball offers repository on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runModRetention } from '../../../src/jobs/mod-retention.ts';
import { LOWBALL_RETENTION_MS } from '../../../src/store/repositories/lowball.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const P1 = '0123456789abcdef0123456789abcdef';
const P2 = 'fedcba9876543210fedcba9876543210';

describeEachBackend('lowball repository', (fixture) => {
  it('pages lowball offers newest first by account and by tag, filters, ownership and retention', async () => {
    const { store } = fixture();
    const base = { playerUuid: P1, itemName: 'Hyperion', itemCount: 1, auctionJson: null, lore: null };
    for (let i = 0; i < 5; i++) {
      await store.lowball.create({ ...base, offerId: `00000000-0000-4000-8000-00000000000${i}`, accountId: 1, itemTag: 'HYPERION', askingPrice: 1e9 + i, filters: { reforge: i % 2 ? 'heroic' : 'fabled', stars: String(i) }, createdAt: T0 + i * 1000 });
    }
    await store.lowball.create({ ...base, offerId: 'other-account', accountId: 2, playerUuid: P2, itemTag: 'HYPERION', askingPrice: 5, filters: null, createdAt: T0 + 10_000 });
    const page1 = await store.lowball.byAccount(1, { limit: 2, now: T0 + 20_000 });
    assert.deepEqual(page1.map((o) => o.askingPrice), [1e9 + 4, 1e9 + 3]);
    const page2 = await store.lowball.byAccount(1, { limit: 2, now: T0 + 20_000, before: page1.at(-1)!.createdAt });
    assert.deepEqual(page2.map((o) => o.askingPrice), [1e9 + 2, 1e9 + 1]);
    assert.equal((await store.lowball.byTag('HYPERION', { limit: 10, now: T0 + 20_000 })).length, 6);
    const heroic = await store.lowball.byTag('HYPERION', { limit: 10, now: T0 + 20_000 }, { Reforge: 'HEROIC' });
    assert.deepEqual(heroic.map((o) => o.filters?.['stars']), ['3', '1']);
    const one = await store.lowball.byTag('HYPERION', { limit: 1, now: T0 + 20_000 }, { reforge: 'fabled' });
    assert.deepEqual(one.map((o) => o.filters?.['stars']), ['4']);

    // The database pre-filter treats % _ ! literally, ignores case, and never hides an exact match.
    await store.lowball.create({ ...base, offerId: 'special', accountId: 3, itemTag: 'RUNE_X', askingPrice: 1, filters: { Note: '50%_off!', Skin: 'Été' }, createdAt: T0 });
    await store.lowball.create({ ...base, offerId: 'plain', accountId: 3, itemTag: 'RUNE_X', askingPrice: 2, filters: { Note: '50xyoff!' }, createdAt: T0 + 1 });
    const byNote = async (f: Record<string, string>) => (await store.lowball.byTag('RUNE_X', { limit: 10, now: T0 + 20_000 }, f)).map((o) => o.offerId);
    assert.deepEqual(await byNote({ note: '50%_OFF!' }), ['special']);
    assert.deepEqual(await byNote({ note: '50' }), []);
    assert.deepEqual(await byNote({ skin: 'été' }), ['special']);
    // A value the pre-filter lets through under another key is dropped by the exact check; the scan goes on past it.
    for (let i = 0; i < 30; i++) {
      await store.lowball.create({ ...base, offerId: `decoy-${String(i).padStart(2, '0')}`, accountId: 3, itemTag: 'RUNE_Y', askingPrice: 1, filters: { other: '7', stars: '1' }, createdAt: T0 + 100 + i });
    }
    await store.lowball.create({ ...base, offerId: 'real', accountId: 3, itemTag: 'RUNE_Y', askingPrice: 1, filters: { stars: '7' }, createdAt: T0 });
    assert.deepEqual((await store.lowball.byTag('RUNE_Y', { limit: 2, now: T0 + 20_000 }, { stars: '7' })).map((o) => o.offerId), ['real']);
    assert.equal(await store.lowball.deleteOwn(2, page1[0]!.offerId, T0 + 20_000), false, 'another account cannot delete');
    assert.equal(await store.lowball.deleteOwn(1, page1[0]!.offerId, T0 + 20_000), true);
    assert.equal(await store.lowball.get(page1[0]!.offerId, T0 + 20_000), undefined);

    // Expiry: invisible right after 7 days, deleted by retention.
    const after = T0 + LOWBALL_RETENTION_MS + 1500;
    assert.deepEqual((await store.lowball.byAccount(1, { limit: 10, now: after })).map((o) => o.askingPrice), [1e9 + 3, 1e9 + 2]);
    const r = await runModRetention(store, after);
    assert.equal(r.offers, 35);
    assert.equal((await store.lowball.byTag('HYPERION', { limit: 10, now: after })).length, 3);
  });
});
