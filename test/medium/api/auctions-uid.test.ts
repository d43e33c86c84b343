/** GET /api/auctions/uid/{uid}/sold pages, on both backends: page 0 keeps the established shape, pages walk a stable order. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { UID_SOLD_MAX_PAGE_SIZE, UID_SOLD_PAGE_SIZE } from '../../../src/api/auctions.ts';
import type { AuctionsTable } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { hex32, sale, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';

const ITEM_UUID = '0123456789abcdef0123' + 'a1b2c3d4e5f6';
const UID = ITEM_UUID.slice(-12);

interface ItemSell {
  seller: string | null;
  uuid: string | null;
  buyer: string | null;
  itemTag: string | null;
  highestBid: number;
  timestamp: string;
}

describeEachBackend('uid sold pages', (fixture) => {
  let t: TestApp;
  let sales: AuctionsTable[];

  before(async () => {
    t = await createTestApp({ store: fixture().store });
    const now = t.clock.now();
    // 250 sales of one item; every 10 share one sale time (ties inside and across pages); other items' sales.
    sales = Array.from({ length: 250 }, (_, i) =>
      sale(now, (1 + Math.floor(i / 10)) * 3_600_000, { tag: 'DUPED_SWORD', item_uid: UID, sold_price: 1_000 + i, seller: hex32(), buyer: hex32() }),
    );
    const others = Array.from({ length: 30 }, (_, i) => sale(now, i * 60_000, { tag: 'DUPED_SWORD', sold_price: 5 }));
    await storeSales(t.store, now, [...sales, ...others]);
    // a listing of the same item that did not sell is no sale
    await storeSales(t.store, now, [sale(now, 1000, { item_uid: UID, state: 'expired', sold_at: null, sold_price: null })]);
  });
  after(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url });
  const expected = () => [...sales].sort((a, b) => Number(b.sold_at) - Number(a.sold_at) || (a.uuid < b.uuid ? -1 : 1));

  it('page 0 by default: the newest sales in the established ItemSell shape, and a Link to the next page', async () => {
    const res = await get(`/api/auctions/uid/${UID}/sold`);
    assert.equal(res.statusCode, 200);
    const body = res.json() as ItemSell[];
    assert.equal(body.length, UID_SOLD_PAGE_SIZE);
    const first = expected()[0]!;
    assert.deepEqual(body[0], {
      seller: first.seller,
      uuid: first.uuid,
      buyer: first.buyer,
      itemTag: 'DUPED_SWORD',
      highestBid: Number(first.sold_price),
      timestamp: new Date(Number(first.sold_at)).toISOString(),
    });
    assert.deepEqual(Object.keys(body[0]!), ['seller', 'uuid', 'buyer', 'itemTag', 'highestBid', 'timestamp']);
    assert.deepEqual(body.map((s) => s.uuid), expected().slice(0, UID_SOLD_PAGE_SIZE).map((s) => s.uuid));
    assert.equal(res.headers['link'], `</api/auctions/uid/${UID}/sold?page=1&pageSize=${UID_SOLD_PAGE_SIZE}>; rel="next"`);
    // the full item uuid asks for the same item
    assert.deepEqual((await get(`/api/auctions/uid/${ITEM_UUID}/sold`)).json(), body);
  });

  it('pages walk every sale once, newest first then by uuid, whatever the page size', async () => {
    for (const pageSize of [1, 7, 10, 100, 249, 250, UID_SOLD_MAX_PAGE_SIZE]) {
      const seen: string[] = [];
      for (let page = 0; ; page++) {
        const res = await get(`/api/auctions/uid/${UID}/sold?page=${page}&pageSize=${pageSize}`);
        assert.equal(res.statusCode, 200);
        const body = res.json() as ItemSell[];
        seen.push(...body.map((s) => s.uuid!));
        if (!res.headers['link']) break;
        assert.equal(body.length, pageSize);
        assert.ok(page < 300, 'pages end');
      }
      assert.deepEqual(seen, expected().map((s) => s.uuid), `pageSize ${pageSize}`);
    }
    const beyond = await get(`/api/auctions/uid/${UID}/sold?page=3&pageSize=100`);
    assert.deepEqual(beyond.json(), []);
    assert.equal(beyond.headers['link'], undefined);
  });

  it('bounds: page size at most the maximum, pages not negative, malformed uids 400', async () => {
    assert.equal((await get(`/api/auctions/uid/${UID}/sold?pageSize=${UID_SOLD_MAX_PAGE_SIZE + 1}`)).statusCode, 400);
    assert.equal((await get(`/api/auctions/uid/${UID}/sold?pageSize=0`)).statusCode, 400);
    assert.equal((await get(`/api/auctions/uid/${UID}/sold?page=-1`)).statusCode, 400);
    assert.equal((await get('/api/auctions/uid/abc/sold')).json().slug, 'invalid_uuid');
    assert.deepEqual((await get('/api/auctions/uid/ffffffffffff/sold')).json(), []);
  });
});
