/**
 * Property-based fuzzing of every operation in /api/openapi.json against a real app on
 * simulator data: valid, boundary and malformed path parameters, query values, headers
 * and bodies. Invariants: no 5xx, no stack trace on the wire, every error is a JSON
 * problem (or the legacy `{ message }`), every 2xx JSON body matches its declared schema.
 *
 * Seeded and bounded in `npm test` (FUZZ_RUNS per operation, default 25; FUZZ_SEED);
 * run more on demand: `FUZZ_RUNS=500 node scripts/run-tests.mjs fuzz`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { Registry } from 'prom-client';
import { Ingestion } from '../../../src/ingest/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { DEFAULT_SIMULATOR_OPTIONS, startSimulator, type SimulatorHandle } from '../../../src/simulator/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  $ref?: string;
  default?: unknown;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
  security?: unknown[];
}

interface OpenApiDoc {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: { schemas?: Record<string, JsonSchema>; parameters?: Record<string, Parameter> };
}

/** Values the store really holds, so valid requests reach the interesting code paths. */
interface Known {
  tags: string[];
  auctionUuids: string[];
  itemUids: string[];
  products: string[];
  tokens: Record<string, string>;
  apiKey: string;
  partnerToken: string;
}

const HOSTILE_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '%00',
  '\u0000',
  '../../etc/passwd',
  "'; drop table auctions; --",
  '<script>alert(1)</script>',
  'A'.repeat(300),
  '😀',
  '9'.repeat(40),
  '2026-13-45T99:99:99Z',
];

function resolve(doc: OpenApiDoc, schema: JsonSchema | undefined): JsonSchema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && s.$ref; i++) {
    const name = s.$ref.split('/').pop()!;
    s = doc.components?.schemas?.[name] ?? {};
  }
  return s;
}

/** A value that satisfies the schema (as far as this simple generator understands it). */
function validValue(doc: OpenApiDoc, raw: JsonSchema | undefined, name: string, known: Known): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.anyOf?.length) return fc.oneof(...schema.anyOf.map((s) => validValue(doc, s, name, known)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  const lower = name.toLowerCase();
  if (type === 'integer' || type === 'number') {
    const min = schema.minimum ?? (lower.includes('page') ? 0 : 1);
    const max = schema.maximum ?? Math.max(min, 1000);
    return type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
  }
  if (type === 'boolean') return fc.boolean();
  if (type === 'array') return fc.array(validValue(doc, schema.items, name, known), { maxLength: 5 });
  if (type === 'object') {
    const entries = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    return fc.record(
      Object.fromEntries(entries.map(([key, s]) => [key, validValue(doc, s, key, known)])),
      { requiredKeys: entries.map(([key]) => key).filter((key) => required.has(key)) },
    );
  }
  // Strings: recognise the identifiers the API takes and use real ones.
  if (lower.includes('tag') && known.tags.length) return fc.constantFrom(...known.tags, ...known.products);
  if (lower.includes('product') && known.products.length) return fc.constantFrom(...known.products);
  if (lower.includes('uid') && known.itemUids.length) return fc.constantFrom(...known.itemUids);
  if ((lower.includes('uuid') || lower === 'id') && known.auctionUuids.length) return fc.constantFrom(...known.auctionUuids);
  if (lower.includes('time') || lower === 'start' || lower === 'end' || lower.includes('before') || lower.includes('after')) {
    return fc.integer({ min: Date.now() - 30 * 86_400_000, max: Date.now() }).map((ms) => new Date(ms).toISOString());
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 64));
    } catch {
      /* a pattern fast-check cannot generate from: fall through */
    }
  }
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 40) });
}

/** Values at and just past the schema's bounds, and hostile strings. */
function edgeValue(doc: OpenApiDoc, raw: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const schema = resolve(doc, raw);
  const edges: unknown[] = [...HOSTILE_STRINGS];
  if (schema.minimum !== undefined) edges.push(schema.minimum, schema.minimum - 1);
  if (schema.maximum !== undefined) edges.push(schema.maximum, schema.maximum + 1);
  edges.push(0, -1, 2 ** 31, 2 ** 53, 1.5, -0.5);
  return fc.oneof(fc.constantFrom(...edges), fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
}

/** The operation's own parameters, and the shared ones it refers to (the item filters). */
function parametersOf(doc: OpenApiDoc, op: Operation): { own: Parameter[]; shared: Parameter[] } {
  const own: Parameter[] = [];
  const shared: Parameter[] = [];
  for (const p of op.parameters ?? []) {
    if (!('$ref' in p)) own.push(p);
    else {
      const found = doc.components?.parameters?.[p.$ref.split('/').pop()!];
      assert.ok(found, `${p.$ref} is declared`);
      shared.push(found);
    }
  }
  return { own, shared };
}

function parameterValue(doc: OpenApiDoc, p: Parameter, known: Known): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: validValue(doc, p.schema, p.name, known), weight: 3 }, { arbitrary: edgeValue(doc, p.schema), weight: 1 });
}

