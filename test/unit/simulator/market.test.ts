import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Market, topTwoPercentPrice } from '../../../src/simulator/market.ts';
import type { BazaarLevel } from '../../../src/simulator/wire.ts';
import { BAZAAR_PRODUCTS } from '../../../src/gamedata/builtin/catalog.ts';
import { T0 } from '../../helpers/simulator-items.ts';

const opts = { seed: 7, auctions: 600, generationSeconds: 60, bazaarSeconds: 20 };

test('same seed and start give byte-identical generations; another seed differs', () => {
  const a = new Market(opts, T0);
  const b = new Market(opts, T0);
  const c = new Market({ ...opts, seed: 8 }, T0);
  for (const m of [a, b, c]) m.populate();
  assert.equal(JSON.stringify(a.generation()), JSON.stringify(b.generation()));
  assert.notEqual(JSON.stringify(a.generation().auctions.slice(0, 5)), JSON.stringify(c.generation().auctions.slice(0, 5)));
  for (const m of [a, b]) m.advanceTo(T0 + 5 * 60_000);
  assert.equal(a.generation().index, 5);
  assert.equal(JSON.stringify(a.generation()), JSON.stringify(b.generation()));
  assert.equal(JSON.stringify(a.bazaar()), JSON.stringify(b.bazaar()));
});

test('advancing in one jump or step by step gives the same state', () => {
  const a = new Market(opts, T0);
  const b = new Market(opts, T0);
  a.populate();
  b.populate();
  a.advanceTo(T0 + 10 * 60_000 + 5);
  for (let s = 1; s <= 600; s += 7) b.advanceTo(T0 + s * 1000);
  b.advanceTo(T0 + 10 * 60_000 + 5);
  assert.equal(JSON.stringify(a.generation()), JSON.stringify(b.generation()));
});

test('initial book: size, BIN share, durations and newest-first order', () => {
  const m = new Market({ ...opts, auctions: 3000 }, T0);
  m.populate();
  const g = m.generation();
  assert.equal(g.auctions.length, 3000);
  assert.equal(g.lastUpdated, Math.floor(T0 / 60_000) * 60_000);
  const bin = g.auctions.filter((a) => a.bin).length / g.auctions.length;
  assert.ok(bin > 0.75 && bin < 0.86, `BIN share ${bin}`);
  const sixHours = g.auctions.filter((a) => a.end - a.start === 6 * 3_600_000).length / g.auctions.length;
  assert.ok(sixHours > 0.6 && sixHours < 0.74, `6h share ${sixHours}`);
  for (let i = 1; i < g.auctions.length; i++) assert.ok(g.auctions[i - 1]!.start >= g.auctions[i]!.start, 'newest first');
  for (const a of g.auctions) {
    assert.ok(a.end > g.lastUpdated, 'active auctions have not ended');
    assert.ok(a.start <= g.lastUpdated);
    assert.equal(a.highest_bid_amount, a.bids.length ? a.bids[a.bids.length - 1]!.amount : 0);
    if (a.bin) assert.equal(a.bids.length, 0);
  }
  const uuids = new Set(g.auctions.map((a) => a.uuid));
  assert.equal(uuids.size, g.auctions.length, 'uuids are unique');
});

