/**
 * `npm run screenshots`: every page kind on simulator data, light and dark, desktop and phone
 * width, saved as PNG under docs/images/ (web-{page}-{scheme}-{width}.png). Needs Chromium
 * (/usr/bin/chromium, or CHROMIUM_PATH). No request leaves the machine (refused and reported).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium, watchedPage } from '../test/helpers/browser.ts';
import { startWebSite } from '../test/helpers/web-site.ts';

const out = join(import.meta.dirname, '..', 'docs', 'images');
mkdirSync(out, { recursive: true });
const site = await startWebSite({ historyHours: 24 });
const chrome = await launchChromium();
const pages: Array<[string, string]> = [
  ['home', '/'],
  ['item', `/item/${site.item}?range=week`],
  ['bazaar', `/bazaar/${encodeURIComponent(site.product)}?range=day`],
  ['flips', '/flips'],
  ['data', '/data'],
];
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
        await w.page.screenshot({ path: file, fullPage: false });
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
