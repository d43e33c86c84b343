/**
 * Prices and price history over HTTP (issue 24), on SQLite and PostgreSQL: sales stored as
 * ingestion stores them, rolled up by the market's price rollups, every answer checked against a
 * brute-force recomputation from the same raw sales (medians exact: no hour holds more than 32).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { averageWindow, bucketOf, DAY_MS, HOUR_MS, rangeStart, RANGE_BUCKETS, type HistoryRange, type PricePoint } from '../../../src/domain/prices.ts';
import { PriceService } from '../../../src/services/prices.ts';
import { OPEN_HOURS_MAX_SPAN } from '../../../src/market/open-hours.ts';
import { ManualClock } from '../../../src/clock.ts';
import { KnownTags } from '../../../src/services/auction-filters.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';

const MIN = 60_000;

/** Deterministic pseudo-random numbers. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

interface RawSale {
  price: number;
  count: number;
  at: number;
  tier: string | null;
  flat: Record<string, string>;
}

const rawOf = (r: AuctionsTable): RawSale => ({ price: r.sold_price! / r.count, count: r.count, at: r.sold_at!, tier: r.tier, flat: r.flat_nbt as Record<string, string> });

/** Expected points (without lowest BIN) of raw sales in buckets of `size` from `from` on. */
function expectedPoints(sales: RawSale[], from: number, size: number): Array<Omit<PricePoint, 'lowestBin'>> {
  const byBucket = new Map<number, RawSale[]>();
  for (const s of sales) {
    if (s.at < from) continue;
    const b = bucketOf(s.at, size);
    byBucket.set(b, [...(byBucket.get(b) ?? []), s]);
  }
  return [...byBucket.entries()]
    .sort(([a], [b]) => a - b)
    .map(([b, list]) => {
      const prices = list.map((s) => s.price);
      const items = list.reduce((n, s) => n + s.count, 0);
      return {
        min: Math.min(...prices),
        max: Math.max(...prices),
        avg: prices.reduce((a, x) => a + x, 0) / prices.length,
        volume: items,
        time: new Date(b).toISOString(),
        median: median(prices),
        sales: list.length,
        items,
      };
    });
}

function assertPoints(actual: PricePoint[], expected: Array<Omit<PricePoint, 'lowestBin'>>, what: string) {
  const withSales = actual.filter((p) => p.sales > 0);
  assert.equal(withSales.length, expected.length, `${what}: ${withSales.length} points with sales, expected ${expected.length}`);
  for (let i = 0; i < expected.length; i++) {
    const a = withSales[i]!;
    const e = expected[i]!;
    assert.equal(a.time, e.time, `${what} [${i}] time`);
    for (const k of ['min', 'max', 'volume', 'sales', 'items', 'median'] as const) assert.equal(a[k], e[k], `${what} ${a.time} ${k}`);
    assert.ok(Math.abs(a.avg - e.avg) < 1e-6 * e.avg, `${what} ${a.time} avg ${a.avg} vs ${e.avg}`);
  }
}

