/**
 * The rules of the house (.dependency-cruiser.cjs, run by `npm run rules` in `npm test`): each
 * forbidden import below, in a throwaway tree laid out like src/, fails with the rule's name.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { tempDir, type TempDir } from '../helpers/temp-dir.ts';

const ROOT = join(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

const dirs: TempDir[] = [];
after(() => dirs.forEach((d) => d.remove()));

/** Cruises a tree of `files` (path → source) with the project's rules: exit code and output. */
async function cruise(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const temp = tempDir('rules');
  dirs.push(temp);
  const dir = temp.path;
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, '--output-type', 'err'], { cwd: dir });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

describe('rules of the house', () => {
  it('a tree that keeps the rules passes', async () => {
    const result = await cruise({
      'src/domain/prices.ts': 'export const median = (xs: number[]) => xs[0];\n',
      'src/store/index.ts': "import { median } from '../domain/prices.ts';\nexport const read = () => median([1]);\n",
      'src/services/prices.ts': "import { read } from '../store/index.ts';\nexport const price = () => read();\n",
      'src/api/prices.ts': "import { price } from '../services/prices.ts';\nimport type { read } from '../store/index.ts';\nimport { shape } from './shapes.ts';\nexport const route = (): ReturnType<typeof read> => shape(price());\n",
      'src/api/shapes.ts': 'export const shape = (n: number) => n;\n',
    });
    assert.equal(result.code, 0, result.output);
  });

  const cases: Array<[string, Record<string, string>]> = [
    ['domain-is-pure', { 'src/domain/a.ts': "import { b } from '../store/b.ts';\nexport const a = b;\n", 'src/store/b.ts': 'export const b = 1;\n' }],
    ['domain-is-pure', { 'src/domain/a.ts': "import type { B } from '../store/b.ts';\nexport type A = B;\n", 'src/store/b.ts': 'export type B = number;\n' }],
    ['domain-no-io', { 'src/domain/a.ts': "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n" }],
    ['faces-over-services', { 'src/api/a.ts': "import { b } from '../store/b.ts';\nexport const a = b;\n", 'src/store/b.ts': 'export const b = 1;\n' }],
    ['faces-not-on-each-other', { 'src/api/a.ts': "import { b } from '../web/b.ts';\nexport const a = b;\n", 'src/web/b.ts': 'export const b = 1;\n' }],
    ['faces-not-on-each-other', { 'src/stream/a.ts': "import { b } from '../api/b.ts';\nexport const a = b;\n", 'src/api/b.ts': 'export const b = 1;\n' }],
    ['faces-over-services', { 'src/web/a.ts': "import { b } from '../store/b.ts';\nexport const a = b;\n", 'src/store/b.ts': 'export const b = 1;\n' }],
    ['faces-over-services', { 'src/web/a.ts': "import { b } from '../simulator/b.ts';\nexport const a = b;\n", 'src/simulator/b.ts': 'export const b = 1;\n' }],
    ['faces-over-services', { 'src/web/a.ts': "import { b } from '../ingest/b.ts';\nexport const a = b;\n", 'src/ingest/b.ts': 'export const b = 1;\n' }],
    ['faces-not-on-each-other', { 'src/web/a.ts': "import { b } from '../api/b.ts';\nexport const a = b;\n", 'src/api/b.ts': 'export const b = 1;\n' }],
    ['faces-not-on-each-other', { 'src/web/a.ts': "import { b } from '../stream/b.ts';\nexport const a = b;\n", 'src/stream/b.ts': 'export const b = 1;\n' }],
    ['web-client-in-browser', { 'src/web/client/a.ts': "import { b } from '../../services/b.ts';\nexport const a = b;\n", 'src/services/b.ts': 'export const b = 1;\n' }],
    ['web-client-in-browser', { 'src/web/client/a.ts': "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n" }],
    ['stream-over-services', { 'src/stream/a.ts': "import type { B } from '../store/b.ts';\nexport type A = B;\n", 'src/store/b.ts': 'export type B = number;\n' }],
    ['stream-over-services', { 'src/stream/a.ts': "import { b } from '../market/b.ts';\nexport const a = b;\n", 'src/market/b.ts': 'export const b = 1;\n' }],
    ['stream-over-services', { 'src/stream/a.ts': "import type { B } from '../api/b.ts';\nexport type A = B;\n", 'src/api/b.ts': 'export type B = number;\n' }],
    ['store-not-upward', { 'src/store/a.ts': "import type { B } from '../http/b.ts';\nexport type A = B;\n", 'src/http/b.ts': 'export type B = number;\n' }],
    ['mod-channel-apart', { 'src/mod/a.ts': "import { b } from '../api/b.ts';\nexport const a = b;\n", 'src/api/b.ts': 'export const b = 1;\n' }],
    ['services-not-upward', { 'src/services/a.ts': "import { b } from '../api/b.ts';\nexport const a = b;\n", 'src/api/b.ts': 'export const b = 1;\n' }],
    ['upstream-only-in-ingest', { 'src/market/a.ts': "import { request } from 'undici';\nexport const a = request;\n" }],
    ['views-follow-the-spine', { 'src/market/a.ts': "import { b } from '../spine/redis.ts';\nexport const a = b;\n", 'src/spine/redis.ts': 'export const b = 1;\n' }],
    ['spine-not-upward', { 'src/spine/a.ts': "import type { B } from '../market/b.ts';\nexport type A = B;\n", 'src/market/b.ts': 'export type B = number;\n' }],
    ['no-circular', { 'src/market/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n", 'src/market/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n" }],
  ];
  for (const [rule, files] of cases) {
    it(`${rule}: a forbidden import (${Object.keys(files)[0]}) fails, named by its rule`, async () => {
      const result = await cruise(files);
      assert.notEqual(result.code, 0, result.output);
      assert.match(result.output, new RegExp(`error ${rule}:`));
    });
  }
});

describe('faces call services, not the store or the market', () => {
  it('no module under src/api/, src/web/ or src/stream/ reaches for app.store, app.market or app.clock (imports are checked above; calls are checked here)', () => {
    const files = ['api', 'web', 'stream'].flatMap((face) => readdirSync(join(import.meta.dirname, '../../src', face)).filter((f) => f.endsWith('.ts')).map((f) => join(face, f)));
    assert.ok(files.some((f) => f.startsWith('web')) && files.some((f) => f.startsWith('stream')), 'web/ and stream/ modules are checked');
    const dir = join(import.meta.dirname, '../../src');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      const found = /\bapp\.(store|market|clock)\b/.exec(text);
      assert.equal(found, null, `${file} calls ${found?.[0]}: ask a service (src/services/) instead`);
    }
  });
});
