/**
 * Hostile clients, round three (issue 45), against the real app on a real socket: the items that
 * concern the HTTP layer itself. The others live beside the code they test (limits, security
 * headers, the mod channel, the live feed, shutdown, uploads).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

describe('hostile clients, round three (issue 45)', () => {
  let t: TestApp;
  let origin: string;
  before(async () => {
    t = await createTestApp();
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  it('an 8,000-character URL is not echoed back: a small problem with at most a short prefix of the path (item 7)', async () => {
    const long = 'A'.repeat(8_000);
    for (const [path, status, slug] of [
      [`/api/item/${long}/icon`, 414, 'uri_too_long'],
      [`/api/${long}`, 404, 'route_not_found'],
    ] as const) {
      const res = await fetch(origin + path);
      const body = await res.text();
      assert.equal(res.status, status, path.slice(0, 30));
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      const problem = JSON.parse(body) as Record<string, unknown>;
      assert.equal(problem.slug, slug);
      // Before: the path twice, 16 KB.
      assert.ok(body.length < 600, `${slug}: ${body.length} bytes`);
      assert.ok(String(problem.instance).length <= 101, String(problem.instance).length.toString());
      assert.ok(String(problem.instance).startsWith(path.slice(0, 50)));
    }
  });
});
