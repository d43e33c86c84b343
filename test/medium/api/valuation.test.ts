/**
 * The valuation endpoints on simulator data, on SQLite and PostgreSQL: items sent as base64 NBT,
 * as NBT JSON and as a whole inventory; a listing against its value; the established shapes
 * (price/nbt, mod/pricing/breakdown); bad input answered with small 4xx problems; the valuation
 * view dropping a tag's sales when one of its sales is committed.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, it } from 'node:test';
import nbt from 'prismarine-nbt';
import type { UpstreamAuction } from '../../../src/ingest/upstream.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import type { SimMarket } from '../../helpers/sim-market.ts';
import { fillValuedMarket, inventoryBytes, itemCompound } from '../../helpers/valued-market.ts';

interface ItemValue {
  index: number;
  tag: string;
  known: boolean;
  value: number | null;
  confidence: number;
  method: string;
  comparables: { count: number; median: number | null; itemKey: string; medianKey: string; widenedBy: string[]; cheapestBin: { uuid: string; price: number } | null };
  parts: { value: number | null; breakdown: Array<{ kind: string; id: string; unitPrice: number | null; factor: number; value: number }> };
}

describeEachBackend('valuation endpoints', (fixture) => {
  let t: TestApp;
  let sim: SimMarket;
  let page: UpstreamAuction[];

  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    ({ sim, page } = await fillValuedMarket(t));
    await t.app.ready();
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, payload: payload as Record<string, unknown> });

  it('values items sent as item_bytes: both estimates, a value and a breakdown led by the base item', async () => {
    const sample = page.filter((a) => a.bin).slice(0, 40);
    const res = await post('/api/item/value', { items: sample.map((a) => a.item_bytes) });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const body = res.json() as { items: ItemValue[]; total: number; unknown: number[]; emptySlots: number };
    assert.equal(body.items.length, sample.length);
    assert.deepEqual(body.unknown, []);
    let withComparables = 0;
    for (const item of body.items) {
      assert.equal(item.parts.breakdown[0]!.kind, 'base');
      assert.ok(item.comparables.itemKey.startsWith(item.tag));
      if (item.comparables.count > 0) {
        withComparables++;
        assert.ok(item.comparables.median! > 0);
      }
      if (item.value !== null) assert.ok(item.value > 0 && item.confidence >= 0 && item.confidence <= 1);
    }
    assert.ok(withComparables > sample.length / 2, `${withComparables} of ${sample.length} items had comparable sales`);
    assert.ok(body.total > 0);
  });

  it('values an inventory slot by slot: empty slots counted, an unknown id valued 0 and listed', async () => {
    const a = page.find((x) => x.bin)!;
    const item = await itemCompound(a.item_bytes);
    const unknown = nbt.comp({ id: nbt.byte(1), Count: nbt.byte(1), tag: nbt.comp({ ExtraAttributes: nbt.comp({ id: nbt.string('NO_SUCH_ITEM_EVER') }) }) } as never);
    const res = await post('/api/item/value', { data: inventoryBytes([item, undefined, unknown.value, undefined]) });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const body = res.json() as { items: ItemValue[]; unknown: number[]; emptySlots: number };
    assert.deepEqual(body.items.map((i) => i.index), [0, 2]);
    assert.deepEqual(body.unknown, [2]);
    assert.equal(body.items[1]!.value, 0);
    assert.equal(body.emptySlots, 2);
  });

  it('values items sent as NBT JSON the same as their bytes', async () => {
    const a = page.filter((x) => x.bin)[1]!;
    const typed = { type: 'compound', value: await itemCompound(a.item_bytes) };
    const simplified = nbt.simplify(typed as never);
    const res = await post('/api/item/value', { items: [a.item_bytes, simplified, typed] });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const [fromBytes, fromJson, fromTyped] = (res.json() as { items: ItemValue[] }).items;
    for (const other of [fromJson!, fromTyped!]) {
      assert.equal(other.comparables.itemKey, fromBytes!.comparables.itemKey);
      assert.equal(other.value, fromBytes!.value);
    }
  });

  it('prices a stone reforge as its stone (the built-in catalog’s Wither Blood); a basic reforge is no part', async () => {
    const sword = (modifier: string) => ({ id: 'minecraft:diamond_sword', Count: 1, tag: { ExtraAttributes: { id: 'HYPERION', modifier } } });
    const res = await post('/api/item/value', { items: [sword('withered'), sword('sharp')] });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const [withered, sharp] = (res.json() as { items: ItemValue[] }).items;
    const stone = withered!.parts.breakdown.filter((p) => p.kind === 'reforge');
    assert.deepEqual(stone.map((p) => [p.id, p.factor]), [['WITHER_BLOOD', 1]]);
    if (stone[0]!.unitPrice !== null) assert.equal(stone[0]!.value, stone[0]!.unitPrice);
    assert.deepEqual(sharp!.parts.breakdown.filter((p) => p.kind === 'reforge'), []);
  });

  it('GET /api/auction/{uuid}/value: value and the price against it after fees; 404 and 400', async () => {
    await t.app.market.activeAuctions.ready();
    const listing = [...t.app.market.activeAuctions.listings()].find((l) => l.bin)!;
    const res = await t.app.inject({ method: 'GET', url: `/api/auction/${listing.uuid}/value` });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const body = res.json() as { price: number; value: number | null; feeRate: number; vsValueAfterFees: number | null; item: ItemValue };
    assert.equal(body.price, listing.startingBid);
    if (body.value !== null && body.value > 0) {
      const net = body.value * (1 - body.feeRate);
      assert.ok(Math.abs(body.vsValueAfterFees! - (body.price - net) / net) < 1e-3);
    }
    assert.equal((await t.app.inject({ method: 'GET', url: `/api/auction/${'0'.repeat(32)}/value` })).statusCode, 404);
    const bad = await t.app.inject({ method: 'GET', url: '/api/auction/not-a-uuid/value' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().slug, 'invalid_uuid');
  });

  it('POST /api/price/nbt: one PriceEstimate per slot, zeros for an empty one', async () => {
    const items = await Promise.all(page.filter((x) => x.bin).slice(0, 3).map((a) => itemCompound(a.item_bytes)));
    const res = await post('/api/price/nbt', { chestName: 'Chest', fullInventoryNbt: inventoryBytes([items[0], undefined, items[1], items[2]]), position: { x: 0, y: 0, z: 0 }, jsonNbt: null, senderContactId: null, server: null });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const body = res.json() as Array<{ median: number; lbin: number; itemKey: string | null }>;
    assert.equal(body.length, 4);
    assert.equal(body[1]!.itemKey, null);
    assert.equal(body[1]!.median, 0);
    for (const i of [0, 2, 3]) assert.ok(body[i]!.itemKey !== null);
  });

  it('POST /api/mod/pricing/breakdown: one CraftPrice per part, the base first', async () => {
    const res = await post('/api/mod/pricing/breakdown', [
      { tag: 'HYPERION', itemName: 'Hyperion', count: 1, extraAttributes: { id: 'HYPERION', rarity_upgrades: 1, hot_potato_count: 12, upgrade_level: 7 }, enchantments: { sharpness: 6, ultimate_wise: 5 }, description: '§6§lLEGENDARY SWORD' },
      { count: 1 },
    ]);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const [hyperion, nothing] = res.json() as Array<{ craftPrice: Array<{ attribute: string; itemTag: string; count: number }> | null }>;
    assert.equal(nothing!.craftPrice, null);
    const kinds = hyperion!.craftPrice!.map((p) => p.attribute);
    assert.equal(kinds[0], 'base');
    for (const k of ['enchantment', 'recombobulator', 'hot_potato_book', 'fuming_potato_book', 'master_star']) assert.ok(kinds.includes(k), `${k} in ${kinds}`);
    assert.equal(hyperion!.craftPrice!.find((p) => p.attribute === 'fuming_potato_book')!.count, 2);
  });

  it('bad input: small 4xx problems, never a 5xx', async () => {
    const cases: Array<[string, unknown, number, string]> = [
      ['invalid base64', { items: ['!!!not base64!!!'] }, 400, 'bad_item'],
      ['broken gzip', { items: [Buffer.from('not gzip at all, just bytes').toString('base64')] }, 400, 'bad_item'],
      ['gzip bomb', { items: [gzipSync(Buffer.alloc(64 * 1024 * 1024)).toString('base64')] }, 413, 'too_large'],
      ['nested past the depth', { items: [JSON.parse(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`)] }, 400, 'bad_item'],
      ['too many items', { items: Array.from({ length: 1001 }, () => ({})) }, 400, ''],
      ['nothing to value', {}, 400, 'no_items'],
    ];
    for (const [what, payload, status, slug] of cases) {
      const res = await post('/api/item/value', payload);
      assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 200)}`);
      assert.match(res.headers['content-type'] as string, /problem\+json/, what);
      if (slug) assert.equal(res.json().slug, slug, what);
    }
    const deep = await post('/api/price/nbt', { fullInventoryNbt: null, jsonNbt: JSON.parse(`${'['.repeat(300)}${']'.repeat(300)}`) });
    assert.equal(deep.statusCode, 400);
    const noInv = await post('/api/price/nbt', { fullInventoryNbt: null });
    assert.equal(noInv.statusCode, 400);
  });

  it('follows the spine: a committed sale of a tag drops its held sales', async () => {
    const view = t.app.market.valuation;
    const tag = [...t.app.market.activeAuctions.listings()][0]!.tag;
    await view.forTag(tag);
    assert.ok(view.held(tag));
    t.store.changes.publish({ kind: 'auctions_ended', lastUpdated: t.clock.now(), upserted: [], removed: [], sales: [{ uuid: 'f'.repeat(32), price: 1, buyer: 'b', at: t.clock.now(), tag }] });
    assert.equal(view.held(tag), false);
  });

  it('a tag whose sales change gets new comparables indexes: the next valuation reads its new sales', async () => {
    const view = t.app.market.valuation;
    const tag = [...t.app.market.activeAuctions.listings()][0]!.tag;
    const before = await view.forTag(tag);
    assert.ok(before.prepared, 'a held tag carries its indexes');
    assert.equal(before.prepared.sales, before.sales);
    assert.equal((await view.forTag(tag)).prepared, before.prepared, 'held: the same indexes');
    const reads = view.reads;
    t.store.changes.publish({ kind: 'auctions_ended', lastUpdated: t.clock.now(), upserted: [], removed: [], sales: [{ uuid: 'e'.repeat(32), price: 1, buyer: 'b', at: t.clock.now(), tag }] });
    const after = await view.forTag(tag);
    assert.equal(view.reads, reads + 1, 'the sales are read again');
    assert.notEqual(after.prepared, before.prepared, 'with indexes of their own');
    assert.equal(after.prepared!.sales, after.sales);
  });
});
