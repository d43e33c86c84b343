/** The `skymarket` command as an operator runs it: a real process, real signals. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../../helpers/services.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';
import { BAZAAR_PRODUCTS } from '../../../src/gamedata/builtin/catalog.ts';
import { glibcVersion } from '../../../src/heap.ts';

const REPO = join(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin/skymarket.js');
const dirs: TempDir[] = [];
after(() => dirs.forEach((d) => d.remove()));

/** A fresh directory, removed when the file's tests are done. */
function scratchDir(): string {
  const d = tempDir('cli');
  dirs.push(d);
  return d.path;
}


/** Spawns `node <args>`, collecting stdout and stderr in `output`; `exited` resolves with the exit code. */
function start(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const run = { child, output: '', exited: new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))) };
  child.stdout.on('data', (d) => (run.output += d));
  child.stderr.on('data', (d) => (run.output += d));
  return run;
}

const cleanEnv = { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'info' };

describe('skymarket CLI', () => {
  it('migrate applies the migrations once, then reports up to date', () => {
    const dir = scratchDir();
    const first = spawnSync(process.execPath, [BIN, 'migrate', '--data-dir', dir], { encoding: 'utf8', env: cleanEnv });
    assert.equal(first.status, 0, first.stderr);
    assert.ok(first.stdout.startsWith(`applied `), first.stdout);
    assert.ok(first.stdout.includes(` migration(s) to sqlite:${join(dir, 'skymarket.db')} (a new database): 001-initial`), first.stdout);
    const second = spawnSync(process.execPath, [BIN, 'migrate', '--data-dir', dir], { encoding: 'utf8', env: cleanEnv });
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /is up to date/);
  });

  it('refuses invalid config with exit code 2 and one line naming the variable', () => {
    const res = spawnSync(process.execPath, [BIN, 'serve'], { encoding: 'utf8', env: { ...cleanEnv, PORT: 'eighty' } });
    assert.equal(res.status, 2);
    assert.equal(res.stderr.trim(), "skymarket: Invalid PORT: expected an integer, got 'eighty'");
  });

  it('rejects unknown commands and bad flag values', () => {
    const unknown = spawnSync(process.execPath, [BIN, 'frobnicate'], { encoding: 'utf8', env: cleanEnv });
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /unknown command/);
    const badRole = spawnSync(process.execPath, [BIN, 'serve', '--role', 'boss'], { encoding: 'utf8', env: cleanEnv });
    assert.notEqual(badRole.status, 0);
    assert.match(badRole.stderr, /Allowed choices are all, api, ingest, jobs/);
  });

  it('serve answers health (saying why the upstream fails), then shuts down gracefully on SIGTERM', async () => {
    const dir = scratchDir();
    const port = await freePort();
    const upstreamPort = await freePort(); // nothing listens there
    const run = start([BIN, 'serve', '--data-dir', dir, '--port', String(port), '--host', '127.0.0.1'], { ...cleanEnv, UPSTREAM_URL: `http://127.0.0.1:${upstreamPort}` });
    const { child, exited } = run;
    try {
      const deadline = Date.now() + 40_000;
      let health: { status: string; reasons: string[]; upstream?: { url: string } } | undefined;
      // Ready to answer at once; the reasons name the upstream's failure once the first polls have given up.
      while (Date.now() < deadline) {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
        if (res) {
          assert.equal(res.status, 503);
          health = (await res.json()) as typeof health;
          if (health!.reasons.filter((r) => r.includes('ECONNREFUSED')).length === 2) break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(health, `server did not start: ${run.output}`);
      assert.equal(health.status, 'unavailable');
      const refused = `127.0.0.1:${upstreamPort} refused the connection (ECONNREFUSED): nothing listens there`;
      assert.ok(
        health.reasons.some((r) => r.startsWith('no bazaar snapshot stored yet: the bazaar feed') && r.endsWith(`GET http://127.0.0.1:${upstreamPort}/v2/skyblock/bazaar: ${refused}`)),
        JSON.stringify(health.reasons),
      );
      assert.equal(health.upstream?.url, `http://127.0.0.1:${upstreamPort}`);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, run.output);
      assert.match(run.output, /shutting down gracefully/);
      assert.match(run.output, /skymarket stopped/);
      // Not a terminal: structured JSON logs, one object per line, among them the start record with the URLs.
      const records = run.output.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; urls?: Record<string, string>; data?: string });
      const ready = records.find((r) => r.msg.startsWith('skymarket is ready'));
      assert.deepEqual(ready?.urls, {
        pages: `http://127.0.0.1:${port}/`,
        docs: `http://127.0.0.1:${port}/api/docs`,
        mods: `http://127.0.0.1:${port}/neu/lowestbin.json`,
        health: `http://127.0.0.1:${port}/api/health`,
        metrics: `http://127.0.0.1:${port}/metrics`,
      });
      assert.equal(ready?.data, `the Hypixel API at http://127.0.0.1:${upstreamPort}`);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('LOG_FORMAT=pretty: readable lines and a start banner with the URLs and where the data comes from', async () => {
    const dir = scratchDir();
    const port = await freePort();
    const run = start([BIN, 'serve', '--data-dir', dir, '--port', String(port), '--host', '0.0.0.0', '--upstream-url', `http://127.0.0.1:${await freePort()}`], { ...cleanEnv, LOG_FORMAT: 'pretty' });
    const { child, exited } = run;
    try {
      const deadline = Date.now() + 40_000;
      while (Date.now() < deadline && !run.output.includes('ingestion started')) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGTERM');
      assert.equal(await exited, 0, run.output);
      const lines = run.output.split('\n');
      assert.ok(!lines.some((l) => l.startsWith('{')), `no JSON lines:\n${run.output}`);
      assert.ok(lines.some((l) => /^\[\d\d:\d\d:\d\d\] INFO: database ready \(migrations applied\) \{"database":"sqlite:/.test(l)), run.output);
      assert.ok(lines.some((l) => /^\[\d\d:\d\d:\d\d\] INFO: \[leader\] /.test(l)), 'the component is shown in brackets');
      // The long configuration object of the first record stays in the JSON logs.
      assert.ok(lines.some((l) => /^\[\d\d:\d\d:\d\d\] INFO: starting skymarket$/.test(l)), run.output);
      // A wildcard listen address is shown as localhost, the address a person opens.
      const banner = run.output.slice(run.output.indexOf('  skymarket '));
      assert.match(banner, new RegExp(`^  skymarket \\S+ \\(role all\\) listening on http://localhost:${port}\\n`));
      assert.match(banner, new RegExp(`\\n    pages     http://localhost:${port}/ \\(items, bazaar, flips, the data page\\)\\n`));
      assert.match(banner, new RegExp(`\\n    API docs  http://localhost:${port}/api/docs\\n`));
      assert.match(banner, new RegExp(`\\n    for mods  http://localhost:${port}/neu/lowestbin\\.json and the other price files`));
      assert.match(banner, new RegExp(`\\n    health    http://localhost:${port}/api/health \\(503 with the reasons`));
      assert.match(banner, /\n    data      the Hypixel API at http:\/\/127\.0\.0\.1:\d+\n/);
      assert.match(banner, new RegExp(`\\n    database  sqlite:${dir}/skymarket\\.db\\n`));
      assert.ok(!run.output.includes('skymarket is ready'), 'the banner replaces the one-line record');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serve --demo ingests simulated data within seconds and says it is simulated', async () => {
    await demoServes(BIN);
  });

  it('the production build (npm run build) compiles and runs as plain JavaScript', async () => {
    const root = await compiled();
    const output = await demoServes(join(root, 'dist/cli.js'));
    // Compiled, the service runs in a worker thread with a bounded heap (src/heap.ts) and still stops gracefully.
    assert.match(output, /the service runs in a worker thread with a \d+ MB old generation/);
    assert.match(output, /skymarket stopped/);
    // The cold-sweep decode workers start from the compiled decode-worker.js (no tsx, no bundling).
    const script = `
      const { DecodePool } = await import(${JSON.stringify(join(root, 'dist/ingest/decode-pool.js'))});
      const pool = new DecodePool(1, (err) => { console.error(err); process.exit(2); });
      const body = Buffer.from('{"uuid": "broken');
      let answer;
      for (let i = 0; i < 1500 && !answer; i++) { answer = pool.tryDecode({ body, ranges: [{ from: 0, to: body.length }] }); if (!answer) await new Promise((r) => setTimeout(r, 20)); }
      console.log(JSON.stringify((await answer)?.map((r) => r.kind)));
      await pool.close();`;
    const worker = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: root });
    assert.equal(worker.stdout.trim(), '["invalid"]', worker.stderr);
  });

  it('production start needs only production dependencies: `npm start`, migrate and the skymarket command on the build', async () => {
    // What `npm ci --omit=dev` installs: the lockfile's packages not marked dev. Linked from this checkout's
    // node_modules (already built, better-sqlite3 included) instead of installed again, which would need
    // the network or a complete npm cache and a native compile. dist/ comes from the test above's build.
    const built = await compiled();
    const prod = scratchDir();
    cpSync(join(built, 'dist'), join(prod, 'dist'), { recursive: true });
    cpSync(join(REPO, 'bin'), join(prod, 'bin'), { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) cpSync(join(REPO, file), join(prod, file));
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    mkdirSync(join(prod, 'node_modules'));
    const linked: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
      if (!name || entry.dev) continue;
      if (name.startsWith('@')) mkdirSync(join(prod, 'node_modules', name.split('/')[0]!), { recursive: true });
      symlinkSync(join(REPO, path), join(prod, path), 'dir');
      linked.push(name);
    }
    for (const dev of ['tsx', 'typescript', 'esbuild', 'fast-check']) assert.ok(!linked.includes(dev), `${dev} is a dev dependency`);
    for (const needed of ['fastify', 'better-sqlite3', 'pino-pretty']) assert.ok(linked.includes(needed), `${needed} is a production dependency`);

    const env = { ...cleanEnv, PATH: process.env.PATH ?? '' };
    const data = join(prod, 'data');
    const migrate = spawnSync(process.execPath, ['dist/cli.js', 'migrate', '--data-dir', data], { cwd: prod, encoding: 'utf8', env });
    assert.equal(migrate.status, 0, migrate.stderr);
    assert.ok(migrate.stdout.includes(`to sqlite:${join(data, 'skymarket.db')} (a new database): 001-initial`), migrate.stdout);
    // The skymarket command finds no tsx and runs the build.
    const account = spawnSync(process.execPath, ['bin/skymarket.js', 'accounts', 'create', '--tier', 'free', '--data-dir', data], { cwd: prod, encoding: 'utf8', env });
    assert.equal(account.status, 0, account.stderr);
    assert.equal(account.stdout.split('\n')[0], `database: sqlite:${join(data, 'skymarket.db')}`);
    assert.match(account.stdout.trim().split('\n').at(-1)!, /^sma_/);

    // `npm start` as documented: the package.json script, nothing compiled on the way.
    const port = await freePort();
    const npmStart = spawn('npm', ['start', '--silent'], {
      cwd: prod,
      env: { ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: data, UPSTREAM_URL: `http://127.0.0.1:${await freePort()}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    npmStart.stdout.on('data', (d) => (output += d));
    npmStart.stderr.on('data', (d) => (output += d));
    // Every writer of the pipes gone: npm and the service it started.
    const closed = new Promise<void>((resolve) => npmStart.stdout.on('close', () => resolve()));
    try {
      let status: number | undefined;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && status === undefined) {
        status = (await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined))?.status;
        if (status === undefined) await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(status, 503, `npm start did not serve health: ${output.slice(-2000)}`);
      assert.match(output, /the service runs in a worker thread/, 'the compiled service');
      // glibc takes the allocator setting `npm start` gives it (heap.ts ALLOCATOR_TUNABLES).
      if (glibcVersion() !== undefined) assert.match(output, /the C allocator returns large blocks when freed/, output.slice(-2000));
      assert.doesNotMatch(output, /\btsc\b|\btsx\b/, "nothing is compiled or loaded through tsx");
      // A terminal's Ctrl-C or a service manager's stop reaches the whole process group (npm ends by the signal itself).
      process.kill(-npmStart.pid!, 'SIGTERM');
      await closed;
      assert.match(output, /shutting down gracefully/);
      assert.match(output, /skymarket stopped/, output.slice(-2000));
    } finally {
      try {
        process.kill(-npmStart.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});

let build: Promise<string> | undefined;

/**
 * `npm run build` into a temporary copy of the layout (dist/ beside package.json and node_modules), once
 * per file: every relative import, worker and file path must survive compilation. Resolves to that root.
 * tsc emits with `--noCheck`: `npm test`'s typecheck already checks src/ with the same options, and under
 * isolatedModules and verbatimModuleSyntax the emitted JavaScript does not depend on the type check (the
 * two builds were compared byte for byte: identical), so the test skips a second check of the whole program.
 */
function compiled(): Promise<string> {
  build ??= new Promise((resolve, reject) => {
    const root = scratchDir();
    symlinkSync(join(REPO, 'package.json'), join(root, 'package.json'));
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
    const tsc = spawn(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json'), '--noCheck', '--outDir', join(root, 'dist')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    tsc.stdout.on('data', (d) => (out += d));
    tsc.stderr.on('data', (d) => (out += d));
    // Then what `npm run build` does after tsc: the web assets and templates beside the compiled server.
    tsc.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`tsc failed (${code}): ${out}`));
      const web = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'scripts/build-web.ts'), join(root, 'dist', 'web')], { stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO });
      web.stdout.on('data', (d) => (out += d));
      web.stderr.on('data', (d) => (out += d));
      web.on('exit', (webCode) => (webCode === 0 ? resolve(root) : reject(new Error(`build-web failed (${webCode}): ${out}`))));
    });
  });
  return build;
}

/** Starts `<entry> serve --demo` and checks it ingests simulated data and shuts down cleanly. */
/** Runs the demo from `entry` until it is ready, stops it with SIGTERM; returns its output. */
async function demoServes(entry: string): Promise<string> {
  const dir = scratchDir();
  const port = await freePort();
  const run = start([entry, 'serve', '--demo', '--data-dir', dir, '--port', String(port), '--host', '127.0.0.1'], { ...cleanEnv, SIM_AUCTIONS: '300', SIM_BACKFILL: '30m' });
  const { child, exited } = run;
  try {
    const started = Date.now();
    let body: { status: string; simulated: boolean; feeds: Record<string, { records: number; source: string }> } | undefined;
    // A readiness wait, not a speed check: a loaded 2-core machine took over a minute to load the demo's history.
    while (Date.now() - started < 150_000) {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
      if (res?.status === 200) {
        body = (await res.json()) as typeof body;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(body, `demo never became ready: ${run.output.slice(-2000)}`);
    assert.equal(body.status, 'ok');
    // Ready means the demo's history is in: logged before health said ok, and the hour's 20-second points are there.
    assert.match(run.output, /demo history loaded/);
    const product = BAZAAR_PRODUCTS[0]!.id;
    const hour = (await (await fetch(`http://127.0.0.1:${port}/api/bazaar/${product}/history/hour`)).json()) as unknown[];
    assert.ok(hour.length >= 60, `${product} history/hour has ${hour.length} points`);
    assert.equal(body.simulated, true);
    assert.ok(body.feeds.auctions!.records >= 250, JSON.stringify(body.feeds));
    assert.equal(body.feeds.bazaar!.source, 'simulator');
    assert.match(run.output, /market data comes from the built-in simulator \(simulated, not real Hypixel data\)/);
    assert.match(run.output, /"msg":"skymarket is ready: pages at http:\/\/127\.0\.0\.1:\d+\/, API docs at http:\/\/127\.0\.0\.1:\d+\/api\/docs, health at http:\/\/127\.0\.0\.1:\d+\/api\/health; data from SIMULATED: the built-in market simulator at http:\/\/127\.0\.0\.1:\d+ \(not real Hypixel data\)"/);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /skymarket_ingest_records_total\{feed="auctions",outcome="stored",service="skymarket"\} \d+/);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, run.output.slice(-2000));
    return run.output;
  } finally {
    child.kill('SIGKILL');
  }
}

describe('skymarket CLI, more', () => {

  it('simulate serves the fake Hypixel API, marked as simulated', async () => {
    const port = await freePort();
    const run = start([BIN, 'simulate', '--port', String(port)], { ...cleanEnv, SIM_AUCTIONS: '1200' });
    const { child } = run;
    try {
      let page: Response | undefined;
      const started = Date.now();
      while (Date.now() - started < 20_000) {
        page = await fetch(`http://127.0.0.1:${port}/v2/skyblock/auctions?page=1`).catch(() => undefined);
        if (page?.status === 200) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(page?.status, 200, run.output);
      assert.equal(page.headers.get('x-skymarket-simulated'), 'true');
      const body = (await page.json()) as { page: number; totalPages: number; auctions: unknown[] };
      assert.equal(body.page, 1);
      assert.equal(body.totalPages, 2);
      assert.equal(body.auctions.length, 200);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('simulate refuses an invalid SIM_ variable with one line naming it', () => {
    const res = spawnSync(process.execPath, [BIN, 'simulate'], { encoding: 'utf8', env: { ...cleanEnv, SIM_AUCTIONS: 'lots' } });
    assert.notEqual(res.status, 0);
    assert.match(res.stderr.trim(), /^skymarket: SIM_AUCTIONS/);
    assert.equal(res.stderr.trim().split('\n').length, 1);
  });
});

