import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Validator } from '@seriousme/openapi-schema-validator';
import { requireOwnPlayer, requireTier } from '../../../src/http/access.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const DAY = 86_400_000;
const PLAYER = '0123456789abcdef0123456789abcdef';
const OTHER = 'fedcba9876543210fedcba9876543210';

function routes(app: FastifyInstance) {
  const who = async (request: import('fastify').FastifyRequest) => ({
    account: request.account,
    partner: request.partner,
    playerKey: request.playerKey,
  });
  app.get('/test/public', who);
  app.get('/test/token', { config: { auth: 'token' } }, who);
  app.get('/test/optional', { config: { auth: 'optionalToken' } }, who);
  app.get(
    '/test/premium',
    { config: { tier: 'premium' }, schema: { summary: 'premium thing', tags: ['test'], response: { 200: { type: 'object', additionalProperties: true } } } },
    who,
  );
  app.get('/test/plus', { config: { auth: 'token', tier: 'premium_plus', cache: 60 } }, who);
  app.get('/test/player', { config: { auth: 'apiKey' } }, who);
  app.get<{ Params: { uuid: string } }>('/test/player/:uuid', { config: { auth: 'apiKey' } }, async (request) => {
    requireOwnPlayer(request, request.params.uuid);
    return { ok: true };
  });
  app.get('/test/partner', { config: { auth: 'partner' } }, who);
  app.get('/test/maybe-partner', { config: { auth: 'optionalPartner' } }, who);
  app.get<{ Querystring: { days?: string } }>('/test/days', { config: { auth: 'optionalToken' } }, async (request) => {
    if (Number(request.query.days ?? 1) > 7) requireTier(request, 'premium', 'More than 7 days');
    return { ok: true };
  });
}

