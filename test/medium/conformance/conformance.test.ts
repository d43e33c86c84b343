/**
 * Conformance with the established service's own client types: every endpoint of the spec,
 * answered on simulator data and on the real 2022 auction pages, on SQLite and PostgreSQL,
 * validates against test/medium/conformance/established-types.json, strictly for required fields,
 * JSON types and enum values. A front end generated from the established schema parses what
 * passes here. Deliberate differences (docs/compatibility.md) are the extra fields the schema
 * allows, nothing else.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse as InjectResponse } from 'fastify';
import { offerAuctionJson, offerFilters } from '../../../src/domain/lowball.ts';
import { decodeAuctionItem } from '../../../src/domain/nbt.ts';
import { EndedIngester } from '../../../src/ingest/ended.ts';
import type { UpstreamAuction } from '../../../src/ingest/upstream.ts';
import { loadNeuRepository } from '../../../src/gamedata/neu.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, realRows, storeGeneration } from '../../helpers/auctions.ts';
import { insert as insertBazaar, offerRow } from '../../helpers/bazaar.ts';
import { neuRepo } from '../../helpers/fixtures.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { fillFromSimulator, type SimMarket } from '../../helpers/sim-market.ts';
import { unzip } from '../../helpers/unzip.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';

const TYPES = JSON.parse(readFileSync(new URL('./established-types.json', import.meta.url), 'utf8')) as { $id: string; $defs: Record<string, unknown> };
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: true, allErrors: true, verbose: true }));
ajv.addSchema(TYPES);
const validators = new Map<string, ValidateFunction>();

function validatorOf(type: string, list: boolean): ValidateFunction {
  const key = `${type}${list ? '[]' : ''}`;
  let v = validators.get(key);
  if (!v) {
    const ref = { $ref: `${TYPES.$id}#/$defs/${type}` };
    v = ajv.compile(list ? { type: 'array', items: ref } : ref);
    validators.set(key, v);
  }
  return v;
}

/** Asserts `value` is a `type` (or a list of them), naming the first offending fields. */
function conforms(value: unknown, type: string, what: string, list = false): void {
  const validate = validatorOf(type, list);
  if (!validate(value)) {
    const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message}: ${JSON.stringify(e.data)?.slice(0, 80)}`);
    assert.fail(`${what} is not a${list ? ' list of' : ''} ${type}:\n  ${errors.join('\n  ')}`);
  }
}

/** Every `apiAuctionJson` of lowball offers is itself a SaveAuction. */
function offersConform(offers: Array<{ apiAuctionJson?: string }>, what: string): void {
  conforms(offers, 'LowballOfferResponse', what, true);
  for (const o of offers) if (o.apiAuctionJson !== undefined) conforms(JSON.parse(o.apiAuctionJson), 'SaveAuction', `${what} apiAuctionJson`);
}

function ok(res: InjectResponse, what: string): unknown {
  assert.equal(res.statusCode, 200, `${what}: ${res.body.slice(0, 300)}`);
  return res.json();
}

describeEachBackend('conformance on simulator data', (fixture) => {
  let t: TestApp;
  let sim: SimMarket;
  const auth: Record<string, Record<string, string>> = {};
  let apiKey: string;
  let partner: string;
  const checked = new Map<string, number>();

  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    sim = await fillFromSimulator(t.store, { auctions: 800, historyHours: 3, detailedMinutes: 30, generations: 3 });
    t.clock.set(sim.clock.now());
    const now = t.clock.now();
    for (const tier of ['free', 'starter_premium', 'premium_plus'] as const) {
      const { token, account } = await t.store.accounts.create({ tier, now });
      auth[tier] = { authorization: `Bearer ${token}` };
      if (tier === 'premium_plus') {
        // A verified Minecraft account with lowball offers for two items held in the simulated market.
        const player = '0123456789abcdef0123456789abcdef';
        await t.store.modLinks.link(account.id, player, 'Tester', 'operator', now);
        const page = (await (await fetch(`${sim.sim.url}/v2/skyblock/auctions?page=0`)).json()) as { auctions: UpstreamAuction[] };
        for (const a of page.auctions.slice(0, 6)) {
          const item = decodeAuctionItem(a.item_bytes);
          await t.store.lowball.create({
            offerId: randomUUID(),
            accountId: account.id,
            playerUuid: player,
            itemTag: item.tag,
            itemName: item.name,
            itemCount: item.count,
            askingPrice: Math.round(a.starting_bid * 0.8),
            filters: offerFilters(item),
            auctionJson: offerAuctionJson(item, Math.round(a.starting_bid * 0.8), player, now),
            lore: item.lore.join('\n'),
            createdAt: now,
          });
        }
      }
    }
    partner = (await t.store.partners.create({ name: 'Conformance', now })).token;
    const key = await t.store.apiKeys.create({ playerUuid: 'fedcba9876543210fedcba9876543210', now });
    apiKey = key.token;
    await t.store.players.mergeState(key.key.playerUuid, null, { purse: 1_250_000, bits: 900, heartOfTheMountain: { tier: 7, perks: { mining_speed: 50 } } }, now);
    await t.store.players.replaceOrders(key.key.playerUuid, [{ isSell: true, itemTag: 'WHEAT', itemName: 'Wheat', amount: 640, filled: 64, pricePerUnit: 2.4, created: now - 1000, customers: [{ playerName: 'Bob', amount: 64, timeStamp: now - 500 }] }], now);
    await t.store.players.addFlips(key.key.playerUuid, [{ itemTag: 'WHEAT', itemName: 'Wheat', amount: 640, buyPrice: 1536, sellPrice: 1920.5, soldAt: now - 100 }]);
    t.app.market.flips.setOptions({ bucketMs: 60_000, mayorMinChange: 0.001, auctionsMinIntervalMs: 0 });
    await t.app.market.flips.refresh();
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  /** GETs `url`, checks it is a `type` (list), and counts what was checked. */
  async function check<T = unknown>(url: string, type: string, opts: { list?: boolean; headers?: Record<string, string>; nonEmpty?: boolean } = {}): Promise<T> {
    const body = ok(await get(url, opts.headers), url);
    conforms(body, type, url, opts.list);
    const n = opts.list ? (body as unknown[]).length : 1;
    if (opts.nonEmpty !== false && opts.list) assert.ok(n > 0, `${url}: answers something to check`);
    checked.set(url.split('?')[0]!, n);
    return body as T;
  }

  it('auctions: single auctions, lowest BIN, active filter, overviews, sold, uids, supply, archive', async () => {
    const bins = await check<Array<{ tag: string; uuid: string; flatNbt: Record<string, string> }>>('/api/auctions/active/filter?Bin=true&pageSize=500', 'SaveAuction', { list: true });
    assert.ok(bins.length >= 100);
    const tagCount = new Map<string, number>();
    for (const b of bins) tagCount.set(b.tag, (tagCount.get(b.tag) ?? 0) + 1);
    const tag = [...tagCount].sort((a, b) => b[1] - a[1])[0]![0];
    const lowest = await check<Array<{ uuid: string; flatNbt: Record<string, string> }>>(`/api/auctions/tag/${tag}/active/bin`, 'SaveAuction', { list: true });
    await check(`/api/auctions/tag/${tag}/active/bin?Rarity=any`, 'SaveAuction', { list: true });
    await check(`/api/auctions/tag/${tag}/active/overview?orderBy=HIGHEST_PRICE`, 'AuctionPreview', { list: true });
    await check(`/api/auction/${lowest[0]!.uuid}`, 'ColorSaveAuction');
    await check('/api/auction/random', 'SaveAuction');
    await check(`/api/auction/random?token=${partner}`, 'SaveAuction');
    const uidText = await get(`/api/auction/${lowest[0]!.uuid}/uid`);
    if (lowest[0]!.flatNbt['uid']) assert.equal(uidText.body, lowest[0]!.flatNbt['uid'], 'flatNbt.uid is the lookup id of /uid');
    const withUid = bins.filter((b) => b.flatNbt['uid']).map((b) => b.flatNbt['uid']!);
    assert.ok(withUid.length > 0, 'listed items carry flatNbt.uid');
    assert.ok(bins.some((b) => b.flatNbt['uuid']?.endsWith(b.flatNbt['uid']!)), 'and their dashed uuid');
    const listed = ok(await t.app.inject({ method: 'POST', url: '/api/auctions/active/uuid', payload: withUid.slice(0, 5) }), 'active/uuid');
    assert.deepEqual(listed, withUid.slice(0, 5));

    // Sold history: the most sold tag (backfilled sales from auctions_ended and live ones).
    const counts = await t.store.auctionQueries.saleCounts(t.clock.now() - 7 * 86_400_000);
    const soldTag = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    const sold = await check<Array<{ uuid: string; id: number; start: string; end: string; flattenedNbt: Record<string, string> }>>(`/api/auctions/tag/${soldTag}/sold`, 'SoldAuction', { list: true });
    assert.equal(new Set(sold.map((s) => s.id)).size, sold.length, 'sale ids are distinct');
    assert.ok(sold.every((s) => Date.parse(s.start) <= Date.parse(s.end)), 'every sale started before it ended');
    await check(`/api/auctions/tag/${soldTag}/sold?pageSize=5&token=${partner}`, 'SoldAuction', { list: true });
    await check(`/api/auctions/tag/${soldTag}/recent/overview`, 'AuctionPreview', { list: true });
    await check(`/api/auction/${sold[0]!.uuid}`, 'ColorSaveAuction');
    const soldUid = sold.find((s) => s.flattenedNbt['uid'])!.flattenedNbt['uid']!;
    await check(`/api/auctions/uid/${soldUid}/sold`, 'ItemSell', { list: true });
    const batch = ok(await t.app.inject({ method: 'POST', url: '/api/auctions/uids/sold', payload: { profileId: null, playerId: null, uuids: [soldUid, '0'.repeat(12)] } }), 'uids/sold') as Record<string, unknown>;
    assert.deepEqual(Object.keys(batch), [soldUid, '0'.repeat(12)]);
    for (const [uid, sales] of Object.entries(batch)) conforms(sales, 'ItemSell', `uids/sold ${uid}`, true);
    await check('/api/auctions/supply/low', 'SupplyElement', { list: true, nonEmpty: false });
    const window = `EndAfter=${Math.floor(t.clock.now() / 1000) - 86_400}&EndBefore=${Math.floor(t.clock.now() / 1000)}`;
    await check(`/api/auctions/tag/${soldTag}/archive/overview?${window}`, 'ArchiveResponse', { headers: auth['premium_plus'] });
    const job = ok(
      await t.app.inject({
        method: 'POST',
        url: `/api/auctions/tag/${soldTag}/archive/export`,
        headers: auth['premium_plus'],
        payload: { flags: 'IncludeSocial, InventoryCheck', filters: { EndAfter: String(Math.floor(t.clock.now() / 1000) - 86_400), EndBefore: String(Math.floor(t.clock.now() / 1000)) }, discordWebhookUrl: 'https://discord.com/api/webhooks/1/x' },
      }),
      'archive/export',
    );
    conforms(job, 'ExportRequest', 'archive/export');
    // The established batch answers an empty body (its client type is void); ours is the documented value export.
    const batchExport = ok(await get(`/api/auctions/batch?token=${partner}`), 'auctions/batch') as { items: unknown[] };
    assert.ok(Array.isArray(batchExport.items));
    const matched = ok(await t.app.inject({ method: 'POST', url: '/api/Filter', payload: { filters: { Bin: 'true' }, auction: bins[0] } }), 'Filter');
    assert.equal(matched, true, 'a SaveAuction we send is a FilterQuery auction we accept');

    // The price analysis: sell times known for the simulated sales, so the sell-speed buckets are filled.
    const analysis = await check<{ sellSpeedBuckets: unknown[]; avgSellTimeSeconds: number }>(`/api/item/price/${soldTag}/analysis`, 'AdvancedAnalysisResult');
    assert.ok(analysis.sellSpeedBuckets.length > 0, 'sell-speed buckets');
    assert.ok(analysis.avgSellTimeSeconds > 0, 'average sell time');
    await check(`/api/item/price/${soldTag}/analysis?days=30&Bin=true`, 'AdvancedAnalysisResult', { headers: auth['premium_plus'] });
  });

  it('valuation: price/nbt answers a PriceEstimate per slot, mod/pricing/breakdown a PricingBreakdwon per item', async () => {
    const page = (await (await fetch(`${sim.sim.url}/v2/skyblock/auctions?page=0`)).json()) as { auctions: UpstreamAuction[] };
    for (const a of page.auctions.slice(0, 20)) {
      const res = await t.app.inject({ method: 'POST', url: '/api/price/nbt', payload: { chestName: null, fullInventoryNbt: a.item_bytes, position: { x: 0, y: 0, z: 0 }, jsonNbt: null, senderContactId: null, server: null } });
      conforms(ok(res, 'price/nbt'), 'PriceEstimate', 'price/nbt', true);
    }
    const represent = page.auctions.slice(0, 20).map((a) => {
      const item = decodeAuctionItem(a.item_bytes);
      return { id: null, itemName: item.name, tag: item.tag, extraAttributes: { id: item.id, ...item.flatNbt }, enchantments: item.enchantments, color: null, description: item.lore.join('\n'), count: item.count };
    });
    const breakdown = ok(await t.app.inject({ method: 'POST', url: '/api/mod/pricing/breakdown', payload: represent }), 'mod/pricing/breakdown') as unknown[];
    assert.equal(breakdown.length, represent.length);
    conforms(breakdown, 'PricingBreakdwon', 'mod/pricing/breakdown', true);
    checked.set('/api/price/nbt', 20);
    checked.set('/api/mod/pricing/breakdown', breakdown.length);
  });

  it('networth: a posted Profile answers a NetworthBreakDown', async () => {
    const page = (await (await fetch(`${sim.sim.url}/v2/skyblock/auctions?page=0`)).json()) as { auctions: UpstreamAuction[] };
    const members = Object.fromEntries(
      [0, 1].map((n) => [
        randomUUID().replaceAll('-', ''),
        {
          inventory: { inv_contents: { type: 0, data: page.auctions[n]!.item_bytes }, wardrobe_equipped_slot: -1, backpack_contents: { '0': { type: 0, data: page.auctions[n + 2]!.item_bytes } } },
          pets_data: { pets: [{ type: 'BEE', tier: 'RARE', exp: 100, active: false, candyUsed: 0, total_exp_gained: 100 }] },
          currencies: { coin_purse: 1000 * (n + 1), motes_purse: 0 },
        },
      ]),
    );
    const profile = { profile_id: randomUUID(), members, cute_name: 'Mango', selected: true, game_mode: null, banking: { balance: 5000 }, created_at: null };
    const body = ok(await t.app.inject({ method: 'POST', url: '/api/networth', payload: profile }), 'networth') as { fullValue: number };
    conforms(body, 'NetworthBreakDown', 'networth');
    assert.ok(body.fullValue >= 8000, 'purses and bank at least');
    checked.set('/api/networth', 1);
  });

  it('bazaar: histories, snapshot and the export archive', async () => {
    const product = Object.keys(sim.sim.market.bazaar().products)[0]!;
    for (const window of ['hour', 'day', 'week']) await check(`/api/bazaar/${product}/history/${window}`, 'GraphResult', { list: true });
    await check(`/api/bazaar/${product}/history?start=${new Date(t.clock.now() - 3_600_000).toISOString()}`, 'GraphResult', { list: true });
    await check(`/api/bazaar/${product}/snapshot`, 'StorageQuickStatus');
    const zip = await get(`/api/bazaar/${product}/export?start=${new Date(t.clock.now() - 600_000).toISOString()}`, auth['premium_plus']);
    assert.equal(zip.statusCode, 200);
    const entries = unzip(zip.rawPayload);
    assert.deepEqual(entries.map((e) => e.name), [`${product}.json`]);
    assert.ok(Array.isArray(JSON.parse(entries[0]!.data.toString('utf8'))));
  });

  it('crafting: profit list, recipe, instruction and acquisition plan', async () => {
    const crafts = await check<Array<{ itemId: string }>>('/api/craft/profit', 'ProfitableCraft', { list: true });
    const tag = crafts[0]!.itemId;
    await check(`/api/craft/recipe/${tag}`, 'Recipe');
    const instruction = await check<{ recipe: Record<string, string> }>(`/api/craft/${tag}/instructions`, 'CraftInstruction');
    assert.equal(typeof instruction.recipe.A1, 'string', 'the front end reads .recipe of the answer');
    await check(`/api/craft/acquisition/${tag}?quantity=3`, 'CraftAcquisitionPlan');
  });

  it('flips: every feed', async () => {
    const feeds: Array<[string, string, Record<string, string>?]> = [
      ['/api/flip/bazaar/spread', 'SpreadFlip'],
      ['/api/flip/bazaar/spread/deemand', 'DemandSpreadFlip', auth['premium_plus']],
      ['/api/flip/bazaar/residual', 'ResidualEntryDto'],
      ['/api/flip/bazaar/books', 'BookFlip'],
      ['/api/flip/npc', 'ReverseNpcFlip'],
      ['/api/flip/npc/reverse', 'NpcFlip', auth['premium_plus']],
      ['/api/flip/fusion', 'FuseFlip'],
      ['/api/flip/fusion/multistep', 'FuseFlip', auth['premium_plus']],
      ['/api/flip/copper', 'CopperFlip'],
      ['/api/flip/attribute', 'AttributeFlip', auth['premium_plus']],
      ['/api/flip/mayor', 'MayorDiffFlip', auth['premium_plus']],
    ];
    let nonEmpty = 0;
    for (const [url, type, headers] of feeds) {
      const list = await check<unknown[]>(url, type, { list: true, nonEmpty: false, ...(headers ? { headers } : {}) });
      if (list.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= 6, `${nonEmpty} of ${feeds.length} feeds had elements to check`);
    // GetApiPriceAttributes200: {[attribute]: {[level]: number}}, from the variants the attribute flips rolled up.
    const attributes = ok(await get('/api/price/attributes'), 'price/attributes') as Record<string, Record<string, number>>;
    for (const levels of Object.values(attributes)) for (const [level, price] of Object.entries(levels)) assert.ok(/^\d+$/.test(level) && typeof price === 'number' && price > 0);
    const single = t.app.market.flips.attributeVariants.filter((v) => Object.keys(v.mods.attributes).length === 1);
    assert.equal(Object.keys(attributes).length, new Set(single.map((v) => Object.keys(v.mods.attributes)[0])).size, 'every attribute sold alone has prices');
    checked.set('/api/price/attributes', Object.keys(attributes).length);
    const when = ok(await get('/api/flip/update/when'), 'update/when');
    assert.match(String(when), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  });

  it('player data, lowball offers and data submission', async () => {
    const extracted = await check<Record<string, unknown>>(`/api/player/extracted?apiKey=${apiKey}`, 'ExtractedInfo');
    assert.equal(extracted['activePet'], null);
    await check(`/api/player/bazaar/orders?apiKey=${apiKey}`, 'Offer', { list: true });
    await check('/api/player/bazaar/flips', 'CompletedBazaarFlip', { list: true, headers: { 'x-api-key': apiKey } });
    const own = ok(await get('/api/lowball/own', auth['premium_plus']), 'lowball/own') as Array<{ itemTag: string; apiAuctionJson?: string }>;
    assert.ok(own.length === 6 && own.every((o) => o.apiAuctionJson));
    offersConform(own, 'lowball/own');
    offersConform(ok(await get(`/api/lowball/item/${own[0]!.itemTag}`), 'lowball/item') as [], 'lowball/item');
    conforms(ok(await t.app.inject({ method: 'POST', url: '/api/data/playerName?name=Tester' }), 'playerName'), 'Int32Int64ValueTuple', 'playerName');
    conforms(ok(await t.app.inject({ method: 'POST', url: '/api/data/playerNames', payload: ['Tester', 'Other'] }), 'playerNames'), 'Int32Int64ValueTuple', 'playerNames', true);
    const proxy = await t.app.inject({ method: 'POST', url: '/api/data/proxy', headers: { 'content-type': 'application/json', 'x-request-id': 'abc' }, payload: JSON.stringify(sim.sim.market.bazaar()) });
    assert.equal(proxy.statusCode, 200, proxy.body);
    assert.equal(proxy.body, 'received abc');
  });

  it('items and players: catalog, search, details, look-alikes, player auctions, bids and search', async () => {
    await t.app.market.catalog.refresh();
    const items = await check<Array<{ tag: string; name: string }>>('/api/items', 'ItemMetadataElement', { list: true });
    const listed = [...t.app.market.activeAuctions.tags()][0]!;
    await check(`/api/item/search/${encodeURIComponent(items.find((i) => i.tag === listed)!.name)}`, 'SearchResultItem', { list: true });
    await check('/api/search/a?limit=10', 'SearchResultItem', { list: true });
    await check(`/api/item/${listed}/details`, 'SkyblockItem');
    await check(`/api/item/${listed}/similar`, 'ItemPreview', { list: true, nonEmpty: false });
    const names = ok(await t.app.inject({ method: 'POST', url: '/api/items/names', payload: [listed] }), 'items/names') as Record<string, string>;
    assert.equal(typeof names[listed], 'string');
    const bazaarTags = ok(await get('/api/items/bazaar/tags'), 'bazaar/tags') as unknown[];
    assert.ok(bazaarTags.length > 0 && bazaarTags.every((x) => typeof x === 'string'));
    const seller = t.app.market.activeAuctions.get([...t.app.market.activeAuctions.tags()].flatMap((tag) => t.app.market.activeAuctions.activeOf(tag, () => true))[0]!.uuid)!.seller;
    await check(`/api/player/${seller}/auctions`, 'AuctionResult', { list: true });
    const bidder = (await t.store.kysely.selectFrom('bids').select('bidder').limit(1).executeTakeFirst())?.bidder;
    if (bidder) await check(`/api/player/${bidder}/bids`, 'BidResult', { list: true });
    await t.store.playerNames.record([{ playerUuid: seller, name: 'ConformanceSeller' }], 'upstream', t.clock.now());
    await check('/api/search/player/conformance', 'PlayerResult', { list: true });
    // PostApiPlayerNames200: {[uuid]: name}.
    const playerNames = ok(await t.app.inject({ method: 'POST', url: '/api/player/names', payload: [seller] }), 'player/names');
    assert.deepEqual(playerNames, { [seller]: 'ConformanceSeller' });
    checked.set('/api/player/names', 1);
    // The export of the verified player's sales (the Premium+ account verified 0123…ef): SoldAuction[].
    const verified = '0123456789abcdef0123456789abcdef';
    await t.store.auctions.recordSales([{ ...(await t.store.kysely.selectFrom('auctions').selectAll().where('state', '=', 'sold').limit(1).executeTakeFirstOrThrow()), uuid: randomUUID().replace(/-/g, ''), seller: verified }], [], { name: 'auctions_ended', lastUpdated: t.clock.now(), storedAt: t.clock.now(), records: 1, source: 'upstream' });
    await check(`/api/player/${verified}/auctions/export`, 'SoldAuction', { list: true, headers: auth['premium_plus'] });
    const mixed = await check<Array<{ type: string }>>('/api/search/conformance?limit=10', 'SearchResultItem', { list: true });
    assert.ok(mixed.some((h) => h.type === 'player'), 'a player hit, with a Tier');
    for (const { tag } of items.slice(0, 200)) conforms(ok(await get(`/api/item/${encodeURIComponent(tag)}/details`), tag), 'SkyblockItem', `${tag} details`);
    await check(`/api/filter/options?itemTag=${listed}`, 'FilterOptions', { list: true });
  });

  it('prices: summary, lowest BINs, current (bazaar and auction house), history at every range, year', async () => {
    await priceRollupsOf(t).tick(t.clock.now());
    const sold = await t.store.kysely.selectFrom('auctions').select(['tag']).where('state', '=', 'sold').groupBy('tag').orderBy(sql`count(*)`, 'desc').limit(1).executeTakeFirst();
    const tag = sold!.tag;
    await check(`/api/item/price/${tag}`, 'PriceSumary');
    await check(`/api/item/price/${tag}?Bin=true`, 'PriceSumary');
    await check(`/api/item/price/${tag}/bin`, 'BinResponse');
    await check(`/api/item/price/${tag}/current?count=3`, 'CurrentPrice');
    for (const range of ['day', 'week', 'month', 'full']) {
      const points = await check<Array<{ sales: number }>>(`/api/item/price/${tag}/history/${range}`, 'AveragePrice', { list: true });
      assert.ok(points.some((p) => p.sales > 0), `${range}: a point with sales`);
    }
    await check(`/api/item/price/${tag}/history/week?Bin=true`, 'AveragePrice', { list: true });
    await check(`/api/item/price/${tag}/history/year`, 'PriceStatistics');
    // A bazaar product: the book walked for 64 items.
    const product = Object.keys(sim.sim.market.bazaar().products)[0]!;
    const current = await check<{ buy: number; sell: number; available: number; isAh: boolean }>(`/api/item/price/${product}/current?count=64`, 'CurrentPrice');
    const snap = await t.app.services.bazaar.snapshotAt(product, t.clock.now());
    assert.ok(!('miss' in snap) && snap.instantBuySide && snap.instantSellSide);
    let left = 64;
    let buy = 0;
    for (const l of snap.instantBuySide) {
      const take = Math.min(left, l.amount);
      buy += take * l.pricePerUnit;
      left -= take;
    }
    assert.equal(current.isAh, false);
    assert.ok(Math.abs(current.buy - buy) < 1e-6, `${current.buy} vs ${buy}`);
    assert.equal(current.available, snap.instantBuySide.reduce((a, l) => a + l.amount, 0));
    const changes = ok(await get(`/api/prices/change?itemTags=${tag}&itemTags=${product}`), 'prices/change') as Record<string, unknown>;
    assert.deepEqual(Object.keys(changes).sort(), [tag, product].sort());
    for (const [k, v] of Object.entries(changes)) conforms(v, 'DropStatistic', `prices/change ${k}`);
    checked.set('/api/prices/change', 2);
    const neu = ok(await get(`/api/pricehistory?item=${product}`), 'pricehistory') as Record<string, { b: number; s?: number }>;
    for (const [k, v] of Object.entries(neu)) assert.ok(!Number.isNaN(Date.parse(k)) && typeof v.b === 'number' && typeof v.s === 'number');
  });

  it('mayors: every term and one year', async () => {
    const periods = await check<Array<{ year: number; winner: { minister: unknown } }>>('/api/mayor', 'ElectionPeriod', { list: true });
    assert.ok(periods.some((p) => p.winner.minister !== null), 'a term with a minister (and its perk) to check');
    await check(`/api/mayor/${periods.at(-1)!.year}`, 'ElectionPeriod');
  });

  it('notifications: targets, listeners and subscriptions in the established shapes', async () => {
    const headers = { ...auth['premium_plus']!, 'content-type': 'application/json' };
    const post = async (url: string, body: unknown, type: string) => {
      const res = await t.app.inject({ method: 'POST', url, headers, payload: JSON.stringify(body) });
      conforms(ok(res, `POST ${url}`), type, `POST ${url}`);
      return res.json() as { id: number };
    };
    const target = await post('/api/notifications/targets', { type: 3, target: 'https://discord.com/api/webhooks/1/conformance', when: 2, name: 'conformance' }, 'NotificationTarget');
    // What the established client sends (its NotificationChannelUtils): the names, `id` undefined, an in-game marker without a target.
    await post('/api/notifications/targets', { type: 'DiscordWebhook', when: 'ALWAYS', target: 'https://discord.com/api/webhooks/2/conformance', name: 'named', useCount: 0 }, 'NotificationTarget');
    await post('/api/notifications/targets', { type: 'InGame', when: 'NEVER', target: null, name: 'In-game disabled', useCount: 0 }, 'NotificationTarget');
    await post('/api/notifications/listeners', { topicId: 'HYPERION', price: 800_000_000, type: 1 | 16, filter: '{"ultimate_wise":"5"}' }, 'Listener');
    await post('/api/notifications/subscriptions', { sourceType: 'Subscription', sourceSubIdRegex: null, targets: [{ id: target.id, name: 'conformance', priority: 0, isDisabled: false }] }, 'PublicSubscription');
    await check('/api/notifications/targets', 'NotificationTarget', { list: true, headers: auth['premium_plus']! });
    await check('/api/notifications/listeners', 'Listener', { list: true, headers: auth['premium_plus']! });
    await check('/api/notifications/subscriptions', 'PublicSubscription', { list: true, headers: auth['premium_plus']! });
  });

  it('covers every endpoint of the spec', () => {
    const spec = [
      '/api/auction/random', '/api/auctions/active/filter', '/api/auctions/supply/low',
      '/api/flip/bazaar/spread', '/api/flip/bazaar/spread/deemand', '/api/flip/bazaar/residual', '/api/flip/bazaar/books', '/api/flip/mayor',
      '/api/flip/npc', '/api/flip/npc/reverse', '/api/flip/fusion', '/api/flip/fusion/multistep', '/api/flip/copper', '/api/flip/attribute',
      '/api/craft/profit', '/api/player/extracted', '/api/player/bazaar/orders', '/api/player/bazaar/flips',
    ];
    for (const path of spec) assert.ok(checked.has(path), `${path} checked`);
    const templates = [...checked.keys()].map((p) => p.replace(/\/api\/(auction|bazaar|craft|item\/price|auctions\/tag|auctions\/uid)\/[^/]+/, '/api/$1/{}'));
    for (const path of ['/api/auctions/tag/{}/active/bin', '/api/auctions/tag/{}/sold', '/api/auctions/tag/{}/recent/overview', '/api/auctions/tag/{}/active/overview', '/api/auctions/tag/{}/archive/overview', '/api/auctions/uid/{}/sold', '/api/auction/{}', '/api/bazaar/{}/snapshot', '/api/bazaar/{}/history/hour', '/api/craft/{}/instructions', '/api/item/price/{}/analysis', '/api/item/price/{}', '/api/item/price/{}/bin', '/api/item/price/{}/current', '/api/item/price/{}/history/day', '/api/item/price/{}/history/week', '/api/item/price/{}/history/month', '/api/item/price/{}/history/full', '/api/item/price/{}/history/year']) {
      assert.ok(templates.includes(path), `${path} checked`);
    }
  });
});

describeEachBackend('conformance on the real 2022 auction pages', (fixture) => {
  let t: TestApp;
  let endedOnly: string[] = [];

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    const now = t.clock.now();
    const { listings, bids, raw } = realRows(now);
    // Three quarters listed; the rest sold without ever being listed (decoded from auctions_ended alone).
    const cut = Math.floor(listings.length * 0.75);
    await storeGeneration(t.store, now, listings.slice(0, cut), bids.filter((b) => listings.slice(0, cut).some((l) => l.uuid === b.auction_uuid)));
    // Nothing is fetched: the sales are applied as a replayed auctions_ended payload.
    const ctx = testIngestContext({ store: t.store, clock: t.clock, baseUrl: 'http://127.0.0.1:9' });
    const sales = raw.slice(cut).map((a, i) => ({
      auction_id: a.uuid,
      seller: a.auctioneer,
      seller_profile: a.profile_id ?? null,
      buyer: 'b'.repeat(32),
      buyer_profile: '',
      timestamp: now + 1_000 + i,
      price: a.starting_bid,
      bin: a.bin === true,
      item_bytes: a.item_bytes,
    }));
    endedOnly = sales.map((s) => s.auction_id);
    await new EndedIngester(ctx).apply({ success: true, lastUpdated: now + 60_000, auctions: sales });
    await ctx.client.close();
    t.clock.set(now + 120_000);
  });
  after(() => t?.close());

  it('every listed auction is a SaveAuction, in the established spellings', async () => {
    const all: Array<{ tag: string; itemCreatedAt: string; reforge: string; category: string; flatNbt: Record<string, string> }> = [];
    for (let page = 0; ; page++) {
      const res = await t.app.inject(`/api/auctions/active/filter?pageSize=500&page=${page}`);
      const list = ok(res, `active/filter page ${page}`) as typeof all;
      conforms(list, 'SaveAuction', `active/filter page ${page}`, true);
      all.push(...list);
      if (list.length < 500) break;
    }
    assert.ok(all.length >= 1400, `${all.length} listed auctions checked`);
    // The cases the issue found, each present in the real pages and now in the established form.
    const uncreated = all.filter((a) => a.itemCreatedAt === '0001-01-01T00:00:00.000Z');
    assert.ok(uncreated.some((a) => a.tag.startsWith('ENCHANTMENT_') || a.tag.startsWith('POTION_') || a.tag.startsWith('RUNE_')), 'books, potions or runes without a creation time');
    assert.ok(all.some((a) => /^[a-z]/.test(a.reforge)), 'lower-case reforges (ancient, withered …)');
    assert.ok(new Set(all.map((a) => a.category)).size >= 4, 'several categories');
    assert.ok(all.filter((a) => a.flatNbt['uid']).length > all.length / 3, 'flatNbt.uid on items with a uuid');
    const tags = [...new Set(all.map((a) => a.tag))].slice(0, 40);
    for (const tag of tags) conforms(ok(await t.app.inject(`/api/auctions/tag/${tag}/active/bin`), tag), 'SaveAuction', `${tag} active/bin`, true);
  });

  it('auctions sold without a listing: SoldAuction with an id and a derived start, detail in the established form', async () => {
    const tags = new Set<string>();
    for (const uuid of endedOnly.slice(0, 60)) {
      const detail = ok(await t.app.inject(`/api/auction/${uuid}`), uuid) as { tag: string; category: string; start: string; end: string };
      conforms(detail, 'ColorSaveAuction', `auction ${uuid}`);
      assert.equal(detail.category, 'UNKNOWN', 'auctions_ended names no category');
      tags.add(detail.tag);
    }
    let sales = 0;
    for (const tag of tags) {
      const sold = ok(await t.app.inject(`/api/auctions/tag/${tag}/sold`), `${tag} sold`) as Array<{ start: string; end: string }>;
      conforms(sold, 'SoldAuction', `${tag} sold`, true);
      sales += sold.length;
      conforms(ok(await t.app.inject(`/api/auctions/tag/${tag}/recent/overview`), `${tag} recent`), 'AuctionPreview', `${tag} recent/overview`, true);
      conforms(ok(await t.app.inject(`/api/auctions/tag/${tag}/active/overview`), `${tag} active`), 'AuctionPreview', `${tag} active/overview`, true);
    }
    assert.ok(sales >= 60, `${sales} sales checked`);
  });
});

describeEachBackend('conformance of the forge and Kat flips with the real NEU repository', (fixture) => {
  let t: TestApp;

  before(async () => {
    t = await createTestApp({ store: fixture().store, game: loadNeuRepository(neuRepo()), env: { FLIPS_POLL_MS: '0' } });
    const now = t.clock.now();
    // A forge recipe (Refined Mithril from 160 Enchanted Mithril) and a Kat upgrade (Mosquito, epic → legendary for 64 Tarantula Silk) that pay.
    await insertBazaar(t.store, [offerRow('ENCHANTED_MITHRIL', now, 100), offerRow('REFINED_MITHRIL', now, 20_000), offerRow('TARANTULA_SILK', now, 10)]);
    const pet = (tier: string, price: number) =>
      listing(now, { tag: 'PET_MOSQUITO', item_name: '[Lvl 1] Mosquito', tier, starting_bid: price, enchantments: {}, flat_nbt: { 'petInfo.type': 'MOSQUITO', 'petInfo.tier': tier } });
    await storeGeneration(t.store, now, [pet('EPIC', 1_000_000), pet('LEGENDARY', 10_000_000)]);
    await t.app.market.flips.refresh();
  });
  after(() => t?.close());

  it('forge flips, Kat flips and Kat\'s upgrade table', async () => {
    for (const [url, type] of [['/api/flip/forge', 'ForgeFlip'], ['/api/kat/profit', 'KatFlip'], ['/api/kat/data', 'KatUpgradeCost']] as const) {
      const list = ok(await t.app.inject(url), url) as unknown[];
      assert.ok(list.length > 0, `${url}: answers something to check`);
      conforms(list, type, url, true);
    }
  });
});
