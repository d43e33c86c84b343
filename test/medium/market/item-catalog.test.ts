/** The item catalog view: trading activity ranks search results, and a refresh swaps the state whole. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { loadGameData } from '../../../src/gamedata/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { ItemCatalog } from '../../../src/market/item-catalog.ts';
import { Store } from '../../../src/store/index.ts';
import { neuRepo } from '../../helpers/fixtures.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';

describe('item catalog', () => {
  let dir: TempDir;
  let store: Store;
  let active = new Map<string, number>();
  let catalog: ItemCatalog;

  before(async () => {
    dir = tempDir('catalog');
    store = await Store.open({ dataDir: dir.path });
    const game = loadGameData({ gameDataDir: neuRepo(), dataDir: dir.path });
    catalog = new ItemCatalog({ store, game, clock: new ManualClock(0), logger: createLogger('silent'), activeCounts: () => active });
    await catalog.start();
  });
  after(async () => {
    catalog.close();
    await store.close();
    dir.remove();
  });

  it('ranks a traded item above an untraded one that matches as well', async () => {
    const hits = (term: string) => catalog.search(term, 5).map((e) => e.tag);
    assert.notEqual(hits('aspect of the')[0], 'ASPECT_OF_THE_JERRY');
    active = new Map([['ASPECT_OF_THE_JERRY', 5000]]);
    await catalog.refresh();
    assert.equal(hits('aspect of the')[0], 'ASPECT_OF_THE_JERRY');
    assert.equal(catalog.get('ASPECT_OF_THE_JERRY')!.activeListings, 5000);
    active = new Map([['ASPECT_OF_THE_END', 5000]]);
    await catalog.refresh();
    assert.equal(hits('aspect of the')[0], 'ASPECT_OF_THE_END');
  });

  it('a word typed in full outranks much traded items matching only the last, half-typed word', async () => {
    // Carrot, Sugar Cane and Cactus trade far more than anything black; "black ca" still means black things.
    active = new Map([['CARROT_ITEM', 1e6], ['SUGAR_CANE', 1e6], ['CACTUS', 1e6], ['PET_BLACK_CAT', 20]]);
    await catalog.refresh();
    const hits = catalog.search('black ca', 30);
    assert.equal(hits[0]?.tag, 'PET_BLACK_CAT');
    const black = hits.map((e, i) => [i, /\bblack\b/i.test(e.name)] as const).filter(([, b]) => b).map(([i]) => i);
    assert.ok(black.length >= 15, `${black.length} black items among ${hits.length}`);
    for (const tag of ['CARROT_ITEM', 'SUGAR_CANE', 'CACTUS']) {
      const at = hits.findIndex((e) => e.tag === tag);
      assert.ok(at === -1 || at > black.at(-1)!, `${tag} at ${at}, after every black item: ${hits.map((e) => e.name).join(' | ')}`);
    }
    active = new Map();
    await catalog.refresh();
  });

  it('books are named after their enchantment; names resolve', async () => {
    const books = catalog.entries().filter((e) => e.tag.startsWith('ENCHANTMENT_') && e.name === 'Enchanted Book');
    assert.equal(books.length, 0, 'books are named after their enchantment');
    assert.equal(catalog.resolve('Enchanted Book'), 'ENCHANTED_BOOK');
    assert.equal(catalog.resolve('Hyperion'), 'HYPERION');
    assert.equal(catalog.resolve('no such thing'), undefined);
  });
});
