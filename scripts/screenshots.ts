/**
 * `npm run screenshots`: every page kind on simulator data, light and dark, desktop and phone
 * width, saved as PNG under docs/images/ (web-{page}-{scheme}-{width}.png); `npm run screenshots
 * -- value player` only those pages. Needs Chromium
 * (/usr/bin/chromium, or CHROMIUM_PATH). No request leaves the machine (refused and reported).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, watchedPage } from '../test/helpers/browser.ts';
import { firstUpstreamPage, storeProfiledPlayer } from '../test/helpers/valued-market.ts';
import { startWebSite } from '../test/helpers/web-site.ts';

const out = join(import.meta.dirname, '..', 'docs', 'images');
mkdirSync(out, { recursive: true });
const site = await startWebSite({ historyHours: 24 });
// A player with stored profiles for /player, and the item's cheapest listing for /value.
await storeProfiledPlayer(site.t, await firstUpstreamPage(site.sim.sim.url), { player: '0123456789abcdef0123456789abcdef', name: 'Mango_Grower', coop: 'fedcba9876543210fedcba9876543210' });
const listing = site.t.app.market.activeAuctions.lowestBin(site.item, () => true, 1)[0]!;
const chrome = await launchChromium();
const only = process.argv.slice(2);
const all: Array<[string, string]> = [
  ['home', '/'],
  ['item', `/item/${site.item}?range=week`],
  ['bazaar', `/bazaar/${encodeURIComponent(site.product)}?range=day`],
  ['flips', '/flips'],
  ['data', '/data'],
  ['value', `/value?auction=${listing.uuid}`],
  ['player', '/player/Mango_Grower'],
];
const pages = only.length ? all.filter(([name]) => only.includes(name)) : all;
const sizes = [
  ['desktop', 1280, 900],
  ['phone', 390, 844],
] as const;
let problems = 0;
try {
  for (const scheme of ['light', 'dark'] as const) {
    for (const [sizeName, width, height] of sizes) {
      const w = await watchedPage(chrome, { colorScheme: scheme, width, height });
      for (const [name, path] of pages) {
        await w.page.goto(site.origin + path, { waitUntil: 'load' });
        if (name === 'item' || name === 'bazaar') await w.page.waitForFunction(() => ((globalThis as any).skymarketChart?.updates ?? 0) > 0);
        await w.page.waitForTimeout(300);
        const file = join(out, `web-${name}-${scheme}-${sizeName}.png`);
        // the value and player pages are read to their end (the breakdown, the containers)
        await w.page.screenshot({ path: file, fullPage: name === 'value' || name === 'player' });
        console.log(file);
      }
      if (w.offsite.length || w.errors.length) {
        problems++;
        console.error('offsite requests:', w.offsite, 'errors:', w.errors);
      }
      await w.page.close();
    }
  }
} finally {
  await chrome.close();
  await site.close();
}
process.exit(problems ? 1 : 0);
