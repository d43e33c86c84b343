/** The OpenAPI document reads as the established one does, and generated clients can use it: typed filters, operation ids, query credentials, optional defaults. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { FILTER_NAMES, RARITIES } from '../../../src/domain/filters.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { operationIdOf } from '../../../src/http/openapi.ts';

interface Parameter {
  name: string;
  in: string;
  $ref?: string;
  required?: boolean;
  description?: string;
  schema?: { type?: string; default?: unknown; enum?: string[]; anyOf?: Array<{ type?: string }> };
}
interface Operation {
  operationId?: string;
  description?: string;
  parameters?: Parameter[];
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { parameters: Record<string, Parameter> } };

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  before(async () => {
    t = await createTestApp();
    doc = (await t.app.inject('/api/openapi.json')).json() as Doc;
  });
  after(() => t.close());

  const params = (path: string, method = 'get') => doc.paths[path]?.[method]?.parameters ?? [];

  it('every route schema compiles (validators and serializers compile on first use, http/lazy-schemas.ts)', () => {
    const compiled = t.app.schemas.compileAll();
    assert.ok(compiled > 100, `${compiled} route schemas compiled`);
    assert.equal(t.app.schemas.counts().pending, 0);
  });

  it('stays a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  it('declares every filter of the engine as an optional typed parameter on each route that takes filters', () => {
    const routes = [
      '/api/auctions/tag/{itemTag}/active/bin',
      '/api/auctions/active/filter',
      '/api/auctions/tag/{itemTag}/active/overview',
      '/api/auctions/tag/{itemTag}/recent/overview',
      '/api/auctions/tag/{itemTag}/archive/overview',
      '/api/item/price/{itemTag}/analysis',
      '/api/item/price/{itemTag}',
      '/api/item/price/{itemTag}/history/day',
      '/api/player/{playerUuid}/auctions',
    ];
    const components = doc.components.parameters;
    const byName = new Map(Object.values(components).map((p) => [p.name, p]));
    assert.deepEqual([...byName.keys()].sort(), [...FILTER_NAMES].sort(), 'one parameter per known filter');
    for (const p of byName.values()) assert.deepEqual([p.in, p.required], ['query', false], p.name);
    assert.deepEqual(byName.get('Rarity')!.schema!.enum, [...RARITIES, 'any']);
    assert.ok(byName.get('Enchantment')!.schema!.enum!.includes('ultimate_wise'));
    assert.equal(byName.get('Bin')!.schema!.type, 'boolean');
    assert.equal(byName.get('EndBefore')!.schema!.type, 'integer');
    assert.deepEqual(byName.get('Stars')!.schema!.anyOf!.map((s) => s.type), ['number', 'string']);
    assert.match(byName.get('Stars')!.description!, /1-5/);
    assert.equal(byName.get('ItemNameContains')!.schema!.type, 'string');

    for (const path of routes) {
      const op = doc.paths[path]!.get!;
      const refs = (op.parameters ?? []).flatMap((p) => (p.$ref ? [p.$ref] : []));
      assert.deepEqual(refs.sort(), Object.keys(components).map((c) => `#/components/parameters/${c}`).sort(), `${path} declares every filter`);
      assert.ok(!(op.parameters ?? []).some((p) => p.schema?.type === 'object'), `${path}: no object parameter (generated clients send it as [object Object])`);
      assert.match(op.description!, /sharpness=5/, `${path}: the filters per enchantment, attribute and gem slot are described`);
      assert.match(op.description!, /unknown_filter/);
    }
    const unfiltered = doc.paths['/api/auctions/tag/{itemTag}/sold']!.get!;
    assert.ok(!JSON.stringify(unfiltered.parameters).includes('filter.'), 'routes without filters declare none');
    const marked = Object.values(doc.paths).flatMap((ops) => Object.values(ops)).filter((op) => JSON.stringify(op).includes('x-item-filters'));
    assert.deepEqual(marked, [], 'the internal marker does not leak');
  });

  it('gives every operation a unique, readable operationId', () => {
    const ids = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ where: `${method} ${path}`, id: op.operationId })));
    assert.ok(ids.length >= 100, `${ids.length} operations`);
    for (const { where, id } of ids) assert.match(String(id), /^(get|post|put|patch|delete)[A-Z][A-Za-z0-9]*$/, where);
    assert.equal(new Set(ids.map((o) => o.id)).size, ids.length, 'operationIds are unique');
    assert.equal(doc.paths['/api/auctions/tag/{itemTag}/active/bin']!.get!.operationId, 'getAuctionsTagByItemTagActiveBin');
    assert.equal(doc.paths['/neu/lowestbin.json.gz']!.get!.operationId, 'getNeuLowestbinJsonGz');
    assert.equal(operationIdOf('DELETE', '/api/lowball/offer/{offerId}'), 'deleteLowballOfferByOfferId');
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
