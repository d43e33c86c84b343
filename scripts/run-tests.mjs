#!/usr/bin/env node
// Runs the test files under test/{unit,medium,system}/ with node:test.
//
// Usage: node scripts/run-tests.mjs [--checks] [--timings] [--tier unit|medium|system ...] [substring filter ...]
//
// --checks: also run the static checks (`npm run typecheck`, `rules`, `lint`) alongside the tests, in
// processes of their own, and fail when one fails (`npm test` does). tsc and dependency-cruiser are
// single-threaded and the medium and system files often wait on databases, sockets and child processes,
// so on a 2-core machine the checks fill time a core would idle; one after another before the tests they
// cost about half a minute of wall time. A failing check's output is printed as soon as it ends.
//
// --timings: after the run, print each test process's wall and CPU time (its own, and that of the
// child processes it waited for: builds, spawned servers, Chromium), slowest first, with totals per
// tier and the runner's own bundling; scripts/test-timing.mjs records them.
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
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { build, stop } from 'esbuild';

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
let timings = false;
let checks = false;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--timings') timings = true;
  else if (argv[i] === '--checks') checks = true;
  else if (argv[i] === '--tier') {
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

// One directory per run, so runs side by side do not share bundles.
const OUT = join(ROOT, '.test-build', String(process.pid));
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const TIMINGS_FILE = join(OUT, 'timings.jsonl');
const TIMING_PRELOAD = pathToFileURL(join(ROOT, 'scripts/test-timing.mjs')).href;

const checkProcesses = [];
/** `npm run --silent <script>` in a process of its own (timed under --timings), its output kept. */
function runCheck(script) {
  // A small node wrapper, so --timings records the check (npm and what it starts) as one process.
  const wrapper = `process.exitCode = (await import('node:child_process')).spawnSync('npm', ['run', '--silent', ${JSON.stringify(script)}], { stdio: 'inherit' }).status ?? 1;`;
  const child = spawn(process.execPath, [...(timings ? ['--import', TIMING_PRELOAD] : []), '--input-type=module', '-e', wrapper], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: timings ? { ...process.env, TEST_TIMINGS_FILE: TIMINGS_FILE, TEST_TIMING_NAME: `npm run ${script}` } : process.env,
  });
  checkProcesses.push(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0) console.error(`\nrun-tests: npm run ${script} failed (exit ${code}):\n${output}`);
      resolve({ script, ok: code === 0 });
    }),
  );
}
const checking = checks ? Promise.all(['typecheck', 'rules', 'lint'].map(runCheck)) : Promise.resolve([]);

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