describe('auth plugin', () => {
  let t: TestApp;
  let free: string;
  let premium: string;
  let plus: string;
  let expiring: string;
  let revoked: string;
  let key: string;
  let partner: string;
  before(async () => {
    t = await createTestApp({ extend: routes });
    const now = t.clock.now();
    free = (await t.store.accounts.create({ tier: 'free', now })).token;
    premium = (await t.store.accounts.create({ tier: 'premium', name: 'p', now })).token;
    plus = (await t.store.accounts.create({ tier: 'premium_plus', now })).token;
    expiring = (await t.store.accounts.create({ tier: 'premium', days: 1, now })).token;
    const r = await t.store.accounts.create({ tier: 'premium_plus', now });
    await t.store.accounts.revoke(r.account.id, now);
    revoked = r.token;
    key = (await t.store.apiKeys.create({ playerUuid: PLAYER, now })).token;
    partner = (await t.store.partners.create({ name: 'Acme', now })).token;
  });
  after(() => t.close());

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

  describe('account tokens', () => {
    it('401 with a JSON message when the token is missing', async () => {
      const res = await get('/test/token');
      assert.equal(res.statusCode, 401);
      const body = res.json();
      assert.match(body.message, /Authorization: Bearer \{token\}/);
      assert.match(body.message, /IdentityToken: \{token\}/);
      assert.equal(body.status, 401);
      assert.equal(res.headers['www-authenticate'], 'Bearer');
    });

    it('serves the 401 as text/plain when asked', async () => {
      const res = await get('/test/token', { accept: 'text/plain' });
      assert.equal(res.statusCode, 401);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.match(JSON.parse(res.body).message, /Authorization: Bearer/);
    });

    it('accepts Bearer (any case), IdentityToken and GoogleToken', async () => {
      const variants: Array<Record<string, string>> = [
        { authorization: `Bearer ${free}` },
        { authorization: `bearer   ${free}` },
        { identitytoken: free },
        { IdentityToken: free },
        { googletoken: free },
      ];
      for (const headers of variants) {
        const res = await get('/test/token', headers);
        assert.equal(res.statusCode, 200, JSON.stringify(headers));
        assert.equal(res.json().account.tier, 'free');
      }
    });

    it('refuses malformed, unknown and revoked tokens with 401', async () => {
      const cases: Array<[Record<string, string>, string]> = [
        [{ authorization: 'Basic dXNlcjpwYXNz' }, 'token_malformed'],
        [{ authorization: 'Bearer' }, 'token_malformed'],
        [{ authorization: `Bearer ${'x'.repeat(5000)}` }, 'token_malformed'],
        [{ identitytoken: '' }, 'token_malformed'],
        [{ authorization: 'Bearer not-a-token' }, 'token_invalid'],
        [{ authorization: `Bearer ${key}` }, 'token_invalid'],
        [{ authorization: `Bearer sma_${'A'.repeat(43)}` }, 'token_invalid'],
        [{ authorization: `Bearer ${revoked}` }, 'token_invalid'],
      ];
      for (const [headers, slug] of cases) {
        const res = await get('/test/token', headers);
        assert.equal(res.statusCode, 401, JSON.stringify(headers).slice(0, 80));
        assert.equal(res.json().slug, slug);
        assert.match(res.json().message, /Authorization: Bearer/);
        assert.ok(!res.body.includes(revoked) && !res.body.includes(key), 'no credential echoed');
      }
    });

    it('identifies the caller on public and optional routes without refusing', async () => {
      assert.equal((await get('/test/public')).json().account, null);
      assert.equal((await get('/test/public', { authorization: `Bearer ${premium}` })).json().account.tier, 'premium');
      assert.equal((await get('/test/optional', { authorization: 'Bearer junk' })).statusCode, 200);
      assert.equal((await get('/test/optional', { authorization: 'Bearer junk' })).json().account, null);
      assert.equal((await get('/test/optional', { authorization: `Bearer ${premium}` })).json().account.name, 'p');
    });
  });

  describe('tiers', () => {
    it('403 problem when the tier is too low; higher tiers include lower ones', async () => {
      const low = await get('/test/premium', { authorization: `Bearer ${free}` });
      assert.equal(low.statusCode, 403);
      assert.equal(low.json().slug, 'tier_required');
      assert.equal(low.json().requiredTier, 'premium');
      assert.equal((await get('/test/premium', { authorization: `Bearer ${premium}` })).statusCode, 200);
      assert.equal((await get('/test/premium', { authorization: `Bearer ${plus}` })).statusCode, 200);
      assert.equal((await get('/test/plus', { authorization: `Bearer ${premium}` })).statusCode, 403);
      assert.equal((await get('/test/premium')).statusCode, 401, 'a tier implies a token');
    });

    it('an expired tier falls back to free', async () => {
      assert.equal((await get('/test/premium', { authorization: `Bearer ${expiring}` })).statusCode, 200);
      t.clock.advance(DAY);
      try {
        assert.equal((await get('/test/premium', { authorization: `Bearer ${expiring}` })).statusCode, 403);
        assert.equal((await get('/test/token', { authorization: `Bearer ${expiring}` })).json().account.tier, 'free');
      } finally {
        t.clock.advance(-DAY);
      }
    });

    it('requireTier gates by parameter inside a handler', async () => {
      assert.equal((await get('/test/days?days=3')).statusCode, 200);
      assert.equal((await get('/test/days?days=30')).statusCode, 401);
      const low = await get('/test/days?days=30', { authorization: `Bearer ${free}` });
      assert.equal(low.statusCode, 403);
      assert.match(low.json().detail, /More than 7 days requires Premium/);
      assert.equal((await get('/test/days?days=30', { authorization: `Bearer ${premium}` })).statusCode, 200);
    });

    it('responses to credentialed routes are never publicly cacheable', async () => {
      const res = await get('/test/plus', { authorization: `Bearer ${plus}` });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['cache-control'], 'private, max-age=60');
    });
  });

  describe('player API keys', () => {
    it('accepts query apiKey, apikey, key and header X-Api-Key', async () => {
      for (const [url, headers] of [
        [`/test/player?apiKey=${key}`, {}],
        [`/test/player?apikey=${key}`, {}],
        [`/test/player?key=${key}`, {}],
        ['/test/player', { 'x-api-key': key }],
        ['/test/player', { 'X-API-KEY': key }],
      ] as Array<[string, Record<string, string>]>) {
        const res = await get(url, headers);
        assert.equal(res.statusCode, 200, url);
        assert.equal(res.json().playerKey.playerUuid, PLAYER);
      }
    });

    it('401 for missing, malformed, unknown, ambiguous, revoked and expired keys', async () => {
      assert.equal((await get('/test/player')).json().slug, 'api_key_required');
      assert.equal((await get('/test/player?key=abc')).json().slug, 'api_key_malformed');
      assert.equal((await get(`/test/player?key=${key}&key=${key}`)).json().slug, 'api_key_malformed');
      assert.equal((await get(`/test/player?key=${key}`, { 'x-api-key': `sk_${'C'.repeat(43)}` })).json().slug, 'api_key_malformed');
      assert.equal((await get(`/test/player?key=sk_${'C'.repeat(43)}`)).json().slug, 'api_key_invalid');
      assert.equal((await get(`/test/player?key=${free}`)).json().slug, 'api_key_malformed', 'an account token is not a key');
      const huge = await get('/test/player', { 'x-api-key': 'k'.repeat(4000) });
      assert.equal(huge.statusCode, 401);
      assert.equal(huge.json().slug, 'api_key_malformed');
      assert.match(huge.json().detail, /too long/);
      assert.equal((await get('/test/player', { 'x-api-key': '' })).json().slug, 'api_key_malformed');
      const doomed = await t.store.apiKeys.create({ playerUuid: PLAYER, now: t.clock.now() });
      await t.store.apiKeys.revoke(doomed.key.id);
      const rev = await get(`/test/player?key=${doomed.token}`);
      assert.equal(rev.statusCode, 401);
      assert.equal(rev.json().slug, 'api_key_revoked');
      const old = await t.store.apiKeys.create({ playerUuid: PLAYER, now: t.clock.now() - 180 * DAY });
      const exp = await get(`/test/player?key=${old.token}`);
      assert.equal(exp.statusCode, 401);
      assert.equal(exp.json().slug, 'api_key_expired');
    });

    it("a key reads only its own player's data", async () => {
      assert.equal((await get(`/test/player/${PLAYER}?key=${key}`)).statusCode, 200);
      assert.equal((await get(`/test/player/${PLAYER.toUpperCase()}?key=${key}`)).statusCode, 200);
      const other = await get(`/test/player/${OTHER}?key=${key}`);
      assert.equal(other.statusCode, 403);
      assert.equal(other.json().slug, 'other_player');
    });
  });

  describe('partner tokens', () => {
    it('required: 401 missing, 403 invalid or revoked, 200 valid', async () => {
      assert.equal((await get('/test/partner')).statusCode, 401);
      assert.equal((await get('/test/partner?token=nope')).statusCode, 403);
      assert.equal((await get(`/test/partner?token=${'p'.repeat(3000)}`)).statusCode, 403);
      assert.equal((await get(`/test/partner?token=${partner}&token=${partner}`)).statusCode, 403);
      const ok = await get(`/test/partner?token=${partner}`);
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.json().partner.name, 'Acme');
      const gone = await t.store.partners.create({ name: 'Gone' });
      await t.store.partners.revoke(gone.partner.id);
      assert.equal((await get(`/test/partner?token=${gone.token}`)).statusCode, 403);
    });

    it('optional: identifies a valid partner, ignores anything else', async () => {
      assert.equal((await get(`/test/maybe-partner?token=${partner}`)).json().partner.name, 'Acme');
      const res = await get('/test/maybe-partner?token=bad');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().partner, null);
    });
  });

  describe('OpenAPI', () => {
    it('declares security schemes, per-operation security and a tier note', async () => {
      const doc = (await get('/api/openapi.json')).json();
      const result = await new Validator().validate(doc);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      assert.ok(doc.components.securitySchemes.bearerToken);
      assert.equal(doc.components.securitySchemes.identityToken.name, 'IdentityToken');
      const premiumOp = doc.paths['/test/premium'].get;
      assert.deepEqual(premiumOp.security, [{ bearerToken: [] }, { identityToken: [] }]);
      assert.match(premiumOp.description, /Premium \(or higher\)/);
      assert.equal(premiumOp.description.match(/Access:/g).length, 1, 'the note appears once');
      assert.equal(premiumOp.summary, 'premium thing');
      assert.deepEqual(doc.paths['/test/player'].get.security, [{ playerApiKey: [] }, { playerApiKeyHeader: [] }]);
      assert.deepEqual(doc.paths['/test/optional'].get.security, [{ bearerToken: [] }, { identityToken: [] }, {}]);
      assert.ok(premiumOp.responses['401'], '401 documented');
      assert.ok(premiumOp.responses['403'], '403 documented');
      assert.equal(doc.paths['/test/optional'].get.responses['401'], undefined);
      assert.equal(doc.paths['/test/public'].get.security, undefined);
      assert.equal(doc.paths['/api/health'].get.security, undefined);
    });
  });
});

