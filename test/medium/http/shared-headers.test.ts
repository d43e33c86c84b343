/**
 * The header and counting functions the http/ plugins and the stored-response fast path share
 * (src/http/stored-responses.ts): one implementation each, tested here once.
 */
import assert from 'node:assert/strict';
import cors from '@fastify/cors';
import Fastify from 'fastify';
import { describe, it } from 'node:test';
import { cacheHeaders } from '../../../src/http/caching.ts';
import { corsOptions, EXPOSED_HEADERS, staticCorsHeaders } from '../../../src/http/cors.ts';
import { GENERAL_LIMITS, limitOutcome, type WindowResult } from '../../../src/http/limits.ts';
import { recordResponse } from '../../../src/http/metrics.ts';

describe('cacheHeaders', () => {
  it('public caching for the route\'s seconds, varying by Accept after what the answer varies by already', () => {
    assert.deepEqual(cacheHeaders(10, undefined), { 'cache-control': 'public, max-age=10', vary: 'Accept' });
    assert.deepEqual(cacheHeaders(300, ''), { 'cache-control': 'public, max-age=300', vary: 'Accept' });
    assert.deepEqual(cacheHeaders(30, 'Origin'), { 'cache-control': 'public, max-age=30', vary: 'Origin, Accept' });
  });
});

describe('CORS', () => {
  it('with any origin, the static headers are what the plugin sends on a simple request', async () => {
    const app = Fastify();
    await app.register(cors, corsOptions(['*']));
    app.get('/x', async () => ({ ok: true }));
    const res = await app.inject({ url: '/x', headers: { origin: 'https://example.org' } });
    const sent = Object.fromEntries(Object.entries(res.headers).filter(([name]) => name.startsWith('access-control-')));
    assert.deepEqual(sent, staticCorsHeaders(['*']));
    assert.match(EXPOSED_HEADERS, /X-Rate-Limit-Remaining/);
    await app.close();
  });

  it('an origin list has no static headers (the plugin reflects each request\'s Origin)', () => {
    assert.equal(staticCorsHeaders(['https://a.example']), null);
    assert.deepEqual(corsOptions(['https://a.example']).origin, ['https://a.example']);
    assert.equal(corsOptions(['https://a.example', '*']).origin, '*');
  });
});

describe('limitOutcome', () => {
  const [short, long] = GENERAL_LIMITS as [(typeof GENERAL_LIMITS)[0], (typeof GENERAL_LIMITS)[1]];
  const result = (spec: typeof short, consumed: number): WindowResult => ({ spec, consumed, resetAt: Date.UTC(2026, 0, 1, 0, 1), exceeded: consumed > spec.points });

  it('admitted: the longest window\'s headers in both spellings, nothing exceeded', () => {
    const { headers, exceeded } = limitOutcome([result(short, 3), result(long, 40)], long);
    assert.deepEqual(exceeded, []);
    assert.deepEqual(headers, {
      'x-rate-limit-limit': '1m',
      'x-rate-limit-remaining': '60',
      'x-rate-limit-reset': '2026-01-01T00:01:00.000Z',
      'x-ratelimit-limit': '1m',
      'x-ratelimit-remaining': '60',
      'x-ratelimit-reset': '2026-01-01T00:01:00.000Z',
    });
  });

  it('refused: the windows it went over, remaining never below 0', () => {
    const over = result(short, 31);
    const { headers, exceeded } = limitOutcome([over, result(long, 101)], long);
    assert.equal(exceeded.length, 2);
    assert.equal(exceeded[0], over);
    assert.equal(headers?.['x-rate-limit-remaining'], '0');
  });

  it('nothing counted: no headers', () => {
    assert.deepEqual(limitOutcome([], long), { headers: undefined, exceeded: [] });
  });
});

describe('recordResponse', () => {
  it('labels by the route template (unmatched without one), in seconds', () => {
    const recorded: unknown[][] = [];
    const metrics = { recordRequest: (...args: unknown[]) => void recorded.push(args) };
    recordResponse(metrics, 'GET', '/api/auction/:auctionUuid', 200, 12.5);
    recordResponse(metrics, 'POST', undefined, 404, 1000);
    assert.deepEqual(recorded, [
      ['GET', '/api/auction/:auctionUuid', 200, 0.0125],
      ['POST', 'unmatched', 404, 1],
    ]);
  });
});
