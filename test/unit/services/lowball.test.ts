/** LowballService over fakes of the offers, item catalog and account links it reads (LowballStore). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { LowballService, type LowballStore } from '../../../src/services/lowball.ts';
import type { LowballOffer } from '../../../src/store/repositories/lowball.ts';

const T0 = Date.UTC(2026, 10, 29, 12);

function setUp(options: { catalog: string[]; offersFor?: Record<string, LowballOffer[]>; liveOffers?: string[]; linked?: number[] }) {
  const calls: string[] = [];
  const store: LowballStore = {
    lowball: {
      byAccount: async (accountId, page) => {
        calls.push(`byAccount ${accountId} now=${page.now}`);
        return [];
      },
      byTag: async (tag, page) => {
        calls.push(`byTag ${tag} now=${page.now}`);
        return options.offersFor?.[tag] ?? [];
      },
      hasOffers: async (tag) => (options.liveOffers ?? []).includes(tag),
      deleteOwn: async (accountId, offerId, now) => {
        calls.push(`deleteOwn ${accountId} ${offerId} now=${now}`);
        return offerId === 'mine';
      },
    },
    items: {
      count: async () => options.catalog.length,
      get: async (tag) => (options.catalog.includes(tag) ? ({ tag } as Awaited<ReturnType<LowballStore['items']['get']>>) : undefined),
    },
    modLinks: { linkOf: async (id) => ((options.linked ?? []).includes(id) ? { accountId: id, playerUuid: 'p', playerName: null, linkedAt: 0, method: 'bid' } : undefined) },
  };
  return { service: new LowballService(store, new ManualClock(T0)), calls };
}

describe('LowballService (unit, over fakes)', () => {
  it('an account without a verified Minecraft account has no offers of its own to list', async () => {
    const { service, calls } = setUp({ catalog: [], linked: [7] });
    assert.deepEqual(await service.own(8, { before: T0, limit: 10 }), { miss: 'no_verified_account' });
    assert.deepEqual(await service.own(7, { before: T0, limit: 10 }), []);
    assert.deepEqual(calls, [`byAccount 7 now=${T0}`]);
  });

  it('no offers is a miss only when neither the catalog nor any live offer knows the tag', async () => {
    const { service } = setUp({ catalog: ['HYPERION'], liveOffers: ['NEW_ITEM'] });
    const page = { before: T0, limit: 10 };
    assert.deepEqual(await service.forItem('HYPERION', page, {}), [], 'in the catalog: the filters just match nothing');
    assert.deepEqual(await service.forItem('NEW_ITEM', page, {}), [], 'not in the catalog but offered');
    assert.deepEqual(await service.forItem('NOPE', page, {}), { miss: 'unknown_item' });
  });

  it('with an empty catalog (not loaded yet) no tag is called unknown', async () => {
    const { service } = setUp({ catalog: [] });
    assert.deepEqual(await service.forItem('NOPE', { before: T0, limit: 10 }, {}), []);
  });

  it('deletes only at the clock\'s time and answers whether one of the account\'s offers went', async () => {
    const { service, calls } = setUp({ catalog: [] });
    assert.equal(await service.deleteOwn(3, 'mine'), true);
    assert.equal(await service.deleteOwn(3, 'theirs'), false);
    assert.deepEqual(calls, [`deleteOwn 3 mine now=${T0}`, `deleteOwn 3 theirs now=${T0}`]);
  });
});
