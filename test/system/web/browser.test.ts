/**
 * The pages in a real browser (Debian's Chromium through playwright-core) on simulator data:
 * every page loads, the charts draw their series, switching range and variant changes the data,
 * search suggests and a suggestion leads to its page; no request leaves the machine and no
 * console error occurs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadNeuRepository } from '../../../src/gamedata/neu.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { insert as insertBazaar, offerRow } from '../../helpers/bazaar.ts';
import { browserUnavailable, launchChromium, watchedPage, type Chromium, type WatchedPage } from '../../helpers/browser.ts';
import { neuRepo } from '../../helpers/fixtures.ts';
import { startWebSite, type WebSite } from '../../helpers/web-site.ts';
import { coins } from '../../../src/web/render.ts';
import { waitUntil } from '../../helpers/wait.ts';

const skip = browserUnavailable();

describe('web pages in Chromium', { skip }, () => {
  let s: WebSite;
  let chrome: Chromium;
  let w: WatchedPage;
  before(async () => {
    s = await startWebSite({ historyHours: 6 });
    chrome = await launchChromium();
    w = await watchedPage(chrome);
  });
  after(async () => {
    await w?.page.close();
    await chrome?.close();
    await s?.close();
  });
  const chartState = () => w.page.evaluate(() => (globalThis as any).skymarketChart ?? null);

  it('every page kind loads without console errors', async () => {
    for (const path of ['/', '/data', '/flips', `/item/${s.item}`, `/bazaar/${encodeURIComponent(s.product)}`]) {
      const res = await w.page.goto(s.origin + path, { waitUntil: 'load' });
      assert.equal(res?.status(), 200, path);
      assert.ok((await w.page.title()).includes('skymarket'), path);
    }
    assert.deepEqual(w.errors, []);
  });

  it('the API docs page works under its Content-Security-Policy (issue 45 item 3)', async () => {
    const docs = await watchedPage(chrome);
    try {
      await docs.page.goto(`${s.origin}/api/docs`, { waitUntil: 'load' });
      await docs.page.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
      assert.deepEqual(docs.errors.filter((e) => /Content Security Policy|Refused to/i.test(e)), []);
    } finally {
      await docs.page.close();
    }
  });

  it('item chart draws its series and changes with range and variant', async () => {
    await w.page.goto(`${s.origin}/item/${s.item}?range=month`, { waitUntil: 'load' });
    await w.page.waitForFunction(() => ((globalThis as any).skymarketChart?.updates ?? 0) >= 1);
    const first = await chartState();
    assert.ok(first!.series['average']! > 0, JSON.stringify(first));
    assert.equal(first!.range, 'month');
    // the canvas has pixels drawn
    const canvases = await w.page.locator('#chart canvas').count();
    assert.ok(canvases > 0);
    await w.page.locator('.ranges label', { hasText: 'Day' }).click();
    await w.page.waitForFunction(() => (globalThis as any).skymarketChart?.range === 'day');
    const day = await chartState();
    assert.equal(day!.range, 'day');
    assert.ok(day!.updates > first!.updates);
    assert.notEqual(day!.series['average'], first!.series['average'], 'the data changed: hourly points for a day, 6-hour points for a month');
    assert.match(w.page.url(), /range=day/);
    const variant = w.page.locator('select[name="Rarity"], select[name="PetLevel"]').first();
    if ((await variant.count()) > 0) {
      const option = await variant.locator('option').nth(1).textContent();
      await variant.selectOption(option!);
      await w.page.waitForFunction(([o, n]) => ((globalThis as any).skymarketChart?.variant ?? '').includes(o) && (globalThis as any).skymarketChart.updates > n, [option!, day!.updates] as const);
      assert.equal(await w.page.locator('#chart').getAttribute('data-points'), String((await chartState()).series.average));
    }
    assert.deepEqual(w.errors, []);
  });

  it('the item chart takes a year of hourly points without jank', async () => {
    await w.page.goto(`${s.origin}/item/${s.item}`, { waitUntil: 'load' });
    await w.page.waitForFunction(() => ((globalThis as any).skymarketChart?.updates ?? 0) >= 1);
    // A string, not a function: tsx would add its own helpers (__name) to a function's source.
    const measured = (await w.page.evaluate(`(async () => {
      const HOUR = 3600000;
      const start = Date.UTC(2025, 10, 1);
      const points = Array.from({ length: 365 * 24 }, (_, i) => {
        const avg = 1000000 + Math.sin(i / 50) * 200000;
        return { time: start + i * HOUR, min: avg * 0.8, max: avg * 1.3, avg, median: avg * 0.98, volume: 5 + (i % 7), lowestBin: avg * 0.85 };
      });
      const chart = window.skymarketChart;
      const updatesBefore = chart.updates;
      chart.draw({ points, range: 'full', variant: '', filters: {}, sales: 0, cut: null, mayors: [{ start, end: start + 120 * 24 * HOUR, name: 'Diana' }] });
      // frames while the chart paints: the longest gap between animation frames
      const gaps = [];
      let last = performance.now();
      await new Promise((done) => {
        let n = 0;
        const frame = (t) => { gaps.push(t - last); last = t; if (++n < 30) requestAnimationFrame(frame); else done(); };
        requestAnimationFrame(frame);
      });
      return { drawMs: chart.drawMs, points: chart.series.average, longestFrameMs: Math.max(...gaps), draws: chart.updates - updatesBefore };
    })()`)) as { drawMs: number; points: number; longestFrameMs: number; draws: number };
    assert.equal(measured.points, 8760);
    console.log(`a year of hourly points: setData ${measured.drawMs.toFixed(0)} ms, longest frame ${measured.longestFrameMs.toFixed(0)} ms`);
    // Counted, not timed (the times above are printed for whoever looks, this machine is shared):
    // the year goes in as one draw (one setData per series), and the page paints on after it.
    assert.equal(measured.draws, 1);
    assert.deepEqual(w.errors, []);
  });

  it('bazaar candles draw and change with the range', async () => {
    await w.page.goto(`${s.origin}/bazaar/${encodeURIComponent(s.product)}`, { waitUntil: 'load' });
    await w.page.waitForFunction(() => ((globalThis as any).skymarketChart?.series['candles'] ?? 0) > 0);
    const day = await chartState();
    await w.page.locator('.ranges label', { hasText: 'Hour' }).click();
    await w.page.waitForFunction(() => (globalThis as any).skymarketChart?.range === 'hour');
    const hour = await chartState();
    assert.notEqual(hour!.series['candles'], 0);
    assert.ok(hour!.updates > day!.updates);
    await w.page.selectOption('#side', 'sell');
    await w.page.waitForFunction(() => (globalThis as any).skymarketChart?.variant === 'sell');
    assert.ok((await w.page.locator('tbody[data-side="sellOffers"] tr').count()) > 0, 'order book rendered');
    // a new bazaar snapshot reaches the page through the live feed and the book is refetched
    await w.page.waitForFunction(() => (globalThis as any).document.getElementById('book-status')?.dataset['live'] === 'stream');
    const sim = s.sim;
    sim.clock.advance(20_000);
    sim.sim.market.advanceTo(sim.clock.now());
    s.t.clock.set(sim.clock.now());
    await sim.bazaar.pollOnce();
    const ts = await w.page.waitForFunction(() => (globalThis as any).document.getElementById('book-status')?.dataset['refreshedAt'], undefined, { timeout: 15_000 });
    assert.ok(Number(await ts.jsonValue()) > 0);
    // the snapshot's age stays an age after the live refresh, and ticks
    const age = () => w.page.locator('#book-time').textContent();
    const before = await age();
    assert.match(before!, /^\d+ s ago$/);
    await w.page.waitForFunction((was) => { const now = (globalThis as any).document.getElementById('book-time')?.textContent; return now !== was && /^\d+ s ago$/.test(now); }, before, { timeout: 10_000 });
    assert.deepEqual(w.errors, []);
  });

  it('the item page follows the live feed: a generation that moves its listings refreshes the lowest BINs', async () => {
    // The pet: the simulator lists and sells pets every minute, most other tags far less often.
    await w.page.goto(`${s.origin}/item/${s.pet}`, { waitUntil: 'load' });
    await w.page.waitForFunction(() => (globalThis as any).document.getElementById('bins-status')?.dataset['live'] === 'stream');
    const refreshed = () => w.page.evaluate(() => (globalThis as any).document.getElementById('bins-status')?.dataset['refreshedAt'] ?? null);
    assert.equal(await refreshed(), null);
    // Generations until one lists, sells or ends a listing of the pet (the first, with this seed).
    const sim = s.sim;
    let tries = 0;
    while ((await refreshed()) === null && tries++ < 10) {
      sim.clock.advance(60_000);
      sim.sim.market.advanceTo(sim.clock.now());
      s.t.clock.set(sim.clock.now());
      await sim.auctions.pollOnce();
      await sim.ended.pollOnce();
      await w.page.waitForFunction(() => (globalThis as any).document.getElementById('bins-status')?.dataset['refreshedAt'], undefined, { timeout: 4000 }).catch(() => undefined);
    }
    assert.ok(Number(await refreshed()) > 0, `the lowest BINs were refreshed within ${tries} generations`);
    // What the page shows is what bins.json says now.
    const bins = (await (await fetch(`${s.origin}/item/${s.pet}/bins.json`)).json()) as { rows: unknown[]; supply: number };
    assert.equal(await w.page.locator('#bins-body tr').count(), bins.rows.length);
    assert.equal(await w.page.locator('#stat-supply').textContent(), String(bins.supply));
    assert.deepEqual(w.errors, []);
  });

  it('search suggests items and a suggestion leads to its page', async () => {
    await w.page.goto(`${s.origin}/`, { waitUntil: 'load' });
    const name = s.t.app.services.items.details(s.item)!.name;
    await w.page.locator('#q').fill(name.slice(0, 6));
    const option = w.page.locator('#suggest a').first();
    await option.waitFor();
    await w.page.locator('#suggest a', { hasText: name }).first().click();
    await w.page.waitForURL(/\/(item|bazaar)\//);
    assert.equal(await w.page.locator('h1').count(), 1);
    assert.deepEqual(w.errors, []);
  });

  it('a pet page: one variant choice, loaded directly or chosen, drives the card, the table, the supply and the chart', async () => {
    assert.ok(s.pet, 'the simulator lists a pet');
    const variants = s.t.app.services.auctions.variantsOf(s.pet);
    assert.ok(variants.length >= 2, variants.join(', '));
    const bins = async (v: string) => (await (await fetch(`${s.origin}/item/${s.pet}/bins.json?variant=${encodeURIComponent(v)}`)).json()) as { lowest: number | null; supply: number; rows: Array<{ level: number | null }> };
    const shows = async (v: string) => {
      const want = await bins(v);
      assert.equal(await w.page.locator('#stat-lbin').textContent(), coins(want.lowest), v);
      assert.equal(await w.page.locator('#stat-supply').textContent(), String(want.supply), v);
      assert.deepEqual(await w.page.locator('#bins-body tr td:nth-child(3)').allTextContents(), want.rows.map((r) => String(r.level)), v);
    };
    const [first, second] = [variants[0]!, variants.at(-1)!];
    await w.page.goto(`${s.origin}/item/${s.pet}?variant=${encodeURIComponent(first)}`, { waitUntil: 'load' });
    await w.page.waitForFunction(() => ((globalThis as any).skymarketChart?.updates ?? 0) >= 1);
    assert.equal(await w.page.locator('select[name="variant"]').inputValue(), first);
    assert.equal((await chartState()).variant, first);
    await shows(first);
    await w.page.locator('select[name="variant"]').selectOption(second);
    await w.page.waitForFunction((v) => (globalThis as any).document.getElementById('bins-status')?.dataset['binsVariant'] === v && (globalThis as any).skymarketChart?.variant === v, second);
    await shows(second);
    assert.deepEqual(w.errors, []);
  });

  it('at 390 px every page fits: no horizontal overflow, no clipped table column, mayor names apart', async () => {
    const phone = await watchedPage(chrome, { width: 390, height: 844 });
    try {
      const fits = () => phone.page.evaluate(`(() => {
        const doc = document.documentElement;
        const clipped = [...document.querySelectorAll('.scroll')].filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
          .map((el) => (el.querySelector('thead')?.textContent ?? '').trim().replace(/\\s+/g, ' ') + ': ' + el.scrollWidth + ' > ' + el.clientWidth);
        return { width: doc.scrollWidth, inner: innerWidth, clipped };
      })()`) as Promise<{ width: number; inner: number; clipped: string[] }>;
      const paths = ['/', '/data', '/flips', `/item/${s.item}`, `/item/${s.pet}`, `/bazaar/${encodeURIComponent(s.product)}`];
      for (const path of paths) {
        await phone.page.goto(s.origin + path, { waitUntil: 'load' });
        const tabs = await phone.page.locator('[role="tab"]').all();
        for (const tab of tabs.length ? tabs : [undefined]) {
          await tab?.click();
          const f = await fits();
          assert.ok(f.width <= f.inner, `${path}${tab ? ' ' + (await tab.textContent()) : ''}: ${f.width} px wide at ${f.inner}`);
          assert.deepEqual(f.clipped, [], `${path}${tab ? ' ' + (await tab.textContent()) : ''}`);
        }
      }
      // Mayor terms of a few hours each on a day's chart: the names that are drawn do not overlap.
      await phone.page.goto(`${s.origin}/item/${s.item}?range=day`, { waitUntil: 'load' });
      await phone.page.waitForFunction(() => ((globalThis as any).skymarketChart?.updates ?? 0) >= 1);
      const labels = (await phone.page.evaluate(`(async () => {
        const HOUR = 3600000;
        const start = Date.UTC(2026, 0, 1);
        const points = Array.from({ length: 24 }, (_, i) => ({ time: start + i * HOUR, min: 90, max: 120, avg: 100, median: 100, volume: 3, lowestBin: 95 }));
        const names = ['Diana', 'Marina', 'Aatrox', 'Cole', 'Finnegan', 'Foxy', 'Paul', 'Derpy'];
        const mayors = names.map((name, i) => ({ start: start + i * 3 * HOUR, end: start + (i + 1) * 3 * HOUR, name }));
        const chart = window.skymarketChart;
        chart.mayorLabels = undefined;
        chart.draw({ points, range: 'day', variant: '', filters: {}, sales: 72, cut: null, mayors });
        while (chart.mayorLabels === undefined) await new Promise((r) => requestAnimationFrame(r));
        return chart.mayorLabels;
      })()`)) as Array<{ name: string; x: number; width: number }>;
      for (let i = 1; i < labels.length; i++) assert.ok(labels[i - 1]!.x + labels[i - 1]!.width < labels[i]!.x, `${JSON.stringify(labels[i - 1])} overlaps ${JSON.stringify(labels[i])}`);
      assert.deepEqual(phone.errors, []);
      assert.deepEqual(phone.offsite, []);
    } finally {
      await phone.page.close();
    }
  });

  it('ten pages in one browser all load and follow the live feed over one shared connection, let go while hidden', async () => {
    // Over HTTP/1.1 a browser holds six connections per host: six pages with a feed each left the seventh hanging.
    const products = s.t.app.services.items.bazaarTags().filter((t) => t.startsWith('ENCHANTED_')).slice(0, 7);
    assert.equal(products.length, 7);
    // Item pages of the most listed tags: their listings move in most generations.
    const view = s.t.app.market.activeAuctions;
    const busiest = [...view.tags()].sort((a, b) => view.activeOf(b, () => true).length - view.activeOf(a, () => true).length).slice(0, 3);
    const paths = [...products.map((p) => `/bazaar/${encodeURIComponent(p)}`), ...busiest.map((t) => `/item/${encodeURIComponent(t)}`)];
    const statusOf = (path: string) => (path.startsWith('/bazaar/') ? 'book-status' : 'bins-status');
    const connections = async () => (await s.t.app.context.metrics.registry.getSingleMetric('skymarket_stream_connections')!.get()).values[0]!.value;
    const until = (what: string, ok: () => Promise<boolean>) => waitUntil(ok, 15_000, what, 100);
    const tabs: WatchedPage[] = [];
    try {
      for (const path of paths) {
        const tab = await watchedPage(chrome);
        tabs.push(tab);
        const res = await tab.page.goto(s.origin + path, { waitUntil: 'load' });
        assert.equal(res?.status(), 200, path);
        await tab.page.waitForFunction((id) => (globalThis as any).document.getElementById(id)?.dataset['live'] === 'stream', statusOf(path));
      }
      await until('one feed connection for every tab', async () => (await connections()) === 1);
      // Market generations until every page has refreshed from an event of its own tag.
      const refreshed = () => Promise.all(tabs.map((t, i) => t.page.evaluate((id) => (globalThis as any).document.getElementById(id)?.dataset['refreshedAt'] ?? null, statusOf(paths[i]!))));
      const sim = s.sim;
      for (let n = 0; n < 20 && (await refreshed()).includes(null); n++) {
        sim.clock.advance(60_000);
        sim.sim.market.advanceTo(sim.clock.now());
        s.t.clock.set(sim.clock.now());
        await sim.auctions.pollOnce();
        await sim.ended.pollOnce();
        await sim.bazaar.pollOnce();
        // the events reach the pages, which refetch at most once a second: wait for a change, briefly
        const before = JSON.stringify(await refreshed());
        const deadline = Date.now() + 4000;
        while (JSON.stringify(await refreshed()) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual((await refreshed()).map((at, i) => [paths[i], at !== null]), paths.map((p) => [p, true]), 'every page got a live update');
      // Hidden, every tab lets go: no connection; one shown again takes the feed back.
      // A string, not a function: tsx would add its own helpers (__name) to a function's source.
      const hide = (tab: WatchedPage, hidden: boolean) =>
        tab.page.evaluate(`(() => {
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
          document.dispatchEvent(new Event('visibilitychange'));
        })()`);
      for (const tab of [w, ...tabs]) await hide(tab, true);
      await until('no connection while every tab is hidden', async () => (await connections()) === 0);
      await hide(tabs[0]!, false);
      await until('the feed is back for the tab shown again', async () => (await connections()) === 1);
      for (const tab of tabs) assert.deepEqual([tab.errors, tab.offsite], [[], []]);
    } finally {
      for (const tab of tabs) await tab.page.close();
    }
  });

  it('at an hour boundary the chart has a gap, not a zero, where the API says null', async () => {
    const HOUR = 3_600_000;
    const hour = Math.floor(s.t.clock.now() / HOUR) * HOUR + HOUR;
    s.t.clock.set(hour + 5_000);
    await priceRollupsOf(s.t).recordLowestBins(hour + 5_000);
    const api = (await (await fetch(`${s.origin}/api/item/price/${s.item}/history/day`)).json()) as Array<{ median: number | null; avg: number }>;
    assert.equal(api.at(-1)!.median, null, 'no sale in the new hour yet');
    await w.page.goto(`${s.origin}/item/${s.item}?range=day`, { waitUntil: 'load' });
    await w.page.waitForFunction(() => ((globalThis as any).skymarketChart?.updates ?? 0) >= 1);
    const drawn = (await w.page.evaluate(() => (globalThis as any).skymarketChart.data())) as { average: Array<number | null>; median: Array<number | null> };
    assert.deepEqual(drawn.average, api.map((p) => (p.median === null ? null : p.avg)));
    assert.deepEqual(drawn.median, api.map((p) => p.median));
    assert.ok(!drawn.average.includes(0) && !drawn.median.includes(0));
    assert.notEqual(await w.page.locator('#stat-median').textContent(), '0');
    assert.deepEqual(w.errors, []);
  });

  it('no request left the machine', () => {
    assert.deepEqual(w.offsite, []);
  });
});

describe('forge and Kat tabs in Chromium (the real NEU recipes on a hand-made market)', { skip }, () => {
  let t: TestApp;
  let origin: string;
  let chrome: Chromium;
  let w: WatchedPage;
  before(async () => {
    t = await createTestApp({ game: loadNeuRepository(neuRepo()), env: { FLIPS_POLL_MS: '0' } });
    const now = t.clock.now();
    // Refined Mithril forged from 160 Enchanted Mithril; a Mosquito raised from epic to legendary for 64 Tarantula Silk.
    await insertBazaar(t.store, [offerRow('ENCHANTED_MITHRIL', now, 100), offerRow('REFINED_MITHRIL', now, 20_000), offerRow('TARANTULA_SILK', now, 10)]);
    const pet = (tier: string, price: number) =>
      listing(now, { tag: 'PET_MOSQUITO', item_name: '[Lvl 1] Mosquito', tier, starting_bid: price, enchantments: {}, flat_nbt: { 'petInfo.type': 'MOSQUITO', 'petInfo.tier': tier } });
    await storeGeneration(t.store, now, [pet('EPIC', 1_000_000), pet('LEGENDARY', 10_000_000)]);
    await t.app.market.flips.refresh();
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    chrome = await launchChromium();
    w = await watchedPage(chrome);
  });
  after(async () => {
    await w?.page.close();
    await chrome?.close();
    await t?.close();
  });

  it('each tab shows its rows, linked to where the item sells', async () => {
    await w.page.goto(`${origin}/flips`, { waitUntil: 'load' });
    await w.page.locator('#tab-forge').click();
    await w.page.waitForFunction(() => (globalThis as any).document.getElementById('tab-forge')?.getAttribute('aria-selected') === 'true');
    const forge = w.page.locator('#forge table tbody tr', { hasText: 'Refined Mithril' });
    assert.ok(await forge.first().isVisible(), 'the forge row is shown');
    assert.equal(await forge.first().locator('a').getAttribute('href'), '/bazaar/REFINED_MITHRIL');
    // 3,749.90 profit over 6 forge hours, as /api/flip/forge says.
    assert.match((await forge.first().textContent()) ?? '', /3,749\.9|3\.7\s?k/i);
    assert.match(w.page.url(), /#forge$/);
    await w.page.locator('#tab-kat').click();
    await w.page.waitForFunction(() => (globalThis as any).document.getElementById('tab-kat')?.getAttribute('aria-selected') === 'true');
    assert.equal(await w.page.locator('#forge').isVisible(), false, 'one panel at a time');
    const kat = w.page.locator('#kat table tbody tr', { hasText: 'Mosquito' });
    assert.ok(await kat.first().isVisible(), 'the Kat row is shown');
    assert.equal(await kat.first().locator('a').getAttribute('href'), '/item/PET_MOSQUITO');
    assert.match((await kat.first().textContent()) ?? '', /Epic → Legendary/);
    assert.deepEqual(w.errors, []);
    assert.deepEqual(w.offsite, []);
  });
});
