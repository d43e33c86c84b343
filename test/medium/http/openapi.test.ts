/** The OpenAPI document reads as the established one does: filter maps, query credentials, optional defaults. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { FILTER_NAMES } from '../../../src/domain/filters.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  style?: string;
  explode?: boolean;
  description?: string;
  schema?: { type?: string; default?: unknown; additionalProperties?: unknown };
}
type Doc = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  before(async () => {
    t = await createTestApp();
    doc = (await t.app.inject('/api/openapi.json')).json() as Doc;
  });
  after(() => t.close());

  const params = (path: string, method = 'get') => doc.paths[path]?.[method]?.parameters ?? [];

  it('stays a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  it('declares the filter map as a deepObject of strings, with the known filters and their syntax', () => {
    const routes: Array<[string, string]> = [
      ['/api/auctions/tag/{itemTag}/active/bin', 'query'],
      ['/api/auctions/active/filter', 'query'],
      ['/api/auctions/tag/{itemTag}/active/overview', 'query'],
      ['/api/auctions/tag/{itemTag}/recent/overview', 'query'],
      ['/api/auctions/tag/{itemTag}/archive/overview', 'query'],
      ['/api/item/price/{itemTag}/analysis', 'filters'],
    ];
    for (const [path, name] of routes) {
      const map = params(path).find((p) => p.name === name);
      assert.ok(map, `${path} declares ${name}`);
      assert.equal(map.in, 'query');
      assert.equal(map.style, 'deepObject');
      assert.equal(map.required, false);
      assert.deepEqual(map.schema, { type: 'object', additionalProperties: { type: 'string' } });
      for (const filter of FILTER_NAMES) assert.ok(map.description!.includes(filter), `${path}: ${filter} listed`);
      assert.match(map.description!, /1-5/);
      assert.match(map.description!, /unix seconds/);
    }
    const marked = Object.values(doc.paths).flatMap((ops) => Object.values(ops)).filter((op) => JSON.stringify(op).includes('x-filter-map'));
    assert.deepEqual(marked, [], 'the internal marker does not leak');
  });

  it('declares query credentials as parameters, and no parameter with a default as required', () => {
    for (const path of ['/api/auctions/tag/{itemTag}/sold', '/api/auction/random', '/api/auctions/batch']) {
      assert.ok(params(path).some((p) => p.in === 'query' && p.name === 'token' && !p.required), `${path}: token`);
    }
    for (const path of ['/api/player/extracted', '/api/player/bazaar/orders', '/api/player/bazaar/flips']) {
      assert.ok(params(path).some((p) => p.in === 'query' && p.name === 'apiKey' && !p.required), `${path}: apiKey`);
    }
    let withDefault = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) {
          if (p.schema?.default === undefined) continue;
          withDefault++;
          assert.notEqual(p.required, true, `${method} ${path} ${p.name} has a default and is not required`);
        }
      }
    }
    assert.ok(withDefault >= 15, `${withDefault} parameters with defaults`);
  });

  it('reads the deepObject forms as filters', async () => {
    const filter = await t.app.inject('/api/auctions/active/filter?query%5BRarity%5D=NOPE');
    assert.equal(filter.statusCode, 400);
    assert.equal(filter.json().filter, 'Rarity');
    const analysis = await t.app.inject('/api/item/price/HYPERION/analysis?filters%5BFrobnicate%5D=1');
    assert.equal(analysis.statusCode, 400);
    assert.deepEqual([analysis.json().slug, analysis.json().filter], ['unknown_filter', 'Frobnicate']);
  });
});