describeEachBackend('prices and price history', (fixture) => {
  let t: TestApp;
  let now: number;
  const hyperion: AuctionsTable[] = [];
  const stacks: AuctionsTable[] = [];
  const pets: AuctionsTable[] = [];
  let tail: AuctionsTable;
  const listings: AuctionsTable[] = [];

  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    now = t.clock.now();
    const r = rng(7);
    // Hyperion: one sale every ~47 minutes for 40 days (≤ 2 an hour: medians exact everywhere).
    for (let ago = 40 * DAY_MS; ago > 15 * MIN; ago -= 47 * MIN) {
      hyperion.push(sale(now, ago, { tag: 'HYPERION', sold_price: Math.round(700_000_000 + r() * 200_000_000), bin: r() < 0.7, tier: r() < 0.5 ? 'LEGENDARY' : 'MYTHIC' }));
    }
    // A stackable item sold in stacks: prices per unit, volume in items.
    for (let ago = 3 * DAY_MS; ago > 20 * MIN; ago -= 83 * MIN) {
      const count = 1 + Math.floor(r() * 64);
      stacks.push(sale(now, ago, { tag: 'ENCHANTED_DIAMOND', item_name: 'Enchanted Diamond', count, sold_price: count * Math.round(1000 + r() * 500), tier: 'UNCOMMON', enchantments: {} }));
    }
    // Pets: legendary and epic, level 1-99 and 100.
    for (let ago = 9 * DAY_MS; ago > 30 * MIN; ago -= 101 * MIN) {
      const tier = r() < 0.5 ? 'LEGENDARY' : 'EPIC';
      const high = r() < 0.4;
      pets.push(
        sale(now, ago, {
          tag: 'PET_BEE',
          item_name: high ? '[Lvl 100] Bee' : '[Lvl 40] Bee',
          tier,
          enchantments: {},
          sold_price: Math.round((high ? 5_000_000 : 1_000_000) * (tier === 'LEGENDARY' ? 3 : 1) * (0.9 + r() * 0.2)),
          flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': tier, 'petInfo.exp': high ? '30000000' : '50000' },
        }),
      );
    }
    await storeSales(t.store, now - 15 * MIN, [...hyperion, ...stacks, ...pets]);
    for (const [i, price] of [820_000_000, 790_000_000, 805_000_000].entries()) {
      listings.push(listing(now, { tag: 'HYPERION', starting_bid: price, tier: i === 0 ? 'MYTHIC' : 'LEGENDARY' }));
    }
    listings.push(listing(now, { tag: 'HYPERION', starting_bid: 100_000_000, bin: false }));
    for (const [i, n] of [10, 64, 5].entries()) listings.push(listing(now, { tag: 'ENCHANTED_DIAMOND', item_name: 'Enchanted Diamond', count: n, starting_bid: n * (1100 + i * 100), tier: 'UNCOMMON' }));
    listings.push(listing(now, { tag: 'PET_BEE', item_name: '[Lvl 100] Bee', tier: 'LEGENDARY', starting_bid: 14_000_000, flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '30000000' } }));
    listings.push(listing(now, { tag: 'PET_BEE', item_name: '[Lvl 40] Bee', tier: 'LEGENDARY', starting_bid: 2_900_000, flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': '50000' } }));
    await storeGeneration(t.store, now - MIN, listings);
    await t.app.market.activeAuctions.ready();
    await priceRollupsOf(t).recordLowestBins(now - 3 * HOUR_MS);
    await priceRollupsOf(t).tick(now);
    // A sale after the last rolled-up hour: read raw.
    tail = sale(now, 2 * MIN, { tag: 'HYPERION', sold_price: 750_000_000, tier: 'LEGENDARY' });
    hyperion.push(tail);
    await storeSales(t.store, now - MIN, [tail]);
  });
  after(async () => {
    await t?.close();
  });

  const get = async <T>(url: string, status = 200) => {
    const res = await t.app.inject(url);
    assert.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 300)}`);
    return { body: res.json() as T, headers: res.headers };
  };

  test('the rollup caught up to the last closed hour and closed every whole day', async () => {
    const state = await t.store.priceRollups.state();
    assert.equal(state.rolledTo, bucketOf(now - 10 * MIN, HOUR_MS));
    assert.equal(state.daysTo, bucketOf(now, DAY_MS));
  });

  for (const range of ['day', 'week', 'month', 'full'] as const satisfies readonly HistoryRange[]) {
    test(`history/${range} equals the raw sales bucketed, the unrolled tail included`, async () => {
      const { body, headers } = await get<PricePoint[]>(`/api/item/price/HYPERION/history/${range}`);
      assert.equal(headers['x-sales-read-from'], undefined);
      const { bucket } = RANGE_BUCKETS[range];
      assertPoints(body, expectedPoints(hyperion.map(rawOf), rangeStart(range, now), bucket), range);
      const last = body.filter((p) => p.sales > 0).pop()!;
      assert.equal(last.time, new Date(bucketOf(tail.sold_at!, bucket)).toISOString());
      assert.ok(last.min <= 750_000_000);
      for (const p of body) assert.deepEqual(Object.keys(p).sort(), ['avg', 'items', 'lowestBin', 'max', 'median', 'min', 'sales', 'time', 'volume']);
    });
  }

  test('history carries the lowest BIN (per unit) recorded in each bucket', async () => {
    const { body } = await get<PricePoint[]>('/api/item/price/HYPERION/history/day');
    const at = (ts: number) => body.find((p) => p.time === new Date(ts).toISOString());
    assert.equal(at(bucketOf(now - 3 * HOUR_MS, HOUR_MS))?.lowestBin, 790_000_000);
    assert.equal(at(bucketOf(now, HOUR_MS))?.lowestBin, 790_000_000);
    assert.equal(at(bucketOf(now - 5 * HOUR_MS, HOUR_MS))?.lowestBin ?? null, null);
    const stacksDay = (await get<PricePoint[]>('/api/item/price/ENCHANTED_DIAMOND/history/day')).body;
    assert.equal(stacksDay.find((p) => p.time === new Date(bucketOf(now, HOUR_MS)).toISOString())?.lowestBin, 1100);
    // Full history: the lowest BIN of closed days comes from the daily table.
    const full = (await get<PricePoint[]>('/api/item/price/HYPERION/history/full')).body;
    assert.equal(full.find((p) => p.time === new Date(bucketOf(now, DAY_MS)).toISOString())?.lowestBin, 790_000_000);
  });

  test('stacks: prices per unit, volume in items', async () => {
    const { body } = await get<PricePoint[]>('/api/item/price/ENCHANTED_DIAMOND/history/week');
    assertPoints(body, expectedPoints(stacks.map(rawOf), rangeStart('week', now), 2 * HOUR_MS), 'stacks');
    assert.ok(body.some((p) => p.items > p.sales));
  });

  test('pet variants: each variant its own history; the whole tag all of them', async () => {
    const raw = pets.map(rawOf);
    const legendary100 = raw.filter((s) => s.tier === 'LEGENDARY' && s.flat['petInfo.exp'] === '30000000');
    const { body } = await get<PricePoint[]>('/api/item/price/PET_BEE/history/month?variant=LEGENDARY%2B100');
    assertPoints(body, expectedPoints(legendary100, rangeStart('month', now), DAY_MS), 'LEGENDARY+100');
    // An unencoded + arrives as a space.
    const spaced = (await get<PricePoint[]>('/api/item/price/PET_BEE/history/month?variant=LEGENDARY+100')).body;
    assert.deepEqual(spaced, body);
    const epic = raw.filter((s) => s.tier === 'EPIC' && s.flat['petInfo.exp'] === '50000');
    assertPoints((await get<PricePoint[]>('/api/item/price/PET_BEE/history/full?variant=EPIC')).body, expectedPoints(epic, 0, DAY_MS), 'EPIC full');
    assertPoints((await get<PricePoint[]>('/api/item/price/PET_BEE/history/full')).body, expectedPoints(raw, 0, DAY_MS), 'PET_BEE full');
  });

  test('filtered history reads raw sales: the same answer as brute force over the matching sales', async () => {
    const { body, headers } = await get<PricePoint[]>('/api/item/price/HYPERION/history/week?Rarity=MYTHIC');
    assert.equal(headers['x-sales-read-from'], undefined);
    const mythic = hyperion.filter((r) => r.tier === 'MYTHIC').map(rawOf);
    assertPoints(body, expectedPoints(mythic, rangeStart('week', now), 2 * HOUR_MS), 'MYTHIC week');
    for (const p of body) assert.equal(p.lowestBin, null);
    const pets100 = (await get<PricePoint[]>('/api/item/price/PET_BEE/history/month?PetLevel=100')).body;
    assertPoints(pets100, expectedPoints(pets.map(rawOf).filter((s) => s.flat['petInfo.exp'] === '30000000'), rangeStart('month', now), DAY_MS), 'PetLevel=100');
  });

  test('a filtered read cut by its deadline says from when it read (service)', async () => {
    const service = new PriceService({ store: t.store, clock: t.clock, market: t.app.market, knownTags: new KnownTags(t.store, t.app.market.activeAuctions), filteredDeadlineMs: 0 });
    const cut = await service.history('HYPERION', 'month', { filters: { Rarity: 'MYTHIC' } });
    assert.equal(cut.source, 'sales');
    assert.equal(cut.cut, now);
    assert.deepEqual(cut.points, []);
    // Unfiltered, with the rollup current: the open hours are held whole (they span at most
    // OPEN_HOURS_MAX_SPAN), never cut.
    assert.equal((await service.history('HYPERION', 'month')).cut, null);
    // With the rollup further behind (a first catch-up), the raw tail after the last rolled-up
    // hour is read under the deadline, and only it is cut.
    const later = now + OPEN_HOURS_MAX_SPAN + HOUR_MS;
    const at = (deadline?: number) =>
      new PriceService({ store: t.store, clock: new ManualClock(later), market: t.app.market, knownTags: new KnownTags(t.store, t.app.market.activeAuctions), ...(deadline === undefined ? {} : { filteredDeadlineMs: deadline }) });
    const whole = await at(0).history('HYPERION', 'month');
    assert.equal(whole.cut, later);
    const complete = await at().history('HYPERION', 'month');
    assert.equal(complete.cut, null);
    const sales = (h: typeof whole) => h.points.reduce((n, p) => n + p.sales, 0);
    const rolledTo = (await t.store.priceRollups.state()).rolledTo;
    const unrolled = hyperion.filter((r) => r.sold_at! >= rolledTo).length;
    assert.ok(unrolled >= 1);
    assert.equal(sales(whole), sales(complete) - unrolled, 'all but the unrolled sales');
  });

  test('summary: the last 2 days (whole hours) against brute force; filters', async () => {
    const from = bucketOf(now - 2 * DAY_MS, HOUR_MS);
    const window = hyperion.map(rawOf).filter((s) => s.at >= from);
    const prices = window.map((s) => s.price);
    const { body } = await get<Record<string, number>>('/api/item/price/HYPERION');
    assert.equal(body['min'], Math.min(...prices));
    assert.equal(body['max'], Math.max(...prices));
    assert.equal(body['median'], median(prices));
    assert.equal(body['volume'], window.length);
    assert.ok(Math.abs(body['mean']! - prices.reduce((a, x) => a + x, 0) / prices.length) < 1);
    assert.ok(prices.includes(body['mode']!));
    const mythic = hyperion.filter((r) => r.tier === 'MYTHIC' && r.sold_at! >= from).map((r) => r.sold_price!);
    const filtered = (await get<Record<string, number>>('/api/item/price/HYPERION?Rarity=MYTHIC')).body;
    assert.equal(filtered['median'], median(mythic));
    assert.equal(filtered['volume'], mythic.length);
    assert.deepEqual((await get('/api/item/price/HYPERION?Rarity=DIVINE&Stars=9')).body, { min: 0, median: 0, mean: 0, mode: 0, volume: 0, max: 0 });
  });

  test('bin: the two cheapest BINs without bids, with filters', async () => {
    const cheapest = listings.filter((l) => l.tag === 'HYPERION' && l.bin).sort((a, b) => a.starting_bid - b.starting_bid);
    assert.deepEqual((await get('/api/item/price/HYPERION/bin')).body, { lowest: 790_000_000, uuid: cheapest[0]!.uuid, secondLowest: 805_000_000 });
    assert.deepEqual((await get('/api/item/price/HYPERION/bin?Rarity=MYTHIC')).body, { lowest: 820_000_000, uuid: cheapest[2]!.uuid, secondLowest: 0 });
    assert.deepEqual((await get('/api/item/price/HYPERION/bin?Rarity=COMMON')).body, { lowest: 0, uuid: null, secondLowest: 0 });
  });

  test('current: auction items buy from the cheapest BINs per unit, sell at the 2-day median', async () => {
    const { body } = await get<Record<string, unknown>>('/api/item/price/ENCHANTED_DIAMOND/current?count=20');
    // 10 at 1100, 10 of 5 at 1300 → no: cheapest per unit first: 10×1100, then 64 at 1200 per unit.
    assert.equal(body['buy'], 10 * 1100 + 10 * 1200);
    assert.equal(body['available'], 79);
    assert.equal(body['isAh'], true);
    const summary = (await get<Record<string, number>>('/api/item/price/ENCHANTED_DIAMOND')).body;
    assert.equal(body['sell'], 20 * summary['median']!);
    assert.equal((await get<Record<string, unknown>>('/api/item/price/ENCHANTED_DIAMOND/current')).body['buy'], 1100);
  });

  test('year: daily points and totals from the rollups', async () => {
    const { body } = await get<Record<string, unknown> & { prices: PricePoint[]; recentSamples: Array<{ uuid: string }> }>('/api/item/price/HYPERION/history/year');
    const from = bucketOf(now - 365 * DAY_MS, DAY_MS) + DAY_MS;
    const raw = hyperion.filter((r) => r.sold_at! >= from);
    assert.equal(body['totalAuctionsSold'], raw.length);
    assert.equal(body['totalItemsSold'], raw.length);
    assert.equal(body['totalCoinsTransferred'], raw.reduce((a, r) => a + r.sold_price!, 0));
    assertPoints(body.prices, expectedPoints(raw.map(rawOf), from, DAY_MS), 'year');
    const week = hyperion.filter((r) => r.sold_at! >= now - 7 * DAY_MS);
    assert.equal(body['binCount'], week.filter((r) => r.bin).length);
    assert.equal(body['totalBids'], week.filter((r) => !r.bin).length);
    assert.equal(body['recentSamples'].length, 10);
    assert.equal(body.recentSamples[0]!.uuid, tail.uuid);
    assert.equal(body['detailWindowDays'], 7);
  });

  test('NEU pricehistory: 2-hour averages of the week, by NEU id (pet variants too)', async () => {
    const { body } = await get<Record<string, { b: number }>>('/api/pricehistory?item=HYPERION');
    const expected = expectedPoints(hyperion.map(rawOf), rangeStart('week', now), 2 * HOUR_MS);
    assert.equal(Object.keys(body).length, expected.length);
    for (const e of expected) assert.ok(Math.abs(body[e.time]!.b - e.avg) < 1e-6 * e.avg, e.time);
    const bee = (await get<Record<string, { b: number }>>('/api/pricehistory?item=BEE%3B4%2B100')).body;
    const leg100 = pets.map(rawOf).filter((s) => s.tier === 'LEGENDARY' && s.flat['petInfo.exp'] === '30000000');
    assert.equal(Object.keys(bee).length, expectedPoints(leg100, rangeStart('week', now), 2 * HOUR_MS).length);
    await get('/api/pricehistory?item=NO_SUCH_THING', 404);
    await get('/api/pricehistory?item=bad%20%3Cid%3E', 400);
  });

  test('averages per tag and variant for the bulk files', async () => {
    // What the bulk files read (market/bulk-prices.ts): the window of the last rolled-up hour, then its averages.
    const { from, to } = averageWindow((await t.app.store.priceRollups.state()).rolledTo, 3 * DAY_MS);
    const variants = await t.app.store.priceRollups.averages(from, to);
    assert.equal(to, bucketOf(now - 10 * MIN, HOUR_MS));
    assert.equal(from, to - 3 * DAY_MS);
    const diamonds = variants.find((v) => v.tag === 'ENCHANTED_DIAMOND' && v.variant === '')!;
    const raw = stacks.filter((r) => r.sold_at! >= from && r.sold_at! < to);
    assert.equal(diamonds.count, raw.length);
    assert.equal(diamonds.items, raw.reduce((a, r) => a + r.count, 0));
    assert.equal(diamonds.coins, raw.reduce((a, r) => a + r.sold_price!, 0));
    assert.equal(diamonds.lowestBinAverage, 1100);
    assert.ok(variants.some((v) => v.tag === 'PET_BEE' && v.variant === 'LEGENDARY+100'));
  });

  test('bad input: 4xx problems, never a 5xx', async () => {
    await get('/api/item/price/not%20a%20tag/history/week', 400);
    await get('/api/item/price/NO_SUCH_ITEM_EVER/history/week', 404);
    await get('/api/item/price/NO_SUCH_ITEM_EVER', 404);
    await get('/api/item/price/NO_SUCH_ITEM_EVER/bin', 404);
    await get('/api/item/price/NO_SUCH_ITEM_EVER/current', 404);
    await get('/api/item/price/HYPERION/history/week?NoSuchFilter=1', 400);
    await get('/api/item/price/HYPERION/history/week?Stars=abc', 400);
    await get('/api/item/price/HYPERION/history/week?variant=A&Rarity=EPIC', 400);
    await get('/api/item/price/HYPERION/history/week?variant=%3Cx%3E', 400);
    await get('/api/item/price/HYPERION/current?count=0', 400);
    await get('/api/item/price/HYPERION/current?count=abc', 400);
    await get('/api/item/price/HYPERION/history/decade', 404);
    // Aliases resolve to the canonical tag.
    assert.deepEqual((await get('/api/item/price/hyperion/bin')).body, (await get('/api/item/price/HYPERION/bin')).body);
  });

  // Last: it stores a sale, as the ingester would between two requests.
  test('a sale stored after an answer is in the next one: the open hours held, then only the newer sale read', async () => {
    const before = (await get<Record<string, number>>('/api/item/price/HYPERION')).body;
    const counts = { ...t.app.market.openHours.stats };
    const late = sale(now, MIN / 2, { tag: 'HYPERION', sold_price: 640_000_000, tier: 'MYTHIC' });
    hyperion.push(late);
    await storeSales(t.store, now, [late]);
    const after = (await get<Record<string, number>>('/api/item/price/HYPERION')).body;
    assert.equal(t.app.market.openHours.stats.newer, counts.newer + 1);
    assert.equal(after['volume'], before['volume']! + 1);
    assert.equal(after['min'], 640_000_000);
    const from = bucketOf(now - 2 * DAY_MS, HOUR_MS);
    assert.equal(after['median'], median(hyperion.map(rawOf).filter((s) => s.at >= from).map((s) => s.price)));
    const week = (await get<PricePoint[]>('/api/item/price/HYPERION/history/week')).body;
    assertPoints(week, expectedPoints(hyperion.map(rawOf), rangeStart('week', now), 2 * HOUR_MS), 'week with the late sale');
  });
});
