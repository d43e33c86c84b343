/**
 * Debian's Chromium driven by playwright-core, for the browser tests and the screenshots. Under
 * CI=true a missing browser is a failure (.ci/run installs it); elsewhere the suite skips with a
 * visible line. Every request that would leave the machine is refused and recorded.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { IN_CI } from './services.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser cannot be used (undefined when it can). Under CI a missing browser throws. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const why = `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium; .ci/run does)`;
  if (IN_CI) throw new Error(`CI=true and ${why}`);
  console.log(`# SKIP browser tests: ${why}`);
  return why;
}

export interface Chromium {
  /** the browser's one context, on a fresh profile (--user-data-dir, through launchPersistentContext) */
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  const profile = mkdtempSync(join(tmpdir(), 'skymarket-chromium-'));
  // Playwright passes the profile as --user-data-dir itself when given one here.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** requests refused because they were not for localhost */
  offsite: string[];
  /** console errors and page errors */
  errors: string[];
}

/** A page whose non-local requests are aborted (and recorded) and whose console errors are recorded. */
export async function watchedPage(chrome: Chromium, options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {}): Promise<WatchedPage> {
  const page = await chrome.context.newPage();
  await page.emulateMedia({ colorScheme: options.colorScheme ?? 'light' });
  await page.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 900 });
  const offsite: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const local = url.protocol === 'data:' || url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
    if (local) return route.continue();
    offsite.push(url.href);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.url()}`);
  });
  return { page, offsite, errors };
}
