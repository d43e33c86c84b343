/**
 * The pages in a real browser (Debian's Chromium through playwright-core) on simulator data:
 * every page loads, the charts draw their series, switching range and variant changes the data,
 * search suggests and a suggestion leads to its page; no request leaves the machine and no
 * console error occurs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserUnavailable, launchChromium, watchedPage, type Chromium, type WatchedPage } from '../../helpers/browser.ts';
import { startWebSite, type WebSite } from '../../helpers/web-site.ts';

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

  it('no request left the machine', () => {
    assert.deepEqual(w.offsite, []);
  });
});
