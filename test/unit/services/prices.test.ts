/** PriceService over fakes of the bazaar, the active listings and the tags seen (PricesStore): current prices and BINs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { FilterError, type FilterPredicate } from '../../../src/domain/filters.ts';
import { UnknownTagError } from '../../../src/domain/tags.ts';
import type { ActiveListing } from '../../../src/market/active-auctions.ts';
import { KnownTags } from '../../../src/services/auction-filters.ts';
import { PriceService, type PriceServiceDeps, type PricesStore } from '../../../src/services/prices.ts';
import { auctionRecord, fakeBazaar, fakePlayerNames, fakeTagHistory, notInThisFake } from '../../helpers/fake-repositories.ts';

const T0 = Date.UTC(2026, 10, 29, 12);
const BOOK = {
  buyOrders: [{ amount: 10, pricePerUnit: 4.5, orders: 1 }],
  sellOffers: [{ amount: 5, pricePerUnit: 5, orders: 2 }, { amount: 20, pricePerUnit: 6, orders: 1 }],
};

const listing = (uuid: string, startingBid: number): ActiveListing => ({ ...auctionRecord({ uuid, tag: 'HYPERION', startingBid }), sold: false });
const LISTINGS = [listing('c'.repeat(32), 900), listing('a'.repeat(32), 700), listing('b'.repeat(32), 800)];

function setUp(now: number) {
  const { bazaar, bazaarHistory } = fakeBazaar([
    { productId: 'WHEAT', ts: T0, buy: 5, sell: 4.5, book: BOOK },
    { productId: 'CARROT', ts: T0, buy: 2, sell: 1.5 },
  ]);
  const unread = notInThisFake('rollups and sales');
  const store: PricesStore = {
    bazaar,
    bazaarHistory,
    playerNames: fakePlayerNames([]).repo,
    auctionQueries: { soldChunks: unread, soldLeanChunks: unread },
    priceRollups: { state: unread, days: unread, hours: unread, binDays: unread, binHours: unread },
  };
  const view = {
    ready: async () => undefined,
    hasTag: (tag: string) => tag === 'HYPERION',
    lowestBin: (tag: string, test: FilterPredicate, limit: number) =>
      LISTINGS.filter((l) => l.tag === tag && test(l))
        .sort((a, b) => a.startingBid - b.startingBid)
        .slice(0, limit),
    activeOf: (tag: string, test: FilterPredicate) => LISTINGS.filter((l) => l.tag === tag && test(l)),
  };
  const market: PriceServiceDeps['market'] = { activeAuctions: view, openHours: { cells: unread } };
  return new PriceService({ store, clock: new ManualClock(now), market, knownTags: new KnownTags(fakeTagHistory(), view) });
}

describe('PriceService (unit, over fakes)', () => {
  it('buying and selling a bazaar product walks its newest order book', async () => {
    const current = await setUp(T0 + 1000).current('WHEAT', 7);
    // 5 at 5 and 2 at 6 from the sell offers; 7 at 4.5 into the buy orders.
    assert.deepEqual(current, { buy: 37, sell: 31.5, available: 25, updatedAt: new Date(T0).toISOString(), isAh: false });
  });

  it('a snapshot without a book prices at its buy and sell prices', async () => {
    assert.deepEqual(await setUp(T0 + 1000).current('CARROT', 10), { buy: 20, sell: 15, available: 200, updatedAt: new Date(T0).toISOString(), isAh: false });
  });

  it('a bazaar product with no snapshot yet at now costs nothing; a tag never seen throws UnknownTagError', async () => {
    const before = setUp(T0 - 1000);
    assert.deepEqual(await before.current('WHEAT', 1), { buy: 0, sell: 0, available: 0, updatedAt: new Date(T0 - 1000).toISOString(), isAh: false });
    await assert.rejects(before.current('NOT_AN_ITEM', 1), UnknownTagError);
  });

  it('the cheapest active BIN and the next one of a known tag; a bad filter or an unknown tag throws', async () => {
    const service = setUp(T0);
    assert.deepEqual(await service.bin('HYPERION'), { lowest: 700, uuid: 'a'.repeat(32), secondLowest: 800 });
    await assert.rejects(service.bin('NOT_AN_ITEM'), UnknownTagError);
    await assert.rejects(service.bin('HYPERION', { NoSuchFilter: '1' }), FilterError);
  });
});