describe('secrets stay out of the logs', () => {
  it('never writes tokens, API keys or partner tokens, even at debug level', async () => {
    const { Writable } = await import('node:stream');
    const { buildApp } = await import('../../../src/app.ts');
    const { ManualClock } = await import('../../../src/clock.ts');
    const { loadConfig } = await import('../../../src/config.ts');
    const { createLogger } = await import('../../../src/logger.ts');
    const { createMetrics } = await import('../../../src/metrics.ts');
    const { Store } = await import('../../../src/store/index.ts');
    let logs = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs += String(chunk);
        done();
      },
    });
    const dir = tempDir('authlog');
    const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'debug', RATE_LIMIT_BAN_THRESHOLD: '1' });
    const store = await Store.open({ dataDir: dir.path });
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const app = await buildApp({
      config,
      store,
      clock,
      metrics: createMetrics({ defaultMetrics: false }),
      logger: createLogger('debug', sink),
      dataSource: 'upstream',
      startedAt: clock.now(),
    });
    routes(app);
    await app.ready();
    try {
      const account = (await store.accounts.create({ tier: 'premium_plus', now: clock.now() })).token;
      const key = (await store.apiKeys.create({ playerUuid: PLAYER, now: clock.now() })).token;
      const partner = (await store.partners.create({ name: 'x' })).token;
      const requests = [
        { url: '/test/token', headers: { authorization: `Bearer ${account}` } },
        { url: '/test/token', headers: { identitytoken: `${account}x` } },
        { url: `/test/player?apiKey=${key}` },
        { url: '/test/player', headers: { 'x-api-key': `${key}x` } },
        { url: `/test/partner?token=${partner}` },
        { url: `/test/partner?token=${partner}x` },
      ];
      for (let i = 0; i < 40; i++) {
        for (const r of requests) await app.inject({ method: 'GET', remoteAddress: '192.0.2.44', ...r });
      }
      assert.ok(logs.length > 0, 'debug logging wrote request lines');
      assert.match(logs, /\/test\/player/);
      for (const secret of [account, key, partner]) assert.ok(!logs.includes(secret.slice(4)), 'a credential reached the log');
    } finally {
      await app.close();
      await store.close();
      dir.remove();
    }
  });
});
