/**
 * Finding items over HTTP: the catalog, bazaar tags, names, search, details, look-alikes and
 * icons, and aliases on every `{itemTag}` route. On simulator data (SQLite), and with the real
 * NEU repository (test/fixtures) for the ranking cases and NEU ids.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { loadGameData } from '../../../src/gamedata/index.ts';
import { AuctionIngester } from '../../../src/ingest/auctions.ts';
import { BazaarIngester } from '../../../src/ingest/bazaar.ts';
import { ResourcesIngester } from '../../../src/ingest/resources.ts';
import type { IngestContext } from '../../../src/ingest/context.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import type { Store } from '../../../src/store/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { neuRepo } from '../../helpers/fixtures.ts';
import { testIngestContext } from '../../helpers/ingest-context.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { describeEachBackend } from '../../helpers/databases.ts';
import { ITEM_CATEGORIES, TIERS } from '../../../src/domain/wire-enums.ts';

const START = Date.UTC(2026, 10, 22, 12, 0, 0);

interface Hit {
  name: string;
  id: string;
  type: string;
  iconUrl: string | null;
  img: null;
  tier: string;
}

describeEachBackend('items on simulator data', (fixture) => {
  const clock = new ManualClock(START);
  let store: Store;
  let sim: SimulatorHandle;
  let ctx: IngestContext;
  let t: TestApp;

  before(async () => {
    store = fixture().store;
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, auctions: 600, seed: 5, backfillMs: 0, port: 0 }, { clock, tickMs: 0 });
    ctx = testIngestContext({ store, clock, baseUrl: sim.url, source: 'simulator', timeoutMs: 2000 });
    await new AuctionIngester(ctx).pollOnce();
    await new BazaarIngester(ctx).pollOnce();
    await new ResourcesIngester(ctx).pollItems();
    await store.playerNames.record([{ playerUuid: 'a'.repeat(32), name: 'Hypixelfan' }, { playerUuid: 'b'.repeat(32), name: 'Other' }], 'upstream', START);
    t = await createTestApp({ store });
  });
  after(async () => {
    await t.close();
    await ctx.client.close();
    await sim.close();
  });

  test('the catalog lists every item with its flags, served from one precomputed body', async () => {
    const res = await t.app.inject('/api/items');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['cache-control']), /max-age=300/);
    const items = res.json() as Array<{ name: string; tag: string; flags: string }>;
    const byTag = new Map(items.map((i) => [i.tag, i]));
    assert.ok(items.length > 100, `${items.length} items`);
    for (const i of items) {
      assert.deepEqual(Object.keys(i), ['name', 'tag', 'flags']);
      assert.match(i.flags, /^(NONE|(BAZAAR|TRADEABLE|AUCTION|CRAFT)(, (BAZAAR|TRADEABLE|AUCTION|CRAFT))*)$/, i.tag);
    }
    const active = [...t.app.market.activeAuctions.tags()];
    assert.ok(active.length > 10);
    for (const tag of active) assert.match(byTag.get(tag)?.flags ?? '', /TRADEABLE, AUCTION/, tag);
    const bazaar = (await t.app.inject('/api/items/bazaar/tags')).json() as string[];
    assert.ok(bazaar.length > 10);
    for (const tag of bazaar) assert.match(byTag.get(tag)?.flags ?? '', /^BAZAAR, TRADEABLE/, tag);
    assert.equal(byTag.get('HYPERION')?.name, 'Hyperion');
  });

  test('names of tags: aliases answered under the tag as asked, unknown ones left out, bounded', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/items/names', payload: ['HYPERION', 'hyperion', 'Aspect of the End', 'NO_SUCH_ITEM'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { HYPERION: 'Hyperion', hyperion: 'Hyperion', 'Aspect of the End': 'Aspect of the End' });
    const tooMany = await t.app.inject({ method: 'POST', url: '/api/items/names', payload: Array.from({ length: 1001 }, () => 'HYPERION') });
    assert.equal(tooMany.statusCode, 400);
    const notArray = await t.app.inject({ method: 'POST', url: '/api/items/names', payload: { tags: ['HYPERION'] } });
    assert.equal(notArray.statusCode, 400);
  });

  test('search finds items by name, prefix and typo, at most 30, in the established shape', async () => {
    for (const [term, first] of [
      ['hyperion', 'HYPERION'],
      ['Hyperion', 'HYPERION'],
      ['hyperon', 'HYPERION'],
      ['aspect of the end', 'ASPECT_OF_THE_END'],
      ['aote', 'ASPECT_OF_THE_END'],
    ] as const) {
      const res = await t.app.inject(`/api/item/search/${encodeURIComponent(term)}`);
      assert.equal(res.statusCode, 200, res.body);
      const hits = res.json() as Hit[];
      assert.equal(hits[0]?.id, first, `${term}: ${hits.map((h) => h.id).join(', ')}`);
      assert.deepEqual(hits[0], { name: hits[0]!.name, id: first, type: 'item', iconUrl: `/api/item/${first}/icon`, img: null, tier: hits[0]!.tier });
    }
    const broad = (await t.app.inject('/api/item/search/e')).json() as Hit[];
    assert.ok(broad.length > 5 && broad.length <= 30);
    assert.ok(broad.every((h) => TIERS.includes(h.tier)), 'every hit has a Tier of the enum');
    // expectedResults bounds the answer (the established client sends it); the same ranking, cut.
    const three = (await t.app.inject('/api/item/search/e?expectedResults=3')).json() as Hit[];
    assert.deepEqual(three, broad.slice(0, 3));
    for (const bad of ['0', '31', 'x']) assert.equal((await t.app.inject(`/api/item/search/e?expectedResults=${bad}`)).statusCode, 400, bad);
    const spec = (await t.app.inject('/api/docs/json')).json() as { paths: Record<string, { get: { parameters: Array<{ name: string; in: string }> } }> };
    assert.ok(spec.paths['/api/item/search/{searchVal}']!.get.parameters.some((p) => p.name === 'expectedResults' && p.in === 'query'), 'declared in the OpenAPI document');
    assert.ok(broad.every((h) => h.name.toLowerCase().startsWith('e')), 'one letter: items whose name starts with it');
  });

  test('bad search terms are 400 invalid_search: empty, 200 characters, control characters', async () => {
    for (const bad of ['%20%20', 'a'.repeat(200), 'hyp%01erion', '%0A', 'x%7F']) {
      for (const url of [`/api/item/search/${bad}`, `/api/search/${bad}`]) {
        const res = await t.app.inject(url);
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.equal(res.json().slug, 'invalid_search', url);
        assert.ok(res.body.length < 1024);
      }
    }
    const limit = await t.app.inject('/api/search/hyp?limit=0');
    assert.equal(limit.statusCode, 400);
  });

  test('/api/search adds players whose name starts with the term, within the limit', async () => {
    const hits = (await t.app.inject('/api/search/hypixelf?limit=5')).json() as Hit[];
    const player = hits.find((h) => h.type === 'player');
    assert.deepEqual(player, { name: 'Hypixelfan', id: 'a'.repeat(32), type: 'player', iconUrl: null, img: null, tier: 'UNKNOWN' });
    assert.equal(((await t.app.inject('/api/search/hyp?limit=2')).json() as Hit[]).length, 2);
    const defaults = (await t.app.inject('/api/search/a')).json() as Hit[];
    assert.ok(defaults.length <= 5);
  });

  test('details, look-alikes and icon of an item; an alias answers for the canonical tag', async () => {
    for (const alias of ['HYPERION', 'hyperion', 'Hyperion', '§6Hyperion']) {
      const res = await t.app.inject(`/api/item/${encodeURIComponent(alias)}/details`);
      assert.equal(res.statusCode, 200, `${alias}: ${res.body}`);
      assert.deepEqual(res.json(), {
        npcSellPrice: 100_000,
        minecraftType: 'IRON_SWORD',
        iconUrl: '/api/item/HYPERION/icon',
        name: 'Hyperion',
        tag: 'HYPERION',
        flags: 'TRADEABLE, AUCTION',
        tier: 'LEGENDARY',
        category: 'SWORD',
      });
    }
    const similar = (await t.app.inject('/api/item/ASPECT_OF_THE_END/similar')).json() as Array<{ tag: string; name: string }>;
    assert.ok(similar.length > 0 && similar.length <= 10);
    assert.ok(similar.every((s) => s.tag !== 'ASPECT_OF_THE_END'));
    const icon = await t.app.inject('/api/item/hyperion/icon');
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    assert.match(icon.body, /<title>Hyperion<\/title>/);
    assert.match(icon.body, /#FFAA00/);
    // Every item's details in the client's enums: no null tier or category, no category outside ItemCategory.
    const categories = new Map<string, number>();
    for (const { tag } of (await t.app.inject('/api/items')).json() as Array<{ tag: string }>) {
      const d = (await t.app.inject(`/api/item/${encodeURIComponent(tag)}/details`)).json() as { tier: string; category: string };
      assert.ok(TIERS.includes(d.tier), `${tag}: tier ${d.tier}`);
      assert.ok(ITEM_CATEGORIES.includes(d.category), `${tag}: category ${d.category}`);
      categories.set(d.category, (categories.get(d.category) ?? 0) + 1);
    }
    assert.ok((categories.get('UNKNOWN') ?? 0) > 0 && categories.size > 3, JSON.stringify([...categories]));
    const unknown = await t.app.inject('/api/item/NO_SUCH_ITEM/details');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().slug, 'item_not_found');
  });

  test('filter options: what applies to an item and the values its listings show', async () => {
    const options = async (q: string) => {
      const res = await t.app.inject(`/api/filter/options${q}`);
      assert.equal(res.statusCode, 200, res.body);
      return new Map((res.json() as Array<{ name: string; options: string[]; type: number; longType: string }>).map((o) => [o.name, o]));
    };
    const hyperion = await options('?itemTag=HYPERION');
    assert.ok(hyperion.has('Stars') && hyperion.has('Enchantment') && hyperion.has('Rarity'));
    assert.ok(!hyperion.has('PetLevel'));
    assert.ok(hyperion.get('Enchantment')!.options.includes('None'));
    const tiers = new Set(t.app.market.activeAuctions.activeOf('HYPERION', () => true).map((l) => l.tier));
    assert.deepEqual(new Set(hyperion.get('Rarity')!.options), tiers);
    assert.deepEqual(await options('?itemTag=hyperion'), hyperion);
    const pet = [...t.app.market.activeAuctions.tags()].find((x) => x.startsWith('PET_'))!;
    assert.ok((await options(`?itemTag=${pet}`)).has('PetLevel'));
    assert.ok((await options('')).size >= 30);
    assert.equal((await options('?itemTag=*')).size, (await options('')).size);
    assert.equal((await t.app.inject('/api/filter/options?itemTag=NO_SUCH_ITEM')).statusCode, 404);
    assert.equal((await t.app.inject('/api/filter/options?itemTag=BAD%20TAG!')).statusCode, 400);
  });

  test('every existing {itemTag} route takes an alias and answers as for the tag', async () => {
    const tag = [...t.app.market.activeAuctions.tags()].find((x) => t.app.market.catalog.get(x)?.name.includes(' '))!;
    const name = t.app.market.catalog.get(tag)!.name;
    for (const path of ['/api/auctions/tag/{t}/active/overview', '/api/auctions/tag/{t}/active/bin?page=0', '/api/item/price/{t}/analysis']) {
      const canonical = await t.app.inject(path.replace('{t}', tag));
      const aliased = await t.app.inject(path.replace('{t}', encodeURIComponent(name.toLowerCase())));
      assert.equal(canonical.statusCode, 200, `${path}: ${canonical.body}`);
      assert.equal(aliased.statusCode, 200, `${path} by "${name}": ${aliased.body}`);
      assert.equal(aliased.body, canonical.body, path);
    }
    const product = ((await t.app.inject('/api/items/bazaar/tags')).json() as string[])[0]!;
    const snapshot = await t.app.inject(`/api/bazaar/${product.toLowerCase()}/snapshot`);
    assert.equal(snapshot.statusCode, 200, snapshot.body);
    assert.equal(snapshot.json().productId, product);
  });
});

describe('items with the real NEU repository', () => {
  let t: TestApp;

  before(async () => {
    const dir = tempDir('items-neu');
    const game = loadGameData({ gameDataDir: neuRepo(), dataDir: dir.path });
    dir.remove();
    t = await createTestApp({ game });
  });
  after(() => t.close());

  const first = async (term: string): Promise<string[]> => ((await t.app.inject(`/api/item/search/${encodeURIComponent(term)}`)).json() as Hit[]).map((h) => h.id);

  test('the catalog holds the repository’s items, not its creatures and NPCs', async () => {
    const items = (await t.app.inject('/api/items')).json() as Array<{ name: string; tag: string }>;
    assert.ok(items.length > 7000, `${items.length} items`);
    assert.ok(!items.some((i) => / \((NPC|Monster|Boss)\)$/.test(i.name)));
    const names = new Map(items.map((i) => [i.tag, i.name]));
    assert.equal(names.get('ENCHANTMENT_ULTIMATE_WISE_5'), 'Ultimate Wise V');
    assert.equal(names.get('PET_ENDER_DRAGON'), 'Ender Dragon');
    assert.equal(names.get('RUNE_BLOOD_2'), 'Blood Rune I');
  });

  test('what a player types finds what they mean first', async () => {
    for (const [term, tag] of [
      ['hyperion', 'HYPERION'],
      ['hyp', 'HYPERION'],
      ['hyperon', 'HYPERION'],
      ['aspect of the end', 'ASPECT_OF_THE_END'],
      ['aotd', 'ASPECT_OF_THE_DRAGON'],
      ['aspect of the dra', 'ASPECT_OF_THE_DRAGON'],
      ['ultimate wise 5', 'ENCHANTMENT_ULTIMATE_WISE_5'],
      ['ultimate wise v', 'ENCHANTMENT_ULTIMATE_WISE_5'],
      ['ender dragon legendary', 'PET_ENDER_DRAGON'],
      ['enchanted diamond', 'ENCHANTED_DIAMOND'],
      ['ENDER_DRAGON;4', 'PET_ENDER_DRAGON'],
    ] as const) {
      const found = await first(term);
      assert.equal(found[0], tag, `${term}: ${found.slice(0, 5).join(', ')}`);
    }
  });

  test('NEU ids name items on every {itemTag} route', async () => {
    for (const [neuId, tag] of [
      ['ENDER_DRAGON;4', 'PET_ENDER_DRAGON'],
      ['ULTIMATE_WISE;5', 'ENCHANTMENT_ULTIMATE_WISE_5'],
      ['BLOOD_2_RUNE;1', 'RUNE_BLOOD_2'],
      ['POTION_SPEED;2', 'POTION_SPEED'],
      ['INK_SACK-4', 'INK_SACK:4'],
    ] as const) {
      const res = await t.app.inject(`/api/item/${encodeURIComponent(neuId)}/details`);
      assert.equal(res.statusCode, 200, `${neuId}: ${res.body}`);
      assert.equal(res.json().tag, tag, neuId);
      const recipe = await t.app.inject(`/api/craft/recipe/${encodeURIComponent(neuId)}`);
      const direct = await t.app.inject(`/api/craft/recipe/${encodeURIComponent(tag)}`);
      assert.equal(recipe.statusCode, direct.statusCode, neuId);
      // A problem body names the request as sent in `instance`; the rest is the tag's answer.
      const { instance: _a, ...viaAlias } = recipe.json() as Record<string, unknown>;
      const { instance: _b, ...viaTag } = direct.json() as Record<string, unknown>;
      assert.deepEqual(viaAlias, viaTag, neuId);
    }
  });
});