// Shared processes. Starting node and importing the bundled app costs ~1.4 s of CPU per process, more than many
// files' own tests: the unit files, and the medium files that can share a process, are dealt round-robin into a few
// bundles, each importing its files in order (node:test runs a process's files one after another). A medium file
// keeps a process of its own when it registers top-level hooks (they would wrap every file of the shard), mocks
// timers, listens to process events, or says `// test-process: own`.
const OWN_PROCESS = /^(before|after|beforeEach|afterEach)\(|mock\.timers|process\.(on|once)\(|\/\/ test-process: own/m;
const shareable = (f) => f.startsWith('test/unit/') || (f.startsWith('test/medium/') && !OWN_PROCESS.test(readFileSync(join(ROOT, f), 'utf8')));
const unitFiles = files.filter((f) => f.startsWith('test/unit/'));
const sharedMedium = files.filter((f) => f.startsWith('test/medium/') && shareable(f));
const ownProcess = files.filter((f) => !shareable(f));
const concurrency = Math.max(1, Math.min(2, availableParallelism()));
/** `files` dealt round-robin into `count` shards (none empty). */
const deal = (list, count) => Array.from({ length: Math.min(count, list.length) }, (_, i) => list.filter((_, j) => j % count === i));
// The unit tier in one shard per core; the medium files in more, so the shards and the processes of their own even
// out across the two cores (files are handed out longest first, below).
const shards = [
  ...deal(unitFiles, concurrency).map((list, i) => ({ name: `test/unit/unit-tier-${i}`, files: list })),
  ...deal(sharedMedium, 6).map((list, i) => ({ name: `test/medium/medium-shard-${i}`, files: list })),
];
const SHARD_ENTRY = /^shard:(\d+)$/;
const unitEntry = {
  name: 'shard-entry',
  setup(b) {
    b.onResolve({ filter: SHARD_ENTRY }, (args) => ({ path: args.path, namespace: 'shard' }));
    b.onLoad({ filter: /.*/, namespace: 'shard' }, (args) => ({
      contents: shards[Number(SHARD_ENTRY.exec(args.path)[1])].files.map((f) => `import ${JSON.stringify(join(ROOT, f))};`).join('\n'),
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};
/** CPU seconds of the processes this one has reaped (Linux; 0 elsewhere). */
function reapedCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}
const beforeBuild = { own: process.cpuUsage(), reaped: reapedCpu() };
try {
  await build({
    absWorkingDir: ROOT,
    entryPoints: [...shards.map((shard, i) => ({ in: `shard:${i}`, out: shard.name })), ...ownProcess],
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
} catch (err) {
  for (const c of checkProcesses) c.kill();
  throw err;
}
// esbuild's own process ends here, so its CPU is counted in the bundling figure.
await stop();
const ownBuild = process.cpuUsage(beforeBuild.own);
const bundlingCpu = (ownBuild.user + ownBuild.system) / 1e6 + reapedCpu() - beforeBuild.reaped;
const bundled = process.cpuUsage();
// Longest first, so the last process to start is a short one: the system files (spawned servers, Chromium), the
// medium shards, the medium files of their own, the unit shards.
const rank = (name) => (name.startsWith('test/system/') ? 0 : name.includes('medium-shard-') ? 1 : name.startsWith('test/medium/') ? 2 : 3);
const bundles = [...shards.map((shard) => shard.name), ...ownProcess.map((f) => f.replace(/\.ts$/, ''))]
  .map((name, i) => ({ name, i }))
  .sort((a, b) => rank(a.name) - rank(b.name) || a.i - b.i)
  .map(({ name }) => join(OUT, `${name}.mjs`));
const preload = timings ? ['--import', TIMING_PRELOAD] : [];
const FAILURES_FILE = join(OUT, 'failures.txt');
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', `--test-reporter=${pathToFileURL(join(ROOT, 'scripts/test-failures.mjs')).href}`, `--test-reporter-destination=${FAILURES_FILE}`];
const args = ['--enable-source-maps', ...preload, '--test', `--test-concurrency=${concurrency}`, ...reporters, ...bundles];
const started = performance.now();
const child = spawn(process.execPath, args, {
  stdio: 'inherit',
  cwd: ROOT,
  env: timings ? { ...process.env, TEST_TIMINGS_FILE: TIMINGS_FILE } : process.env,
});
child.on('exit', async (code, signal) => {
  const testsWall = (performance.now() - started) / 1000;
  const checked = await checking;
  const failedChecks = checked.filter((c) => !c.ok).map((c) => `npm run ${c.script}`);
  if (checks) console.error(failedChecks.length > 0 ? `run-tests: failed: ${failedChecks.join(', ')}` : 'run-tests: typecheck, rules and lint passed');
  if (timings) printTimings(testsWall, (performance.now() - started) / 1000);
  printFailures();
  rmSync(OUT, { recursive: true, force: true });
  process.exit(signal || failedChecks.length > 0 ? 1 : (code ?? 1));
});

/** The failed tests again, after everything else, so the tail of a long log names them. */
function printFailures() {
  let text = '';
  try {
    text = readFileSync(FAILURES_FILE, 'utf8').trim();
  } catch {
    return;
  }
  if (text === '') return;
  const shown = text.replaceAll(`${OUT}/`, '').replaceAll('.mjs', '.ts');
  console.error(`\nrun-tests: failed tests (${text.split('\n').filter((l) => !l.startsWith(' ')).length}):\n${shown}`);
}

/** The --timings table: one row per test process, slowest (by CPU) first, then totals. */
function printTimings(testsWallS, wallS) {
  let lines = [];
  try {
    lines = readFileSync(TIMINGS_FILE, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  } catch {
    // no test process got far enough to record
  }
  const name = (entry) => {
    if (entry.startsWith('npm run ')) return `check: ${entry}`;
    const rel = relative(OUT, entry).replace(/\.mjs$/, '.ts');
    const shard = shards.find((sh) => `${sh.name}.ts` === rel);
    return shard ? `${shard.name.split('/').slice(0, 2).join('/')} (${shard.name.split('/')[2]}: ${shard.files.length} files)` : rel;
  };
  const rows = lines
    .map((l) => ({ file: name(l.entry), wall: l.wallS, own: l.userS + l.sysS, children: l.childrenS }))
    .sort((a, b) => b.own + b.children - (a.own + a.children));
  const fmt = (n) => n.toFixed(1).padStart(7);
  const out = ['', 'test process timings (seconds; cpu = user+sys)', `${'cpu'.padStart(7)}${'own'.padStart(7)}${'child'.padStart(7)}${'wall'.padStart(7)}  file`];
  for (const r of rows) out.push(`${fmt(r.own + r.children)}${fmt(r.own)}${fmt(r.children)}${fmt(r.wall)}  ${r.file}`);
  for (const tier of TIERS) {
    const inTier = rows.filter((r) => r.file.startsWith(`test/${tier}/`) || r.file.startsWith(`test/${tier} `));
    if (inTier.length === 0) continue;
    const sum = (f) => inTier.reduce((acc, r) => acc + f(r), 0);
    out.push(`${fmt(sum((r) => r.own + r.children))}${fmt(sum((r) => r.own))}${fmt(sum((r) => r.children))}${fmt(sum((r) => r.wall))}  total ${tier} (${inTier.length} processes)`);
  }
  const checkRows = rows.filter((r) => r.file.startsWith('check: '));
  if (checkRows.length > 0) {
    const sum = (f) => checkRows.reduce((acc, r) => acc + f(r), 0);
    out.push(`${fmt(sum((r) => r.own + r.children))}${fmt(sum((r) => r.own))}${fmt(sum((r) => r.children))}${' '.repeat(7)}  total checks (${checkRows.length} processes, side by side)`);
  }
  const runner = process.cpuUsage(bundled);
  out.push(`${fmt(bundlingCpu)}${' '.repeat(21)}  esbuild bundling (runner and esbuild)`);
  out.push(`${fmt((runner.user + runner.system) / 1e6)}${' '.repeat(21)}  runner while waiting`);
  // Everything the runner's children reaped: esbuild, node --test, every test process, their children, the checks.
  const own = process.cpuUsage();
  const descendants = reapedCpu() + (own.user + own.system) / 1e6;
  out.push(`${' '.repeat(21)}${fmt(testsWallS)}  wall of node --test`);
  out.push(`${fmt(descendants)}${' '.repeat(14)}${fmt(wallS)}  the runner and all it started (cpu), the run (wall)`);
  console.error(out.join('\n'));
}
