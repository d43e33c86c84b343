/**
 * The /value and /player pages (issue 43) in a real browser (Debian's Chromium through
 * playwright-core) on simulator data: a real 2022 item from test/fixtures pasted into the form
 * shows its value and one breakdown row per part, as the JSON API values it; a listing's price on
 * an item page leads to the listing's value; a player's page shows the profiles (selected first)
 * and their containers; a profile still being fetched reloads itself until it is there; at 390 px
 * nothing overflows; no request leaves the machine and no console error occurs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { trimProfiles } from '../../../src/domain/craft/progress.ts';
import { coins } from '../../../src/web/render.ts';
import { browserUnavailable, launchChromium, watchedPage, type Chromium, type WatchedPage } from '../../helpers/browser.ts';
import { realAuctionPages } from '../../helpers/fixtures.ts';
import { firstUpstreamPage, storeProfiledPlayer } from '../../helpers/valued-market.ts';
import { startWebSite, type WebSite } from '../../helpers/web-site.ts';

const skip = browserUnavailable();
const PLAYER = '0123456789abcdef0123456789abcdef';
const LATE = 'fedcba9876543210fedcba9876543210';
const NAME = 'Mango_Grower';

interface ItemValue {
  tag: string;
  known: boolean;
  value: number | null;
  confidence: number;
  comparables: { count: number; median: number | null };
  parts: { value: number | null; breakdown: unknown[] };
}

describe('/value and /player in Chromium', { skip }, () => {
  let s: WebSite;
  let chrome: Chromium;
  let w: WatchedPage;
  let profile: Record<string, unknown>;

  before(async () => {
    s = await startWebSite({ auctions: 600, historyHours: 4 });
    profile = await storeProfiledPlayer(s.t, await firstUpstreamPage(s.sim.sim.url), { player: PLAYER, name: NAME, coop: LATE });
    chrome = await launchChromium();
    w = await watchedPage(chrome);
  });
  after(async () => {
    await w?.page.close();
    await chrome?.close();
    await s?.close();
  });

  it('a real item pasted into /value: its value, confidence, both estimates and one breakdown row per part', async () => {
    // A real 2022 auction whose item the site knows, with upgrades beyond the base item, valued by the API first.
    const candidates = realAuctionPages()[0]!.auctions.map((a) => a['item_bytes'] as string).slice(0, 400);
    const res = await fetch(`${s.origin}/api/item/value`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: candidates }) });
    assert.equal(res.status, 200);
    const valued = ((await res.json()) as { items: ItemValue[] }).items;
    const i = valued.findIndex((v) => v.known && v.value !== null && v.value > 0 && v.parts.breakdown.length >= 3 && s.t.app.services.items.details(v.tag) !== undefined);
    assert.ok(i >= 0, 'a real item the simulator market knows, with at least two upgrades');
    const v = valued[i]!;

    await w.page.goto(`${s.origin}/value`, { waitUntil: 'load' });
    await w.page.fill('#item', candidates[i]!);
    await Promise.all([w.page.waitForResponse((r) => r.url() === `${s.origin}/value` && r.request().method() === 'POST'), w.page.click('#value-form button[type="submit"]')]);
    await w.page.waitForSelector('#item-0 .breakdown');
    assert.equal(await w.page.locator('#item-0 .item-value').textContent(), coins(v.value));
    assert.equal(await w.page.locator('#item-0 .item-confidence').textContent(), `${Math.round(v.confidence * 100)} %`);
    assert.equal(await w.page.locator('#item-0 .comp-median').textContent(), coins(v.comparables.median));
    assert.equal(await w.page.locator('#item-0 .breakdown tbody tr').count(), v.parts.breakdown.length);
    assert.equal(await w.page.locator('#item-0 h3', { hasText: 'Parts' }).textContent(), `Parts: ${coins(v.parts.value)}`);
    // the pasted text stays in the box, to change and submit again
    assert.equal((await w.page.inputValue('#item')).length, candidates[i]!.length);
    assert.deepEqual(w.errors, []);
  });

  it('a listing picked on an item page: /value?auction= shows its price against its value', async () => {
    await w.page.goto(`${s.origin}/item/${s.item}`, { waitUntil: 'load' });
    const link = w.page.locator('#bins-body tr td a').first();
    const price = await link.textContent();
    const href = (await link.getAttribute('href'))!;
    assert.match(href, /^\/value\?auction=[0-9a-f]{32}$/);
    await Promise.all([w.page.waitForURL(`${s.origin}${href}`), link.click()]);
    await w.page.waitForSelector('#listing');
    assert.equal(await w.page.locator('#listing-price').textContent(), price);
    assert.match((await w.page.locator('#listing-vs').textContent())!, /^(–|\d+\.\d % (below|above))$/);
    assert.ok((await w.page.locator('#item-0 .breakdown tbody tr').count()) >= 1, 'the base item at least');
    assert.deepEqual(w.errors, []);
  });

  it('/player/{name}: profiles, the selected one first, with containers and top items', async () => {
    const res = await w.page.goto(`${s.origin}/player/${NAME}`, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    const names = await w.page.locator('section.profile h2').allTextContents();
    assert.equal(names.length, 2);
    assert.match(names[0]!, /^Mango \(selected\)/);
    assert.match(names[1]!, /^Kiwi/);
    const containers = await w.page.locator('#profile-0 .containers tbody tr td:first-child').allTextContents();
    for (const c of ['inventory', 'ender chest', 'wardrobe (unreadable: counts 0)', 'pets', 'purse']) assert.ok(containers.includes(c), `${c} in ${containers.join(', ')}`);
    assert.ok((await w.page.locator('#profile-0 .top-items tbody tr').count()) >= 1);
    // the lookup form leads to the same page
    await w.page.goto(`${s.origin}/player`, { waitUntil: 'load' });
    await w.page.fill('#player-name', NAME.toLowerCase());
    await Promise.all([w.page.waitForURL(`${s.origin}/player/${NAME.toLowerCase()}`), w.page.click('form.lookup button')]);
    assert.equal(await w.page.locator('section.profile').count(), 2);
    assert.deepEqual(w.errors, []);
  });

  it('/player/{uuid} not fetched yet: says so and reloads itself until the profile is there', async () => {
    const res = await w.page.goto(`${s.origin}/player/${LATE}`, { waitUntil: 'load' });
    assert.equal(res?.status(), 202);
    assert.match((await w.page.locator('#pending').textContent())!, /Fetching the profile/);
    // as the ingest poller would: the queued player's profile arrives
    assert.ok((await s.t.store.profileRequests.queued(10)).includes(LATE));
    await s.t.store.profileRequests.stored(LATE, trimProfiles([profile], LATE), s.t.clock.now());
    await w.page.waitForSelector('section.profile', { timeout: 60_000 });
    assert.match((await w.page.locator('section.profile h2').first().textContent())!, /^Mango \(selected\)/);
    assert.deepEqual(w.errors, []);
  });

  it('at 390 px the pages fit: no horizontal overflow, no clipped table column', async () => {
    const phone = await watchedPage(chrome, { width: 390, height: 844 });
    try {
      const fits = () =>
        phone.page.evaluate(`(() => {
          const clipped = [...document.querySelectorAll('.scroll')].filter((el) => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
            .map((el) => (el.querySelector('thead')?.textContent ?? '').trim().replace(/\\s+/g, ' ') + ': ' + el.scrollWidth + ' > ' + el.clientWidth);
          return { width: document.documentElement.scrollWidth, inner: innerWidth, clipped };
        })()`) as Promise<{ width: number; inner: number; clipped: string[] }>;
      const listing = [...s.t.app.market.activeAuctions.listings()].find((l) => l.bin)!;
      for (const path of ['/value', `/value?auction=${listing.uuid}`, '/player', `/player/${NAME}`]) {
        await phone.page.goto(s.origin + path, { waitUntil: 'load' });
        const f = await fits();
        assert.ok(f.width <= f.inner, `${path}: ${f.width} px wide at ${f.inner}`);
        assert.deepEqual(f.clipped, [], path);
      }
      assert.deepEqual(phone.errors, []);
      assert.deepEqual(phone.offsite, []);
    } finally {
      await phone.page.close();
    }
    assert.deepEqual(w.offsite, []);
  });
});
