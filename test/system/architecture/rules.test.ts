/**
 * The rules of the house (.dependency-cruiser.cjs, run by `npm run rules` in `npm test`): each
 * forbidden import below, in a throwaway tree laid out like src/, fails with the rule's name.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';

const ROOT = join(import.meta.dirname, '../../..');
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

/**
 * Case `i`'s modules renamed apart (`a.ts` → `a_i.ts`, imports too), so that every case
 * fits in one tree and dependency-cruiser runs once for all of them.
 */
function apart(i: number, files: Record<string, string>): Record<string, string> {
  // Only the stems cases share (a, b) are renamed: a file named for a rule (src/spine/redis.ts) keeps its name.
  const stems = Object.keys(files).map((path) => /([^/]+)\.ts$/.exec(path)![1]!).filter((stem) => stem === 'a' || stem === 'b');
  const rename = (text: string) => stems.reduce((t, stem) => t.replaceAll(`/${stem}.ts`, `/${stem}_${i}.ts`), text);
  return Object.fromEntries(Object.entries(files).map(([path, source]) => [rename(`/${path}`).slice(1), rename(source)]));
}

/** The `error <rule>: <from> → …` lines of an `err` report. */
const violations = (output: string) => output.split('\n').filter((line) => /^\s*error \S+:/.test(line)).map((line) => line.trim());

