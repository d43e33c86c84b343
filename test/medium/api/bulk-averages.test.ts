/**
 * The averages files (NEU's auction_averages and auction_averages_lbin, Elite's average-lbin) over
 * the price rollups, on SQLite and PostgreSQL: sales and hourly lowest BINs stored, rolled up, then
 * every file parsed as the mods parse it and checked against a recomputation from the raw rows.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { HOUR_MS, DAY_MS } from '../../../src/domain/prices.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { insert, offerRow } from '../../helpers/bazaar.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';

const bee = (lvl100: boolean) => ({ tag: 'PET_BEE', tier: 'LEGENDARY', enchantments: {}, flat_nbt: { 'petInfo.type': 'BEE', 'petInfo.tier': 'LEGENDARY', 'petInfo.exp': lvl100 ? '1e12' : '0' } });

describeEachBackend('bulk averages', (fixture) => {
  let t: TestApp;
  let now: number;
  let sales: AuctionsTable[];

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    now = t.clock.now();
    const hyperions = Array.from({ length: 20 }, (_, i) => sale(now, 2 * HOUR_MS + i * 60_000 * 50, { sold_price: 1_000_000 + i * 10_000 }));
    sales = [
      ...hyperions,
      sale(now, 3 * HOUR_MS, { sold_price: 1 }), // a mistake far below
      sale(now, 4 * HOUR_MS, { sold_price: 900_000_000 }), // a manipulation far above
      ...[0, 1, 2].map((i) => sale(now, 5 * HOUR_MS + i * 60_000, { ...bee(false), sold_price: 4_000_000 })),
      ...[0, 1].map((i) => sale(now, 6 * HOUR_MS + i * 60_000, { ...bee(true), sold_price: 9_000_000 })),
      ...[0, 1].map((i) => sale(now, 2 * DAY_MS + i * 60_000, { tag: 'ENCHANTMENT_ULTIMATE_WISE_5', item_name: 'Enchanted Book', tier: 'UNCOMMON', sold_price: 1_200_000, enchantments: { ultimate_wise: 5 } })),
      sale(now, 3 * HOUR_MS + 60_000, { tag: 'ENCHANTED_DIAMOND', count: 64, sold_price: 64_000 }),
    ];
    await storeSales(t.store, now, sales);
    await storeGeneration(t.store, now, [listing(now, { starting_bid: 1_500_000 }), listing(now, { ...bee(false), starting_bid: 5_000_000 }), listing(now, { ...bee(true), starting_bid: 9_500_000 })]);
  });
  after(() => t.close());

  test('404 until an hour is rolled up', async () => {
    const res = await t.app.inject('/neu/auction_averages/1day.json');
    assert.equal(res.statusCode, 404);
    assert.equal((res.json() as { slug: string }).slug, 'no_averages');
  });

  test('NEU auction_averages: price = coins paid, count = items, sales per day, clean figures without the outliers', async () => {
    const rollups = priceRollupsOf(t);
    await rollups.recordLowestBins(now - 2 * HOUR_MS);
    await rollups.recordLowestBins(now - HOUR_MS);
    await rollups.catchUp(now);
    const day = (await t.app.inject('/neu/auction_averages/1day.json')).json() as Record<string, { price: number; count: number; sales: number; clean_price: number; clean_sales: number }>;
    const hyp = sales.filter((s) => s.tag === 'HYPERION');
    assert.deepEqual(day['HYPERION'], {
      price: hyp.reduce((s, r) => s + r.sold_price!, 0),
      count: hyp.length,
      sales: hyp.length, // a one-day window of a store holding more than a day
      clean_price: Math.round((hyp.slice(0, 20).reduce((s, r) => s + r.sold_price!, 0) / 20) * 100) / 100,
      clean_sales: 20,
    });
    assert.deepEqual(day['BEE;4'], { price: 12_000_000, count: 3, sales: 3, clean_price: 4_000_000, clean_sales: 3 }, 'levels 1–99 only');
    assert.equal(day['BEE;4+100'], undefined, 'NEU has no key for level 100');
    assert.equal(day['ENCHANTED_DIAMOND']!.count, 64, 'items, not sales');
    assert.equal(day['ENCHANTED_DIAMOND']!.clean_price, 1_000, 'per item');
    assert.equal(day['ULTIMATE_WISE;5'], undefined, 'sold two days ago');
    const week = (await t.app.inject('/neu/auction_averages/7day.json')).json() as Record<string, { sales: number; count: number }>;
    // The store holds ~2 days of sales: the 7-day window's sales per day are over what it holds.
    const meta = (await t.app.inject('/api/prices/files')).json() as { averages: { coveredDays: Record<string, number> } };
    const covered = meta.averages.coveredDays['7day']!;
    assert.ok(covered >= 1.9 && covered <= 2.1, `${covered} days covered`);
    assert.equal(week['ULTIMATE_WISE;5']!.count, 2);
    assert.ok(Math.abs(week['ULTIMATE_WISE;5']!.sales - Math.round((2 / covered) * 100) / 100) < 0.011);
    const gz = await t.app.inject('/neu/auction_averages/1day.json.gz');
    assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), day);
  });

  test('lowest-BIN averages: NEU ids, and Elite ids with the level-100 pets apart', async () => {
    const neu = (await t.app.inject('/neu/auction_averages_lbin/1day.json')).json() as Record<string, number>;
    assert.equal(neu['HYPERION'], 1_500_000);
    assert.equal(neu['BEE;4'], 5_000_000);
    assert.equal(neu['BEE;4+100'], undefined);
    const elite = (await t.app.inject('/resources/auctions/neu/average-lbin/1day')).json() as Record<string, number>;
    assert.equal(elite['BEE;4'], 5_000_000);
    assert.equal(elite['BEE;4+100'], 9_500_000);
    const gz = await t.app.inject('/resources/auctions/neu/average-lbin/3day.gz');
    assert.equal(gz.headers['content-type'], 'application/gzip');
    assert.equal((JSON.parse(gunzipSync(gz.rawPayload).toString()) as Record<string, number>)['HYPERION'], 1_500_000);
    assert.equal((await t.app.inject('/neu/auction_averages_lbin/2day.json')).statusCode, 404);
  });

  test("smooth with few listings: a plant far under the last day's lowest BINs is not believed", async () => {
    await t.app.market.bulkPrices.averagesBuild();
    await storeGeneration(t.store, now, [listing(now, { ...bee(true), starting_bid: 10 })]);
    const raw = (await t.app.inject('/resources/auctions/neu?mode=raw')).json() as Record<string, number>;
    const smooth = (await t.app.inject('/resources/auctions/neu?mode=smooth')).json() as Record<string, number>;
    assert.equal(raw['BEE;4+100'], 10);
    assert.equal(smooth['BEE;4+100'], 9_500_000, 'two listings: the reference decides');
  });

  test('If-Modified-Since: 304 while the file is the one the client has, 200 when it is older', async () => {
    for (const url of ['/neu/auction_averages/1day.json', '/neu/auction_averages_lbin/1day.json.gz', '/neu/lowestbin.json']) {
      const first = await t.app.inject(url);
      assert.equal(first.statusCode, 200, url);
      const lastModified = String(first.headers['last-modified']);
      const same = await t.app.inject({ url, headers: { 'if-modified-since': lastModified } });
      assert.equal(same.statusCode, 304, url);
      assert.equal(same.body, '');
      assert.equal(same.headers['last-modified'], lastModified);
      const older = await t.app.inject({ url, headers: { 'if-modified-since': new Date(Date.parse(lastModified) - 1000).toUTCString() } });
      assert.equal(older.statusCode, 200, url);
      assert.ok(older.rawPayload.length > 0);
      assert.equal((await t.app.inject({ url, headers: { 'if-modified-since': 'not a date' } })).statusCode, 200, 'an unreadable date is ignored');
    }
  });

});

describeEachBackend('the tooltip file', (fixture) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ store: fixture().store });
  });
  after(() => t.close());

  test('every figure of an item in one entry, equal to the file it comes from', async () => {
    const now = t.clock.now();
    await storeSales(t.store, now, [
      ...[0, 1, 2].map((i) => sale(now, 2 * HOUR_MS + i * 60_000, { sold_price: 1_000_000 * (i + 1) })),
      ...[0, 1].map((i) => sale(now, 3 * HOUR_MS + i * 60_000, { ...bee(false), sold_price: 4_000_000 })),
    ]);
    await storeGeneration(t.store, now, [listing(now, { starting_bid: 1_500_000 }), listing(now, { ...bee(false), starting_bid: 5_000_000 })]);
    await insert(t.store, [offerRow('DIAMOND', now - 20_000, 8), offerRow('ENCHANTED_DIAMOND', now - 20_000, 1_400)]);
    await t.store.items.upsertMany([{ tag: 'HYPERION', name: 'Hyperion', tier: 'LEGENDARY', category: 'SWORD', npcSellPrice: 100_000 }], now);
    await t.app.market.catalog.refresh();
    await priceRollupsOf(t).recordLowestBins(now - 2 * HOUR_MS);
    await priceRollupsOf(t).catchUp(now);

    const tooltip = (await t.app.inject('/api/prices/tooltip')).json() as Record<string, Record<string, number>>;
    const lowest = (await t.app.inject('/neu/lowestbin.json')).json() as Record<string, number>;
    const lbin1 = (await t.app.inject('/neu/auction_averages_lbin/1day.json')).json() as Record<string, number>;
    const bazaar = (await t.app.inject('/api/bazaar/prices')).json() as Record<string, { buyPrice: number; sellPrice: number }>;
    // The store holds three hours of sales: three sales in them are 24 a day.
    const covered = ((await t.app.inject('/api/prices/files')).json() as { averages: { coveredDays: Record<string, number> } }).averages.coveredDays['3day']!;
    assert.equal(covered, 0.125);
    assert.deepEqual(tooltip['HYPERION'], {
      lowestBin: lowest['HYPERION'],
      avgLowestBin1d: lbin1['HYPERION'],
      avgLowestBin3d: lbin1['HYPERION'],
      avgLowestBin7d: lbin1['HYPERION'],
      medianSale3d: 2_000_000,
      salesPerDay3d: 24,
      npcSell: 100_000,
    });
    assert.equal(tooltip['BEE;4']!.lowestBin, 5_000_000);
    assert.equal(tooltip['BEE;4']!.medianSale3d, 4_000_000);
    const perCraft = t.app.market.game.recipes.get('ENCHANTED_DIAMOND')![0]!.inputs[0]!.count;
    assert.deepEqual(tooltip['ENCHANTED_DIAMOND'], { bazaarBuy: bazaar['ENCHANTED_DIAMOND']!.buyPrice, bazaarSell: bazaar['ENCHANTED_DIAMOND']!.sellPrice, craftCost: perCraft * 8 });
    const byTag = (await t.app.inject('/api/prices/tooltip?keys=hypixel')).json() as Record<string, unknown>;
    assert.deepEqual(byTag['PET_BEE;LEGENDARY'], tooltip['BEE;4']);
    assert.deepEqual(byTag['HYPERION'], tooltip['HYPERION']);
    assert.equal((await t.app.inject('/api/prices/tooltip?keys=elite')).statusCode, 400);
  });
});

describeEachBackend('bulk averages of a store without sales or listings', (fixture) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ store: fixture().store });
  });
  after(() => t.close());

  test('hours rolled up but nothing in them: 404 no_averages, as docs/mods.md says, not an empty file', async () => {
    const now = t.clock.now();
    const rollups = priceRollupsOf(t);
    await rollups.recordLowestBins(now - 2 * HOUR_MS);
    await rollups.catchUp(now);
    for (const url of ['/neu/auction_averages/1day.json', '/neu/auction_averages_lbin/3day.json', '/resources/auctions/neu/average-lbin/7day']) {
      const res = await t.app.inject(url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      assert.equal((res.json() as { slug: string }).slug, 'no_averages');
    }
  });
});
