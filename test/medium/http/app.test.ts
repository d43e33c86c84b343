import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Type } from 'typebox';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

/** Test-only routes that exercise the shared plugins with real schemas. */
function testRoutes(app: FastifyInstance) {
  app.post(
    '/test/echo',
    {
      schema: {
        body: Type.Object({ name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1, maximum: 10 }) }),
        response: { 200: Type.Object({ name: Type.String(), count: Type.Integer() }) },
      },
    },
    async (request) => request.body as { name: string; count: number },
  );
  app.get(
    '/test/items/:tag',
    {
      schema: {
        params: Type.Object({ tag: Type.String({ pattern: '^[A-Za-z0-9_:;\\-]{1,64}$' }) }),
        querystring: Type.Object({
          page: Type.Integer({ minimum: 0, default: 0 }),
          pageSize: Type.Integer({ minimum: 1, maximum: 1000, default: 1000 }),
          orderBy: Type.Optional(Type.Union([Type.Literal('LOWEST_PRICE'), Type.Literal('HIGHEST_PRICE')])),
        }),
      },
      config: { cache: 120 },
    },
    async (request) => ({ params: request.params, query: request.query }),
  );
  app.get('/test/crash', async () => {
    throw new Error('secret internal detail at /srv/app.ts:12');
  });
}

