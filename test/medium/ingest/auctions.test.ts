/** Auctions ingestion end to end: real 2022 pages served over HTTP into SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Registry } from 'prom-client';
import { ManualClock } from '../../../src/clock.ts';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import type { IngestContext } from '../../../src/ingest/context.ts';
import { EndedIngester } from '../../../src/ingest/ended.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { FakeUpstream } from '../../helpers/fake-upstream.ts';
import { realGeneration, type RealAuctionPage } from '../../helpers/fixtures.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

/** The result of a poll that must have applied new data. */
function applied<T>(result: T | 'unchanged'): T {
  assert.notEqual(result, 'unchanged', 'expected new data to be applied');
  return result as T;
}

function pagePath(n: number): string {
  return `/v2/skyblock/auctions?page=${n}`;
}

async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return Number(value?.value ?? 0);
}

describeEachBackend('auctions ingestion', (fixture) => {
  const upstream = new FakeUpstream();
  let registry: Registry;
  let ctx: IngestContext;
  let pages: RealAuctionPage[];
  const clock = new ManualClock(NOW);

  before(async () => {
    await upstream.start();
    registry = new Registry();
    ctx = testIngestContext({ store: fixture().store, clock, baseUrl: upstream.url, retries: 3, timeoutMs: 2000, registry });
    pages = realGeneration(NOW);
  });
  after(async () => {
    await ctx.client.close();
    await upstream.stop();
  });

  it('ingests a real two-page generation: every auction decoded and stored, atomically', async () => {
    upstream.on(pagePath(0), { body: pages[0] }).on(pagePath(1), { body: pages[1], gzip: true });
    const ingester = new AuctionIngester(ctx);
    const result = applied(await ingester.pollOnce());
    assert.equal(result.auctions, 2000);
    assert.equal(result.inserted, 2000);
    assert.deepEqual(result.skipped, {});
    const { store } = fixture();
    assert.deepEqual(await store.auctions.countByState(), { active: 2000 });
    const feed = await store.feeds.get('auctions');
    assert.equal(feed?.lastUpdated, pages[0]!.lastUpdated);
    assert.equal(feed?.records, 2000);

    // Stored rows agree with their upstream records (in the real data, auctions with bids never carry item_uuid).
    const all = pages.flatMap((p) => p.auctions);
    const withUuid = all.find((a) => typeof a.item_uuid === 'string')!;
    const withBids = all.find((a) => Array.isArray(a.bids) && (a.bids as unknown[]).length > 1)!;
    for (const sample of [withUuid, withBids]) {
      const row = await store.auctions.get(sample.uuid);
      assert.ok(row, `auction ${sample.uuid} stored`);
      assert.equal(row.seller, sample.auctioneer);
      assert.equal(row.item_name, sample.item_name);
      assert.equal(row.starting_bid, sample.starting_bid);
      assert.equal(row.highest_bid, sample.highest_bid_amount);
      assert.equal(row.start_at, sample.start);
      assert.equal(row.end_at, sample.end);
      assert.equal(Boolean(row.bin), sample.bin);
      assert.equal(row.tier, sample.tier);
      assert.equal(row.category, sample.category);
      assert.deepEqual(Buffer.from(row.item_bytes), Buffer.from(String(sample.item_bytes), 'base64'));
      assert.equal(row.state, 'active');
    }
    const uuidRow = (await store.auctions.get(withUuid.uuid))!;
    assert.equal(uuidRow.item_uid, String(withUuid.item_uuid).slice(-12));
    const bids = await store.auctions.bidsOf(withBids.uuid);
    assert.deepEqual(
      bids.map((b) => [b.bidder, b.amount]),
      (withBids.bids as Array<{ bidder: string; amount: number }>).map((b) => [b.bidder, b.amount]).sort((x, y) => Number(x[1]) - Number(y[1])),
    );
    assert.equal(await metricValue(registry, 'skymarket_ingest_records_total', { feed: 'auctions', outcome: 'stored' }), 2000);

    // The same generation again is recognised and not re-applied.
    assert.equal(await ingester.pollOnce(), 'unchanged');
  });

  it('applies the next generation as a diff: new, changed, sold through bids, and gone', async () => {
    const { store } = fixture();
    const next = structuredClone(pages);
    const lastUpdated = pages[0]!.lastUpdated + 60_000;
    for (const p of next) p.lastUpdated = lastUpdated;
    const auctions = next[1]!.auctions;
    // A bid auction with bids that has ended disappears: it sold to its top bidder.
    const bidAuction = auctions.find((a) => a.bin === false && (a.highest_bid_amount as number) > 0)!;
    bidAuction.end = lastUpdated - 1000;
    // Make the ingester believe it knew the earlier end time: re-list it once with the earlier end.
    const relisted = structuredClone(next);
    relisted[1]!.auctions = relisted[1]!.auctions.map((a) => (a.uuid === bidAuction.uuid ? { ...a, end: lastUpdated - 1000, last_updated: a.last_updated + 1 } : a));
    for (const p of relisted) p.lastUpdated = lastUpdated;
    upstream.on(pagePath(0), { body: relisted[0] }).on(pagePath(1), { body: relisted[1] });
    const ingester = new AuctionIngester(ctx);
    const changed = applied(await ingester.pollOnce());
    assert.equal(changed.updated, 1);
    assert.equal(changed.inserted, 0);

    // Generation 3: the ended bid auction and a BIN are gone, one auction gets a new bid, one is new.
    const third = structuredClone(relisted);
    for (const p of third) p.lastUpdated = lastUpdated + 60_000;
    const page = third[1]!.auctions;
    const goneBin = page.find((a) => a.bin === true)!;
    third[1]!.auctions = page.filter((a) => a.uuid !== bidAuction.uuid && a.uuid !== goneBin.uuid);
    const rebid = third[1]!.auctions.find((a) => a.bin === false && a.uuid !== bidAuction.uuid)!;
    const newAmount = Math.max(Number(rebid.highest_bid_amount), Number(rebid.starting_bid)) + 1000;
    rebid.highest_bid_amount = newAmount;
    rebid.last_updated = lastUpdated + 30_000;
    rebid.bids = [...((rebid.bids as unknown[]) ?? []), { auction_id: rebid.uuid, bidder: 'ffffffffffffffffffffffffffffffff', profile_id: null, amount: newAmount, timestamp: lastUpdated + 30_000 }];
    const fresh = { ...structuredClone(goneBin), uuid: '0123456789abcdef0123456789abcdef', last_updated: lastUpdated + 40_000 };
    third[1]!.auctions.push(fresh);
    upstream.on(pagePath(0), { body: third[0] }).on(pagePath(1), { body: third[1] });
    const result = applied(await ingester.pollOnce());
    assert.equal(result.inserted, 1);
    assert.equal(result.updated, 1);
    assert.equal(result.departed, 2);

    const sold = await store.auctions.get(bidAuction.uuid);
    assert.equal(sold?.state, 'sold');
    assert.equal(sold?.sold_price, bidAuction.highest_bid_amount);
    const topBidder = (bidAuction.bids as Array<{ bidder: string; amount: number }>).sort((a, b) => b.amount - a.amount)[0]!.bidder;
    assert.equal(sold?.buyer, topBidder);
    assert.equal((await store.auctions.get(goneBin.uuid))?.state, 'expired');
    const updated = await store.auctions.get(rebid.uuid);
    assert.equal(updated?.highest_bid, newAmount);
    assert.equal((await store.auctions.bidsOf(rebid.uuid)).at(-1)?.bidder, 'ffffffffffffffffffffffffffffffff');
    assert.equal((await store.auctions.get(fresh.uuid))?.state, 'active');
    const counts = await store.auctions.countByState();
    assert.deepEqual(counts, { active: 1999, sold: 1, expired: 1 });

    // auctions_ended reports the BIN purchase: the expired row becomes a sale, once, however often it is reported.
    const sale = {
      auction_id: goneBin.uuid,
      seller: goneBin.auctioneer,
      seller_profile: goneBin.profile_id,
      buyer: 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      timestamp: lastUpdated + 50_000,
      price: goneBin.starting_bid,
      bin: true,
      item_bytes: goneBin.item_bytes,
    };
    const ended = new EndedIngester(ctx, (uuid) => ingester.forget(uuid));
    upstream.on('/v2/skyblock/auctions_ended', { body: { success: true, lastUpdated: lastUpdated + 55_000, auctions: [sale, sale] } });
    assert.equal(applied(await ended.pollOnce()).sales, 1);
    assert.equal(await ended.pollOnce(), 'unchanged');
    upstream.on('/v2/skyblock/auctions_ended', { body: { success: true, lastUpdated: lastUpdated + 115_000, auctions: [sale] } });
    await ended.pollOnce();
    const binSale = await store.auctions.get(goneBin.uuid);
    assert.equal(binSale?.state, 'sold');
    assert.equal(binSale?.buyer, sale.buyer);
    assert.equal(binSale?.sold_price, sale.price);
    assert.equal(binSale?.start_at, goneBin.start, 'the richer listing row is kept');
    assert.deepEqual(await store.auctions.countByState(), { active: 1999, sold: 2 });

    // A sale of an auction no scan listed (listed and bought between two scans): it started after the last scan.
    const unseen = { ...sale, auction_id: 'abcdefabcdefabcdefabcdefabcdef01', timestamp: lastUpdated + 100_000 };
    upstream.on('/v2/skyblock/auctions_ended', { body: { success: true, lastUpdated: lastUpdated + 175_000, auctions: [unseen] } });
    await ended.pollOnce();
    const scanned = (await store.feeds.get('auctions'))!.lastUpdated;
    assert.ok(scanned <= unseen.timestamp);
    assert.equal((await store.auctions.get(unseen.auction_id))?.start_at, scanned, 'start: the last scan before the sale');

    // A stale page that still lists a sold auction never re-activates it.
    const stale = structuredClone(third);
    for (const p of stale) p.lastUpdated = lastUpdated + 120_000;
    stale[1]!.auctions.push({ ...goneBin, last_updated: goneBin.last_updated + 5 });
    upstream.on(pagePath(0), { body: stale[0] }).on(pagePath(1), { body: stale[1] });
    await ingester.pollOnce();
    assert.equal((await store.auctions.get(goneBin.uuid))?.state, 'sold');
  });

  it('waits out stale pages, 404s during a swap and 5xx, and restarts on a newer generation', async () => {
    const base = pages[0]!.lastUpdated + 10 * 60_000;
    const gen = (t: number) => pages.map((p) => ({ ...p, lastUpdated: t }));
    const [a0, a1] = gen(base);
    const [b0, b1] = gen(base + 60_000);
    upstream
      .on(pagePath(0), { body: a0 }, { body: b0 })
      // Page 1: a 404 mid-swap, a 503, a stale page, then the NEWER generation: the crawl restarts on b.
      .on(pagePath(1), { status: 404 }, { status: 503 }, { body: { ...a1, lastUpdated: base - 60_000 } }, { body: b1 });
    const ingester = new AuctionIngester(ctx);
    const result = applied(await ingester.pollOnce());
    assert.equal(result.lastUpdated, base + 60_000, 'the generation applied is the consistent newer one');
    assert.equal((await fixture().store.feeds.get('auctions'))?.lastUpdated, base + 60_000);
  });

  it('keeps what a crawl abandoned for a newer generation decoded: the restart decodes only what changed', async () => {
    const base = pages[0]!.lastUpdated + 15 * 60_000;
    // Every auction changed (a bid): each is decoded, none is unchanged from the store.
    const bumped = pages.map((p) => ({ ...p, auctions: p.auctions.map((a) => ({ ...a, last_updated: a.last_updated + 7 })) }));
    const gen = (t: number) => bumped.map((p) => ({ ...p, lastUpdated: t }));
    const [a0] = gen(base);
    const [b0, b1] = gen(base + 60_000);
    // Page 0 of generation a is decoded, then page 1 is already of b: the crawl restarts on b,
    // whose page 0 holds the same auctions with the same last_updated.
    upstream.on(pagePath(0), { body: a0 }, { body: b0 }).on(pagePath(1), { body: b1 });
    const ingester = new AuctionIngester(ctx);
    const result = applied(await ingester.pollOnce());
    assert.equal(result.lastUpdated, base + 60_000);
    assert.equal(ingester.carriedOver, a0!.auctions.length, "page 0's records were taken from the abandoned crawl, not decoded again");
    assert.equal(result.updated + result.inserted, b0!.auctions.length + b1!.auctions.length, 'every auction stored');
    const sample = b0!.auctions[0]!;
    assert.equal(Number((await fixture().store.auctions.get(sample.uuid))?.last_updated), sample.last_updated);
  });

  it('counts, logs and skips invalid records and corrupt NBT without losing the rest', async () => {
    const t = pages[0]!.lastUpdated + 20 * 60_000;
    const bad = structuredClone(pages);
    for (const p of bad) p.lastUpdated = t;
    const victims = bad[1]!.auctions.slice(0, 3);
    victims[0]!.item_bytes = 'H4sIAAAAAAAAAP//not-really-gzip';
    victims[1]!.item_bytes = Buffer.from('plain text, not gzip').toString('base64');
    (victims[2] as Record<string, unknown>).uuid = 'not-a-uuid';
    for (const v of victims) v.last_updated += 1;
    upstream.on(pagePath(0), { body: bad[0] }).on(pagePath(1), { body: bad[1] });
    const before = await metricValue(registry, 'skymarket_ingest_records_total', { feed: 'auctions', outcome: 'undecodable' });
    const result = applied(await new AuctionIngester(ctx).pollOnce());
    assert.deepEqual(result.skipped, { undecodable: 2, invalid: 1 });
    assert.equal(await metricValue(registry, 'skymarket_ingest_records_total', { feed: 'auctions', outcome: 'undecodable' }), before + 2);
    assert.equal(await metricValue(registry, 'skymarket_ingest_records_total', { feed: 'auctions', outcome: 'invalid' }), 1);
    assert.equal((await fixture().store.feeds.get('auctions'))?.lastUpdated, t, 'the generation still applied');
  });

  it('gives up on a generation whose pages never agree, leaving the store untouched', async () => {
    const t = pages[0]!.lastUpdated + 30 * 60_000;
    const before = await fixture().store.feeds.get('auctions');
    upstream.on(pagePath(0), { body: { ...pages[0], lastUpdated: t } }).on(pagePath(1), { body: { ...pages[1], lastUpdated: t - 60_000 } });
    await assert.rejects(new AuctionIngester(ctx).pollOnce(), /stale page/);
    assert.deepEqual(await fixture().store.feeds.get('auctions'), before);
  });
});
