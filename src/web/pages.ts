/**
 * The pages (issue 26): `/`, `/item/{tag}`, `/bazaar/{tag}`, `/flips`, `/data`, `/value`,
 * `/player/{name or uuid}` (issue 43), their JSON for the
 * charts' range and variant switches, and the fingerprinted assets. Server-rendered from Eta
 * templates; the first view's chart data is embedded in the page. A handler parses, calls the
 * services, renders. Rendered pages are prepared answers (http/prepared-answers.ts), kept briefly (WEB_PAGE_CACHE_MS) per URL and data generation.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { itemNotFound, parseItemTag, parseSearchTerm } from '../http/params.ts';
import { badRequest, HttpProblem } from '../http/problem.ts';
import { UnknownTagError } from '../domain/tags.ts';
import { PAGE_SECURITY_HEADERS } from '../http/security-headers.ts';
import { CANDLE_RANGES, type CandleRange } from '../services/bazaar.ts';
import { HISTORY_RANGES, type HistoryRange } from '../domain/prices.ts';
import { petLevelOf } from '../domain/filters.ts';
import type { PriceHistory } from '../services/prices.ts';
import type { Previews } from '../services/auctions.ts';
import { iconPath } from '../services/items.ts';
import { loadAssets, type AssetSet } from './assets.ts';
import { FLIP_TABS, flipRows } from './flip-tabs.ts';
import { bulkValues } from './bulk-values.ts';
import { coins, renderPage, type PageMeta, type RenderContext } from './render.ts';
import { SubjectError } from '../domain/valuation/subject.ts';
import { itemValueWire } from '../domain/valuation/wire.ts';
import { ValuationInputError } from '../services/valuation.ts';
import { auctionUuid, PasteError, pastedInputs, profilesInOrder, profileView, type ValuedItemView } from './value-view.ts';

const HTML = 'text/html; charset=utf-8';
/**
 * Largest form posted to /value: the API's 4 MiB of item NBT (api/valuation.ts) as a browser
 * form-encodes it (base64's `+`, `/` and `=` take three bytes each).
 */
const PASTE_BODY_LIMIT = 6 * 1024 * 1024;
/** How often the player page reloads itself while the profile is being fetched (seconds; the API's Retry-After). */
const QUEUED_REFRESH_S = 5;
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The item page's ranges (the price history's), as the page names them. */
const ITEM_RANGES = HISTORY_RANGES;
type ItemRange = HistoryRange;

