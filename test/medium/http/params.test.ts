/**
 * The one tag rule (DESIGN §4): every route with an `{itemTag}` path parameter, found in the
 * OpenAPI document (so a route added later is covered without editing this test), answers a
 * malformed tag with 400 `invalid_tag` and a well-formed unknown tag with 404 `item_not_found`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enchantmentBookTag, isValidTag, TAG_PATTERN_SOURCE } from '../../../src/domain/tags.ts';
import { parseItemTag } from '../../../src/http/params.ts';
import { HttpProblem } from '../../../src/http/problem.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

describe('the item tag parameter', () => {
  it('parses to the canonical upper-case tag; anything off the pattern is 400 invalid_tag', () => {
    assert.equal(parseItemTag('pet_ender_dragon'), 'PET_ENDER_DRAGON');
    assert.equal(parseItemTag('INK_SACK:3'), 'INK_SACK:3');
    for (const bad of ['', 'BAD TAG', 'A/B', 'A'.repeat(65), 'tag!', 'ü']) {
      assert.throws(() => parseItemTag(bad), (err: unknown) => err instanceof HttpProblem && err.status === 400 && err.slug === 'invalid_tag', JSON.stringify(bad));
      assert.equal(isValidTag(bad), false);
    }
    assert.equal(new RegExp(TAG_PATTERN_SOURCE).test('A'.repeat(64)), true);
  });

  it('builds single-enchantment book tags from any spelling of the name', () => {
    assert.equal(enchantmentBookTag('ultimate_wise', 5), 'ENCHANTMENT_ULTIMATE_WISE_5');
    assert.equal(enchantmentBookTag('SHARPNESS', '6'), 'ENCHANTMENT_SHARPNESS_6');
  });
});

describe('one answer for bad and unknown tags on every route', () => {
  let t: TestApp;
  let token: string;
  const routes: Array<{ method: string; path: string }> = [];

  before(async () => {
    t = await createTestApp();
    const now = t.clock.now();
    token = (await t.store.accounts.create({ tier: 'premium_plus', now })).token;
    // A loaded item catalog: lowball answers 404 only once it knows which items exist.
    await t.store.items.upsertMany([{ tag: 'HYPERION', name: 'Hyperion', tier: 'LEGENDARY', category: 'SWORD', npcSellPrice: null }], now);
    const doc = (await t.app.inject('/api/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.includes('{itemTag}')) continue;
      for (const method of Object.keys(ops)) routes.push({ method: method.toUpperCase(), path });
    }
    for (const route of routes) assert.ok(route.method === 'GET' || route.method === 'POST', `${route.method} ${route.path}: a method this test knows how to call`);
  });
  after(() => t.close());

  /** A request that passes every other check of the route, so only the tag decides. */
  function request(route: { method: string; path: string }, tag: string) {
    const url = route.path.replace('{itemTag}', encodeURIComponent(tag));
    const window = 'EndAfter=1700000000&EndBefore=1800000000';
    if (route.method === 'POST') {
      return t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${token}` },
        payload: { flags: 'None', filters: { EndAfter: '1700000000', EndBefore: '1800000000' }, discordWebhookUrl: 'https://discord.com/api/webhooks/1/x' },
      });
    }
    return t.app.inject({ method: 'GET', url: route.path.includes('archive') ? `${url}?${window}` : url, headers: { authorization: `Bearer ${token}` } });
  }

  it('covers the tag routes of every area', () => {
    const areas = new Set(routes.map((r) => r.path.split('/')[2]));
    for (const area of ['auctions', 'bazaar', 'craft', 'item', 'lowball']) assert.ok(areas.has(area), `a tag route under /api/${area}`);
    assert.ok(routes.length >= 17, `${routes.length} tag routes`);
  });

  it('400 invalid_tag for a malformed tag', async () => {
    for (const route of routes) {
      const res = await request(route, 'BAD TAG!');
      assert.equal(res.statusCode, 400, `${route.method} ${route.path}: ${res.body}`);
      assert.equal(res.json().slug, 'invalid_tag', `${route.method} ${route.path}`);
    }
  });

  it('404 item_not_found for a well-formed tag nothing knows', async () => {
    for (const route of routes) {
      const res = await request(route, 'NO_SUCH_ITEM_ANYWHERE');
      assert.equal(res.statusCode, 404, `${route.method} ${route.path}: ${res.body}`);
      assert.equal(res.json().slug, 'item_not_found', `${route.method} ${route.path}`);
    }
  });
});