describe('HTTP foundation', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ extend: testRoutes });
  });
  after(() => t.close());

  describe('health', () => {
    it('is 503 with reasons before any data is stored', async () => {
      const res = await t.app.inject('/api/health');
      assert.equal(res.statusCode, 503);
      const body = res.json();
      assert.equal(body.status, 'unavailable');
      assert.deepEqual(body.reasons, ['no auctions generation stored yet', 'no bazaar snapshot stored yet']);
      assert.equal(body.database, 'sqlite');
      assert.equal(body.simulated, false);
      assert.equal(res.headers['cache-control'], 'no-store');
    });

    it('is 200 with feed ages once auctions and bazaar data are stored', async () => {
      const now = t.clock.now();
      await t.store.feeds.record({ name: 'auctions', lastUpdated: now - 42_000, storedAt: now - 40_000, records: 60000, source: 'upstream' });
      const partial = await t.app.inject('/api/health');
      assert.equal(partial.statusCode, 503);
      assert.deepEqual(partial.json().reasons, ['no bazaar snapshot stored yet']);
      await t.store.feeds.record({ name: 'bazaar', lastUpdated: now - 5_000, storedAt: now - 4_000, records: 1500, source: 'upstream' });
      const res = await t.app.inject('/api/health');
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.status, 'ok');
      assert.deepEqual(body.reasons, []);
      assert.equal(body.feeds.auctions.ageSeconds, 42);
      assert.equal(body.feeds.auctions.records, 60000);
      assert.equal(body.feeds.bazaar.ageSeconds, 5);
      assert.equal(body.feeds.bazaar.lastUpdated, new Date(now - 5_000).toISOString());
    });

    it('says loading (503) while stored data is still arriving, ok once it is in', async () => {
      t.context.loading = "the demo's 1 day of simulated history is being stored";
      try {
        const res = await t.app.inject('/api/health');
        assert.equal(res.statusCode, 503);
        assert.equal(res.json().status, 'loading');
        assert.deepEqual(res.json().reasons, ["the demo's 1 day of simulated history is being stored"]);
      } finally {
        t.context.loading = undefined;
      }
      const after = await t.app.inject('/api/health');
      assert.equal(after.statusCode, 200);
      assert.equal(after.json().status, 'ok');
    });

    it("says why a feed is failing: the last upstream error, as a warning when data is stored, as the reason when there is none", async () => {
      const now = t.clock.now();
      const error = 'GET https://api.hypixel.net/v2/skyblock/bazaar: the host api.hypixel.net could not be resolved (ENOTFOUND): no network, no DNS, or a misspelt host name';
      t.context.ingestion = {
        upstream: 'https://api.hypixel.net',
        status: () => ({
          bazaar: { failures: 3, lastSuccessAt: now - 90_000, lastError: error, lastErrorAt: now - 1_000, retryAt: now + 79_000 },
          auctions: { failures: 0, lastSuccessAt: now - 2_000 },
        }),
      };
      try {
        const res = await t.app.inject('/api/health');
        assert.equal(res.statusCode, 200, 'stored data is still served');
        const body = res.json();
        assert.equal(body.status, 'ok');
        assert.deepEqual(body.warnings, [`the bazaar feed's last 3 polls failed: ${error}`]);
        assert.deepEqual(body.upstream, {
          url: 'https://api.hypixel.net',
          polls: {
            bazaar: { failures: 3, lastSuccessAt: new Date(now - 90_000).toISOString(), lastError: error, lastErrorAt: new Date(now - 1_000).toISOString(), retryAt: new Date(now + 79_000).toISOString() },
            auctions: { failures: 0, lastSuccessAt: new Date(now - 2_000).toISOString() },
          },
        });

        // Without stored data the failure is the reason the service is unavailable (and not repeated as a warning).
        const empty = await createTestApp();
        try {
          empty.context.ingestion = t.context.ingestion;
          const down = await empty.app.inject('/api/health');
          assert.equal(down.statusCode, 503);
          assert.deepEqual(down.json().reasons, ['no auctions generation stored yet', `no bazaar snapshot stored yet: the bazaar feed's last 3 polls failed: ${error}`]);
          assert.deepEqual(down.json().warnings, []);
        } finally {
          await empty.close();
        }
      } finally {
        t.context.ingestion = undefined;
      }
    });

    it('answers liveness regardless of data', async () => {
      const res = await t.app.inject('/api/health/live');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { status: 'alive' });
    });
  });

  describe('OpenAPI', () => {
    it('serves a valid OpenAPI 3.1 document with the operations and the Problem schema', async () => {
      const res = await t.app.inject('/api/openapi.json');
      assert.equal(res.statusCode, 200);
      const doc = res.json();
      assert.equal(doc.openapi, '3.1.0');
      const result = await new Validator().validate(doc);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
      assert.ok(doc.paths['/api/health'].get, 'health documented');
      assert.ok(doc.paths['/api/version'].get, 'version documented');
      assert.ok(doc.components.schemas.Problem, 'Problem schema is a named component');
      assert.equal(doc.paths['/metrics'], undefined, 'metrics is not part of the API document');
    });

    it('serves the docs page', async () => {
      const res = await t.app.inject('/api/docs');
      const page = res.statusCode === 302 ? await t.app.inject(String(res.headers.location)) : res;
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
      assert.match(page.body, /swagger/i);
    });
  });

  describe('content negotiation', () => {
    for (const [accept, expected] of [
      [undefined, 'application/json'],
      ['application/json', 'application/json'],
      ['text/json', 'text/json'],
      ['text/plain', 'text/plain'],
      ['text/plain;q=0.5, text/json', 'text/json'],
      ['*/*', 'application/json'],
    ] as const) {
      it(`Accept: ${accept ?? '(none)'} → ${expected}`, async () => {
        const res = await t.app.inject({ url: '/api/version', headers: accept ? { accept } : {} });
        assert.equal(res.statusCode, 200);
        assert.match(String(res.headers['content-type']), new RegExp(`^${expected.replace('/', '\\/')}`));
        assert.deepEqual(res.json(), { name: 'skymarket', version: '0.1.0', apiVersion: 'v1' });
      });
    }

    for (const type of ['application/json', 'text/json', 'application/json-patch+json', 'application/vnd.skymarket+json']) {
      it(`accepts a ${type} request body`, async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/test/echo',
          headers: { 'content-type': `${type}; charset=utf-8` },
          payload: JSON.stringify({ name: 'x', count: 2 }),
        });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), { name: 'x', count: 2 });
      });
    }
  });

  describe('bad input gets a 4xx problem body', () => {
    async function expectProblem(
      request: string | InjectOptions,
      status: number,
      slug: string,
    ): Promise<Record<string, unknown>> {
      const res = await t.app.inject(request);
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const body = res.json();
      assert.equal(body.status, status);
      assert.equal(body.slug, slug);
      assert.equal(body.type, 'about:blank');
      assert.equal(typeof body.title, 'string');
      assert.equal(typeof body.detail, 'string');
      assert.equal(typeof body.instance, 'string');
      assert.doesNotMatch(res.body, /at .*\.ts:\d+|node_modules/, 'no stack trace on the wire');
      return body;
    }

    it('malformed JSON → 400', async () => {
      await expectProblem(
        { method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name": ' },
        400,
        'malformed_json',
      );
    });

    it('empty JSON body → 400', async () => {
      await expectProblem({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '' }, 400, 'empty_body');
    });

    it('prototype poisoning in JSON → 400', async () => {
      await expectProblem(
        { method: 'POST', url: '/test/echo', headers: { 'content-type': 'text/json' }, payload: '{"name":"x","count":1,"__proto__":{"admin":true}}' },
        400,
        'malformed_json',
      );
    });

    it('wrong content type → 415', async () => {
      await expectProblem(
        { method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/xml' }, payload: '<a/>' },
        415,
        'unsupported_media_type',
      );
    });

    it('oversized body → 413', async () => {
      const payload = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), count: 1 });
      await expectProblem({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload }, 413, 'body_too_large');
    });

    it('body failing its schema → 400 naming the first bad field (validation stops there)', async () => {
      const body = await expectProblem(
        { method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name":"a","count":11}' },
        400,
        'invalid_parameters',
      );
      assert.deepEqual(body.errors, { 'body.count': ['must be <= 10'] });
      assert.match(String(body.detail), /body\.count must be <= 10/);
      const two = await expectProblem({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name":"","count":11}' }, 400, 'invalid_parameters');
      assert.equal(Object.keys(two.errors as object).length, 1);
    });

    it('missing body field → 400 naming it', async () => {
      const body = await expectProblem(
        { method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name":"a"}' },
        400,
        'invalid_parameters',
      );
      assert.deepEqual(body.errors, { 'body.count': ["must have required property 'count'"] });
    });

    it('unknown route → 404', async () => {
      const body = await expectProblem('/api/does-not-exist?x=1', 404, 'route_not_found');
      assert.equal(body.instance, '/api/does-not-exist');
    });

    it('bad path value → 400', async () => {
      const body = await expectProblem('/test/items/bad%20tag!', 400, 'invalid_parameters');
      assert.ok((body.errors as Record<string, unknown>)['params.tag']);
    });

    it('out-of-range and non-numeric query values → 400', async () => {
      const body = await expectProblem('/test/items/ASPECT_OF_THE_END?pageSize=0&page=abc', 400, 'invalid_parameters');
      assert.equal(Object.keys(body.errors as object).length, 1);
      assert.ok(['query.page', 'query.pageSize'].includes(Object.keys(body.errors as object)[0]!));
      const tooBig = await expectProblem('/test/items/X?pageSize=1001', 400, 'invalid_parameters');
      assert.deepEqual(tooBig.errors, { 'query.pageSize': ['must be <= 1000'] });
    });

    it('numbers that coerce to Infinity or past 2^53 → 400 (Ajv lets them through its integer checks)', async () => {
      for (const value of ['1e309', '-1e309']) {
        const body = await expectProblem(`/test/items/X?pageSize=${value}`, 400, 'invalid_parameters');
        assert.ok((body.errors as Record<string, unknown>)['query.pageSize'], JSON.stringify(body));
      }
      // `page` has no maximum: an integer past 2^53 would otherwise reach the handler.
      for (const value of ['1e309', '1e20']) {
        const body = await expectProblem(`/test/items/X?page=${value}`, 400, 'invalid_parameters');
        assert.ok((body.errors as Record<string, unknown>)['query.page'], JSON.stringify(body));
      }
    });

    it('invalid enum value → 400 listing the allowed values', async () => {
      const body = await expectProblem('/test/items/X?orderBy=CHEAPEST', 400, 'invalid_parameters');
      assert.deepEqual(body.errors, { "query.orderBy": ["must be one of: LOWEST_PRICE, HIGHEST_PRICE"] });
    });

    it('malformed URL encoding → 400', async () => {
      await expectProblem('/api/%zz', 400, 'bad_url');
    });

    it('a failing handler → 500 problem with a reference and no internals', async () => {
      const res = await t.app.inject('/test/crash');
      assert.equal(res.statusCode, 500);
      const body = res.json();
      assert.equal(body.slug, 'internal_error');
      assert.match(body.detail, /reference/);
      assert.doesNotMatch(res.body, /secret internal detail|\/srv\/app\.ts/);
    });

    it('problem bodies negotiate to text/plain when asked', async () => {
      const res = await t.app.inject({ url: '/api/nope', headers: { accept: 'text/plain' } });
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.equal(res.json().slug, 'route_not_found');
    });
  });

  describe('caching', () => {
    it('sends Cache-Control and an ETag, and 304 on If-None-Match', async () => {
      const first = await t.app.inject('/test/items/HYPERION?page=2');
      assert.equal(first.statusCode, 200);
      assert.deepEqual(first.json(), { params: { tag: 'HYPERION' }, query: { page: 2, pageSize: 1000 } });
      assert.equal(first.headers['cache-control'], 'public, max-age=120');
      const etag = String(first.headers.etag);
      assert.match(etag, /^"[\w-]+"$/);
      const again = await t.app.inject({ url: '/test/items/HYPERION?page=2', headers: { 'if-none-match': `"other", W/${etag}` } });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      const changed = await t.app.inject({ url: '/test/items/HYPERION?page=3', headers: { 'if-none-match': etag } });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
    });

    it('gives each representation its own ETag', async () => {
      const json = await t.app.inject('/api/version');
      const text = await t.app.inject({ url: '/api/version', headers: { accept: 'text/plain' } });
      assert.notEqual(json.headers.etag, text.headers.etag);
    });

    it('never caches errors', async () => {
      const res = await t.app.inject('/test/items/X?pageSize=0');
      assert.equal(res.statusCode, 400);
      assert.equal(res.headers['cache-control'], undefined);
      assert.equal(res.headers.etag, undefined);
    });
  });

  describe('CORS', () => {
    it('answers preflight requests for any origin', async () => {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url: '/api/version',
        headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' },
      });
      assert.equal(res.statusCode, 204);
      assert.equal(res.headers['access-control-allow-origin'], '*');
    });

    it('with an origin list, cacheable answers vary by Origin as well as Accept', async () => {
      const listed = await createTestApp({ env: { CORS_ORIGINS: 'https://a.example' } });
      try {
        const res = await listed.app.inject({ url: '/api/version', headers: { origin: 'https://a.example' } });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['access-control-allow-origin'], 'https://a.example');
        assert.match(String(res.headers['cache-control']), /^public/);
        // A shared cache keyed without Origin would give this answer to another origin.
        assert.deepEqual(String(res.headers.vary).split(/,\s*/).sort(), ['Accept', 'Origin']);
        assert.equal((await t.app.inject('/api/version')).headers.vary, 'Accept');
      } finally {
        await listed.close();
      }
    });
  });

  describe('metrics', () => {
    it('exposes request counts by route template in Prometheus format', async () => {
      await t.app.inject('/test/items/ONE');
      await t.app.inject('/test/items/TWO');
      const res = await t.app.inject('/metrics');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.match(res.body, /skymarket_http_requests_total\{method="GET",route="\/test\/items\/:tag",status="200",service="skymarket"\} [2-9]/);
      assert.match(res.body, /skymarket_http_request_duration_seconds_bucket/);
      assert.doesNotMatch(res.body, /route="\/test\/items\/ONE"/, 'raw URLs never become labels');
      assert.doesNotMatch(res.body, /route="\/metrics"/);
    });
  });
});

describe('roles', () => {
  it('an ingest-only process serves health and metrics', async () => {
    const t = await createTestApp({ apiRoutes: false, env: { ROLE: 'ingest' } });
    try {
      const health = await t.app.inject('/api/health');
      assert.equal(health.json().role, 'ingest');
      assert.equal((await t.app.inject('/metrics')).statusCode, 200);
    } finally {
      await t.close();
    }
  });
});
