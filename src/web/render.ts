/**
 * Renders the pages' Eta templates (src/web/templates/, copied to dist/web/templates by the
 * build) with auto-escaping, plus the small formatting helpers the templates share.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const VIEWS = join(HERE, 'templates');
if (!existsSync(VIEWS)) throw new Error(`web templates missing at ${VIEWS} (npm run build copies them)`);

const eta = new Eta({ views: VIEWS, cache: true, autoEscape: true, autoTrim: [false, 'nl'] });

/** What every page's layout needs. */
export interface PageMeta {
  title: string;
  /** one line for search results and link previews (OpenGraph, Twitter) */
  description: string;
  /** the page's path, for the canonical link and og:url */
  path: string;
  /** og:image path (an item icon), optional */
  image?: string;
  /** which nav entry is current */
  nav?: 'home' | 'flips' | 'value' | 'player' | 'data' | 'alerts';
  /** reload the page after this many seconds (a profile still being fetched) */
  refresh?: number;
  /** page data the script hydrates from (JSON, embedded) */
  data?: unknown;
}

export interface RenderContext {
  /** `feed`: the SharedWorker that holds the live feed for all of a site's tabs */
  assets: { css: string; js: string; feed: string };
  /** absolute origin for OpenGraph URLs, from the request */
  origin: string;
  simulated: boolean;
  /** the terms of the data, as the operator set them (DATA_TERMS) */
  dataTerms: string;
}

/** JSON safe inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value ?? null)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
const full = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/** Coins for people: 1,234 below 100k, 1.23M above. */
export function coins(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Math.abs(n) < 100_000 ? full.format(n) : compact.format(n);
}

export function percent(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return `${n > 0 ? '+' : ''}${(n * 100).toFixed(1)}%`;
}

export function isoTime(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? '' : new Date(ms).toISOString();
}

/** "5 min ago" style age relative to `now`. */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  if (s < 172_800) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

export const helpers = { coins, percent, isoTime, ago, scriptJson };

export function renderPage(template: string, ctx: RenderContext, meta: PageMeta, data: Record<string, unknown>): string {
  return eta.render(template, { ...data, meta, ctx, h: helpers });
}
