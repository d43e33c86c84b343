/**
 * recordRequest keeps request counts and durations aside and adds them when /metrics is read;
 * the exposition must be what countRequest plus prom-client's own observe() would give.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../../src/metrics.ts';

const DURATIONS = [0.0004, 0.001, 0.003, 0.02, 0.02, 0.7, 4.9, 7, 12];

describe('recordRequest', () => {
  it('gives the same exposition as countRequest and httpDuration.observe', async () => {
    const fast = createMetrics({ defaultMetrics: false });
    const plain = createMetrics({ defaultMetrics: false });
    for (const [i, seconds] of DURATIONS.entries()) {
      const route = i % 3 === 0 ? '/a/:x' : '/b';
      const method = i % 4 === 0 ? 'HEAD' : 'GET';
      const status = i % 5 === 0 ? 404 : 200;
      fast.recordRequest(method, route, status, seconds);
      plain.countRequest(method, route, status);
      plain.httpDuration.observe({ method, route }, seconds);
    }
    const text = await fast.registry.metrics();
    assert.match(text, /skymarket_http_request_duration_seconds_bucket\{le="0.001",service="skymarket",method="GET",route="\/b"\} 1\n/);
    assert.equal(text, await plain.registry.metrics());
  });

  it('adds pending durations once, also after the histogram was reset', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.recordRequest('GET', '/a', 200, 0.002);
    metrics.recordRequest('GET', '/a', 200, 0.3);
    const count = /skymarket_http_request_duration_seconds_count\{service="skymarket",method="GET",route="\/a"\} (\d+)\n/;
    assert.equal(count.exec(await metrics.registry.metrics())?.[1], '2');
    assert.equal(count.exec(await metrics.registry.metrics())?.[1], '2', 'a second scrape adds nothing');
    metrics.recordRequest('GET', '/a', 200, 0.002);
    assert.equal(count.exec(await metrics.registry.metrics())?.[1], '3');
    metrics.registry.resetMetrics();
    metrics.recordRequest('GET', '/a', 200, 0.002);
    const text = await metrics.registry.metrics();
    assert.equal(count.exec(text)?.[1], '1');
    assert.match(text, /skymarket_http_request_duration_seconds_sum\{service="skymarket",method="GET",route="\/a"\} 0.002\n/);
  });
});
