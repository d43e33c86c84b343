import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { PROXY_MAX_BYTES, PROXY_MAX_INFLATED_BYTES } from '../../src/api/data.ts';
import { classifyUpload } from '../../src/domain/uploads.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const ALICE = '0123456789abcdef0123456789abcdef';
const page = { success: true, page: 0, totalPages: 1, totalAuctions: 1, lastUpdated: 1, auctions: [{ uuid: 'ab'.repeat(16), item_bytes: 'H4sI' }] };

describe('data submission endpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
    await t.store.playerNames.record([{ playerUuid: ALICE, name: 'Alice_1' }], 'mod', t.clock.now());
  });
  after(() => t.close());

  const proxy = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/api/data/proxy', payload, headers: { 'content-type': 'application/json', ...headers } });

  it('classifies the upstream shapes it understands', () => {
    assert.equal(classifyUpload(page), 'auctions_page');
    assert.equal(classifyUpload({ success: true, auctions: [{ uuid: 'x', auctioneer: ALICE, item_bytes: 'H4sI' }] }), 'player_auctions');
    assert.equal(classifyUpload({ success: true, auctions: [{ auction_id: 'x', buyer: ALICE, price: 5 }] }), 'auctions_ended');
    assert.equal(classifyUpload({ success: true, products: {} }), 'bazaar');
    assert.equal(classifyUpload({ success: true, profiles: [{ profile_id: 'p' }] }), 'profiles');
    for (const bad of [null, [], { success: false, products: {} }, { success: true }, { success: true, auctions: [1] }, { success: true, page: 0, totalPages: 1, auctions: [{ uuid: 1 }] }]) {
      assert.equal(classifyUpload(bad), undefined, JSON.stringify(bad));
    }
  });

  it('stores a plain or gzip upload and answers "received <id>" as text', async () => {
    const res = await proxy(JSON.stringify(page), { 'x-request-id': 'req-1' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, 'received req-1');
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const gz = await proxy(gzipSync(JSON.stringify(page)), { 'x-request-id': 'req-2', 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' });
    assert.equal(gz.statusCode, 200);
    assert.equal(gz.body, 'received req-2');
    const stored = await t.store.dataUploads.recent('auctions_page', 10);
    assert.deepEqual(stored.map((u) => u.requestId).sort(), ['req-1', 'req-2']);
    assert.deepEqual(JSON.parse(stored[0]!.body), page);
    const noId = await proxy(JSON.stringify({ success: true, products: {} }), { 'content-type': 'text/plain' });
    assert.equal(noId.statusCode, 200);
    assert.match(noId.body, /^received [0-9a-f-]{36}$/);
  });

  it('refuses bad uploads with 4xx problems', async () => {
    const cases: Array<[number, string, Promise<{ statusCode: number; json(): { slug: string } }>]> = [
      [400, 'malformed_json', proxy('{not json')],
      [400, 'empty_body', proxy('')],
      [422, 'unknown_upload_kind', proxy('{"hello":"world"}')],
      [400, 'bad_gzip', proxy('not gzip', { 'content-encoding': 'gzip' })],
      [415, 'unsupported_encoding', proxy('{}', { 'content-encoding': 'br' })],
      [400, 'invalid_request_id', proxy(JSON.stringify(page), { 'x-request-id': 'has spaces' })],
      [413, 'body_too_large', proxy(Buffer.alloc(PROXY_MAX_BYTES + 1, 32))],
      [413, 'body_too_large', proxy(gzipSync(Buffer.alloc(PROXY_MAX_INFLATED_BYTES + 1, 32)), { 'content-encoding': 'gzip' })],
    ];
    for (const [status, slug, pending] of cases) {
      const res = await pending;
      assert.equal(res.statusCode, status, slug);
      assert.equal(res.json().slug, slug);
    }
  });

  it('playerName: known names answer (1, active auctions), unknown (0, 0); bad input is 400', async () => {
    const known = await t.app.inject({ method: 'POST', url: '/api/data/playerName?name=alice_1&source=mod' });
    assert.equal(known.statusCode, 200);
    assert.deepEqual(known.json(), { item1: 1, item2: 0 });
    const unknown = await t.app.inject({ method: 'POST', url: '/api/data/playerName?name=Nobody' });
    assert.deepEqual(unknown.json(), { item1: 0, item2: 0 });
    for (const url of ['/api/data/playerName', '/api/data/playerName?name=bad-name!', `/api/data/playerName?name=${'a'.repeat(17)}`, '/api/data/playerName?name=ok&source=has%20space']) {
      const res = await t.app.inject({ method: 'POST', url });
      assert.equal(res.statusCode, 400, url);
      assert.equal(res.json().slug, 'invalid_parameters');
    }
  });

  it('playerNames: distinct names, bounded list', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/data/playerNames?source=anonym', payload: ['Alice_1', 'nobody', 'ALICE_1'] });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), [{ item1: 1, item2: 0 }, { item1: 0, item2: 0 }]);
    const many = Array.from({ length: 30 }, (_, i) => `name${i}`);
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/data/playerNames', payload: many })).json().length, 24);
    const tooMany = Array.from({ length: 101 }, (_, i) => `n${i}`);
    for (const payload of [tooMany, ['bad name'], { not: 'an array' }, [{}]]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/data/playerNames', payload: payload as object });
      assert.equal(r.statusCode, 400, JSON.stringify(payload).slice(0, 40));
    }
  });
});
