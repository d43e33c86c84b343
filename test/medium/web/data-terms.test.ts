/**
 * One statement of terms everywhere: the software is MIT, the data is under the terms the operator
 * sets (DATA_TERMS), shown on /data, in every page's footer and in the OpenAPI description.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULTS, loadConfig } from '../../../src/config.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

const TERMS = 'Data under CC BY-NC 4.0 <by Example & Co>: credit "Example"';
const ESCAPED = 'Data under CC BY-NC 4.0 &lt;by Example &amp; Co&gt;: credit &quot;Example&quot;';

/** The text of the /data page's terms section. */
function termsSection(html: string): string {
  const m = /<h2 id="terms">Terms<\/h2>(.*?)<h2/s.exec(html);
  assert.ok(m, 'the data page has a terms section');
  return m[1]!;
}

describe('data terms', () => {
  describe('set by the operator', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp({ env: { DATA_TERMS: TERMS } });
    });
    after(() => t.close());

    it('the data page states the MIT licence for the software and the configured terms for the data', async () => {
      const res = await t.app.inject('/data');
      assert.equal(res.statusCode, 200);
      const section = termsSection(res.body);
      assert.match(section, /MIT licence/);
      assert.ok(section.includes(ESCAPED), section);
      assert.ok(!res.body.includes(TERMS), 'the terms are escaped');
      assert.doesNotMatch(res.body, /Premium\+ subscription/);
      assert.ok(!section.includes(DEFAULTS.dataTerms.replace(/'/g, '&#39;')) && !section.includes(DEFAULTS.dataTerms));
    });

    it('every page footer shows them', async () => {
      for (const url of ['/', '/flips', '/data']) {
        const html = (await t.app.inject(url)).body;
        const footer = /<footer class="foot">(.*?)<\/footer>/s.exec(html)?.[1] ?? '';
        assert.match(footer, /Software: MIT licence/, url);
        assert.ok(footer.includes(ESCAPED), `${url}: ${footer}`);
      }
    });

    it('the API description says them', async () => {
      const doc = (await t.app.inject('/api/openapi.json')).json() as { info: { description: string; license: { identifier: string } } };
      assert.ok(doc.info.description.includes(TERMS), doc.info.description);
      assert.equal(doc.info.license.identifier, 'MIT');
    });
  });

  describe('by default', () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp();
    });
    after(() => t.close());

    it('credit Hypixel and the NEU repository as the sources', async () => {
      assert.match(DEFAULTS.dataTerms, /Hypixel's API/);
      assert.match(DEFAULTS.dataTerms, /NotEnoughUpdates repository/);
      const section = termsSection((await t.app.inject('/data')).body);
      assert.match(section, /Hypixel&#39;s API|Hypixel's API/);
      assert.match(section, /NotEnoughUpdates repository/);
      const doc = (await t.app.inject('/api/openapi.json')).json() as { info: { description: string } };
      assert.ok(doc.info.description.includes(DEFAULTS.dataTerms));
    });
  });

  it('refuse terms that are not one line', () => {
    assert.throws(() => loadConfig({ DATA_TERMS: 'one\ntwo' }), /DATA_TERMS/);
    assert.equal(loadConfig({ DATA_TERMS: '  ' }).dataTerms, DEFAULTS.dataTerms);
  });
});
