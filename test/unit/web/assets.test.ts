/**
 * The pages' assets (src/web/assets.ts): bundled from npm packages by esbuild, fingerprinted by
 * content, within the item page's budget of 150 KB of compressed JS and CSS, and loading nothing
 * from another origin.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { bundleClient, loadAssets } from '../../../src/web/assets.ts';

const WEB = join(import.meta.dirname, '../../../src/web');

describe('web assets', () => {
  it('are named by their content and the same for the same sources', async () => {
    const a = await bundleClient(WEB);
    const b = await bundleClient(WEB);
    assert.deepEqual(a.map((f) => f.name).sort(), b.map((f) => f.name).sort());
    assert.deepEqual(a.map((f) => f.name.replace(/-[A-Z0-9]+\./, '-.')).sort(), ['alerts-.js', 'feed-worker-.js', 'main-.css', 'main-.js']);
  });

  it('fit the item page budget (150 KB gzip) and fetch nothing from another origin', async () => {
    const assets = await loadAssets();
    let gzip = 0;
    for (const asset of assets.byName.values()) {
      gzip += asset.gzip.length;
      assert.deepEqual(gzipSync(asset.raw).length > 0, true);
      const text = asset.raw.toString();
      assert.doesNotMatch(text, /@import\s+url\(|url\(\s*["']?https?:/i, `${asset.name}: no remote stylesheet or image`);
      assert.doesNotMatch(text, /(?:fetch|EventSource|import)\(\s*["'`]https?:/i, `${asset.name}: no request to an absolute URL`);
    }
    assert.ok(gzip <= 150 * 1024, `${gzip} bytes gzip`);
    assert.equal(assets.manifest['main.js'], [...assets.byName.keys()].find((n) => n.startsWith('main-') && n.endsWith('.js')));
    assert.equal(assets.manifest['feed-worker.js'], [...assets.byName.keys()].find((n) => n.startsWith('feed-worker-') && n.endsWith('.js')));
  });
});
