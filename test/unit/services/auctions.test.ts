/** AuctionService over fakes of the auction queries, bazaar prices and player names it reads (AuctionsStore). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import type { ItemSaleRow } from '../../../src/domain/auction-records.ts';
import { UnknownTagError } from '../../../src/domain/tags.ts';
import { AuctionService, SOLD_PARTNER_WINDOW_DAYS, SOLD_WINDOW_DAYS, type AuctionServiceDeps, type AuctionsStore } from '../../../src/services/auctions.ts';
import type { SoldRange } from '../../../src/store/repositories/auction-queries.ts';
import { auctionRecord, fakeBazaar, fakePlayerNames, notInThisFake } from '../../helpers/fake-repositories.ts';

const NOW = Date.UTC(2026, 10, 29, 12);
const DAY = 86_400_000;
const SWORD = auctionRecord({ uuid: 'a'.repeat(32), tag: 'HYPERION', state: 'sold', soldPrice: 900_000_000, soldAt: NOW - DAY, enchantments: { sharpness: 6, ultimate_wise: 5 } });

function sale(uuid: string, itemUid: string | null, at: number): ItemSaleRow {
  return { uuid, tag: 'HYPERION', itemUid, seller: 's', buyer: 'b', price: 1, at };
}
const SALES = [sale('1', 'u1', 30), sale('2', 'u1', 20), sale('3', 'u2', 10), sale('4', 'u1', 5)];

function setUp() {
  const asked: { books?: readonly string[]; soldPage?: SoldRange & { skip: number; take: number } } = {};
  const { bazaar } = fakeBazaar([
    { productId: 'ENCHANTMENT_SHARPNESS_6', ts: 0, buy: 2_000_000, sell: 1 },
    { productId: 'ENCHANTMENT_ULTIMATE_WISE_5', ts: 0, buy: 1_500_000, sell: 1 },
  ]);
  const store: AuctionsStore = {
    auctionQueries: {
      detail: async (uuid) => (uuid === SWORD.uuid ? { record: SWORD, itemNbt: null, bids: [] } : undefined),
      salesOfItem: async (uid, limit, offset) => SALES.filter((s) => s.itemUid === uid).slice(offset, offset + limit),
      salesByItemUid: async (uids) => SALES.filter((s) => s.itemUid !== null && uids.includes(s.itemUid)),
      soldPage: async (range, skip, take) => {
        asked.soldPage = { ...range, skip, take };
        return [SWORD];
      },
      tagExists: async (tag) => tag === 'HYPERION',
      bidsFor: notInThisFake('bidsFor'),
      itemNbtOf: notInThisFake('itemNbtOf'),
      medianPrices: notInThisFake('medianPrices'),
      saleCounts: notInThisFake('saleCounts'),
      soldChunks: notInThisFake('soldChunks'),
    },
    bazaar: {
      latestBuyPrices: async (ids) => {
        asked.books = ids;
        return bazaar.latestBuyPrices(ids);
      },
    },
    playerNames: fakePlayerNames([]).repo,
  };
  // No active listings: the view is asked only whether it knows a tag.
  const unread = notInThisFake('the active listings');
  const market: AuctionServiceDeps['market'] = {
    activeAuctions: { hasTag: () => false, ready: unread, isReady: unread, version: 0, lowestBin: unread, filterAll: unread, activeOf: unread, random: unread, hasItemUid: unread, lowSupply: unread },
    auctionNbt: { of: unread },
  };
  return { service: new AuctionService({ store, market, clock: new ManualClock(NOW) }), asked };
}

describe('AuctionService (unit, over fakes)', () => {
  it('an auction\'s detail values its enchantments at the bazaar\'s books; an auction not stored is undefined', async () => {
    const { service, asked } = setUp();
    const detail = await service.detail(SWORD.uuid);
    assert.ok(detail);
    assert.deepEqual([...(asked.books ?? [])].sort(), ['ENCHANTMENT_SHARPNESS_6', 'ENCHANTMENT_ULTIMATE_WISE_5']);
    assert.deepEqual(
      detail.enchantments.map((e) => e.value),
      [2_000_000, 1_500_000],
      'valued, most valuable first',
    );
    assert.equal(await service.detail('b'.repeat(32)), undefined);
    assert.equal(await service.itemUidOfAuction(SWORD.uuid), null);
  });

  it('sales of one item page by page, with whether a next page exists', async () => {
    const { service } = setUp();
    assert.deepEqual(await service.salesOfItem('u1', 0, 2), { sales: [SALES[0], SALES[1]], more: true });
    assert.deepEqual(await service.salesOfItem('u1', 1, 2), { sales: [SALES[3]], more: false });
    assert.deepEqual(await service.salesOfItem('nope', 0, 2), { sales: [], more: false });
  });

  it('sales of several items, per uid, [] for an item without sales', async () => {
    const { service } = setUp();
    const out = await service.salesOfItems(['u2', 'u1', 'u3', 'u1']);
    assert.deepEqual([...out.keys()], ['u2', 'u1', 'u3']);
    assert.deepEqual(out.get('u1'), [SALES[0], SALES[1], SALES[3]]);
    assert.deepEqual(out.get('u3'), []);
  });

  it('sold auctions of a known tag read SOLD_WINDOW_DAYS back (SOLD_PARTNER_WINDOW_DAYS for partners); an unknown tag throws', async () => {
    const { service, asked } = setUp();
    assert.deepEqual(await service.sold('HYPERION', false, 2, 10), [SWORD]);
    assert.deepEqual(asked.soldPage, { tag: 'HYPERION', since: NOW - SOLD_WINDOW_DAYS * DAY, skip: 20, take: 10 });
    await service.sold('HYPERION', true, 0, 10);
    assert.equal(asked.soldPage?.since, NOW - SOLD_PARTNER_WINDOW_DAYS * DAY);
    await assert.rejects(service.sold('NOT_AN_ITEM', false, 0, 10), UnknownTagError);
  });
});
