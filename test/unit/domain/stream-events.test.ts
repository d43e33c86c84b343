import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileFilters } from '../../../src/domain/filters.ts';
import {
  compareEventIds,
  connectionAllowance,
  EVERYTHING,
  formatEventId,
  matches,
  parseEventId,
  variantOf,
  type DraftEvent,
  type Subscription,
} from '../../../src/domain/stream-events.ts';

const item = { itemName: 'Hyperion', count: 1, tier: 'LEGENDARY', reforge: 'heroic', itemUid: null, itemCreatedAt: null, enchantments: { ultimate_wise: 5 }, flatNbt: {} };
const listing: DraftEvent = { topic: 'auction.new', time: 1, uuid: 'u', tag: 'HYPERION', variant: null, price: 900, bin: true, startingBid: 900, highestBid: 0, seller: 's', start: null, end: 2, item };
const bazaar: DraftEvent = { topic: 'bazaar.changed', time: 1, product: 'ENCHANTED_DIAMOND', buyPrice: 50, sellPrice: 40, buyVolume: 1, sellVolume: 1, buyMovingWeek: 1, sellMovingWeek: 1, buyOrders: 1, sellOrders: 1, topBuyOrders: null, topSellOffers: null };
const generation: DraftEvent = { topic: 'generation', time: 1, feed: 'auctions', lastUpdated: 1, counts: {} };
const sub = (over: Partial<Subscription>): Subscription => ({ ...EVERYTHING, ...over });

describe('stream events', () => {
  it('ids round-trip and order by ms, seq, index', () => {
    const id = parseEventId('1732612345678-3-17')!;
    assert.equal(formatEventId(id), '1732612345678-3-17');
    assert.ok(compareEventIds(id, parseEventId('1732612345678-3-18')!) < 0);
    assert.ok(compareEventIds(id, parseEventId('1732612345678-4-0')!) < 0);
    assert.ok(compareEventIds(id, parseEventId('1732612345677-9-99')!) > 0);
    for (const bad of ['', '1-2', 'a-b-c', '1-2-3-4', '1 -2-3']) assert.equal(parseEventId(bad), undefined, bad);
  });

  it('subscriptions: topics, tags, prices and variant filters; generation always passes tags and prices', () => {
    assert.ok(matches(EVERYTHING, listing) && matches(EVERYTHING, bazaar));
    assert.ok(!matches(sub({ topics: new Set(['lbin.changed']) }), listing));
    assert.ok(!matches(sub({ tags: new Set(['TERMINATOR']) }), listing));
    assert.ok(matches(sub({ tags: new Set(['TERMINATOR']) }), generation));
    assert.ok(matches(sub({ tags: new Set(['ENCHANTED_DIAMOND']) }), bazaar));
    assert.ok(!matches(sub({ minPrice: 901 }), listing) && matches(sub({ minPrice: 900, maxPrice: 900 }), listing));
    assert.ok(!matches(sub({ maxPrice: 49 }), bazaar));
    const legendary = compileFilters({ Rarity: 'LEGENDARY' }).test;
    const mythic = compileFilters({ Rarity: 'MYTHIC' }).test;
    assert.ok(matches(sub({ filter: legendary }), listing));
    assert.ok(!matches(sub({ filter: mythic }), listing));
    assert.ok(matches(sub({ filter: mythic }), bazaar), 'variant filters leave bazaar events alone');
    const unseenSale: DraftEvent = { topic: 'auction.sold', time: 1, uuid: 'x', tag: 'HYPERION', variant: null, price: 5, bin: true, buyer: 'b', seller: null, soldAt: 1, item: null };
    assert.ok(!matches(sub({ filter: legendary }), unseenSale), 'a sale without its item passes no filter');
  });

  it('variants: pets by rarity and level band, runes by level, others none', () => {
    assert.equal(variantOf('HYPERION', 'LEGENDARY', {}), null);
    assert.equal(variantOf('PET_ENDER_DRAGON', 'EPIC', { 'petInfo.type': 'ENDER_DRAGON', 'petInfo.tier': 'EPIC', 'petInfo.exp': '0' }), 'EPIC');
    assert.equal(variantOf('PET_ENDER_DRAGON', 'LEGENDARY', { 'petInfo.type': 'ENDER_DRAGON', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '30000000' }), 'LEGENDARY:LVL100');
    assert.equal(variantOf('RUNE_MUSIC', 'RARE', { 'runes.MUSIC': '3' }), 'L3');
  });

  it('tiers raise the connection allowance', () => {
    assert.deepEqual([undefined, 'free', 'starter_premium', 'premium', 'premium_plus'].map((t) => connectionAllowance(10, t as never)), [10, 10, 20, 50, 100]);
  });
});