const TagParams = Type.Object({ tag: Type.String({ description: 'item tag or alias' }) });
/** `{itemTag}`: the aliases plugin (http/item-aliases.ts) has put the canonical tag in it before validation. */
const ItemTagParams = Type.Object({ itemTag: Type.String({ description: 'item tag or alias' }) });
const ItemQuery = Type.Object(
  {
    range: Type.Optional(Type.Union(ITEM_RANGES.map((r) => Type.Literal(r)))),
    variant: Type.Optional(Type.String({ maxLength: 32, pattern: '^[A-Za-z0-9_+]*$', description: 'a price variant (pets: rarity and level band; runes and potions: level)' })),
    Rarity: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
);
const BazaarQuery = Type.Object({ range: Type.Optional(Type.Union(CANDLE_RANGES.map((r) => Type.Literal(r)))) }, { additionalProperties: false });
const AssetParams = Type.Object({ file: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,80}$' }) });

interface ItemQueryT {
  range?: ItemRange;
  variant?: string;
  Rarity?: string;
}

/** What the item chart draws: the price history of a range, times in epoch ms. */
export interface ItemChart {
  tag: string;
  range: ItemRange;
  variant: string;
  filters: Record<string, string>;
  /** a bucket without sales (the newest, before its first sale) has null prices: a gap, not a zero */
  points: Array<{ time: number; min: number | null; max: number | null; avg: number | null; median: number | null; volume: number; lowestBin: number | null }>;
  /** items sold in the range */
  sales: number;
  /** the filtered read stopped at its deadline: buckets before `cut` are missing or partial */
  cut: number | null;
  source: PriceHistory['source'];
  /** the mayor terms overlapping the chart (shaded behind it) */
  mayors: Array<{ start: number; end: number; name: string }>;
}

/** The item page's lowest-BIN panel (`/item/{tag}/bins.json` sends it with `lowest` as the price). */
interface ItemBins {
  tag: string;
  lowest: Previews['records'][number] | null;
  /** `level`: a pet's level (null for other items) */
  rows: Array<{ uuid: string; price: number; tier: string; level: number | null; attrs: string; seller: string }>;
  /** active listings of the page's variant or filter (auctions included) */
  supply: number;
  at: number;
}

/** What a listing's row shows beside its price: up to three enchantments, the reforge, a pet's held item and skin, exp. */
function keyAttributes(a: Previews['records'][number]): string {
  const attrs = Object.entries(a.enchantments)
    .slice(0, 3)
    .map(([k, v]) => `${k} ${v}`);
  if (a.reforge) attrs.push(a.reforge);
  const held = a.flatNbt['petInfo.heldItem'];
  if (held) attrs.push(readable(held.replace(/^PET_ITEM_/, '')));
  const skin = a.flatNbt['petInfo.skin'];
  if (skin) attrs.push(`${readable(skin)} skin`);
  if (a.flatNbt['exp']) attrs.push(`exp ${coins(Number(a.flatNbt['exp']))}`);
  return attrs.join(', ') || '–';
}

/** `TIER_BOOST` → `tier boost` */
function readable(id: string): string {
  return id.toLowerCase().replace(/_/g, ' ');
}

export async function webRoutes(app: FastifyInstance): Promise<void> {
  // A browser asking for a page that does not exist (an unknown item, a product never seen) gets the
  // site's own 404 page with the search box; API clients and everything else keep the problem body.
  app.setErrorHandler(async (error: Error & { statusCode?: number; status?: number }, request, reply) => {
    const status = error instanceof HttpProblem ? error.status : error instanceof UnknownTagError ? 404 : undefined;
    if (status !== 404 || !wantsHtml(request)) throw error;
    const raw = (request.params as { tag?: string } | undefined)?.tag ?? '';
    const simulated = (await services.dataSource.current()) === 'simulator';
    const html = renderPage('not-found', context(request, simulated), { title: 'Not found · skymarket', description: 'No such page.', path: request.url.split('?')[0]! }, {
      detail: raw ? `skymarket knows no item or bazaar product called “${raw.slice(0, 80)}”.` : 'There is no page here.',
      q: raw.replace(/_/g, ' ').toLowerCase().slice(0, 80),
      now: clock.now(),
    });
    return reply.code(404).type(HTML).headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store').send(html);
  });
  const { services, clock } = app;
  let assets: AssetSet | undefined;
  app.addHook('onReady', async () => {
    assets = await loadAssets();
  });
  const ttlMs = app.context.config.webPageCacheMs;
  type PageBuild = { request: FastifyRequest; build: () => Promise<{ template: string; meta: PageMeta; data: Record<string, unknown> }> };
  // Rendered pages are prepared answers (http/prepared-answers.ts) per origin and URL: kept while
  // the market update the flip engine has seen is the same, and briefly (a page shows times
  // relative to now: time itself); compressed once per encoding.
  const pages = app.prepared.define<string, PageBuild>({
    name: 'web-page',
    generation: () => services.flips.lastUpdate() ?? 0,
    build: async (_key, { request, build }) => {
      const now = clock.now();
      const { template, meta, data } = await build();
      const simulated = (await services.dataSource.current()) === 'simulator';
      return { value: renderPage(template, context(request, simulated), meta, { ...data, now }), validUntil: now + ttlMs, keep: ttlMs > 0 };
    },
    serialize: (html) => html,
    maxEntries: 500,
  });
  const hide = { hide: true } as const;

  function context(request: FastifyRequest, simulated: boolean): RenderContext {
    const a = assets!;
    return {
      assets: { css: `/assets/${a.manifest['main.css']}`, js: `/assets/${a.manifest['main.js']}`, feed: `/assets/${a.manifest['feed-worker.js']}` },
      origin: `${request.protocol}://${request.host}`,
      simulated,
      dataTerms: app.context.config.dataTerms,
    };
  }
  // The origin is part of the page (its OpenGraph URLs): one entry per origin, so no Host header shapes another's page.
  const pageKey = (request: FastifyRequest) => `${request.protocol}://${request.host}${request.url}`;
  async function page(request: FastifyRequest, reply: FastifyReply, build: () => Promise<{ template: string; meta: PageMeta; data: Record<string, unknown> }>) {
    const key = pageKey(request);
    const hit = pages.current(key);
    reply.type(HTML).headers(PAGE_SECURITY_HEADERS);
    if (hit !== undefined) return reply.header('x-page-cache', 'hit').send(hit.plain);
    const rendered = await pages.get(key, { request, build });
    return reply.send(rendered!.plain);
  }
  /** The kept page of this URL, sent; false when there is none (for a handler whose work decides the status first). */
  function sendKept(request: FastifyRequest, reply: FastifyReply): boolean {
    const hit = pages.current(pageKey(request));
    if (hit === undefined) return false;
    void reply.type(HTML).headers(PAGE_SECURITY_HEADERS).header('x-page-cache', 'hit').send(hit.plain);
    return true;
  }

  /** A page answered once, not kept (a posted form, a problem, a profile still being fetched): its own status, `no-store`. */
  async function direct(request: FastifyRequest, reply: FastifyReply, status: number, template: string, meta: PageMeta, data: Record<string, unknown>) {
    const simulated = (await services.dataSource.current()) === 'simulator';
    const html = renderPage(template, context(request, simulated), meta, { ...data, now: clock.now() });
    return reply.code(status).type(HTML).headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-store').send(html);
  }
  /** The site's problem page: a 4xx with what was wrong, for people. */
  function problemPage(request: FastifyRequest, reply: FastifyReply, status: number, title: string, detail: string, extra: Record<string, unknown> = {}) {
    const path = request.url.split('?')[0]!;
    return direct(request, reply, status, 'problem', { title: `${title} · skymarket`, description: detail, path }, { title, detail, status, ...extra });
  }

  let bazaarTags: readonly string[] = [];
  let bazaarTagSet = new Set<string>();
  const bazaarSet = () => {
    const tags = services.items.bazaarTags();
    if (tags !== bazaarTags) [bazaarTags, bazaarTagSet] = [tags, new Set(tags)];
    return bazaarTagSet;
  };

  /** The tag of a page: an alias redirects (301) to the canonical tag's page; a malformed tag is 400, an unknown one 404. */
  function canonical(raw: string, reply: FastifyReply, prefix: string, request: FastifyRequest): string | undefined {
    // A bazaar product id is its own canonical name on its page, even where the catalog maps it to an item.
    const resolved = prefix === '/bazaar/' && bazaarSet().has(raw) ? raw : services.items.resolve(raw);
    const tag = parseItemTag(resolved ?? raw);
    // Redirect only to a page that exists: something no alias names (`aote`) is answered 404 here.
    if (tag !== raw && resolved !== undefined) {
      const q = request.url.indexOf('?');
      void reply.redirect(`${prefix}${encodeURIComponent(tag)}${q >= 0 ? request.url.slice(q) : ''}`, 301);
      return undefined;
    }
    return tag;
  }

  app.get<{ Params: { file: string } }>('/assets/:file', { schema: { ...hide, params: AssetParams }, config: { rateLimit: false } }, async (request, reply) => {
    const asset = assets?.byName.get(request.params.file);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
    const accept = String(request.headers['accept-encoding'] ?? '');
    reply.header('cache-control', IMMUTABLE).header('vary', 'accept-encoding').type(asset.type);
    if (/\bbr\b/.test(accept)) return reply.header('content-encoding', 'br').send(asset.brotli);
    if (/\bgzip\b/.test(accept)) return reply.header('content-encoding', 'gzip').send(asset.gzip);
    return reply.send(asset.raw);
  });

  const HomeQuery = Type.Object({ q: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });
  app.get<{ Querystring: { q?: string } }>('/', { schema: { ...hide, querystring: HomeQuery }, config: { cache: 5 } }, (request, reply) =>
    page(request, reply, async () => {
      // The search box without its script: the results as a list.
      const q = request.query.q === undefined || request.query.q.trim() === '' ? undefined : parseSearchTerm(request.query.q);
      const results = q === undefined ? null : services.items.searchItems(q, 20).map((r) => ({ ...r, bazaar: bazaarSet().has(r.id) }));
      const spread = services.flips.bazaar('spread');
      const flips = flipRows('spread', spread.flips).slice(0, 8);
      const movers = services.priceChanges.bazaarMovers(8);
      return {
        template: 'home',
        meta: { title: 'skymarket: Hypixel SkyBlock prices', description: 'Auction house and bazaar prices, charts and flips for Hypixel SkyBlock, open and self-hostable.', path: '/', nav: 'home' },
        data: { flips, flipColumns: FLIP_TABS.spread.columns, movers, q, results },
      };
    }),
  );

  app.get('/data', { schema: hide, config: { cache: 60 } }, (request, reply) =>
    page(request, reply, async () => ({
      template: 'data',
      meta: { title: 'Data and attribution · skymarket', description: 'What skymarket serves, how to credit it, the terms, the bulk files and the API.', path: '/data', nav: 'data' },
      data: {},
    })),
  );

  // The account's alerts (docs/alerts.md): the page is the same for everyone; its script reads the
  // account token the visitor enters and calls /api/notifications/* with it (the token never reaches a URL).
  app.get('/alerts', { schema: hide, config: { cache: 60 } }, (request, reply) =>
    page(request, reply, async () => ({
      template: 'alerts',
      meta: { title: 'Alerts · skymarket', description: 'Manage your alert targets and subscriptions and see what was delivered, with your account token.', path: '/alerts', nav: 'alerts' },
      data: { script: `/assets/${assets!.manifest['alerts.js']}` },
    })),
  );

  app.get('/flips', { schema: hide, config: { cache: 10 } }, (request, reply) =>
    page(request, reply, async () => {
      const tabs = Object.entries(FLIP_TABS).map(([id, tab]) => {
        const feed = tab.feed(services.flips, services.underpriced);
        return { id, label: tab.label, api: tab.api, note: tab.note, columns: tab.columns, rows: flipRows(id as keyof typeof FLIP_TABS, feed.flips).slice(0, 200), computedAt: feed.computedAt };
      });
      return {
        template: 'flips',
        meta: { title: 'Flips · skymarket', description: `Bazaar, NPC, book, fusion, copper, forge, Kat and underpriced-listing flips, updated with every market snapshot.`, path: '/flips', nav: 'flips' },
        data: { tabs },
      };
    }),
  );

  // ----- what an item is worth (issue 43) -----

  const nameOf = (tag: string) => {
    const details = services.items.details(tag);
    return { name: details?.name ?? tag, hasPage: details !== undefined };
  };
  const withName = (v: Parameters<typeof itemValueWire>[0]): ValuedItemView => {
    const wire = itemValueWire(v);
    return { ...wire, ...nameOf(wire.tag) };
  };
  const valueMeta = (path: string, description = 'What an exact Hypixel SkyBlock item is worth: comparable sales, parts, one value with a confidence.'): PageMeta => ({
    title: 'Value an item · skymarket',
    description,
    path,
    nav: 'value',
  });

  // Pasted NBT is posted as a form and answered server-side, like `?auction=`: one template renders
  // both, the page works before (and without) its script, and the bundle carries no second copy of
  // the breakdown's rendering. A form body is read here only (this plugin's scope), as URL-encoded text.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: PASTE_BODY_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  // The uuid and the player are checked by the handlers (auctionUuid, resolvePlayer), so a browser gets a 400 page, not a problem body.
  const ValueQuery = Type.Object({ auction: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false });

  app.get<{ Querystring: { auction?: string } }>('/value', { schema: { ...hide, querystring: ValueQuery }, config: { cache: 5 } }, async (request, reply) => {
    const raw = request.query.auction?.trim();
    if (raw === undefined || raw === '') {
      return page(request, reply, async () => ({ template: 'value', meta: valueMeta('/value'), data: { pasted: '', auction: '', result: null, error: null } }));
    }
    if (sendKept(request, reply)) return reply;
    const uuid = auctionUuid(raw);
    if (uuid === undefined) {
      return direct(request, reply, 400, 'value', valueMeta('/value'), {
        pasted: '',
        auction: raw.slice(0, 64),
        result: null,
        error: { title: 'Not an auction uuid', detail: 'An auction uuid is 32 hex digits (dashes allowed).' },
      });
    }
    const listing = await services.valuation.valueListing(uuid);
    if (!listing) {
      return direct(request, reply, 404, 'value', valueMeta('/value'), {
        pasted: '',
        auction: uuid,
        result: null,
        error: { title: 'No such listing', detail: `No active auction ${uuid}: it sold, ended or was never seen.` },
      });
    }
    return page(request, reply, async () => {
      const item = withName(listing.valued);
      const auction = {
        uuid,
        price: listing.price,
        value: listing.value === null ? null : Math.round(listing.value),
        feeRate: listing.feeRate,
        vsValueAfterFees: listing.vsValueAfterFees,
        profitAfterFees: listing.profitAfterFees === null ? null : Math.round(listing.profitAfterFees),
      };
      const verdict = auction.vsValueAfterFees === null ? 'no value to compare' : `${Math.abs(auction.vsValueAfterFees * 100).toFixed(1)} % ${auction.vsValueAfterFees <= 0 ? 'below' : 'above'} its value after fees`;
      return {
        template: 'value',
        meta: valueMeta(`/value?auction=${uuid}`, `${item.name} listed at ${fmt(auction.price)}: value ${auction.value === null ? 'unknown' : fmt(auction.value)}, ${verdict}.`),
        data: { pasted: '', auction: uuid, result: { items: [item], total: item.stackValue ?? 0, unknown: item.known ? 0 : 1, emptySlots: 0, listing: auction }, error: null },
      };
    });
  });

  app.post('/value', { schema: hide, bodyLimit: PASTE_BODY_LIMIT, config: { cache: 'no-store' } }, async (request, reply) => {
    const body = request.body as Record<string, unknown> | null | undefined;
    const text = body !== null && typeof body === 'object' && typeof body['item'] === 'string' ? body['item'] : undefined;
    const shown = (text ?? '').slice(0, 20_000);
    const fail = (status: number, title: string, detail: string) =>
      direct(request, reply, status, 'value', valueMeta('/value'), { pasted: shown, auction: '', result: null, error: { title, detail } });
    if (text === undefined) return fail(400, 'Nothing to value', 'Post the form with the item in the `item` field.');
    // An auction uuid pasted into the box: its listing's page.
    const uuid = auctionUuid(text);
    if (uuid !== undefined) return reply.redirect(`/value?auction=${uuid}`, 303);
    let subjects;
    try {
      subjects = services.valuation.readItems(pastedInputs(text));
    } catch (err) {
      if (err instanceof PasteError) return fail(400, 'Cannot read the item', err.message);
      if (err instanceof ValuationInputError) return fail(err.slug === 'too_large' ? 413 : 400, 'Cannot read the item', err.message);
      if (err instanceof SubjectError) return fail(400, 'Cannot read the item', err.message);
      throw err;
    }
    const valued = await services.valuation.valueItems(subjects);
    if (valued.length === 0) return fail(400, 'No item found', 'The NBT has no item with an id (empty slots only).');
    const items = valued.map(withName);
    let total = 0;
    for (const i of items) total += i.stackValue ?? 0;
    return direct(request, reply, 200, 'value', valueMeta('/value'), {
      pasted: shown,
      auction: '',
      result: { items, total: Math.round(total), unknown: items.filter((i) => !i.known).length, emptySlots: subjects.length - valued.length, listing: null },
      error: null,
    });
  });

  // ----- what a player is worth (issue 43) -----

  const PlayerQuery = Type.Object({ name: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false });
  app.get<{ Querystring: { name?: string } }>('/player', { schema: { ...hide, querystring: PlayerQuery }, config: { cache: 60 } }, async (request, reply) => {
    const name = request.query.name?.trim() ?? '';
    if (name !== '') return reply.redirect(`/player/${encodeURIComponent(name)}`, 303);
    return page(request, reply, async () => ({
      template: 'player',
      meta: { title: 'Player networth · skymarket', description: 'What a Hypixel SkyBlock player is worth, per profile and container.', path: '/player', nav: 'player' },
      data: { player: null, profiles: [], query: '' },
    }));
  });

  const PlayerParams = Type.Object({ player: Type.String({ minLength: 1, maxLength: 2000, description: 'player uuid or name' }) });
  app.get<{ Params: { player: string } }>('/player/:player', { schema: { ...hide, params: PlayerParams }, config: { cache: 5 } }, async (request, reply) => {
    const asked = request.params.player;
    const resolved = await services.networth.resolvePlayer(asked);
    const lookup = { query: asked.slice(0, 64) };
    if (resolved === 'invalid') return problemPage(request, reply, 400, 'Not a player', 'A player is a Minecraft name (1–16 letters, digits and _) or a uuid (32 hex digits, dashes allowed).', lookup);
    if (resolved === 'unknown') return problemPage(request, reply, 404, 'Unknown player', `skymarket has not seen a player named “${asked}”: it knows the names of sellers, bidders and mod users. Try the player’s uuid.`, lookup);
    if (sendKept(request, reply)) return reply;
    const client = request.account ? `account:${request.account.id}` : `ip:${request.clientIp}`;
    const answer = await services.networth.ofPlayer(resolved.uuid, undefined, client);
    const who = resolved.name ?? resolved.uuid;
    const player = { uuid: resolved.uuid, name: resolved.name };
    if (answer.status === 'queued' || answer.status === 'refused') {
      const refresh = answer.status === 'queued' ? QUEUED_REFRESH_S : 60;
      const meta: PageMeta = { title: `${who} · skymarket`, description: answer.reason, path: request.url.split('?')[0]!, nav: 'player', refresh };
      return direct(request, reply, answer.status === 'queued' ? 202 : 429, 'player', meta, { player, profiles: [], query: '', pending: { reason: answer.reason, refresh } });
    }
    if (answer.status !== 'known') {
      const title = answer.status === 'failed' ? 'Profile unavailable' : 'No profile';
      return problemPage(request, reply, 404, title, `${who}: ${answer.reason}.`, lookup);
    }
    return page(request, reply, async () => {
      const profiles = profilesInOrder(answer.profiles.map((p) => profileView(p, nameOf)));
      const top = profiles[0];
      return {
        template: 'player',
        meta: {
          title: `${who} networth · skymarket`,
          description: top ? `${who}: ${fmt(top.fullValue)} on ${top.cuteName}${profiles.length > 1 ? ` and ${profiles.length - 1} more profile${profiles.length > 2 ? 's' : ''}` : ''}.` : `${who} has no SkyBlock profile.`,
          path: request.url.split('?')[0]!,
          nav: 'player',
        },
        data: { player, profiles, fetchedAt: answer.fetchedAt, query: '', pending: null },
      };
    });
  });

  // ----- item pages -----

  function variantFilters(query: ItemQueryT): Record<string, string> {
    const v = query.Rarity;
    return v !== undefined && v !== '' && v.toLowerCase() !== 'any' ? { Rarity: v } : {};
  }

  /**
   * The item page's lowest-BIN panel, all of one choice (the variant, or the Rarity filter): its 12
   * cheapest BINs, its lowest BIN and its supply. The page renders it and its live part refetches it
   * (`/item/{tag}/bins.json`) when the feed tells of a listing, sale or lowest-BIN change of the tag.
   */
  async function itemBins(tag: string, query: ItemQueryT): Promise<ItemBins> {
    const pet = tag.startsWith('PET_');
    const active = await services.auctions.cheapestBins(tag, variantFilters(query), query.variant ?? '', 12);
    const rows = active.records.map((a) => ({
      uuid: a.uuid,
      price: a.startingBid,
      tier: pet ? (a.flatNbt['petInfo.tier'] ?? a.tier ?? '').toUpperCase() : (a.tier ?? ''),
      level: pet ? petLevelOf(a) : null,
      attrs: keyAttributes(a),
      seller: active.names.get(a.seller) ?? a.seller.slice(0, 8),
    }));
    return { tag, lowest: active.records[0] ?? null, rows, supply: active.supply, at: clock.now() };
  }

  /** The chart of a range: the price history service (rollups; raw sales with a filter). */
  async function itemChart(tag: string, range: ItemRange, query: ItemQueryT): Promise<ItemChart> {
    const filters = variantFilters(query);
    const variant = query.variant ?? '';
    const history = await services.prices.history(tag, range, { filters, variant });
    // The history answers an empty bucket (a lowest BIN, no sale yet) with zeros and median null, as the
    // established API does; drawn, zeros would dive the lines to 0: the chart gets nulls (gaps).
    const points = history.points.map((p) => {
      const time = Date.parse(p.time);
      if (p.median === null) return { time, min: null, max: null, avg: null, median: null, volume: p.volume, lowestBin: p.lowestBin };
      return { time, min: p.min, max: p.max, avg: p.avg, median: p.median, volume: p.volume, lowestBin: p.lowestBin };
    });
    const terms = points.length > 0 ? await services.mayors.periods(points[0]!.time, clock.now()) : [];
    const mayors = terms.map((t) => ({ start: Date.parse(t.start), end: Date.parse(t.end), name: t.winner.name }));
    return { tag, range, variant, filters, points, sales: points.reduce((n, p) => n + p.volume, 0), cut: history.cut, source: history.source, mayors };
  }

  app.get<{ Params: { tag: string }; Querystring: ItemQueryT }>(
    '/item/:tag',
    { schema: { ...hide, params: TagParams, querystring: ItemQuery }, config: { cache: 5 } },
    async (request, reply) => {
      const tag = canonical(request.params.tag, reply, '/item/', request);
      if (tag === undefined) return reply;
      const details = services.items.details(tag);
      if (!details) throw itemNotFound(tag);
      if (bazaarSet().has(tag)) return reply.redirect(`/bazaar/${encodeURIComponent(tag)}`, 302);
      const range: ItemRange = request.query.range ?? 'week';
      const filters = variantFilters(request.query);
      const variant = request.query.variant ?? '';
      return page(request, reply, async () => {
        const now = clock.now();
        const [chart, bins, recent] = await Promise.all([
          itemChart(tag, range, request.query),
          itemBins(tag, request.query),
          // Unfiltered: the newest sales (a page of 12); with a filter: the newest matching ones.
          Object.keys(filters).length === 0 ? services.auctions.sold(tag, false, 0, 12).then((records) => ({ records })) : services.auctions.recentSales(tag, filters, 12),
        ]);
        const { supply, lowest } = bins;
        const variants = variantChoices(tag);
        const craft = await services.craft.costOf(tag);
        const bulk = await bulkValues(services.bulkPrices, lowest ?? { tag, tier: details.tier === 'UNKNOWN' ? null : details.tier, flatNbt: {} });
        const last = lastSold(chart);
        const priceLine = lowest ? `lowest BIN ${fmt(lowest.startingBid)}` : last ? `median ${fmt(last.median)}` : 'no recent sales';
        const sold = `${chart.sales} sold in the last ${range === 'full' ? 'recorded history' : range}`;
        return {
          template: 'item',
          meta: {
            title: `${details.name} price · skymarket`,
            description: `${details.name}: ${priceLine}; ${sold}, ${supply} listed. Charts, lowest BINs and recent sales.`,
            path: `/item/${tag}`,
            image: iconPath(tag),
            data: { kind: 'item', tag, chart, lowestBin: lowest?.startingBid ?? null },
          },
          data: { tag, details, chart, last, range, ranges: ITEM_RANGES, bins, recent: recent.records, supply, variants, filters, variant, craft, bulk, lowest: lowest?.startingBid ?? null, now },
        };
      });
    },
  );

  /**
   * The variant selector: the price variants (pets: rarity and level band; runes and potions: level)
   * the item's active listings show, read from the rollups; else its rarities, as a filter over raw sales.
   */
  function variantChoices(tag: string): Array<{ name: 'variant' | 'Rarity'; label: string; options: string[] }> {
    const variants = services.auctions.variantsOf(tag);
    if (variants.length > 1) return [{ name: 'variant', label: tag.startsWith('PET_') ? 'Rarity and level' : 'Level', options: variants }];
    const rarity = services.items.filterOptions(tag).find((f) => f.name === 'Rarity');
    return rarity && rarity.options.length > 1 ? [{ name: 'Rarity', label: 'Rarity', options: rarity.options.slice(0, 12) }] : [];
  }

  app.get<{ Params: { itemTag: string }; Querystring: ItemQueryT }>(
    '/item/:itemTag/chart.json',
    { schema: { ...hide, params: ItemTagParams, querystring: ItemQuery }, config: { cache: 30 } },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      return itemChart(tag, request.query.range ?? 'week', request.query);
    },
  );

  app.get<{ Params: { itemTag: string }; Querystring: ItemQueryT }>(
    '/item/:itemTag/bins.json',
    { schema: { ...hide, params: ItemTagParams, querystring: ItemQuery }, config: { cache: 'no-store' } },
    async (request) => {
      const tag = parseItemTag(request.params.itemTag);
      const bins = await itemBins(tag, request.query);
      return { ...bins, lowest: bins.lowest?.startingBid ?? null };
    },
  );

  // ----- bazaar pages -----

  app.get<{ Params: { tag: string }; Querystring: { range?: CandleRange } }>(
    '/bazaar/:tag',
    { schema: { ...hide, params: TagParams, querystring: BazaarQuery }, config: { cache: 5 } },
    async (request, reply) => {
      const tag = canonical(request.params.tag, reply, '/bazaar/', request);
      if (tag === undefined) return reply;
      const range: CandleRange = request.query.range ?? 'day';
      return page(request, reply, async () => {
        const now = clock.now();
        const [candles, snapshot] = await Promise.all([services.bazaar.candles(tag, range, now), services.bazaar.snapshotAt(tag, now)]);
        if ('miss' in candles) throw itemNotFound(tag, `\`${tag}\` is not a bazaar product`);
        const snap = 'miss' in snapshot ? null : snapshot;
        const name = services.items.details(tag)?.name ?? tag;
        const row = snap?.row;
        return {
          template: 'bazaar',
          meta: {
            title: `${name} bazaar price · skymarket`,
            description: row ? `${name}: instant buy ${fmt(row.buy_price)}, instant sell ${fmt(row.sell_price)}. Candles, volume and the live order book.` : `${name} on the bazaar.`,
            path: `/bazaar/${tag}`,
            image: iconPath(tag),
            data: { kind: 'bazaar', tag, range, candles, book: bookOf(snap) },
          },
          data: { tag, name, range, ranges: CANDLE_RANGES, candles, row: row ?? null, book: bookOf(snap), now },
        };
      });
    },
  );

  app.get<{ Params: { tag: string }; Querystring: { range?: CandleRange } }>(
    '/bazaar/:tag/candles.json',
    { schema: { ...hide, params: TagParams, querystring: BazaarQuery }, config: { cache: 20 } },
    async (request) => {
      const raw = request.params.tag;
      const tag = parseItemTag(bazaarSet().has(raw) ? raw : (services.items.resolve(raw) ?? raw));
      const candles = await services.bazaar.candles(tag, request.query.range ?? 'day', clock.now());
      if ('miss' in candles) throw itemNotFound(tag, `\`${tag}\` is not a bazaar product`);
      return { tag, range: request.query.range ?? 'day', candles };
    },
  );

  app.get<{ Params: { tag: string } }>('/bazaar/:tag/book.json', { schema: { ...hide, params: TagParams }, config: { cache: 10 } }, async (request) => {
    const raw = request.params.tag;
    const tag = parseItemTag(bazaarSet().has(raw) ? raw : (services.items.resolve(raw) ?? raw));
    const snapshot = await services.bazaar.snapshotAt(tag, clock.now());
    if ('miss' in snapshot) {
      if (snapshot.miss === 'unknown_product') throw itemNotFound(tag, `\`${tag}\` is not a bazaar product`);
      throw badRequest('no_snapshot', 'no snapshot yet');
    }
    return bookOf(snapshot);
  });
}

/** The newest bucket of a chart with sales: what the "Median" card shows (a bucket without sales has none). */
function lastSold(chart: Pick<ItemChart, 'points'>): { time: number; median: number } | undefined {
  for (let i = chart.points.length - 1; i >= 0; i--) {
    const p = chart.points[i]!;
    if (p.median !== null) return { time: p.time, median: p.median };
  }
  return undefined;
}

function bookOf(snap: { row: { ts: number; buy_price: number; sell_price: number }; instantBuySide: unknown[] | null; instantSellSide: unknown[] | null } | null) {
  if (!snap) return null;
  return { ts: snap.row.ts, buyPrice: snap.row.buy_price, sellPrice: snap.row.sell_price, sellOffers: (snap.instantBuySide ?? []).slice(0, 15), buyOrders: (snap.instantSellSide ?? []).slice(0, 15) };
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
function fmt(n: number): string {
  return `${compact.format(n)} coins`;
}

/** Whether the request prefers an HTML answer (a browser navigating), not JSON or a problem body. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '');
  return /\btext\/html\b/.test(accept);
}