test('lifecycle: auctions sell or expire into auctions_ended with the same uuid; lastUpdated moves by generationSeconds', () => {
  const m = new Market(opts, T0);
  m.populate();
  const seen = new Map<string, { bin: boolean; starting: number; seller: string; end: number; bytes: string }>();
  for (const a of m.generation().auctions) seen.set(a.uuid, { bin: a.bin, starting: a.starting_bid, seller: a.auctioneer, end: a.end, bytes: a.item_bytes });
  let last = m.generation().lastUpdated;
  let sold = 0;
  let soldBid = 0;
  let newListings = 0;
  for (let k = 1; k <= 90; k++) {
    const prev = new Set(m.generation().auctions.map((a) => a.uuid));
    assert.equal(m.advanceTo(m.generationTime(k)), true);
    const g = m.generation();
    assert.equal(g.lastUpdated - last, 60_000);
    last = g.lastUpdated;
    const now = new Set(g.auctions.map((a) => a.uuid));
    for (const a of g.auctions) if (!seen.has(a.uuid)) {
      newListings++;
      seen.set(a.uuid, { bin: a.bin, starting: a.starting_bid, seller: a.auctioneer, end: a.end, bytes: a.item_bytes });
      assert.ok(a.start > g.lastUpdated - 60_000 && a.start <= g.lastUpdated, 'new listings start within the generation');
    }
    const ended = m.auctionsEnded();
    assert.equal(ended.lastUpdated, g.lastUpdated);
    for (const s of ended.auctions) {
      const orig = seen.get(s.auction_id);
      assert.ok(orig, 'a sale refers to a known auction uuid');
      assert.ok(prev.has(s.auction_id) && !now.has(s.auction_id), 'a sold auction leaves the active book');
      assert.ok(s.timestamp > g.lastUpdated - 60_000 && s.timestamp <= g.lastUpdated, 'sales are from the last 60 s');
      assert.equal(s.seller, orig.seller);
      assert.notEqual(s.buyer, s.seller);
      assert.equal(s.bin, orig.bin);
      assert.equal(s.item_bytes, orig.bytes);
      if (s.bin) assert.equal(s.price, orig.starting);
      else {
        assert.equal(s.timestamp, orig.end, 'bid auctions sell when they end');
        assert.ok(s.price >= orig.starting);
        soldBid++;
      }
      sold++;
    }
    // Nothing active has ended.
    for (const a of g.auctions) assert.ok(a.end > g.lastUpdated);
  }
  assert.ok(sold > 400, `sold ${sold}`);
  assert.ok(soldBid > 0, 'some bid auctions sold');
  assert.ok(newListings > 400, `new listings ${newListings}`);
  const size = m.generation().auctions.length;
  assert.ok(size > 500 && size < 700, `book stays near its target, got ${size}`);
});

test('bids are placed on bid auctions and move highest_bid_amount and last_updated', () => {
  const m = new Market(opts, T0);
  m.populate();
  const before = new Map(m.generation().auctions.filter((a) => !a.bin).map((a) => [a.uuid, a.bids.length]));
  m.advanceTo(T0 + 30 * 60_000);
  let grew = 0;
  for (const a of m.generation().auctions) {
    const n = before.get(a.uuid);
    if (n === undefined || a.bids.length <= n) continue;
    grew++;
    const lastBid = a.bids[a.bids.length - 1]!;
    assert.equal(a.highest_bid_amount, lastBid.amount);
    assert.equal(a.last_updated, lastBid.timestamp);
    for (let i = 1; i < a.bids.length; i++) {
      assert.ok(a.bids[i]!.amount > a.bids[i - 1]!.amount);
      assert.ok(a.bids[i]!.timestamp > a.bids[i - 1]!.timestamp);
      assert.equal(a.bids[i]!.auction_id, a.uuid);
    }
  }
  assert.ok(grew > 0, 'some auctions received bids');
});

test('a long gap is compressed but still leaves a consistent book', () => {
  const m = new Market(opts, T0);
  m.populate();
  m.advanceTo(T0 + 3 * 86_400_000);
  const g = m.generation();
  assert.equal(g.lastUpdated, Math.floor((T0 + 3 * 86_400_000) / 60_000) * 60_000);
  for (const a of g.auctions) assert.ok(a.end > g.lastUpdated);
  assert.ok(g.auctions.length > 450);
});

function assertSorted(levels: readonly BazaarLevel[], dir: 1 | -1, id: string): void {
  for (let i = 1; i < levels.length; i++) {
    const d = (levels[i]!.pricePerUnit - levels[i - 1]!.pricePerUnit) * dir;
    assert.ok(d > 0, `${id}: levels strictly ${dir > 0 ? 'ascending' : 'descending'}`);
  }
}

