/**
 * The auction endpoints on realistic data: the real 2022 auction pages (decoded as the
 * ingester does) and a living simulator market ingested over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import type { IngestContext } from '../../../src/ingest/context.ts';
import { EndedIngester } from '../../../src/ingest/ended.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { activeListings, realRows, storeGeneration } from '../../helpers/auctions.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

describe('auction endpoints on the real 2022 pages', () => {
  let t: TestApp;
  let rows: ReturnType<typeof realRows>;
  before(async () => {
    t = await createTestApp();
    rows = realRows(t.clock.now());
    await storeGeneration(t.store, t.clock.now(), rows.listings, rows.bids);
  });
  after(() => t?.close());

  it('lowest BIN of the most listed tag is cheapest first and matches the raw pages', async () => {
    const now = t.clock.now();
    const counts = new Map<string, number>();
    for (const l of rows.listings) if (l.bin) counts.set(l.tag, (counts.get(l.tag) ?? 0) + 1);
    const [tag] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const tagOf = new Map(rows.listings.map((l) => [l.uuid, l.tag]));
    const expected = rows.raw
      .filter((a) => tagOf.get(a.uuid.toLowerCase()) === tag && a.bin === true && !(a.bids ?? []).length && a.end > now)
      .map((a) => a.starting_bid)
      .sort((a, b) => a - b)
      .slice(0, 10);
    const res = await t.app.inject(`/api/auctions/tag/${tag.toLowerCase()}/active/bin`);
    assert.equal(res.statusCode, 200);
    const body = res.json() as Array<{ startingBid: number; tag: string; itemCreatedAt: string | null }>;
    assert.deepEqual(body.map((a) => a.startingBid), expected);
    assert.ok(body.every((a) => a.tag === tag));
  });

  it('auction detail of a real enchanted item, and POST /api/Filter agrees with the view', async () => {
    const enchanted = rows.listings.find((l) => l.enchantments && Object.keys(l.enchantments).length >= 3 && l.tier)!;
    const detail = (await t.app.inject(`/api/auction/${enchanted.uuid}`)).json() as {
      enchantments: Array<{ type: string; level: number; color: string }>;
      tier: string;
      tag: string;
      flatNbt: Record<string, string>;
    };
    assert.deepEqual(
      detail.enchantments.map((e) => [e.type, e.level]).sort(),
      Object.entries(enchanted.enchantments as Record<string, number>).sort(),
    );
    assert.equal(detail.tier, enchanted.tier);
    const [name, level] = Object.entries(enchanted.enchantments as Record<string, number>)[0]!;
    const yes = await t.app.inject({ method: 'POST', url: '/api/Filter', payload: { filters: { [name]: String(level), Rarity: enchanted.tier! }, auction: detail } });
    assert.equal(yes.json(), true);
    const no = await t.app.inject({ method: 'POST', url: '/api/Filter', payload: { filters: { [name]: String(level + 1) }, auction: detail } });
    assert.equal(no.json(), false);
  });

  it('the cross-item filter finds every real auction of a rarity, and only those', async () => {
    const legendary = rows.listings.filter((l) => l.tier === 'LEGENDARY' && l.end_at > t.clock.now()).length;
    const res = await t.app.inject('/api/auctions/active/filter?Rarity=LEGENDARY&pageSize=500');
    const body = res.json() as Array<{ tier: string }>;
    assert.equal(body.length, Math.min(500, legendary));
    assert.ok(body.every((a) => a.tier === 'LEGENDARY'));
  });
});

describe('auction endpoints on the simulator market', () => {
  let t: TestApp;
  let sim: SimulatorHandle;
  let ctx: IngestContext;
  before(async () => {
    t = await createTestApp();
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, auctions: 800, seed: 11, backfillMs: 0, port: 0 }, { clock: t.clock, tickMs: 0 });
    ctx = testIngestContext({ store: t.store, clock: t.clock, baseUrl: sim.url, source: 'simulator' });
    const auctions = new AuctionIngester(ctx);
    const ended = new EndedIngester(ctx, (uuid) => auctions.forget(uuid));
    await auctions.pollOnce();
    for (let minute = 1; minute <= 4; minute++) {
      t.clock.advance(60_000);
      sim.market.advanceTo(t.clock.now());
      await auctions.pollOnce();
      await ended.pollOnce();
    }
  });
  after(async () => {
    await ctx?.client.close();
    await sim?.close();
    await t?.close();
  });

  it('lowest BIN, overviews, sold history, uid history and analysis answer on simulated data', async () => {
    const active = await activeListings(t.store.auctionQueries);
    const bin = active.find((l) => l.bin && l.highestBid === 0 && l.end > t.clock.now())!;
    const lbin = (await t.app.inject(`/api/auctions/tag/${bin.tag}/active/bin`)).json() as Array<{ startingBid: number }>;
    assert.ok(lbin.length >= 1 && lbin.length <= 10);
    assert.ok(lbin[0]!.startingBid <= bin.startingBid);
    const prices = lbin.map((a) => a.startingBid);
    assert.deepEqual(prices, [...prices].sort((a, b) => a - b));
    assert.equal((await t.app.inject(`/api/auctions/tag/${bin.tag}/active/overview`)).statusCode, 200);

    const counts = await t.store.auctions.countByState();
    assert.ok((counts.sold ?? 0) > 0, `the simulated market sold something: ${JSON.stringify(counts)}`);
    const sold = await t.store.auctionQueries.sold({ tag: (await firstSoldTag()) ?? bin.tag, since: 0, limit: 1 });
    const tag = sold[0]!.tag;
    const list = (await t.app.inject(`/api/auctions/tag/${tag}/sold`)).json() as unknown[];
    assert.ok(list.length >= 1);
    const analysis = (await t.app.inject(`/api/item/price/${tag}/analysis`)).json() as { totalSales: number };
    assert.equal(analysis.totalSales, list.length);
    assert.equal((await t.app.inject(`/api/auctions/tag/${tag}/recent/overview`)).statusCode, 200);
    if (sold[0]!.itemUid) {
      const history = (await t.app.inject(`/api/auctions/uid/${sold[0]!.itemUid}/sold`)).json() as Array<{ uuid: string }>;
      assert.ok(history.some((h) => h.uuid === sold[0]!.uuid));
    }
    const random = await t.app.inject('/api/auction/random');
    assert.equal(random.statusCode, 200);
  });

  async function firstSoldTag(): Promise<string | undefined> {
    const row = await t.store.kysely.selectFrom('auctions').select('tag').where('state', '=', 'sold').limit(1).executeTakeFirst();
    return row?.tag;
  }
});
