import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { PROXY_MAX_BYTES, PROXY_MAX_INFLATED_BYTES, UPLOAD_PIECE_BYTES } from '../../../src/api/data.ts';
import { classifyUpload, PROXY_KIND_MAX_BYTES, UploadScanner } from '../../../src/domain/uploads.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

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

/**
 * How `work` read its upload, counted rather than timed: the pieces the upload scanner was given,
 * and the most of them it was given within one turn of the event loop (a turn is counted by a
 * chain of setImmediate callbacks, which run once per turn).
 */
async function scanned<T>(work: () => Promise<T>): Promise<{ result: T; pieces: number; mostInOneTurn: number }> {
  let turn = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turn++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const perTurn = new Map<number, number>();
  const write = UploadScanner.prototype.write;
  UploadScanner.prototype.write = function (this: UploadScanner, piece: Uint8Array) {
    perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
    write.call(this, piece);
  };
  try {
    const result = await work();
    const counts = [...perTurn.values()];
    return { result, pieces: counts.reduce((a, b) => a + b, 0), mostInOneTurn: Math.max(0, ...counts) };
  } finally {
    UploadScanner.prototype.write = write;
    running = false;
  }
}

/** An auctions page of `n` auctions whose item bytes do not compress (as real ones barely do). */
function auctionsPage(n: number, itemBytes: number): string {
  const auctions = Array.from({ length: n }, (_, i) => ({ uuid: i.toString(16).padStart(32, '0'), auctioneer: ALICE, item_bytes: randomBytes(itemBytes).toString('base64') }));
  return JSON.stringify({ success: true, page: 0, totalPages: 1, totalAuctions: n, lastUpdated: 1, auctions });
}

describe('data proxy under hostile uploads (issue 21)', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ env: { PROXY_QUOTA_CLIENT_MB: '2', PROXY_QUOTA_TOTAL_MB: '3' } });
  });
  after(() => t.close());

  const upload = (payload: Buffer | string, from: string, gzip = true) =>
    t.app.inject({
      method: 'POST',
      url: '/api/data/proxy',
      remoteAddress: from,
      payload: gzip ? gzipSync(payload) : payload,
      headers: { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}), 'x-request-id': `r-${from}-${randomBytes(4).toString('hex')}` },
    });

  it('stores the compressed bytes, not the inflated ones', async () => {
    const text = JSON.stringify({ success: true, products: { A: { product_id: 'A', filler: 'x'.repeat(500_000) } } });
    const gz = gzipSync(text);
    const res = await t.app.inject({ method: 'POST', url: '/api/data/proxy', payload: gz, headers: { 'content-encoding': 'gzip', 'x-request-id': 'zipped' } });
    assert.equal(res.statusCode, 200, res.body);
    const plain = await t.app.inject({ method: 'POST', url: '/api/data/proxy', payload: text, headers: { 'content-type': 'application/json', 'x-request-id': 'plain' } });
    assert.equal(plain.statusCode, 200, plain.body);
    const [first, second] = await t.store.dataUploads.recent('bazaar', 2);
    for (const row of [first!, second!]) {
      assert.equal(row.bytes, text.length);
      assert.ok(row.storedBytes < 5_000, `${row.requestId} stored ${row.storedBytes} bytes for ${text.length}`);
      assert.equal(row.body, text);
    }
    assert.equal([first!, second!].find((r) => r.requestId === 'zipped')!.storedBytes, gz.length);
  });

  it('refuses a 16 KB gzip of [[],[],…] early, without holding the event loop', async () => {
    const bomb = gzipSync('[' + '[],'.repeat(5_300_000) + '[]]', { level: 9 });
    assert.ok(bomb.length < 40_000, `${bomb.length}`);
    const { result, pieces, mostInOneTurn } = await scanned(() => t.app.inject({ method: 'POST', url: '/api/data/proxy', payload: bomb, headers: { 'content-encoding': 'gzip' } }));
    assert.equal(result.statusCode, 422);
    assert.equal(result.json().slug, 'unknown_upload_kind');
    // Before: gunzipSync + JSON.parse of the 16 MB held the loop 150-800 ms per upload. Now it is
    // read a piece (UPLOAD_PIECE_BYTES) at a time and refused at the first piece that is no kind.
    assert.ok(pieces >= 1 && pieces <= 2, `${pieces} pieces scanned`);
    // The same inside a plausible page: the page's cap, not 16 MB, ends it.
    const nested = gzipSync('{"success":true,"page":0,"totalPages":1,"auctions":[{"uuid":"a","item_bytes":"b","x":[' + '[],'.repeat(5_500_000) + '[]]}]}', { level: 9 });
    const timed = await scanned(() => t.app.inject({ method: 'POST', url: '/api/data/proxy', payload: nested, headers: { 'content-encoding': 'gzip' } }));
    assert.equal(timed.result.statusCode, 413);
    assert.match(timed.result.json().detail, new RegExp(`more than ${PROXY_KIND_MAX_BYTES.auctions_page} bytes`));
    // Bounded work: no more pieces than the page's cap holds; the event loop runs between pieces
    // (gzip inflates on libuv's thread pool), so a turn sees one piece, two when the stream had
    // one buffered.
    assert.ok(timed.pieces >= 1 && timed.pieces <= Math.ceil(PROXY_KIND_MAX_BYTES.auctions_page / UPLOAD_PIECE_BYTES) + 1, `${timed.pieces} pieces scanned`);
    assert.ok(timed.mostInOneTurn <= 2, `${timed.mostInOneTurn} pieces scanned in one turn of the event loop`);
    console.log(`# bomb: ${pieces} piece(s); nested: ${timed.pieces} pieces, at most ${timed.mostInOneTurn} in one turn`);
  });

  it('caps each kind at its own inflated size', async () => {
    const player = JSON.stringify({ success: true, auctions: [{ uuid: 'a', auctioneer: ALICE, item_bytes: 'x'.repeat(PROXY_KIND_MAX_BYTES.player_auctions) }] });
    const res = await t.app.inject({ method: 'POST', url: '/api/data/proxy', payload: gzipSync(player), headers: { 'content-encoding': 'gzip' } });
    assert.equal(res.statusCode, 413);
    assert.match(res.json().detail, /player_auctions/);
  });

  it('holds each client to its daily quota and all clients to the total, then the next day admits again', async () => {
    const page = auctionsPage(1000, 900); // ~0.9 MB of gzip
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await upload(page, '10.1.0.1'));
    assert.deepEqual(answers.map((r) => r.statusCode), [200, 200, 429]);
    const refused = answers[2]!;
    assert.equal(refused.json().slug, 'quota_exceeded');
    assert.equal(refused.headers['content-type'], 'application/problem+json');
    assert.ok(Number(refused.headers['retry-after']) > 0);
    // A second client has its own quota, until all uploads together reach the total (3 MB).
    const other = [];
    for (let i = 0; i < 3; i++) other.push((await upload(page, '10.2.0.2')).statusCode);
    assert.deepEqual(other, [200, 429, 429]);
    assert.match((await upload(page, '10.3.0.3')).json().detail, /all clients/);
    // Refused uploads were not charged: after the window, the same client stores again.
    t.clock.advance(86_400_000);
    assert.equal((await upload(page, '10.1.0.1')).statusCode, 200);
  });
});
