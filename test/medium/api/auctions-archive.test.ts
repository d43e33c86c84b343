/** Archive overview, archive export (API + worker + webhook delivery to a local server) and the partner batch export. */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { allowedWebhook, csvField } from '../../../src/domain/webhooks.ts';
import { ArchiveExportWorker } from '../../../src/jobs/archive-export.ts';
import { MAX_EXPORT_ATTEMPTS } from '../../../src/store/repositories/export-jobs.ts';
import { createLogger } from '../../../src/logger.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, sale, storeGeneration, storeSales } from '../../helpers/auctions.ts';

const DAY = 86_400_000;

interface Received {
  url: string;
  contentType: string;
  body: string;
}

function startWebhook(status = 204): Promise<{ server: Server; origin: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', contentType: String(req.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      resolve({ server, origin: `http://127.0.0.1:${address.port}`, received });
    }),
  );
}

describe('archive and batch endpoints', () => {
  let t: TestApp;
  let now: number;
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  let stranger: Awaited<ReturnType<typeof startWebhook>>;
  const tokens: Record<string, string> = {};
  let partner: string;
  const window = () => `EndAfter=${Math.floor((now - 30 * DAY) / 1000)}&EndBefore=${Math.floor(now / 1000)}`;

  before(async () => {
    hook = await startWebhook();
    stranger = await startWebhook();
    t = await createTestApp({ env: { EXPORT_WEBHOOK_HOSTS: `${hook.origin},discord.com` } });
    now = t.clock.now();
    for (const tier of ['premium', 'premium_plus'] as const) tokens[tier] = (await t.store.accounts.create({ tier, now })).token;
    partner = (await t.store.partners.create({ name: 'Acme', now })).token;
    const sales = Array.from({ length: 20 }, (_, i) =>
      sale(now, (i + 1) * DAY, { sold_price: 1000 + i, bin: i % 2 === 0, item_name: i === 0 ? '=cmd|"evil"' : 'Hyperion' }),
    );
    // Two sales in the last complete hour for the batch export.
    const lastHourStart = (Math.floor(now / 3_600_000) - 1) * 3_600_000;
    sales.push(sale(now, now - lastHourStart - 60_000, { sold_price: 500 }), sale(now, now - lastHourStart - 120_000, { sold_price: 700 }));
    await storeSales(t.store, now, sales);
    await storeGeneration(t.store, now, [listing(now, { starting_bid: 42 })]);
  });
  after(async () => {
    await t.close();
    hook.server.close();
    stranger.server.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST', url, payload: payload as object, headers });
  const plus = () => ({ authorization: `Bearer ${tokens.premium_plus}` });

  describe('GET archive/overview', () => {
    it('needs Premium+', async () => {
      assert.equal((await get(`/api/auctions/tag/HYPERION/archive/overview?${window()}`)).statusCode, 401);
      assert.equal((await get(`/api/auctions/tag/HYPERION/archive/overview?${window()}`, { authorization: `Bearer ${tokens.premium}` })).statusCode, 403);
    });

    it('answers after the 2-second delay with the window, filters and pagination', async () => {
      const before = t.clock.now();
      const res = await get(`/api/auctions/tag/HYPERION/archive/overview?${window()}&Bin=true&pageSize=5&page=1`, plus());
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(t.clock.now() - before >= 2000, 'waited 2 s on the app clock');
      const body = res.json() as { auctions: Array<{ price: number }>; queryStatus: string };
      assert.equal(body.queryStatus, 'Success');
      assert.equal(body.auctions.length, 5);
      assert.ok(body.auctions.every((a) => (a.price - 1000) % 2 === 0), 'only BIN sales (even i)');
      const empty = (await get('/api/auctions/tag/HYPERION/archive/overview?EndAfter=1&EndBefore=2', plus())).json() as { queryStatus: string };
      assert.equal(empty.queryStatus, 'NoResults');
    });

    it('400 without EndAfter/EndBefore, reversed, non-numeric, bad filters, bad page size', async () => {
      const slug = async (url: string) => (await get(url, plus())).json() as { slug: string; status: number };
      assert.equal((await slug('/api/auctions/tag/HYPERION/archive/overview')).slug, 'missing_params');
      assert.equal((await slug('/api/auctions/tag/HYPERION/archive/overview?EndAfter=10&EndBefore=5')).slug, 'invalid_params');
      assert.equal((await slug('/api/auctions/tag/HYPERION/archive/overview?EndAfter=x&EndBefore=5')).slug, 'invalid_params');
      assert.equal((await slug(`/api/auctions/tag/HYPERION/archive/overview?${window()}&Nope=1`)).slug, 'unknown_filter');
      assert.equal((await slug(`/api/auctions/tag/HYPERION/archive/overview?${window()}&pageSize=101`)).status, 400);
    });
  });

  describe('POST archive/export and the export worker', () => {
    const request = (webhook: string, extra: Record<string, unknown> = {}) => ({
      flags: 'UniqueItems',
      filters: { EndAfter: String(Math.floor((now - 30 * DAY) / 1000)), EndBefore: String(Math.floor(now / 1000)), Bin: 'true' },
      discordWebhookUrl: webhook,
      ...extra,
    });

    it('needs Premium+, a window, an allowed webhook and known flags', async () => {
      assert.equal((await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/hook`))).statusCode, 401);
      assert.equal((await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/hook`), { authorization: `Bearer ${tokens.premium}` })).statusCode, 403);
      const denied = await post('/api/auctions/tag/HYPERION/archive/export', request(`${stranger.origin}/hook`), plus());
      assert.equal((denied.json() as { slug: string }).slug, 'webhook_not_allowed');
      const flags = await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/hook`, { flags: 'Everything' }), plus());
      assert.equal((flags.json() as { slug: string }).slug, 'invalid_flags');
      const noWindow = await post('/api/auctions/tag/HYPERION/archive/export', { ...request(`${hook.origin}/hook`), filters: {} }, plus());
      assert.equal((noWindow.json() as { slug: string }).slug, 'missing_params');
      assert.equal(stranger.received.length, 0);
    });

    it('queues at most 4 jobs per account; the worker delivers a CSV in the Discord webhook format', async () => {
      const created = await post('/api/auctions/tag/hyperion/archive/export', request(`${hook.origin}/api/webhooks/1/abc`), plus());
      assert.equal(created.statusCode, 200, created.body);
      const job = created.json() as { id: number; status: string; itemTag: string };
      assert.deepEqual([job.status, job.itemTag], ['Pending', 'HYPERION']);
      for (let i = 0; i < 3; i++) assert.equal((await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/x`), plus())).statusCode, 200);
      const full = await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/x`), plus());
      assert.equal(full.statusCode, 429);

      const worker = new ArchiveExportWorker({ store: t.store, clock: t.clock, logger: createLogger('silent'), allowList: t.context.config.exportWebhookHosts });
      assert.equal(await worker.runOnce(), 4);
      assert.equal(hook.received.length, 4);
      const first = hook.received[0]!;
      assert.equal(first.url, '/api/webhooks/1/abc');
      assert.match(first.contentType, /^multipart\/form-data; boundary=/);
      assert.match(first.body, /name="payload_json"/);
      assert.match(first.body, /name="files\[0\]"; filename="skymarket-export-HYPERION-\d+\.csv"/);
      const csv = first.body.slice(first.body.indexOf('uuid,itemTag'));
      const lines = csv.split('\r\n').filter((l) => /^(uuid|[0-9a-f]{32}),/.test(l));
      assert.equal(lines[0], 'uuid,itemTag,itemName,highestBidAmount,bin,startedAt,endedAt,sellerUuid,highestBidderUuid,itemUid');
      assert.equal(lines.length - 1, 12, '10 daily BIN sales within 30 days + the 2 of the last hour');
      assert.match(csv, /'=cmd\|""evil""/, 'formula neutralised and quotes escaped');

      const jobs = (await get('/api/auctions/archive/exports', plus())).json() as Array<{ status: string; rowCount: number }>;
      assert.equal(jobs.length, 4);
      assert.ok(jobs.every((j) => j.status === 'Done' && j.rowCount === 12));
      assert.equal((await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/x`), plus())).statusCode, 200, 'queue has room again');
    });

    it('a job whose webhook is no longer allowed, or that answers an error, fails without contacting anything else', async () => {
      const account = (await t.store.accounts.create({ tier: 'premium_plus', now })).account;
      const filters = { EndAfter: '0', EndBefore: String(Math.floor(now / 1000)) };
      await t.store.exportJobs.create({ accountId: account.id, itemTag: 'HYPERION', flags: 'None', filters, columns: ['uuid'], webhookUrl: `${stranger.origin}/x`, requestedAt: now });
      const failing = await startWebhook(500);
      await t.store.exportJobs.create({ accountId: account.id, itemTag: 'HYPERION', flags: 'None', filters, columns: ['uuid'], webhookUrl: `${failing.origin}/x`, requestedAt: now + 1 });
      const worker = new ArchiveExportWorker({ store: t.store, clock: t.clock, logger: createLogger('silent'), allowList: [failing.origin, hook.origin] });
      const before = hook.received.length;
      await worker.runOnce();
      failing.server.close();
      const jobs = await t.store.exportJobs.forAccount(account.id);
      assert.deepEqual(jobs.map((j) => [j.status, j.error]).sort(), [
        ['Failed', 'webhook answered 500'],
        ['Failed', 'webhook target is not on the allow-list'],
      ]);
      assert.equal(stranger.received.length, 0, 'the non-allowed host was never contacted');
      assert.equal(failing.received.length, 1);
      assert.equal(hook.received.length, before + 1, 'the pending job from the previous test was delivered');
    });

    it('jobs left InProgress by a crashed worker stop counting toward the cap once their lease expires, and are taken back (issue 21 item 8)', async () => {
      const token = (await t.store.accounts.create({ tier: 'premium_plus', now })).token;
      const auth = { authorization: `Bearer ${token}` };
      for (let i = 0; i < 4; i++) assert.equal((await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/crash`), auth)).statusCode, 200);
      // A worker claims all four and dies (the process was killed): nothing renews their lease.
      for (let i = 0; i < 4; i++) assert.ok(await t.store.exportJobs.claimNext(t.clock.now()));
      assert.equal((await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/crash`), auth)).statusCode, 429);
      const lease = t.context.config.exportLeaseSeconds * 1000;
      const start = t.clock.now();
      try {
        t.clock.advance(lease + 1000);
        // Before: InProgress forever, the account's queue full for good.
        assert.equal((await post('/api/auctions/tag/HYPERION/archive/export', request(`${hook.origin}/crash`), auth)).statusCode, 200);
        const before = hook.received.length;
        const worker = new ArchiveExportWorker({ store: t.store, clock: t.clock, logger: createLogger('silent'), allowList: [hook.origin], leaseMs: lease });
        assert.equal(await worker.runOnce(), 5);
        assert.equal(hook.received.length, before + 5);
        const jobs = (await get('/api/auctions/archive/exports', auth)).json() as Array<{ status: string }>;
        assert.deepEqual(jobs.map((j) => j.status), ['Done', 'Done', 'Done', 'Done', 'Done']);
        // A job that keeps taking its worker down fails after MAX_EXPORT_ATTEMPTS instead of looping.
        const doomed = await t.store.exportJobs.create({ accountId: 999, itemTag: 'HYPERION', flags: 'None', filters: {}, columns: [], webhookUrl: `${hook.origin}/x`, requestedAt: t.clock.now() });
        for (let i = 0; i < MAX_EXPORT_ATTEMPTS; i++) {
          assert.equal((await t.store.exportJobs.claimNext(t.clock.now()))?.id, doomed.id);
          t.clock.advance(lease + 1000);
          await t.store.exportJobs.reclaimExpired(t.clock.now(), lease);
        }
        assert.equal((await t.store.exportJobs.get(doomed.id))?.status, 'Failed');
      } finally {
        t.clock.set(start);
      }
    });

  });

  describe('GET /api/auctions/batch', () => {
    it('needs a partner token (401 missing, 403 invalid)', async () => {
      assert.equal((await get('/api/auctions/batch')).statusCode, 401);
      assert.equal((await get('/api/auctions/batch?token=nope')).statusCode, 403);
    });

    it('summarises the last complete hour per tag with the current lowest BIN', async () => {
      const res = await get(`/api/auctions/batch?token=${partner}`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as { page: number; items: Array<{ tag: string; volume: number; median: number; min: number; max: number; lowestBin: number; activeListings: number }> };
      assert.equal(body.page, Math.floor(now / 3_600_000) - 1);
      assert.deepEqual(body.items, [{ tag: 'HYPERION', volume: 2, median: 700, min: 500, max: 700, lowestBin: 42, activeListings: 1 }]);
      const other = (await get(`/api/auctions/batch?token=${partner}&page=1&tag=HYPERION&count=1`)).json() as { items: unknown[] };
      assert.deepEqual(other.items, []);
      assert.equal((await get(`/api/auctions/batch?token=${partner}&count=0`)).statusCode, 400);
      assert.equal((await get(`/api/auctions/batch?token=${partner}&page=first`)).statusCode, 400);
      assert.equal((await get(`/api/auctions/batch?token=${partner}&tag=BAD!`)).statusCode, 400);
    });
  });
});

describe('webhook allow-list and CSV fields', () => {
  it('hosts allow https on the host and its subdomains; origins allow exactly that origin', () => {
    const list = ['discord.com', 'http://127.0.0.1:9000'];
    assert.ok(allowedWebhook('https://discord.com/api/webhooks/1/x', list));
    assert.ok(allowedWebhook('https://ptb.discord.com/api/webhooks/1/x', list));
    assert.ok(allowedWebhook('http://127.0.0.1:9000/x', list));
    assert.equal(allowedWebhook('http://discord.com/api/webhooks/1/x', list), null, 'plain http');
    assert.equal(allowedWebhook('https://discord.com.evil.net/x', list), null);
    assert.equal(allowedWebhook('https://evildiscord.com/x', list), null);
    assert.equal(allowedWebhook('https://user:pw@discord.com/x', list), null);
    assert.equal(allowedWebhook('https://discord.com:8443/x', list), null);
    assert.equal(allowedWebhook('http://127.0.0.1:9001/x', list), null);
    assert.equal(allowedWebhook('not a url', list), null);
  });

  it('csv fields are quoted when needed and never start a formula', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('=1+1'), "'=1+1");
    assert.equal(csvField(-5), '-5');
    assert.equal(csvField(null), '');
  });
});
