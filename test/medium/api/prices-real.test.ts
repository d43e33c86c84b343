/**
 * Prices on the real 2022 auction pages (test/fixtures/auctions, Apache-2.0): two thirds of the
 * 2,000 real auctions, decoded exactly as ingestion decodes them, are stored as sales spread over
 * 5 days (at their real BIN or bid prices and stack sizes), the rest stay listed. Every endpoint's
 * answer is checked against the raw rows: history of the most sold tag and of every pet variant,
 * the summary, the lowest BINs, the current price. On SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { bucketOf, DAY_MS, HOUR_MS, priceVariantKey, rangeStart, type PricePoint } from '../../../src/domain/prices.ts';
import type { AuctionRowWrite } from '../../../src/store/schema.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { realRows, storeGeneration, storeSales } from '../../helpers/auctions.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { priceRollupsOf } from '../../helpers/rollups.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

describeEachBackend('prices on the real 2022 auction pages', (fixture) => {
  let t: TestApp;
  let now: number;
  const sold: AuctionRowWrite[] = [];
  const listed: AuctionRowWrite[] = [];

  before(async () => {
    t = await createTestApp({ store: fixture().store, env: { FLIPS_POLL_MS: '0' } });
    now = t.clock.now();
    const { listings } = realRows(now);
    listings.forEach((l, i) => {
      if (i % 3 === 2) {
        listed.push({ ...l, end_at: now + DAY_MS });
        return;
      }
      const price = l.highest_bid > 0 ? l.highest_bid : l.starting_bid;
      // Spread over 5 days, the newest 20 minutes ago (after the last rolled-up hour: read raw).
      const at = now - 20 * 60_000 - Math.floor((i * 7919) % (5 * DAY_MS - 3_600_000));
      sold.push({ ...l, state: 'sold', sold_price: price, highest_bid: price, sold_at: at, end_at: at, buyer: 'c'.repeat(32), last_updated: at });
    });
    await storeSales(t.store, now - 60_000, sold);
    await storeGeneration(t.store, now - 60_000, listed);
    await t.app.market.activeAuctions.ready();
    await priceRollupsOf(t).tick(now);
  });
  after(async () => {
    await t?.close();
  });

  const get = async <T>(url: string) => {
    const res = await t.app.inject(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
    return res.json() as T;
  };
  const unit = (r: AuctionRowWrite) => r.sold_price! / r.count;

  /** Brute-force points of rows in buckets of `size` from `from` on (sales only). */
  function expected(rows: AuctionRowWrite[], from: number, size: number) {
    const by = new Map<number, AuctionRowWrite[]>();
    for (const r of rows) if (r.sold_at! >= from) by.set(bucketOf(r.sold_at!, size), [...(by.get(bucketOf(r.sold_at!, size)) ?? []), r]);
    return new Map(
      [...by].map(([b, list]) => {
        const prices = list.map(unit);
        return [new Date(b).toISOString(), { min: Math.min(...prices), max: Math.max(...prices), avg: prices.reduce((a, x) => a + x, 0) / prices.length, sales: list.length, items: list.reduce((a, r) => a + r.count, 0), prices }];
      }),
    );
  }

  function check(points: PricePoint[], rows: AuctionRowWrite[], from: number, size: number, what: string) {
    const want = expected(rows, from, size);
    const got = points.filter((p) => p.sales > 0);
    assert.equal(got.length, want.size, `${what}: ${got.length} points, expected ${want.size}`);
    for (const p of got) {
      const e = want.get(p.time);
      assert.ok(e, `${what}: unexpected bucket ${p.time}`);
      assert.equal(p.sales, e.sales, `${what} ${p.time} sales`);
      assert.equal(p.items, e.items, `${what} ${p.time} items`);
      assert.equal(p.volume, e.items);
      assert.equal(p.min, e.min, `${what} ${p.time} min`);
      assert.equal(p.max, e.max, `${what} ${p.time} max`);
      assert.ok(Math.abs(p.avg - e.avg) <= 1e-9 * e.avg, `${what} ${p.time} avg`);
      // Real hours hold at most a few sales of one tag: the medians are exact.
      assert.equal(p.median, median(e.prices), `${what} ${p.time} median`);
    }
  }

  test('history of the most sold tag at every range equals its raw sales', async () => {
    const counts = new Map<string, number>();
    for (const r of sold) counts.set(r.tag, (counts.get(r.tag) ?? 0) + 1);
    const [tag, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    assert.ok(n >= 10, `${tag}: ${n} sales`);
    const rows = sold.filter((r) => r.tag === tag);
    check(await get<PricePoint[]>(`/api/item/price/${tag}/history/day`), rows, rangeStart('day', now), HOUR_MS, `${tag} day`);
    check(await get<PricePoint[]>(`/api/item/price/${tag}/history/week`), rows, rangeStart('week', now), 2 * HOUR_MS, `${tag} week`);
    check(await get<PricePoint[]>(`/api/item/price/${tag}/history/month`), rows, rangeStart('month', now), DAY_MS, `${tag} month`);
    check(await get<PricePoint[]>(`/api/item/price/${tag}/history/full`), rows, 0, DAY_MS, `${tag} full`);
  });

  test('every sold tag: full history matches; pets per rarity and level band', async () => {
    const tags = [...new Set(sold.map((r) => r.tag))];
    assert.ok(tags.length > 100, `${tags.length} tags`);
    let variants = 0;
    for (const tag of tags.slice(0, 60)) check(await get<PricePoint[]>(`/api/item/price/${tag}/history/full`), sold.filter((r) => r.tag === tag), 0, DAY_MS, tag);
    const petRows = sold.filter((r) => r.tag.startsWith('PET_'));
    assert.ok(petRows.length > 20, `${petRows.length} pet sales`);
    const byVariant = new Map<string, AuctionRowWrite[]>();
    for (const r of petRows) {
      const k = `${r.tag}|${priceVariantKey({ tag: r.tag, tier: r.tier, flatNbt: r.flat_nbt as Record<string, string> })}`;
      byVariant.set(k, [...(byVariant.get(k) ?? []), r]);
    }
    assert.ok([...byVariant.keys()].some((k) => k.endsWith('+100')), 'a level-100 pet among the real sales');
    for (const [k, rows] of byVariant) {
      const [tag, variant] = k.split('|') as [string, string];
      check(await get<PricePoint[]>(`/api/item/price/${tag}/history/week?variant=${encodeURIComponent(variant)}`), rows, rangeStart('week', now), 2 * HOUR_MS, k);
      variants++;
    }
    assert.ok(variants > 5, `${variants} pet variants`);
  });

  test('summary, bin and current of every listed tag against the raw rows', async () => {
    const tags = [...new Set(listed.filter((l) => l.bin).map((l) => l.tag))].slice(0, 40);
    for (const tag of tags) {
      const bins = listed.filter((l) => l.tag === tag && l.bin && l.highest_bid === 0 && l.end_at > now).sort((a, b) => a.starting_bid - b.starting_bid || a.end_at - b.end_at);
      const bin = await get<{ lowest: number; uuid: string | null; secondLowest: number }>(`/api/item/price/${tag}/bin`);
      assert.equal(bin.lowest, bins[0]?.starting_bid ?? 0, `${tag} lowest`);
      assert.equal(bin.secondLowest, bins[1]?.starting_bid ?? 0, `${tag} second`);
      const window = sold.filter((r) => r.tag === tag && r.sold_at! >= bucketOf(now - 2 * DAY_MS, HOUR_MS));
      const summary = await get<Record<string, number>>(`/api/item/price/${tag}`);
      assert.equal(summary['volume'], window.reduce((a, r) => a + r.count, 0), `${tag} volume`);
      if (window.length > 0) {
        assert.equal(summary['median'], median(window.map(unit)), `${tag} median`);
        assert.equal(summary['min'], Math.min(...window.map(unit)));
      }
      const current = await get<Record<string, number | boolean>>(`/api/item/price/${tag}/current`);
      const cheapestUnit = Math.min(...bins.map((l) => l.starting_bid / l.count));
      assert.equal(current['buy'], bins.length ? cheapestUnit : 0, `${tag} current buy`);
      assert.equal(current['available'], bins.reduce((a, l) => a + l.count, 0));
      assert.equal(current['isAh'], true);
    }
  });
});
