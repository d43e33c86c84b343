/**
 * The pages (src/web/) on simulator data, over HTTP on both backends: each page kind renders
 * server-side with its tables and prices, OpenGraph and Twitter metadata and a link to /data;
 * the chart data is embedded; aliases redirect; bad and unknown tags are problems; assets are
 * fingerprinted and immutable; the bazaar candles are real OHLC of the stored snapshots.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { priceRollupsOf } from '../../helpers/rollups.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { realRows, storeGeneration } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { startWebSite, type WebSite } from '../../helpers/web-site.ts';
import { HOUR, MINUTE } from '../../../src/domain/bazaar-history.ts';
import { coins } from '../../../src/web/render.ts';
import { petLevelBand, priceVariantKey } from '../../../src/domain/prices.ts';

function pageData(html: string): any {
  const m = /<script type="application\/json" id="page-data">(.*?)<\/script>/s.exec(html);
  assert.ok(m, 'page data embedded');
  return JSON.parse(m[1]!);
}

function assertShell(html: string, path: string) {
  assert.match(html, /^<!doctype html>/);
  assert.match(html, /<meta property="og:title" content="[^"]+">/);
  assert.match(html, /<meta property="og:description" content="[^"]+">/);
  assert.match(html, /<meta name="twitter:card" content="summary">/);
  assert.match(html, new RegExp(`<meta property="og:url" content="http://[^"]+${path.replace(/[?]/g, '\\?')}">`));
  assert.match(html, /href="\/data"/, 'links to the data page');
  assert.match(html, /<link rel="stylesheet" href="\/assets\/main-[A-Z0-9]+\.css">/);
  assert.doesNotMatch(html, /https?:\/\/(?!127\.0\.0\.1|localhost|www\.tradingview\.com)[a-z]/i, 'no third-party URL but the chart credit');
}

describeEachBackend('web pages on simulator data', (fixture) => {
  let s: WebSite;
  before(async () => {
    s = await startWebSite({ store: fixture().store, listen: false, historyHours: 3 });
  });
  after(() => s?.close());
  const get = (url: string, headers: Record<string, string> = {}) => s.t.app.inject({ url, headers });

  it('/ has search, movers, flips and links', async () => {
    const res = await get('/');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assertShell(res.body, '/');
    assert.match(res.body, /<input id="q" name="q" type="search"/);
    assert.match(res.body, /Biggest movers/);
    assert.match(res.body, /href="\/bazaar\/[A-Z_0-9]+"/);
    // the search without a script: a list of results linking to their pages
    const name = s.t.app.services.items.details(s.item)!.name;
    const found = await get(`/?q=${encodeURIComponent(name)}`);
    assert.equal(found.statusCode, 200);
    assert.ok(found.body.includes(`href="/item/${s.item}"`), 'the item is among the results');
    assert.equal((await get(`/?q=${'x'.repeat(100)}`)).statusCode, 400);
  });

  it('/item/{tag}: prices in the HTML before any script, chart data embedded', async () => {
    const res = await get(`/item/${s.item}`);
    assert.equal(res.statusCode, 200);
    assertShell(res.body, `/item/${s.item}`);
    const data = pageData(res.body);
    assert.equal(data.kind, 'item');
    assert.equal(data.tag, s.item);
    assert.ok(data.chart.points.length > 0, 'chart points');
    for (const p of data.chart.points) assert.ok(p.min <= p.median && p.median <= p.max && p.min <= p.avg && p.avg <= p.max && p.volume > 0, JSON.stringify(p));
    assert.equal(data.chart.source, 'rollups');
    // the mayor terms behind the chart: the stored elections' terms overlapping it
    const terms = await s.t.app.services.mayors.periods(data.chart.points[0].time, s.t.clock.now());
    assert.ok(terms.length >= 1, 'the simulator stored an election');
    assert.deepEqual(data.chart.mayors, terms.map((t) => ({ start: Date.parse(t.start), end: Date.parse(t.end), name: t.winner.name })));
    const lowest = s.t.app.market.activeAuctions.lowestBin(s.item, () => true, 1)[0]!;
    assert.equal(data.lowestBin, lowest.startingBid);
    assert.match(res.body, /Lowest BINs/);
    assert.match(res.body, /Recent sales/);
    assert.match(res.body, new RegExp(`href="/api/auctions/tag/${s.item}/active/bin"`));
    // every listed BIN's price leads to the listing's value (issue 43: pick a listing)
    assert.ok(res.body.includes(`<a href="/value?auction=${lowest.uuid}"`), 'the cheapest BIN links to its value');
    // its value in NEU's bulk file, under its id, as the file has it
    const neu = (await get('/neu/lowestbin.json')).json() as Record<string, number>;
    const key = /<a href="\/neu\/lowestbin.json">neu\/lowestbin<\/a><\/td><td><code>([^<]+)<\/code><\/td><td class="num">([^<]+)<\/td>/.exec(res.body);
    assert.ok(key, 'the bulk values panel');
    assert.ok(neu[key[1]!] !== undefined, `${key[1]} in the file`);
    assert.equal(key[2], coins(neu[key[1]!]!));
    assert.match(res.body, /<meta property="og:image" content="http:\/\/[^"]+\/api\/item\/[A-Z_0-9]+\/icon">/);
  });

  it('/item: the chart JSON is the price history, and changes with the range and the variant', async () => {
    const day = (await get(`/item/${s.item}/chart.json?range=day`)).json();
    const week = (await get(`/item/${s.item}/chart.json?range=week`)).json();
    assert.equal(day.range, 'day');
    assert.equal(week.range, 'week');
    assert.ok(day.points.length > 0 && week.points.length > 0);
    for (const p of day.points) assert.equal(p.time % HOUR, 0);
    for (const p of week.points) assert.equal(p.time % (2 * HOUR), 0);
    assert.notDeepEqual(day.points.map((p: { time: number }) => p.time), week.points.map((p: { time: number }) => p.time));
    // the same numbers as the price history API
    const api = (await get(`/api/item/price/${s.item}/history/day`)).json() as Array<{ time: string; avg: number; min: number; max: number; volume: number }>;
    assert.deepEqual(day.points.map((p: { time: number; avg: number; min: number; max: number; volume: number }) => [p.time, p.avg, p.min, p.max, p.volume]), api.map((p) => [Date.parse(p.time), p.avg, p.min, p.max, p.volume]));
    assert.equal(day.sales, api.reduce((n, p) => n + p.volume, 0));
    // a variant: a part of the sales
    const petPage = s.pet ? pageData((await get(`/item/${s.pet}`)).body) : undefined;
    if (s.pet && petPage) {
      const all = (await get(`/item/${s.pet}/chart.json?range=full`)).json();
      const variants = s.t.app.services.auctions.variantsOf(s.pet).filter((v) => v !== '');
      assert.ok(variants.length > 0, 'the pet has variants');
      const one = (await get(`/item/${s.pet}/chart.json?range=full&variant=${encodeURIComponent(variants[0]!)}`)).json();
      assert.equal(one.variant, variants[0]);
      assert.ok(one.sales <= all.sales, `${one.sales} of ${all.sales}`);
    }
    const filtered = (await get(`/item/${s.item}/chart.json?range=month&Rarity=MYTHIC`)).json();
    assert.deepEqual(filtered.filters, { Rarity: 'MYTHIC' });
    assert.equal(filtered.source, 'sales');
    const month = (await get(`/item/${s.item}/chart.json?range=month`)).json();
    assert.ok(filtered.sales <= month.sales);
  });

  it('/item: the lowest-BIN panel as the page renders it and as bins.json sends it (the live part refetches it)', async () => {
    const bins = (await get(`/item/${s.item}/bins.json`)).json() as { tag: string; lowest: number | null; supply: number; at: number; rows: Array<{ uuid: string; price: number; tier: string; attrs: string; seller: string }> };
    const cheapest = s.t.app.market.activeAuctions.lowestBin(s.item, () => true, 12);
    assert.equal(bins.tag, s.item);
    assert.equal(bins.lowest, cheapest[0]!.startingBid);
    assert.equal(bins.supply, s.t.app.services.auctions.supplyOf(s.item));
    assert.equal(bins.at, s.t.clock.now());
    assert.ok(bins.rows.length > 0 && bins.rows.length <= 12);
    assert.deepEqual(bins.rows.map((r) => r.price), [...bins.rows.map((r) => r.price)].sort((a, b) => a - b));
    assert.equal(bins.rows[0]!.price, cheapest[0]!.startingBid);
    assert.equal(bins.rows[0]!.uuid, cheapest[0]!.uuid, 'the row names its listing (its price links to /value?auction=)');
    const html = (await get(`/item/${s.item}`)).body;
    const body = /<tbody id="bins-body">([\s\S]*?)<\/tbody>/.exec(html)![1]!;
    assert.equal(body.match(/<tr>/g)?.length, bins.rows.length);
    assert.match(html, /<dd id="stat-supply">\d+<\/dd>/);
    assert.match(html, /id="bins-status" data-live="off"/);
    // an alias answers for the canonical tag; bad input is a problem
    assert.equal((await get(`/item/${s.item.toLowerCase()}/bins.json`)).json().tag, s.item);
    assert.equal((await get('/item/NO_SUCH_ITEM_EVER/bins.json')).statusCode, 404);
    assert.equal((await get('/item/bad%20tag/bins.json')).statusCode, 400);
    assert.equal((await get(`/item/${s.item}/bins.json?variant=${'X'.repeat(40)}`)).statusCode, 400);
  });

  it('/item of a pet: one variant drives the lowest-BIN card, the table (with levels), the supply and bins.json', async () => {
    assert.ok(s.pet, 'the simulator lists a pet');
    const pet = s.pet;
    const view = s.t.app.market.activeAuctions;
    const variants = s.t.app.services.auctions.variantsOf(pet);
    assert.ok(variants.length >= 2, `the pet has several variants: ${variants.join(', ')}`);
    let supplies = 0;
    for (const variant of variants) {
      const bins = (await get(`/item/${pet}/bins.json?variant=${encodeURIComponent(variant)}`)).json() as { lowest: number | null; supply: number; rows: Array<{ price: number; tier: string; level: number | null }> };
      const mine = (l: Parameters<typeof priceVariantKey>[0]) => priceVariantKey(l) === variant;
      const cheapest = view.lowestBin(pet, mine, 12);
      assert.equal(bins.lowest, cheapest[0]?.startingBid ?? null, variant);
      assert.deepEqual(bins.rows.map((r) => r.price), cheapest.map((l) => l.startingBid), variant);
      // every row is of the variant: its rarity and level band
      for (const r of bins.rows) assert.equal(`${r.tier}${petLevelBand(r.level!)}`, variant);
      assert.equal(bins.supply, view.activeOf(pet, mine).length, `${variant}: its own supply`);
      supplies += bins.supply;
      // loaded directly, the page shows the same choice: the option selected, the card, the table, the supply
      const html = (await get(`/item/${pet}?variant=${encodeURIComponent(variant)}`)).body;
      assert.match(html, new RegExp(`<option selected>${variant.replace('+', '\\+')}</option>`));
      assert.equal(/<dd id="stat-lbin">([^<]*)<\/dd>/.exec(html)?.[1], coins(bins.lowest));
      assert.equal(/<dd id="stat-supply">([^<]*)<\/dd>/.exec(html)?.[1], String(bins.supply));
      assert.equal(pageData(html).lowestBin, bins.lowest);
      const body = /<tbody id="bins-body" data-level>([\s\S]*?)<\/tbody>/.exec(html)?.[1];
      assert.ok(body !== undefined, 'a pet table marks its level column');
      assert.deepEqual([...body.matchAll(/<tr><td class="num"><a [^>]*>[^<]*<\/a><\/td><td>[^<]*<\/td><td class="num">(\d+)<\/td>/g)].map((m) => Number(m[1])), bins.rows.map((r) => r.level));
    }
    assert.equal(supplies, s.t.app.services.auctions.supplyOf(pet), 'the variants split the supply');
    assert.match((await get(`/item/${pet}`)).body, /<th scope="col" class="num">Level<\/th>/);
    assert.doesNotMatch((await get(`/item/${s.item}`)).body, /<th scope="col" class="num">Level<\/th>/);
  });

  it('/item: an alias redirects to the canonical tag, keeping the query', async () => {
    const res = await get(`/item/${s.item.toLowerCase()}?range=day`);
    assert.equal(res.statusCode, 301);
    assert.equal(res.headers.location, `/item/${s.item}?range=day`);
  });

  it('/item: malformed tag 400, unknown tag 404, bad range 400, as problems', async () => {
    const bad = await get('/item/bad%20tag');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().slug, 'invalid_tag');
    const unknown = await get('/item/NO_SUCH_ITEM_EVER');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().slug, 'item_not_found');
    // Not an alias of anything (initials are a search, not an alias): 404 at once, no redirect to a 404.
    const lower = await get('/item/no_such_item_ever');
    assert.equal(lower.statusCode, 404);
    assert.equal(lower.json().slug, 'item_not_found');
    // A browser gets the site's 404 page, with the search box, not a problem body.
    for (const url of ['/item/NOT_A_REAL_ITEM', '/bazaar/NOT_A_REAL_ITEM']) {
      const page = await get(url, { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
      assert.equal(page.statusCode, 404, url);
      assert.match(String(page.headers['content-type']), /^text\/html/, url);
      assert.match(page.body, /<form class="search" action="\/" method="get" role="search">/, url);
      assert.match(page.body, /id="q404" name="q" type="search"[^>]*value="not a real item"/, url);
      assert.match(page.body, /NOT_A_REAL_ITEM/);
    }
    const range = await get(`/item/${s.item}?range=decade`);
    assert.equal(range.statusCode, 400);
    assert.match(range.headers['content-type'] as string, /application\/problem\+json/);
    const filter = await get(`/item/${s.item}/chart.json?variant=${'X'.repeat(40)}`);
    assert.equal(filter.statusCode, 400);
  });

  it('/bazaar/{tag}: current prices, both book sides and real OHLC candles', async () => {
    const res = await get(`/bazaar/${encodeURIComponent(s.product)}`);
    assert.equal(res.statusCode, 200);
    assertShell(res.body, `/bazaar/${s.product}`);
    assert.match(res.body, /Sell offers/);
    assert.match(res.body, /Buy orders/);
    const data = pageData(res.body);
    assert.equal(data.kind, 'bazaar');
    assert.ok(data.candles.length > 0);
    assert.ok(data.book.sellOffers.length > 0 && data.book.buyOrders.length > 0);
    // Hour candles against the stored 20-second snapshots: open = first, close = last, high/low = extremes.
    const hour = (await get(`/bazaar/${encodeURIComponent(s.product)}/candles.json?range=hour`)).json();
    const now = s.t.clock.now();
    const snaps = await s.t.store.bazaarHistory.snapshots(s.product, Math.floor((now - HOUR) / MINUTE) * MINUTE, now + 1);
    assert.ok(snaps.length > 20, `${snaps.length} snapshots`);
    const byMinute = new Map<number, typeof snaps>();
    for (const p of snaps) {
      const m = Math.floor(p.ts / MINUTE) * MINUTE;
      byMinute.set(m, [...(byMinute.get(m) ?? []), p]);
    }
    assert.equal(hour.candles.length, byMinute.size);
    for (const c of hour.candles) {
      const ps = byMinute.get(c.time)!;
      assert.deepEqual(c.buy, { open: ps[0]!.buy, close: ps.at(-1)!.buy, high: Math.max(...ps.map((p) => p.buy)), low: Math.min(...ps.map((p) => p.buy)) });
      assert.deepEqual(c.sell, { open: ps[0]!.sell, close: ps.at(-1)!.sell, high: Math.max(...ps.map((p) => p.sell)), low: Math.min(...ps.map((p) => p.sell)) });
    }
    assert.ok(hour.candles.some((c: { buy: { open: number; close: number } }) => c.buy.open !== c.buy.close), 'closes are not opens');
    const book = (await get(`/bazaar/${encodeURIComponent(s.product)}/book.json`)).json();
    assert.deepEqual(book.sellOffers, data.book.sellOffers);
  });

  it('/bazaar: an auction-only item is 404, an item page of a product redirects to its bazaar page', async () => {
    assert.equal((await get(`/bazaar/${s.item}`)).statusCode, 404);
    const res = await get(`/item/${encodeURIComponent(s.product)}`);
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, `/bazaar/${encodeURIComponent(s.product)}`);
  });

  it('/flips: one tab per public feed, rows link to item pages; /data: the attribution rule and snippet', async () => {
    const res = await get('/flips');
    assert.equal(res.statusCode, 200);
    assertShell(res.body, '/flips');
    for (const tab of ['spread', 'residual', 'npc', 'books', 'fusion', 'copper', 'forge', 'kat', 'underpriced']) assert.match(res.body, new RegExp(`id="tab-${tab}"`));
    // The underpriced tab lists what GET /api/flip/auctions lists, linked to the item pages.
    const first = s.t.app.services.underpriced.ranked({ limit: 1 })[0];
    assert.ok(first, 'the simulated generations list underpriced BINs');
    assert.ok(res.body.includes(`href="/item/${encodeURIComponent(first.tag)}"`), 'the most profitable underpriced listing is linked');
    assert.ok(res.body.includes(`href="/value?auction=${first.uuid}"`), 'and its value page (issue 43: pick a listing)');
    for (const hidden of ['/api/flip/mayor', '/api/flip/attribute', '/api/flip/fusion/multistep']) assert.ok(!res.body.includes(hidden), hidden);
    assert.match(res.body, /<td data-v="[^"]*"><a href="\/bazaar\/[A-Z_0-9:]+">/);
    const data = await get('/data');
    assert.equal(data.statusCode, 200);
    assertShell(data.body, '/data');
    assert.match(data.body, /A link to a relevant page of the service/);
    assert.match(data.body, /&lt;a href=&quot;http:\/\/[^&]+\/data&quot;&gt;|&lt;a href="http:\/\/[^"]+\/data"&gt;/);
  });

  it('assets: fingerprinted, immutable, compressed; pages are cached briefly', async () => {
    const html = (await get('/')).body;
    const js = /src="(\/assets\/main-[A-Z0-9]+\.js)"/.exec(html)![1]!;
    const res = await get(js, { 'accept-encoding': 'gzip' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(res.rawPayload).toString().includes('skymarketChart'));
    assert.equal((await get('/assets/main-NOPE.js')).statusCode, 404);
    assert.equal((await get('/assets/..%2Fpages.ts')).statusCode, 400);
    const again = await get('/data');
    assert.equal(again.headers['x-page-cache'], 'hit');
    // another Host header is another page: it never gets (or leaves) the first one's URLs
    const other = await get('/data', { host: 'evil.example' });
    assert.equal(other.headers['x-page-cache'], undefined);
    assert.ok(!(await get('/data')).body.includes('evil.example'));
  });

  it('/item at an hour boundary: the newest bucket (a lowest BIN, no sale yet) is a gap, not a zero', async () => {
    // Runs late in the suite: it moves the clock 5 s into the next hour, where nothing has sold yet.
    const hour = Math.floor(s.t.clock.now() / HOUR) * HOUR + HOUR;
    s.t.clock.set(hour + 5_000);
    await priceRollupsOf(s.t).recordLowestBins(hour + 5_000);
    const api = (await get(`/api/item/price/${s.item}/history/day`)).json() as Array<{ time: string; avg: number; median: number | null; lowestBin: number | null }>;
    const newest = api.at(-1)!;
    assert.equal(Date.parse(newest.time), hour);
    assert.equal(newest.median, null, 'the API: no sale in the hour yet');
    assert.ok(newest.lowestBin! > 0, 'but a lowest BIN');
    const res = await get(`/item/${s.item}?range=day`);
    const chart = pageData(res.body).chart as { points: Array<{ time: number; avg: number | null; median: number | null; min: number | null; max: number | null; volume: number; lowestBin: number | null }> };
    assert.deepEqual(chart.points.at(-1), { time: hour, min: null, max: null, avg: null, median: null, volume: 0, lowestBin: newest.lowestBin });
    // bucket by bucket: null where the API says null, the API's prices elsewhere; never a made-up 0
    assert.deepEqual(chart.points.map((p) => [p.time, p.median, p.avg]), api.map((p) => [Date.parse(p.time), p.median, p.median === null ? null : p.avg]));
    assert.deepEqual((await get(`/item/${s.item}/chart.json?range=day`)).json().points, chart.points);
    // the card: the median of the newest bucket with sales, not 0
    const sold = api.filter((p) => p.median !== null).at(-1)!;
    const card = /<dd id="stat-median"[^>]*>([^<]*)<\/dd>/.exec(res.body);
    assert.equal(card?.[1], coins(sold.median));
    assert.notEqual(card?.[1], '0');
  });
});

describe('web pages on the real 2022 auction pages', () => {
  let t: TestApp;
  let rows: ReturnType<typeof realRows>;
  before(async () => {
    t = await createTestApp();
    rows = realRows(t.clock.now());
    await storeGeneration(t.store, t.clock.now(), rows.listings, rows.bids);
    await t.app.market.catalog.refresh();
  });
  after(() => t?.close());

  it('the most listed tags render, their lowest BINs as the raw pages have them', async () => {
    const now = t.clock.now();
    const counts = new Map<string, number>();
    for (const l of rows.listings) if (l.bin) counts.set(l.tag, (counts.get(l.tag) ?? 0) + 1);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([tag]) => tag);
    const tagOf = new Map(rows.listings.map((l) => [l.uuid, l.tag]));
    let rendered = 0;
    for (const tag of top) {
      const res = await t.app.inject(`/item/${encodeURIComponent(tag)}`);
      if (res.statusCode === 302) continue; // a bazaar product
      assert.equal(res.statusCode, 200, `${tag}: ${res.body.slice(0, 200)}`);
      rendered++;
      const data = pageData(res.body);
      const cheapest = rows.raw
        .filter((a) => tagOf.get(a.uuid.toLowerCase()) === tag && a.bin === true && !(a.bids ?? []).length && a.end > now)
        .map((a) => a.starting_bid)
        .sort((a, b) => a - b)[0];
      assert.equal(data.lowestBin, cheapest, tag);
      assert.match(res.body, /<meta property="og:description" content="[^"]*lowest BIN [0-9.]+[KMB]? coins/);
    }
    assert.ok(rendered >= 10, `${rendered} item pages rendered`);
  });
});
