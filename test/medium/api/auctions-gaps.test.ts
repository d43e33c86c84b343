/**
 * The auction features closed after the first pass, on both backends: Seller by player
 * name, decoded nbtData, export job get/abort/delete and the IncludeSocial/InventoryCheck
 * flags, the ENCHANTED_BOOK analysis rule and the analysis deadline.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, it } from 'node:test';
import { ANALYSIS_TIMEOUT_MS } from '../../../src/services/price-analysis.ts';
import { ArchiveExportWorker } from '../../../src/jobs/archive-export.ts';
import { createLogger } from '../../../src/logger.ts';
import type { AuctionRowWrite } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { hex32, listing, realRows, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const DAY = 86_400_000;
const TECHNO = '0123456789abcdef0123456789abcdef';
const OTHER = 'fedcba9876543210fedcba9876543210';
const BUYER = 'cccccccccccccccccccccccccccccccc';

const flatOf = (r: AuctionRowWrite): Record<string, string> =>
  (typeof r.flat_nbt === 'string' ? JSON.parse(r.flat_nbt) : (r.flat_nbt ?? {})) as Record<string, string>;

function startWebhook(): Promise<{ server: Server; origin: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, bodies })),
  );
}

describeEachBackend('auction gaps', (fixture) => {
  let t: TestApp;
  let now: number;
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  let plus: string;
  let premium: string;
  let real: AuctionRowWrite;
  const resoldUid = hex32().slice(-12);

  before(async () => {
    hook = await startWebhook();
    t = await createTestApp({ store: fixture().store, env: { EXPORT_WEBHOOK_HOSTS: hook.origin } });
    now = t.clock.now();
    plus = (await t.store.accounts.create({ tier: 'premium_plus', now })).token;
    premium = (await t.store.accounts.create({ tier: 'premium', now })).token;
    // A real 2022 auction (real item bytes) with ExtraAttributes beyond the id.
    real = realRows(now).listings.find((l) => l.bin && Number(l.highest_bid) === 0 && l.tag !== 'HYPERION' && Object.keys(flatOf(l)).length >= 3)!;
    await storeGeneration(t.store, now, [
      real,
      listing(now, { seller: TECHNO, starting_bid: 100 }),
      listing(now, { seller: OTHER, starting_bid: 200 }),
      listing(now, { seller: OTHER, starting_bid: 300, item_uid: resoldUid }),
    ]);
    await storeSales(t.store, now, [
      sale(now, 2 * DAY, { seller: TECHNO, sold_price: 1000, item_uid: resoldUid }),
      sale(now, 1 * DAY, { seller: OTHER, sold_price: 2000, item_uid: resoldUid }),
      sale(now, 3 * DAY, { seller: OTHER, sold_price: 3000 }),
      // ENCHANTED_BOOK sales: one matching the filter 10 days ago, one not matching 2 days ago
      sale(now, 10 * DAY, { tag: 'ENCHANTED_BOOK', sold_price: 50, enchantments: { sharpness: 6, smite: 6 } }),
      sale(now, 2 * DAY, { tag: 'ENCHANTED_BOOK', sold_price: 70, enchantments: { smite: 6, growth: 5 } }),
    ]);
    await t.store.playerNames.record([{ playerUuid: TECHNO, name: 'Technoblade' }, { playerUuid: BUYER, name: 'BuyerGuy' }], 'mod', now);
  });
  after(async () => {
    await t.close();
    hook.server.close();
  });

  const get = (url: string, token?: string) => t.app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const send = (method: 'POST' | 'DELETE', url: string, token: string, payload?: unknown) =>
    t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('Seller takes a player name (case-insensitive) or a uuid; an unknown name is a 400 naming the filter', async () => {
    const byName = (await get('/api/auctions/tag/HYPERION/active/bin?Seller=technoBLADE')).json() as Array<{ auctioneerId: string }>;
    assert.deepEqual(byName.map((a) => a.auctioneerId), [TECHNO]);
    const both = (await get(`/api/auctions/tag/HYPERION/active/bin?Seller=Technoblade|${OTHER}`)).json() as unknown[];
    assert.equal(both.length, 3);
    const sold = (await get('/api/auctions/tag/HYPERION/recent/overview?Seller=Technoblade')).json() as Array<{ seller: string; playerName: string }>;
    assert.deepEqual(sold.map((s) => [s.seller, s.playerName]), [[TECHNO, 'Technoblade']]);
    const unknown = await get('/api/auctions/tag/HYPERION/active/bin?Seller=Nobody_Here');
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual([unknown.json().slug, unknown.json().filter], ['unknown_player', 'Seller']);
    const malformed = await get('/api/auctions/tag/HYPERION/active/bin?Seller=not%20a%20name!');
    assert.deepEqual([malformed.statusCode, malformed.json().slug], [400, 'invalid_filter']);
    const check = await t.app.inject({ method: 'POST', url: '/api/Filter', payload: { filters: { Seller: 'Technoblade' }, auction: { auctioneerId: TECHNO } } });
    assert.equal(check.json(), true);
  });

  it('the full auction carries its decoded NBT; lists too', async () => {
    const res = await get(`/api/auction/${real.uuid}`);
    assert.equal(res.statusCode, 200, res.body);
    const data = (res.json() as { nbtData: { data: Record<string, unknown> } }).nbtData.data;
    assert.equal(typeof data['id'], 'string');
    const flat = flatOf(real);
    for (const [key, value] of Object.entries(flat)) {
      if (key.includes('.')) continue;
      assert.equal(String(data[key]), value, `ExtraAttributes.${key}`);
    }
    const bin = (await get(`/api/auctions/tag/${real.tag}/active/bin`)).json() as Array<{ uuid: string; nbtData: { data?: unknown } }>;
    assert.deepEqual(bin.find((a) => a.uuid === real.uuid)!.nbtData, { data });
    const filtered = (await get(`/api/auctions/active/filter?ItemId=${real.tag}&pageSize=500`)).json() as Array<{ uuid: string; nbtData: { data?: unknown } }>;
    assert.deepEqual(filtered.find((a) => a.uuid === real.uuid)!.nbtData, { data });
    // Synthetic rows hold an empty item list: {} rather than an error.
    const synthetic = (await get('/api/auctions/tag/HYPERION/active/bin')).json() as Array<{ nbtData: object }>;
    assert.ok(synthetic.every((a) => JSON.stringify(a.nbtData) === '{}'));
  });

  it('export jobs: get, abort and delete own jobs only; flags add their columns', async () => {
    const filters = { EndAfter: String(Math.floor((now - 30 * DAY) / 1000)), EndBefore: String(Math.floor(now / 1000)) };
    const create = (flags: string) => send('POST', '/api/auctions/tag/HYPERION/archive/export', plus, { flags, filters, discordWebhookUrl: `${hook.origin}/w` });
    const a = (await create('IncludeSocial, InventoryCheck')).json() as { id: number; status: string; flags: string };
    assert.deepEqual([a.status, a.flags], ['Pending', 'IncludeSocial, InventoryCheck']);
    const b = (await create('None')).json() as { id: number };
    const c = (await create('None')).json() as { id: number };

    assert.equal((await get(`/api/auctions/archive/exports/${a.id}`, plus)).json().id, a.id);
    assert.equal((await get(`/api/auctions/archive/exports/${a.id}`)).statusCode, 401);
    assert.equal((await get(`/api/auctions/archive/exports/${a.id}`, premium)).statusCode, 403);
    const stranger = (await t.store.accounts.create({ tier: 'premium_plus', now })).token;
    assert.equal((await get(`/api/auctions/archive/exports/${a.id}`, stranger)).statusCode, 404, "another account's job is not revealed");
    assert.equal((await send('POST', `/api/auctions/archive/exports/${a.id}/abort`, stranger)).statusCode, 404);
    assert.equal((await send('DELETE', `/api/auctions/archive/exports/${a.id}`, stranger)).statusCode, 404);
    assert.equal((await get('/api/auctions/archive/exports/0', plus)).statusCode, 400);
    assert.equal((await get('/api/auctions/archive/exports/abc', plus)).statusCode, 400);
    assert.equal((await get('/api/auctions/archive/exports/999999', plus)).statusCode, 404);

    const aborted = await send('POST', `/api/auctions/archive/exports/${b.id}/abort`, plus);
    assert.equal(aborted.statusCode, 200, aborted.body);
    assert.equal(aborted.json().status, 'Aborted');
    assert.equal((await send('POST', `/api/auctions/archive/exports/${b.id}/abort`, plus)).statusCode, 409, 'already aborted');
    assert.equal((await send('DELETE', `/api/auctions/archive/exports/${c.id}`, plus)).statusCode, 204);
    assert.equal((await get(`/api/auctions/archive/exports/${c.id}`, plus)).statusCode, 404);

    const worker = new ArchiveExportWorker({ store: t.store, clock: t.clock, logger: createLogger('silent'), allowList: [hook.origin] });
    assert.equal(await worker.runOnce(), 1, 'only the job neither aborted nor deleted runs');
    assert.equal(hook.bodies.length, 1);
    const csv = hook.bodies[0]!.slice(hook.bodies[0]!.indexOf('uuid,itemTag'));
    const lines = csv.split('\r\n').filter((l) => /^(uuid|[0-9a-f]{32}),/.test(l));
    assert.equal(lines[0], 'uuid,itemTag,itemName,highestBidAmount,bin,startedAt,endedAt,sellerUuid,highestBidderUuid,itemUid,sellerName,highestBidderName,itemListedNow,itemLaterSales');
    const row = (price: number) => lines.find((l) => l.split(',')[3] === String(price))!.split(',').slice(-4);
    assert.deepEqual(row(1000), ['Technoblade', 'BuyerGuy', 'true', '1'], 'sold again later and listed now');
    assert.deepEqual(row(2000), ['', 'BuyerGuy', 'true', '0']);
    assert.deepEqual(row(3000).slice(2), ['false', '0']);
    assert.equal((await get(`/api/auctions/archive/exports/${a.id}`, plus)).json().status, 'Done');
    assert.equal((await send('POST', `/api/auctions/archive/exports/${a.id}/abort`, plus)).statusCode, 409, 'finished jobs cannot be aborted');
    assert.equal((await send('DELETE', `/api/auctions/archive/exports/${a.id}`, plus)).statusCode, 204, 'finished jobs can be deleted');
  });

  it('a job aborted while running delivers nothing and stays Aborted', async () => {
    const account = (await t.store.accounts.create({ tier: 'premium_plus', now })).account;
    const job = await t.store.exportJobs.create({
      accountId: account.id,
      itemTag: 'HYPERION',
      flags: 'None',
      filters: { EndAfter: '0', EndBefore: String(Math.floor(now / 1000)) },
      columns: ['uuid'],
      webhookUrl: `${hook.origin}/w`,
      requestedAt: now,
    });
    // Abort right after the worker claimed it (while it builds the CSV).
    const queries = t.store.auctionQueries;
    const original = queries.sold.bind(queries);
    queries.sold = async (q) => {
      await t.store.exportJobs.abort(job.id, account.id, now);
      return original(q);
    };
    const sent = hook.bodies.length;
    try {
      const worker = new ArchiveExportWorker({ store: t.store, clock: t.clock, logger: createLogger('silent'), allowList: [hook.origin] });
      await worker.runOnce();
    } finally {
      queries.sold = original;
    }
    assert.equal(hook.bodies.length, sent, 'nothing delivered');
    assert.equal((await t.store.exportJobs.get(job.id))!.status, 'Aborted');
  });

  it('analysis of ENCHANTED_BOOK beyond 7 days ignores the filters; within 7 days applies them', async () => {
    const starter = (await t.store.accounts.create({ tier: 'starter_premium', now })).token;
    const week = await get('/api/item/price/ENCHANTED_BOOK/analysis?days=7&sharpness=6');
    assert.equal(week.statusCode, 200, week.body);
    assert.equal(week.json().totalSales, 0, 'the matching sale is 10 days old');
    assert.equal(week.headers['x-filters-ignored'], undefined);
    const month = await get('/api/item/price/ENCHANTED_BOOK/analysis?days=14&sharpness=6', starter);
    assert.equal(month.json().totalSales, 2, 'filters ignored: both books');
    assert.equal(month.headers['x-filters-ignored'], 'true');
    const hyperion = await get('/api/item/price/HYPERION/analysis?days=14&Seller=Technoblade', starter);
    assert.equal(hyperion.json().totalSales, 1, 'other items keep their filters');
    assert.equal((await get('/api/item/price/ENCHANTED_BOOK/analysis?days=14&Nope=1', starter)).json().slug, 'unknown_filter', 'ignored filters are still validated');
  });

  it('an analysis that overruns its deadline answers 503 analysis_timeout with Retry-After', async () => {
    const queries = t.store.auctionQueries;
    const original = queries.soldLean.bind(queries);
    queries.soldLean = async (...args) => {
      t.clock.advance(ANALYSIS_TIMEOUT_MS + 1000); // the query "took" 21 s on the app clock
      return original(...args);
    };
    try {
      const res = await get('/api/item/price/HYPERION/analysis');
      assert.equal(res.statusCode, 503, res.body);
      assert.equal(res.json().slug, 'analysis_timeout');
      assert.equal(res.headers['retry-after'], '30');
    } finally {
      queries.soldLean = original;
    }
    assert.equal((await get('/api/item/price/HYPERION/analysis')).statusCode, 200);
  });
});
