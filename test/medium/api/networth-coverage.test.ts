/**
 * How much of a networth computation of real items (SkyHelper's example profile in
 * test/fixtures/skyhelper: ~1,100 items, pets, sacks and essence) the networth price file answers,
 * on the simulated market of the demo and on the real 2022 auction pages. Two checks that can fail:
 * - every lookup whose item the market prices under skymarket's own keys (the Elite file's ids of
 *   the active BINs, the bazaar file) is answered: the networth keys name the same items the other
 *   files do;
 * - the share answered stays at or above what was measured when this was written.
 * The share and the missing families are printed as diagnostics (docs/mods.md quotes them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eliteIdOf } from '../../../src/domain/bulk-prices.ts';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { FakeUpstream } from '../../helpers/fake-upstream.ts';
import { realGeneration, skyHelperItems } from '../../helpers/fixtures.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { coverageOf, profileLookups, type Coverage, type Lookup } from '../../helpers/networth-lookups.ts';
import { fillFromSimulator, type SimMarket } from '../../helpers/sim-market.ts';

const PET_TIERS = ['common', 'uncommon', 'rare', 'epic', 'legendary', 'mythic'];

/**
 * The id the NEU or Elite file (or the bazaar file, by product id) would price a networth key's
 * item under, or undefined for keys those files have no counterpart for (attributes, skins, cakes …).
 */
function counterpartOf(key: string): string | undefined {
  const pet = /^lvl_(1|100|200)_([a-z]+)_([a-z_]+)$/.exec(key);
  if (pet) {
    const tier = PET_TIERS.indexOf(pet[2]!);
    if (tier < 0 || pet[3]!.includes('_skinned_')) return undefined;
    const id = `${pet[3]!.toUpperCase()};${tier}`;
    return pet[1] === '1' ? id : `${id}+${pet[1]}`;
  }
  const book = /^enchantment_([a-z_]+)_(\d+)$/.exec(key);
  if (book) return `${book[1]!.toUpperCase()};${book[2]}`;
  const rune = /^rune_([a-z_]+)_(\d+)$/.exec(key);
  if (rune) return `${rune[1]!.toUpperCase()}_RUNE;${rune[2]}`;
  if (/_skinned_|_shiny$|^attribute_shard|^new_year_cake_|^potion$|^abicase$|_editioned$|_uneditioned$|^party_hat_|^balloon_hat_/.test(key)) return undefined;
  return key.toUpperCase();
}

/**
 * The ids the market prices under its own keys: the Elite id of every active BIN (but pets holding
 * a Tier Boost, and skinned or shiny items, which the networth file prices apart or not at all),
 * and every bazaar product by product id and NEU id.
 */
async function priced(t: TestApp): Promise<Set<string>> {
  const ids = new Set<string>();
  const view = t.app.market.activeAuctions;
  await view.ready();
  for (const l of view.binListings(t.clock.now())) {
    const n = l.flatNbt;
    if (n['petInfo.heldItem'] === 'PET_ITEM_TIER_BOOST' || n['petInfo.skin'] !== undefined || n['skin'] !== undefined || n['is_shiny'] !== undefined) continue;
    ids.add(eliteIdOf(l));
  }
  for (const path of ['/api/bazaar/prices?keys=neu', '/api/bazaar/prices']) {
    const res = await t.app.inject(path);
    if (res.statusCode === 200) for (const id of Object.keys(res.json() as object)) ids.add(id);
  }
  return ids;
}

function report(name: string, c: Coverage): string {
  const families = Object.entries(c.families)
    .sort((a, b) => b[1].lookups - a[1].lookups)
    .map(([f, v]) => `${f} ${v.answered}/${v.lookups}${v.missing.length ? ` (missing e.g. ${v.missing.slice(0, 4).join(', ')})` : ''}`);
  return `${name}: ${c.answered}/${c.lookups} lookups answered (${(c.share * 100).toFixed(1)} %); ${families.join('; ')}`;
}

/** Lookups the market prices under its own keys but the networth file does not answer. */
function unanswered(lookups: readonly Lookup[], file: Record<string, number>, ids: Set<string>): string[] {
  const out = new Set<string>();
  for (const l of lookups) {
    if (l.keys.some((k) => file[k] !== undefined)) continue;
    for (const k of l.keys) {
      const id = counterpartOf(k);
      if (id !== undefined && ids.has(id)) out.add(`${k} (${id})`);
    }
  }
  return [...out];
}

const lookups = profileLookups(skyHelperItems());

describe('networth file coverage of real items on the demo market', () => {
  let t: TestApp;
  let sim: SimMarket;
  before(async () => {
    t = await createTestApp({ env: { FLIPS_POLL_MS: '0' } });
    sim = await fillFromSimulator(t.store, { auctions: 2000, historyHours: 1, detailedMinutes: 30, generations: 2 });
    t.clock.set(sim.clock.now());
  });
  after(async () => {
    await sim?.close();
    await t?.close();
  });

  test('answers every lookup the market prices, and at least the measured share', async (ctx) => {
    assert.ok(lookups.length > 1_500, `${lookups.length} lookups`);
    const file = (await t.app.inject('/api/prices/networth')).json() as Record<string, number>;
    const coverage = coverageOf(lookups, file);
    ctx.diagnostic(report('demo market', coverage));
    assert.deepEqual(unanswered(lookups, file, await priced(t)), []);
    assert.ok(coverage.share >= 0.34, `${(coverage.share * 100).toFixed(1)} % answered`);
    assert.ok(coverage.families['essence']!.answered > 0 && coverage.families['enchantment']!.answered > 0);
  });
});

describe('networth file coverage of real items on the real 2022 auction pages', () => {
  let t: TestApp;
  const upstream = new FakeUpstream();
  before(async () => {
    t = await createTestApp({ env: { FLIPS_POLL_MS: '0' } });
    await upstream.start();
    const pages = realGeneration(t.clock.now());
    upstream.on('/v2/skyblock/auctions?page=0', { body: pages[0] }).on('/v2/skyblock/auctions?page=1', { body: pages[1] });
    const ctx = testIngestContext({ store: t.store, clock: t.clock, baseUrl: upstream.url });
    await new AuctionIngester(ctx).pollOnce();
    await ctx.client.close();
  });
  after(async () => {
    await upstream.stop();
    await t.close();
  });

  test('answers every lookup the listings price, and at least the measured share', async (ctx) => {
    const file = (await t.app.inject('/api/prices/networth')).json() as Record<string, number>;
    const coverage = coverageOf(lookups, file);
    ctx.diagnostic(report('real 2022 pages (auction house only, no bazaar)', coverage));
    assert.deepEqual(unanswered(lookups, file, await priced(t)), []);
    assert.ok(coverage.share >= 0.13, `${(coverage.share * 100).toFixed(1)} % answered`);
  });
});
