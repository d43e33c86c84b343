/**
 * The /value and /player pages (issue 43) on a valued simulator market, on SQLite and
 * PostgreSQL: pasted NBT (base64 and JSON, one item and an inventory) and a linked listing show
 * the same value, estimates and breakdown as the JSON API; a player by name or uuid shows
 * profiles (selected first), containers and top items; a profile being fetched is a 202 page
 * that reloads itself; bad and unknown input is a 4xx page, never a 5xx. Also the API's
 * networth route by name.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import nbt from 'prismarine-nbt';
import type { UpstreamAuction } from '../../../src/ingest/upstream.ts';
import { coins } from '../../../src/web/render.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import type { SimMarket } from '../../helpers/sim-market.ts';
import { fillValuedMarket, inventoryBytes, itemCompound, storeProfiledPlayer } from '../../helpers/valued-market.ts';

const PLAYER = '0123456789abcdef0123456789abcdef';
const NAME = 'Mango_Grower';
const OTHER = 'fedcba9876543210fedcba9876543210';

interface ItemValue {
  tag: string;
  value: number | null;
  confidence: number;
  known: boolean;
  comparables: { median: number | null; count: number; cheapestBin: { uuid: string; price: number } | null };
  parts: { value: number | null; breakdown: unknown[] };
}

/** The text of an element's HTML with the tags dropped and entities decoded (enough for assertions). */
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/\s+/g, ' ');
/** The HTML of the element with this id (up to its closing tag of the same name). */
function section(html: string, id: string, tag = 'article'): string {
  const start = html.indexOf(`id="${id}"`);
  assert.ok(start >= 0, `#${id} in the page`);
  const end = html.indexOf(`</${tag}>`, start);
  return html.slice(start, end);
}
const rows = (html: string, table: string) => {
  const t = html.indexOf(`class="data ${table}"`);
  assert.ok(t >= 0, `table ${table}`);
  const body = html.slice(html.indexOf('<tbody>', t), html.indexOf('</tbody>', t));
  return body.split('<tr>').length - 1;
};