describe('rules of the house', () => {
  const passing: Record<string, string> = {
    'src/domain/prices.ts': 'export const median = (xs: number[]) => xs[0];\n',
    'src/store/index.ts': "import { median } from '../domain/prices.ts';\nexport const read = () => median([1]);\n",
    'src/services/prices.ts': "import { read } from '../store/index.ts';\nexport const price = () => read();\n",
    'src/api/prices.ts': "import { price } from '../services/prices.ts';\nimport type { median } from '../domain/prices.ts';\nimport { shape } from './shapes.ts';\nexport const route = (): ReturnType<typeof median> => shape(price());\n",
    'src/api/shapes.ts': 'export const shape = (n: number) => n;\n',
  };

  const cases: Array<[string, Record<string, string>]> = [
    ['domain-is-pure', { 'src/domain/a.ts': "import { b } from '../store/b.ts';\nexport const a = b;\n", 'src/store/b.ts': 'export const b = 1;\n' }],
    ['domain-is-pure', { 'src/domain/a.ts': "import type { B } from '../store/b.ts';\nexport type A = B;\n", 'src/store/b.ts': 'export type B = number;\n' }],
    ['domain-no-io', { 'src/domain/a.ts': "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n" }],
    ['faces-over-services', { 'src/api/a.ts': "import { b } from '../store/b.ts';\nexport const a = b;\n", 'src/store/b.ts': 'export const b = 1;\n' }],
    ['faces-without-store', { 'src/api/a.ts': "import type { B } from '../store/b.ts';\nexport type A = B;\n", 'src/store/b.ts': 'export type B = number;\n' }],
    ['faces-without-store', { 'src/web/a.ts': "import type { B } from '../store/repositories/b.ts';\nexport type A = B;\n", 'src/store/repositories/b.ts': 'export type B = number;\n' }],
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
    ['market-reads-only', { 'src/market/a.ts': "import { b } from '../jobs/b.ts';\nexport const a = b;\n", 'src/jobs/b.ts': 'export const b = 1;\n' }],
    ['market-reads-only', { 'src/market/a.ts': "import type { B } from '../ingest/b.ts';\nexport type A = B;\n", 'src/ingest/b.ts': 'export type B = number;\n' }],
    ['no-redis-in-services', { 'src/services/a.ts': "import { Redis } from 'ioredis';\nexport const a = Redis;\n" }],
    ['upstream-only-in-ingest', { 'src/market/a.ts': "import { request } from 'undici';\nexport const a = request;\n" }],
    ['views-follow-the-spine', { 'src/market/a.ts': "import { b } from '../spine/redis.ts';\nexport const a = b;\n", 'src/spine/redis.ts': 'export const b = 1;\n' }],
    ['spine-not-upward', { 'src/spine/a.ts': "import type { B } from '../market/b.ts';\nexport type A = B;\n", 'src/market/b.ts': 'export type B = number;\n' }],
    ['no-circular', { 'src/market/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n", 'src/market/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n" }],
  ];
  // One tree: the passing modules and every case renamed apart; one run of dependency-cruiser.
  const trees = cases.map(([, files], i) => apart(i, files));
  let result: { code: number; output: string } | undefined;
  before(async () => {
    result = await cruise(Object.assign({}, passing, ...trees));
  });

  it('a tree that keeps the rules passes', () => {
    assert.ok(result, 'dependency-cruiser ran');
    const named = violations(result.output).filter((line) => Object.keys(passing).some((path) => line.includes(path)));
    assert.deepEqual(named, [], result.output);
    // Every violation of the run comes from one of the cases.
    const froms = trees.map((tree) => Object.keys(tree)[0]);
    const unexplained = violations(result.output).filter((line) => !froms.some((from) => line.includes(`: ${from} `)));
    assert.deepEqual(unexplained, [], result.output);
  });

  cases.forEach(([rule, files], i) => {
    const from = Object.keys(trees[i]!)[0];
    it(`${rule}: a forbidden import (${Object.keys(files)[0]}) fails, named by its rule`, () => {
      assert.ok(result, 'dependency-cruiser ran');
      assert.notEqual(result.code, 0, result.output);
      const lines = violations(result.output).filter((line) => line.startsWith(`error ${rule}: ${from} `));
      assert.ok(lines.length > 0, `expected "error ${rule}: ${from} …" in\n${result.output}`);
    });
  });
});

describe('faces call services, not the store or the market', () => {
  it('no module under src/api/, src/web/ or src/stream/ reaches for app.store, app.market or app.clock (imports are checked above; calls are checked here)', () => {
    const files = ['api', 'web', 'stream'].flatMap((face) => readdirSync(join(import.meta.dirname, '../../../src', face)).filter((f) => f.endsWith('.ts')).map((f) => join(face, f)));
    assert.ok(files.some((f) => f.startsWith('web')) && files.some((f) => f.startsWith('stream')), 'web/ and stream/ modules are checked');
    const dir = join(import.meta.dirname, '../../../src');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      const found = /\bapp\.(store|market|clock)\b/.exec(text);
      assert.equal(found, null, `${file} calls ${found?.[0]}: ask a service (src/services/) instead`);
    }
  });
});

describe('the market only reads', () => {
  it('no module under src/market/ calls a rollup writer (imports of jobs/ are checked above; calls are checked here)', () => {
    const dir = join(import.meta.dirname, '../../../src/market');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    assert.ok(files.includes('sales-rollups.ts') && files.includes('flips.ts'), 'the rollup readers are checked');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      const found = /\b(priceRollups|saleRollups|bazaarHistory)\.(begin|roll\w*|rewind|recordBins|ageTo|setDoneUntil|compact|delete\w*)\(/.exec(text);
      assert.equal(found, null, `market/${file} calls ${found?.[0]}: rollups are written by jobs/ (the jobs leader)`);
    }
  });

  it('no module under src/market/ makes bytes: the market returns data, the registry of prepared answers serialises and compresses (http/prepared-answers.ts)', () => {
    // dependency-cruiser sees imports, not a type in a signature or a JSON.stringify of an answer: a scan
    // (active-auctions.ts's interning keys, JSON.stringify(e) and (flat), are no answer).
    const dir = join(import.meta.dirname, '../../../src/market');
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    assert.ok(files.includes('bulk-prices.ts') && files.includes('item-catalog.ts'), 'the former byte makers are checked');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      const found = /\bBuffer\b|node:zlib|\bgzipSync\b|\bbrotliCompress\w*|JSON\.stringify\((?!e\)|flat\))/.exec(text);
      assert.equal(found, null, `market/${file} uses ${found?.[0]}: return data, and declare the answer in http/prepared-answers.ts`);
    }
  });
});
