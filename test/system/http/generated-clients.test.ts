/**
 * Clients generated from the live OpenAPI document work: an orval fetch client and
 * openapi-typescript types are generated from `/api/docs/json` of a listening app, typechecked
 * with tsc, and used to ask for the lowest BINs with a filter (one typed query parameter each).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// The generated clients are TypeScript: the test runner runs bundled JavaScript, so they are loaded through tsx.
import { tsImport } from 'tsx/esm/api';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate } from 'orval';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { listing, storeGeneration } from '../../helpers/auctions.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';

const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
const ROUTE = '/api/auctions/tag/{itemTag}/active/bin';

/** The caller over the openapi-typescript types: the types decide what may be sent and what comes back. */
const TYPED_CALLER = `import type { paths } from './schema.ts';
type Op = paths['${ROUTE}']['get'];
export type Query = NonNullable<Op['parameters']['query']>;
export type LowestBins = Op['responses'][200]['content']['application/json'];
export async function lowestBins(origin: string, itemTag: Op['parameters']['path']['itemTag'], query: Query): Promise<{ status: number; body: LowestBins }> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.append(name, String(value));
  const res = await fetch(\`\${origin}/api/auctions/tag/\${encodeURIComponent(itemTag)}/active/bin?\${search}\`);
  return { status: res.status, body: (await res.json()) as LowestBins };
}
`;

/** What the test calls, typed by the generated code; tsc checks these calls as a client author's code would be. */
const USAGE = `import { getAuctionsTagByItemTagActiveBin, FilterRarityParameter } from './orval.ts';
import { lowestBins, type Query } from './typed.ts';
export async function withOrval(itemTag: string) {
  return getAuctionsTagByItemTagActiveBin(itemTag, { Rarity: FilterRarityParameter.LEGENDARY, Stars: '0-5', Bin: true });
}
export async function withTypes(origin: string, itemTag: string) {
  const query: Query = { Rarity: 'LEGENDARY', Stars: '0-5', Bin: true };
  return lowestBins(origin, itemTag, query);
}
`;

const run = promisify(execFile);

describe('clients generated from the OpenAPI document', () => {
  let t: TestApp;
  let dir: TempDir;
  let origin: string;
  const legendary: string[] = [];

  before(async () => {
    t = await createTestApp();
    dir = tempDir('clients');
    const now = t.clock.now();
    const rows = [
      ...['LEGENDARY', 'MYTHIC', 'EPIC', 'LEGENDARY'].map((tier, i) => listing(now, { tier, starting_bid: 1_000_000 + i })),
    ];
    for (const row of rows) if (row.tier === 'LEGENDARY') legendary.push(row.uuid);
    await storeGeneration(t.store, now, rows, []);
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });

    const doc = (await (await fetch(`${origin}/api/docs/json`)).json()) as object;
    writeFileSync(join(dir.path, 'openapi.json'), JSON.stringify(doc));
    await generate(
      { input: { target: join(dir.path, 'openapi.json') }, output: { target: join(dir.path, 'orval.ts'), client: 'fetch', mode: 'single', baseUrl: origin } },
      dir.path,
    );
    writeFileSync(join(dir.path, 'schema.ts'), astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0])));
    writeFileSync(join(dir.path, 'typed.ts'), TYPED_CALLER);
    writeFileSync(join(dir.path, 'usage.ts'), USAGE);
  });
  after(async () => {
    await t.close();
    dir.remove();
  });

  it('typecheck with tsc (strict)', async () => {
    const compilerOptions = {
      strict: true,
      noEmit: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['es2022', 'dom'],
      types: [],
      allowImportingTsExtensions: true,
    };
    writeFileSync(join(dir.path, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['orval.ts', 'schema.ts', 'typed.ts', 'usage.ts'] }));
    await run(process.execPath, [TSC, '-p', dir.path]).catch((error: { stdout?: string }) => assert.fail(`tsc: ${error.stdout}`));
  });

  it('call the lowest BINs with a typed Rarity filter and get only the legendary ones', async () => {
    const usage = (await tsImport(pathToFileURL(join(dir.path, 'usage.ts')).href, import.meta.url)) as {
      withOrval(tag: string): Promise<{ status: number; data: unknown }>;
      withTypes(origin: string, tag: string): Promise<{ status: number; body: unknown }>;
    };
    const orval = await usage.withOrval('HYPERION');
    assert.equal(orval.status, 200, JSON.stringify(orval.data));
    assert.deepEqual((orval.data as Array<{ uuid: string }>).map((a) => a.uuid).sort(), [...legendary].sort());
    const typed = await usage.withTypes(origin, 'HYPERION');
    assert.equal(typed.status, 200, JSON.stringify(typed.body));
    assert.deepEqual((typed.body as Array<{ uuid: string; tier: string }>).map((a) => a.uuid).sort(), [...legendary].sort());
    assert.ok((typed.body as Array<{ tier: string }>).every((a) => a.tier === 'LEGENDARY'));
  });

  it('still get 400 unknown_filter for a filter the engine does not know, sent through the orval client', async () => {
    const client = (await tsImport(pathToFileURL(join(dir.path, 'orval.ts')).href, import.meta.url)) as {
      getAuctionsTagByItemTagActiveBin(tag: string, params: Record<string, unknown>): Promise<{ status: number; data: { slug?: string; filter?: string } }>;
    };
    const res = await client.getAuctionsTagByItemTagActiveBin('HYPERION', { Frobnicate: '1' });
    assert.equal(res.status, 400);
    assert.deepEqual([res.data.slug, res.data.filter], ['unknown_filter', 'Frobnicate']);
  });
});
