#!/usr/bin/env node
// Runs the test files under test/{unit,medium,system}/ with node:test.
//
// Usage: node scripts/run-tests.mjs [--tier unit|medium|system ...] [substring filter ...]
//
// Speed: the suite used to run every file through tsx (`node --import tsx --test`), which
// transpiles each module in a loader thread of every test process; importing app.ts took
// ~3 s per file. Here esbuild bundles all the selected files in one build (src/ and the test
// helpers go into shared chunks, packages stay external) into .test-build/, and node:test
// runs the bundles with plain node: the unit tier's files in two processes, one per core (they
// share no state: no top-level hooks, no globals, no servers), every medium and system file in
// its own process so those files stay isolated.
// Each module keeps its own import.meta.url/dirname/filename (rewritten to its source
// path at build time), so paths to fixtures, bin/ and src/ resolve as under tsx, and code
// that checks whether it runs compiled (`import.meta.url.endsWith('.js')`) still sees .ts.
//
// A *.test.ts outside the three tier folders is refused, so every new test gets a tier
// (see docs/development.md).
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..');
const TIERS = ['unit', 'medium', 'system'];

function collect(dir, skip = () => false) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (skip(path)) continue;
    if (statSync(path).isDirectory()) out.push(...collect(path, skip));
    else if (name.endsWith('.test.ts')) out.push(relative(ROOT, path));
  }
  return out;
}

const skipped = (path) => /(^|\/)(node_modules|\.git|\.test-build|dist|fixtures)$/.test(path);
const misplaced = collect(ROOT, skipped).filter((f) => !TIERS.some((tier) => f.startsWith(`test/${tier}/`)));
if (misplaced.length > 0) {
  console.error(`run-tests: these test files are outside test/unit, test/medium and test/system:\n  ${misplaced.join('\n  ')}`);
  console.error('Move each into its tier (docs/development.md, "Tests in three tiers") so it runs.');
  process.exit(1);
}

const argv = process.argv.slice(2);
const tiers = [];
const filters = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--tier') {
    const tier = argv[++i];
    if (!TIERS.includes(tier)) {
      console.error(`run-tests: unknown tier ${tier}; one of ${TIERS.join(', ')}`);
      process.exit(1);
    }
    tiers.push(tier);
  } else filters.push(argv[i]);
}
const files = (tiers.length > 0 ? tiers : TIERS)
  .flatMap((tier) => collect(join(ROOT, 'test', tier)))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error(`no test files matched ${argv.join(' ')}`);
  process.exit(1);
}

// Each module sees its own source location, not the bundle's.
const META = /\bimport\.meta\.(url|dirname|filename)\b/g;
const sourceLocation = {
  name: 'source-location',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const value = { url: pathToFileURL(args.path).href, dirname: dirname(args.path), filename: args.path };
      return { contents: text.replace(META, (_, key) => JSON.stringify(value[key])), loader: 'ts' };
    });
  },
};

// One directory per run, so runs side by side do not share bundles.
const OUT = join(ROOT, '.test-build', String(process.pid));
rmSync(OUT, { recursive: true, force: true });
const unitFiles = files.filter((f) => f.startsWith('test/unit/'));
const ownProcess = files.filter((f) => !f.startsWith('test/unit/'));
// The unit tier's entries: the selected unit files dealt round-robin into one bundle per core,
// each importing its files in order.
const concurrency = Math.max(1, Math.min(2, availableParallelism()));
const shards = Array.from({ length: Math.min(concurrency, unitFiles.length) }, (_, i) => unitFiles.filter((_, j) => j % concurrency === i));
const UNIT_ENTRY = /^unit-tier-(\d+)$/;
const unitEntry = {
  name: 'unit-entry',
  setup(b) {
    b.onResolve({ filter: UNIT_ENTRY }, (args) => ({ path: args.path, namespace: 'unit-tier' }));
    b.onLoad({ filter: /.*/, namespace: 'unit-tier' }, (args) => ({
      contents: shards[Number(UNIT_ENTRY.exec(args.path)[1])].map((f) => `import ${JSON.stringify(join(ROOT, f))};`).join('\n'),
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};
await build({
  absWorkingDir: ROOT,
  entryPoints: [...shards.map((_, i) => ({ in: `unit-tier-${i}`, out: `test/unit/unit-tier-${i}` })), ...ownProcess],
  outdir: OUT,
  outbase: ROOT,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  plugins: [unitEntry, sourceLocation],
});

const bundles = [...shards.map((_, i) => join(OUT, `test/unit/unit-tier-${i}.mjs`)), ...ownProcess.map((f) => join(OUT, f.replace(/\.ts$/, '.mjs')))];
const args = ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...bundles];
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: ROOT });
child.on('exit', (code, signal) => {
  rmSync(OUT, { recursive: true, force: true });
  process.exit(signal ? 1 : (code ?? 1));
});
