import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { LazySchemas } from '../../../src/http/lazy-schemas.ts';

/** A bare Fastify instance (no skymarket app, no socket: inject only) with the lazy compilers. */
async function appWith(schemas: LazySchemas) {
  const app = Fastify({ schemaController: { compilersFactory: schemas.compilersFactory }, ajv: { customOptions: { allErrors: false } } });
  app.addSchema({ $id: 'Item', type: 'object', properties: { tag: { type: 'string' }, count: { type: 'integer' } }, required: ['tag'] });
  app.get<{ Querystring: { n: number } }>(
    '/double',
    {
      schema: {
        querystring: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'], additionalProperties: false },
        response: { 200: { type: 'object', properties: { doubled: { type: 'integer' } } } },
      },
    },
    async (request) => ({ doubled: request.query.n * 2, secret: 'not in the schema' }),
  );
  app.post<{ Body: { tag: string } }>('/item', { schema: { body: { $ref: 'Item#' }, response: { 200: { $ref: 'Item#' } } } }, async (request) => ({ ...request.body, extra: 1 }));
  await app.ready();
  return app;
}

describe('LazySchemas: route schemas compiled on first use', () => {
  it('nothing is compiled at boot; a route compiles its parts when first called, and only once', async () => {
    const schemas = new LazySchemas();
    const app = await appWith(schemas);
    const atBoot = schemas.counts();
    assert.equal(atBoot.compiled, 0);
    assert.ok(atBoot.pending >= 4, `querystring, body and two responses wait (${atBoot.pending})`);
    const first = await app.inject('/double?n=21');
    assert.equal(first.statusCode, 200);
    // Coerced from the query string by Ajv, and the response serialized by its schema (the extra field dropped).
    assert.deepEqual(first.json(), { doubled: 42 });
    const afterOne = schemas.counts();
    assert.equal(afterOne.compiled, 2);
    await app.inject('/double?n=1');
    assert.deepEqual(schemas.counts(), afterOne);
    await app.close();
  });

  it('validation errors reach Fastify as they do from a compiled validator: 400 naming the field', async () => {
    const app = await appWith(new LazySchemas());
    const bad = await app.inject('/double?n=-1');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /querystring\/n must be >= 0/);
    const missing = await app.inject({ method: 'POST', url: '/item', payload: { count: 1 } });
    assert.equal(missing.statusCode, 400);
    assert.match(missing.json().message, /must have required property 'tag'/);
    const ok = await app.inject({ method: 'POST', url: '/item', payload: { tag: 'HYPERION', count: 1 } });
    assert.deepEqual(ok.json(), { tag: 'HYPERION', count: 1 });
    await app.close();
  });

  it('compileAll compiles every waiting schema at once, and throws for one that cannot compile', async () => {
    const schemas = new LazySchemas();
    const app = await appWith(schemas);
    const compiled = schemas.compileAll();
    assert.ok(compiled >= 4);
    assert.deepEqual(schemas.counts(), { compiled, pending: 0 });
    await app.close();

    const broken = new LazySchemas();
    const other = Fastify({ schemaController: { compilersFactory: broken.compilersFactory } });
    other.get('/broken', { schema: { querystring: { type: 'object', properties: { n: { type: 'no-such-type' } } } } }, async () => 'never');
    await other.ready();
    assert.throws(() => broken.compileAll(), /no-such-type|type must be/);
    await other.close();
  });

  it('compileInBackground compiles the rest between macrotasks and reports a broken schema instead of throwing', async () => {
    const schemas = new LazySchemas();
    const app = Fastify({ schemaController: { compilersFactory: schemas.compilersFactory } });
    app.get('/good', { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } } }, async () => 'ok');
    app.get('/bad', { schema: { querystring: { type: 'object', properties: { n: { type: 'no-such-type' } } } } }, async () => 'never');
    await app.ready();
    const errors: unknown[] = [];
    await schemas.compileInBackground((e) => errors.push(e));
    // Fastify adds a HEAD route beside each GET, with the same schemas: one broken schema per route of the pair.
    assert.ok(errors.length >= 1);
    for (const e of errors) assert.match(String(e), /no-such-type|type must be/);
    const { compiled, pending } = schemas.counts();
    assert.ok(compiled >= 1);
    assert.equal(pending, errors.length);
    await app.close();
  });
});