function credentialHeaders(known: Known): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    fc.constant({}),
    fc.constantFrom(...Object.values(known.tokens)).map((t) => ({ authorization: `Bearer ${t}` })),
    fc.constantFrom(...Object.values(known.tokens)).map((t) => ({ identitytoken: t })),
    fc.constant({ 'x-api-key': known.apiKey }),
    fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('Bearer', 'Bearer ', 'Basic abc', 'Bearer ' + 'x'.repeat(400))).map(
      (v) => ({ authorization: v }),
    ),
  );
}

function encodeQuery(query: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    // deepObject parameters (the filter maps): `query[Rarity]=EPIC`
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) parts.push(`${encodeURIComponent(`${key}[${k}]`)}=${encodeURIComponent(String(v))}`);
      continue;
    }
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function requestArbitrary(doc: OpenApiDoc, path: string, method: string, op: Operation, known: Known): fc.Arbitrary<InjectOptions> {
  const { own: params, shared } = parametersOf(doc, op);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, parameterValue(doc, p, known)])));
  // The shared filter parameters (a hundred on a route): a few at a time, as a client sends them.
  const filtersArb = fc
    .subarray(shared, { maxLength: Math.min(3, shared.length) })
    .chain((chosen) => fc.record(Object.fromEntries(chosen.map((p) => [p.name, parameterValue(doc, p, known)]))));
  const queryArb = fc
    .tuple(
      fc.record(
        Object.fromEntries(queryParams.map((p) => [p.name, parameterValue(doc, p, known)])),
        { requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name) },
      ),
      filtersArb,
    )
    .map(([values, filters]) => ({ ...filters, ...values }));
  const extraQuery = fc.option(fc.dictionary(fc.constantFrom('foo', 'page', 'limit', 'Rarity', 'apiKey', 'token'), fc.string({ maxLength: 10 }), { maxKeys: 2 }), { nil: undefined });
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const bodyArb: fc.Arbitrary<{ payload?: string; contentType?: string }> = op.requestBody
    ? fc.oneof(
        { arbitrary: validValue(doc, bodySchema, 'body', known).map((v) => ({ payload: JSON.stringify(v), contentType: 'application/json' })), weight: 3 },
        { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ payload: JSON.stringify(v), contentType: 'application/json' })), weight: 1 },
        { arbitrary: fc.string({ maxLength: 40 }).map((s) => ({ payload: s, contentType: 'application/json' })), weight: 1 },
        { arbitrary: fc.constant({ payload: 'a=b', contentType: 'application/x-www-form-urlencoded' }), weight: 1 },
      )
    : fc.constant({});
  return fc.tuple(pathArb, queryArb, extraQuery, bodyArb, credentialHeaders(known), fc.constantFrom('application/json', 'text/plain', '*/*')).map(
    ([pathValues, query, extra, body, headers, accept]) => {
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name] ?? '')) || '%20');
      return {
        method: method.toUpperCase() as InjectOptions['method'],
        url: url + encodeQuery({ ...(extra ?? {}), ...query }),
        headers: { accept, ...headers, ...(body.contentType ? { 'content-type': body.contentType } : {}) },
        ...(body.payload !== undefined ? { payload: body.payload } : {}),
      } satisfies InjectOptions;
    },
  );
}