test('bazaar: order books sorted the upstream way, 30 levels max, quick_status consistent', () => {
  const m = new Market(opts, T0);
  const bz = m.bazaarAt(T0);
  assert.equal(bz.success, true);
  assert.equal(bz.lastUpdated % 20_000, 0);
  const ids = Object.keys(bz.products);
  assert.equal(ids.length, BAZAAR_PRODUCTS.length);
  for (const id of ['WHEAT', 'ENCHANTED_WHEAT', 'ENCHANTED_HAY_BALE', 'INK_SACK:3', 'LOG:1', 'ENCHANTMENT_SHARPNESS_5', 'ENCHANTMENT_ULTIMATE_WISE_5', 'BOOSTER_COOKIE']) assert.ok(ids.includes(id), id);
  assert.ok(ids.some((id) => id.startsWith('SHARD_')));
  let full = 0;
  for (const [id, p] of Object.entries(bz.products)) {
    assert.equal(p.product_id, id);
    assert.equal(p.quick_status.productId, id);
    assert.ok(p.sell_summary.length <= 30 && p.buy_summary.length <= 30);
    if (p.sell_summary.length === 30) full++;
    assertSorted(p.sell_summary, -1, id);
    assertSorted(p.buy_summary, 1, id);
    const bestBid = p.sell_summary[0];
    const bestAsk = p.buy_summary[0];
    assert.ok(bestBid && bestAsk, `${id} has both sides`);
    assert.ok(bestBid.pricePerUnit < bestAsk.pricePerUnit, `${id}: no crossed book`);
    for (const l of [...p.sell_summary, ...p.buy_summary]) {
      assert.ok(Number.isInteger(l.amount) && l.amount >= 1);
      assert.ok(Number.isInteger(l.orders) && l.orders >= 1 && l.orders <= l.amount);
      assert.equal(Math.round(l.pricePerUnit * 10) / 10, l.pricePerUnit);
    }
    const q = p.quick_status;
    const sum = (ls: readonly BazaarLevel[], k: 'amount' | 'orders') => ls.reduce((s, l) => s + l[k], 0);
    assert.ok(q.sellVolume >= sum(p.sell_summary, 'amount') && q.buyVolume >= sum(p.buy_summary, 'amount'), `${id}: volume covers the visible book`);
    assert.ok(q.sellOrders >= sum(p.sell_summary, 'orders') && q.buyOrders >= sum(p.buy_summary, 'orders'));
    assert.ok(Math.abs(q.sellPrice - topTwoPercentPrice(p.sell_summary, q.sellVolume)) < 1e-6 * q.sellPrice, `${id}: sellPrice is the top-2% average`);
    assert.ok(Math.abs(q.buyPrice - topTwoPercentPrice(p.buy_summary, q.buyVolume)) < 1e-6 * q.buyPrice, `${id}: buyPrice is the top-2% average`);
    assert.ok(q.sellPrice <= bestBid.pricePerUnit + 1e-9 && q.buyPrice >= bestAsk.pricePerUnit - 1e-9);
    assert.ok(q.buyMovingWeek > 0 && q.sellMovingWeek > 0);
  }
  assert.ok(full > ids.length * 0.4, `many products show 30 levels (${full})`);
});

test('bazaar prices random-walk around fair value and change between snapshots', () => {
  const m = new Market(opts, T0);
  const id = 'ENCHANTED_DIAMOND';
  const fair = BAZAAR_PRODUCTS.find((p) => p.id === id)!.fairPrice;
  const prices: number[] = [];
  // Depth 1: quick_status does not depend on the depth shown (the backfill test checks it), a full book costs more.
  for (let i = 0; i < 200; i++) prices.push(m.bazaarAt(T0 + i * 3_600_000, 1).products[id]!.quick_status.buyPrice);
  assert.ok(new Set(prices).size > 150, 'prices move');
  for (const p of prices) assert.ok(p > fair * 0.6 && p < fair * 1.6, `price ${p} stays near fair ${fair}`);
  assert.equal(m.bazaarAt(T0 + 5).lastUpdated, m.bazaarAt(T0 + 19_999 - (T0 % 20_000)).lastUpdated);
});

test('products cap keeps every group', () => {
  const m = new Market({ ...opts, products: 40 }, T0);
  const ids = Object.keys(m.bazaarAt(T0).products);
  assert.equal(ids.length, 40);
  assert.ok(ids.some((i) => i.startsWith('ENCHANTMENT_')) && ids.some((i) => i.startsWith('SHARD_')));
});

test('election: mayor changes once per simulated year; current only while open', () => {
  const yearMs = 10 * 3_600_000;
  const m = new Market({ ...opts, yearMs }, T0);
  const mayors = new Set<string>();
  let open = 0;
  let closed = 0;
  for (let h = 0; h < 200; h++) {
    const e = m.electionAt(T0 + h * 3_600_000);
    assert.equal(e.success, true);
    assert.ok(e.mayor.key && e.mayor.name && e.mayor.perks.length >= 2);
    assert.ok(e.mayor.minister.key !== e.mayor.key && e.mayor.minister.perk.name);
    assert.equal(e.mayor.election.candidates.length, 5);
    const winner = e.mayor.election.candidates.reduce((a, b) => (b.votes > a.votes ? b : a));
    assert.equal(winner.key, e.mayor.key);
    mayors.add(`${e.mayor.election.year}:${e.mayor.key}`);
    if (e.current) {
      open++;
      assert.equal(e.current.year, e.mayor.election.year + 1);
    } else closed++;
  }
  assert.ok(mayors.size >= 19 && mayors.size <= 21, `one mayor per 10 h year, got ${mayors.size}`);
  assert.ok(open > 0 && closed > 0);
});