describeEachBackend('/value and /player pages', (fixture) => {
  let t: TestApp;
  let sim: SimMarket;
  let page: UpstreamAuction[];

  before(async () => {
    t = await createTestApp({ store: fixture().store, dataSource: 'simulator', env: { FLIPS_POLL_MS: '0' } });
    ({ sim, page } = await fillValuedMarket(t));
    await t.app.market.catalog.refresh();
    await storeProfiledPlayer(t, page, { player: PLAYER, name: NAME, coop: OTHER });
    await t.app.ready();
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
  const paste = (item: string) => t.app.inject({ method: 'POST', url: '/value', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ item }).toString() });
  const apiValue = async (items: unknown[]) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/item/value', payload: { items } as never });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    return (res.json() as { items: ItemValue[] }).items;
  };
  /** What a valued item's section must show: the API's value, confidence, both estimates and one row per part. */
  function assertValued(html: string, index: number, v: ItemValue) {
    const s = section(html, `item-${index}`);
    const words = text(s);
    assert.ok(words.includes(coins(v.value)), `value ${coins(v.value)} shown: ${words.slice(0, 400)}`);
    assert.ok(words.includes(`${Math.round(v.confidence * 100)} %`), 'confidence shown');
    assert.match(s, /Comparable sales/);
    assert.ok(words.includes(`${v.comparables.count} in`), 'comparable count shown');
    assert.ok(words.includes(coins(v.comparables.median)), 'median shown');
    assert.ok(words.includes(`Parts: ${coins(v.parts.value)}`), 'parts value shown');
    if (v.comparables.cheapestBin) assert.ok(s.includes(`href="/value?auction=${v.comparables.cheapestBin.uuid}"`), 'cheapest matching BIN linked');
    if (v.parts.breakdown.length > 0) assert.equal(rows(s, 'breakdown'), v.parts.breakdown.length);
  }

  it('GET /value: the paste form and the listing form, in the nav', async () => {
    const res = await get('/value');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /<form class="panel paste" method="post" action="\/value"/);
    assert.match(res.body, /<textarea id="item" name="item"/);
    assert.match(res.body, /<input id="auction" name="auction"/);
    assert.match(res.body, /<a href="\/value" aria-current="page">Value<\/a>/);
    assert.match(res.body, /<a href="\/player">Networth<\/a>/);
    assert.match(res.body, /href="\/data"/);
  });

  it('POST /value with item_bytes: value, confidence, both estimates and the breakdown, as the API answers', async () => {
    // the BIN with the most NBT: the most upgrades, so the longest breakdown
    const a = page.filter((x) => x.bin).sort((x, y) => y.item_bytes.length - x.item_bytes.length)[0]!;
    const [v] = await apiValue([a.item_bytes]);
    // pasted as a browser sends it: wrapped lines
    const res = await paste(a.item_bytes.replace(/(.{76})/g, '$1\n'));
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    assert.equal(res.headers['cache-control'], 'no-store');
    assertValued(res.body, 0, v!);
    assert.ok(v!.parts.breakdown.length > 0, 'a simulator item has a base part at least');
    assert.match(res.body, new RegExp(`href="/item/${v!.tag}"`));
  });

  it('POST /value with NBT JSON (an item, a list) and an inventory with an unknown item', async () => {
    const a = page.filter((x) => x.bin)[1]!;
    const compound = await itemCompound(a.item_bytes);
    const json = nbt.simplify({ type: 'compound', value: compound } as never);
    const [v] = await apiValue([json]);
    const one = await paste(JSON.stringify(json));
    assert.equal(one.statusCode, 200, one.body.slice(0, 500));
    assertValued(one.body, 0, v!);

    const unknown = nbt.comp({ id: nbt.byte(1), Count: nbt.byte(1), tag: nbt.comp({ ExtraAttributes: nbt.comp({ id: nbt.string('NO_SUCH_ITEM_EVER') }) }) } as never);
    const data = inventoryBytes([compound, undefined, unknown.value]);
    const inv = await paste(data);
    assert.equal(inv.statusCode, 200, inv.body.slice(0, 500));
    assert.match(inv.body, /id="summary"/);
    assert.match(text(section(inv.body, 'summary', 'section')), /2 items: .* 1 empty slot · 1 unknown item \(valued 0\)/);
    assert.match(text(section(inv.body, 'item-2')), /Unknown item: skymarket knows no item NO_SUCH_ITEM_EVER/);
    assertValued(inv.body, 0, v!);
    // a list of JSON items is the same as pasting them one by one
    const list = await paste(JSON.stringify([json, json]));
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /id="item-1"/);
  });

  it('GET /value?auction=: the listing against its value, as GET /api/auction/{uuid}/value; linked from pasted uuids', async () => {
    await t.app.market.activeAuctions.ready();
    const listing = [...t.app.market.activeAuctions.listings()].find((l) => l.bin)!;
    const api = (await t.app.inject({ url: `/api/auction/${listing.uuid}/value` })).json() as { price: number; value: number | null; vsValueAfterFees: number | null; item: ItemValue };
    const res = await get(`/value?auction=${listing.uuid}`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    const l = text(section(res.body, 'listing', 'section'));
    assert.ok(l.includes(`Price ${coins(api.price)}`), l);
    if (api.vsValueAfterFees !== null) assert.ok(l.includes(`${Math.abs(api.vsValueAfterFees * 100).toFixed(1)} % ${api.vsValueAfterFees <= 0 ? 'below' : 'above'}`), l);
    assertValued(res.body, 0, api.item);
    assert.match(res.body, new RegExp(`<meta property="og:url" content="http://[^"]+/value\\?auction=${listing.uuid}">`));
    // kept like the other pages: the same URL again is the kept page
    const again = await get(`/value?auction=${listing.uuid}`);
    assert.equal(again.headers['x-page-cache'], 'hit');
    assert.equal(again.body, res.body);
    // with dashes, upper case: the same listing
    const dashed = listing.uuid.toUpperCase().replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
    assert.equal((await get(`/value?auction=${dashed}`)).statusCode, 200);
    // a uuid pasted into the item box leads to the listing's page
    const pasted = await paste(` ${listing.uuid} `);
    assert.equal(pasted.statusCode, 303);
    assert.equal(pasted.headers.location, `/value?auction=${listing.uuid}`);
  });

  it('bad input is a readable 4xx page, never a 5xx', async () => {
    const cases: Array<[Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>, number, RegExp]> = [
      [get('/value?auction=not-a-uuid'), 400, /Not an auction uuid/],
      [get(`/value?auction=${'0'.repeat(32)}`), 404, /No such listing/],
      [get(`/value?auction=${'x'.repeat(65)}`), 400, /Not an auction uuid/],
      [paste(''), 400, /paste an item/],
      [paste('%%% not base64 %%%'), 400, /neither NBT JSON nor base64/],
      [paste('{"id": '), 400, /not valid JSON/],
      [paste('H4sIAAAAAAAA/this is not nbt'), 400, /Cannot read the item/],
      [paste(JSON.stringify({ tag: {} })), 400, /No item found/],
      [t.app.inject({ method: 'POST', url: '/value', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'other=1' }), 400, /Nothing to value/],
      [get('/player/not%20a%20name!'), 400, /Not a player/],
      [get('/player/NobodyEverSeen'), 404, /skymarket has not seen a player named “NobodyEverSeen”/],
      [get(`/player/${'a'.repeat(65)}`), 400, /Not a player/],
    ];
    for (const [pending, status, body] of cases) {
      const res = await pending;
      assert.equal(res.statusCode, status, res.body.slice(0, 300));
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.match(res.body, body);
    }
  });

  it('/player/{name}: profiles, selected first, with categories, containers and top items; the same by uuid', async () => {
    const api = (await t.app.inject({ url: `/api/player/${PLAYER}/networth` })).json() as {
      profiles: Array<{ cuteName: string; fullValue: number; member: { containers: Array<{ name: string; value: number }>; topItems: Array<{ tag: string; value: number }> } }>;
    };
    const mango = api.profiles.find((p) => p.cuteName === 'Mango')!;
    assert.ok(mango.member.topItems.length > 0 && mango.member.topItems.length <= 10);
    for (let i = 1; i < mango.member.topItems.length; i++) assert.ok(mango.member.topItems[i - 1]!.value >= mango.member.topItems[i]!.value, 'most valuable first');

    const res = await get(`/player/${NAME.toLowerCase()}`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 500));
    assert.match(res.body, new RegExp(`<h1>${NAME}: networth</h1>`));
    const first = section(res.body, 'profile-0', 'section');
    assert.match(first, /Mango \(selected\)/, 'the selected profile first');
    assert.ok(text(first).includes(coins(mango.fullValue)));
    assert.match(text(section(res.body, 'profile-1', 'section')), /Kiwi/);
    assert.equal(rows(first, 'top-items'), mango.member.topItems.length);
    assert.equal(rows(first, 'containers'), mango.member.containers.length + 2, 'every container, the pets and the purse');
    assert.match(text(first), /wardrobe \(unreadable: counts 0\)/);
    assert.match(text(first), /ender chest/);
    const top = mango.member.topItems[0]!;
    assert.ok(first.includes(`href="/item/${top.tag}"`));
    assert.match(res.body, new RegExp(`href="/api/player/${PLAYER}/networth"`));

    assert.equal((await get(`/player/${NAME.toLowerCase()}`)).headers['x-page-cache'], 'hit');
    const byUuid = await get(`/player/${PLAYER.replace(/^(.{8})(.{4})/, '$1-$2-')}`);
    assert.equal(byUuid.statusCode, 200);
    assert.match(byUuid.body, new RegExp(`<h1>${NAME}: networth</h1>`));
  });

  it('/player/{uuid} not fetched yet: a 202 page that reloads itself, the fetch queued', async () => {
    const res = await get(`/player/${OTHER}`);
    assert.equal(res.statusCode, 202, res.body.slice(0, 300));
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(res.body, /<meta http-equiv="refresh" content="5">/);
    assert.match(res.body, /Fetching the profile/);
    assert.ok((await t.store.profileRequests.queued(10)).includes(OTHER));
    // /player?name= leads to the player's page
    const form = await get(`/player?name=${NAME}`);
    assert.equal(form.statusCode, 303);
    assert.equal(form.headers.location, `/player/${NAME}`);
    assert.equal((await get('/player')).statusCode, 200);
  });

  it('GET /api/player/{name}/networth: a known name answers as its uuid; an unknown name is 404, a malformed one 400', async () => {
    const byName = await t.app.inject({ url: `/api/player/${NAME}/networth` });
    assert.equal(byName.statusCode, 200, byName.body.slice(0, 300));
    const byUuid = await t.app.inject({ url: `/api/player/${PLAYER}/networth` });
    assert.deepEqual(byName.json(), byUuid.json());
    assert.equal(byName.json().player, PLAYER);
    const unknown = await t.app.inject({ url: '/api/player/NobodyEverSeen/networth' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().slug, 'player_not_found');
    const bad = await t.app.inject({ url: '/api/player/no%20such!/networth' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().slug, 'invalid_uuid');
  });
});