/** The deterministic sweep: every parameter set to every edge value, the others valid. */
function edgeRequests(doc: OpenApiDoc, path: string, method: string, op: Operation, known: Known): InjectOptions[] {
  // The shared filter parameters are left to the random requests: swept one by one they would be thousands per route.
  const params = parametersOf(doc, op).own.filter((p) => p.in === 'path' || p.in === 'query');
  const valid = (p: Parameter) => fc.sample(validValue(doc, p.schema, p.name, known), { numRuns: 1, seed: SEED })[0];
  const base = Object.fromEntries(params.map((p) => [p.name, valid(p)]));
  const build = (values: Record<string, unknown>, payload?: string): InjectOptions => {
    const query: Record<string, unknown> = {};
    for (const p of params) if (p.in === 'query' && values[p.name] !== undefined) query[p.name] = values[p.name];
    const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(values[name] ?? '')) || '%20');
    return {
      method: method.toUpperCase() as InjectOptions['method'],
      url: url + encodeQuery(query),
      headers: { authorization: `Bearer ${known.tokens.premium_plus}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(payload !== undefined ? { payload } : {}),
    };
  };
  const bodyOf = (): string | undefined => {
    if (!op.requestBody) return undefined;
    const schema = op.requestBody.content?.['application/json']?.schema;
    return JSON.stringify(fc.sample(validValue(doc, schema, 'body', known), { numRuns: 1, seed: SEED })[0]);
  };
  const out: InjectOptions[] = [build(base, bodyOf())];
  for (const p of params) {
    const schema = resolve(doc, p.schema);
    const edges: unknown[] = [...HOSTILE_STRINGS, -1, 0, 2 ** 31, 2 ** 53, 1.5];
    if (schema.minimum !== undefined) edges.push(schema.minimum - 1);
    if (schema.maximum !== undefined) edges.push(schema.maximum + 1);
    for (const edge of edges) out.push(build({ ...base, [p.name]: edge }, bodyOf()));
  }
  if (op.requestBody) {
    for (const payload of ['', 'null', '[]', '{}', '"x"', '{"a":', JSON.stringify(Array.from({ length: 5000 }, (_, i) => i))]) out.push(build(base, payload));
  }
  return out;
}

const STACK_TRACE = /\n\s+at .+[(\s].*:\d+:\d+|node_modules\/|\/src\/.+\.ts/;

describe('fuzzing every operation of the OpenAPI document', { timeout: 600_000 }, () => {
  let sim: SimulatorHandle;
  let ingestion: Ingestion;
  let t: TestApp;
  let doc: OpenApiDoc;
  let known: Known;
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  const validators = new Map<string, ValidateFunction | null>();

  before(async () => {
    sim = await startSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, auctions: 400, backfillMs: 10 * 60_000, port: 0, faults: {} }, { tickMs: 0 });
    t = await createTestApp({ env: { RATE_LIMIT_EXEMPT: '127.0.0.0/8,::1/128' } });
    t.clock.set(Date.now());
    ingestion = new Ingestion({
      upstreamUrl: sim.url,
      timeoutMs: 10_000,
      concurrency: 4,
      intervals: { auctionsMs: 60_000, endedMs: 60_000, bazaarMs: 60_000, itemsMs: 60_000, electionMs: 60_000 },
      store: t.store,
      clock: t.clock,
      logger: createLogger('silent'),
      registry: new Registry(),
      source: 'simulator',
    });
    await ingestion.ingestHistory(sim.backfill());
    await ingestion.resources.pollItems();
    await ingestion.resources.pollElection();
    await ingestion.bazaar.pollOnce();
    await ingestion.auctions.pollOnce();
    await ingestion.ended.pollOnce();

    const tokens: Record<string, string> = {};
    for (const tier of ['free', 'starter_premium', 'premium', 'premium_plus'] as const) {
      tokens[tier] = (await t.store.accounts.create({ tier, name: `fuzz-${tier}` })).token;
    }
    const db = t.store.kysely;
    const auctions = await db.selectFrom('auctions').select(['uuid', 'tag', 'item_uid']).limit(60).execute();
    const products = await db.selectFrom('bazaar_snapshots').select('product_id').distinct().limit(20).execute();
    known = {
      tags: [...new Set(auctions.map((a) => a.tag))],
      auctionUuids: auctions.slice(0, 20).map((a) => a.uuid),
      itemUids: auctions.flatMap((a) => (a.item_uid ? [a.item_uid] : [])).slice(0, 20),
      products: products.map((p) => p.product_id),
      tokens,
      apiKey: (await t.store.apiKeys.create({ playerUuid: 'f'.repeat(32) })).token,
      partnerToken: (await t.store.partners.create({ name: 'fuzz' })).token,
    };
    assert.ok(known.tags.length > 0 && known.products.length > 0, 'the simulator data reached the store');
    doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as OpenApiDoc;
    ajv.addSchema(doc as object, 'openapi');
  });

  after(async () => {
    await ingestion?.stop();
    await t?.close();
    await sim?.close();
  });

  function responseValidator(path: string, method: string, status: number): ValidateFunction | null {
    const key = `${method} ${path} ${status}`;
    if (!validators.has(key)) {
      const op = doc.paths[path]?.[method as (typeof METHODS)[number]];
      const response = op?.responses?.[String(status)] ?? op?.responses?.[`${String(status)[0]}XX`];
      const hasSchema = Boolean(response?.content?.['application/json']?.schema);
      const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema']
        .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/');
      validators.set(key, hasSchema ? (ajv.getSchema(`openapi#/${pointer}`) ?? null) : null);
    }
    return validators.get(key)!;
  }

  let base: string | undefined;
  /** `request` over a real socket: status, headers and (unless an event stream) body; undefined when fetch cannot send it */
  async function overSocket(request: InjectOptions): Promise<{ statusCode: number; headers: Record<string, string>; body: string } | undefined> {
    base ??= await t.app.listen({ port: 0, host: '127.0.0.1' });
    const abort = new AbortController();
    let res: Response;
    try {
      res = await fetch(`${base}${String(request.url)}`, { method: request.method ?? 'GET', headers: request.headers as Record<string, string>, signal: abort.signal });
    } catch {
      return undefined; // a header value fetch refuses to send
    }
    const headers = Object.fromEntries(res.headers);
    if (res.status === 200 && /text\/event-stream/.test(headers['content-type'] ?? '')) {
      abort.abort();
      return { statusCode: 200, headers, body: '' };
    }
    return { statusCode: res.status, headers, body: await res.text() };
  }

  it('no operation answers 5xx, leaks a stack trace or breaks its schema', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method]! })),
    );
    assert.ok(operations.length >= 3, `the document lists ${operations.length} operations`);
    const statuses = new Map<string, Set<number>>();
    for (const { path, method, op } of operations) {
      if (path === '/metrics') continue;
      const seen = new Set<number>();
      statuses.set(`${method.toUpperCase()} ${path}`, seen);
      // An event stream never ends: it is asked over a socket and left once its headers are in.
      const streaming = Boolean(op.responses?.['200']?.content?.['text/event-stream']);
      const check = async (request: InjectOptions) => {
        const res = streaming ? await overSocket(request) : await t.app.inject(request);
        if (res === undefined) return;
        seen.add(res.statusCode);
        const where = `${request.method} ${request.url} → ${res.statusCode}: ${res.body.slice(0, 300)}`;
        // Health answers 503 by design while a feed has no data; nothing else may fail with 5xx.
        assert.ok(res.statusCode < 500 || (path.startsWith('/api/health') && res.statusCode === 503), where);
        assert.doesNotMatch(res.body, STACK_TRACE, where);
        const type = String(res.headers['content-type'] ?? '');
        if (res.statusCode >= 400 && res.body.length > 0 && res.statusCode !== 403) {
          assert.match(type, /json|text\/plain/, where);
          if (/json/.test(type)) {
            const body = JSON.parse(res.body) as Record<string, unknown>;
            assert.ok(typeof body.detail === 'string' || typeof body.message === 'string', `error without detail/message: ${where}`);
          }
        }
        if (res.statusCode >= 200 && res.statusCode < 300 && /application\/json/.test(type)) {
          const validate = responseValidator(path, method, res.statusCode);
          if (validate && !validate(JSON.parse(res.body))) {
            assert.fail(`response does not match its schema: ${where}\n${ajv.errorsText(validate.errors)}`);
          }
        }
      };
      for (const request of edgeRequests(doc, path, method, op, known)) await check(request);
      await fc.assert(fc.asyncProperty(requestArbitrary(doc, path, method, op, known), check), { numRuns: RUNS, seed: SEED, endOnFailure: true });
    }
    // Make the coverage visible in the test output.
    const summary = [...statuses].map(([op, s]) => `${op}: ${[...s].sort().join(',')}`).join('\n');
    console.log(`fuzzed ${statuses.size} operations × ${RUNS} requests (seed ${SEED})\n${summary}`);
  });
});
