import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { spawn } from 'node:child_process';
import * as tar from 'tar';
import { loadGameData, syncedGameDataPath } from '../../../src/gamedata/index.ts';
import { GameDataSyncError, progressLine, syncGameData } from '../../../src/gamedata/sync.ts';
import { Agent } from 'undici';
import { writeMiniRepo } from '../../helpers/mini-repo.ts';
import { tempDir, type TempDir } from '../../helpers/temp-dir.ts';

describe('gamedata sync', () => {
  let work: TempDir;
  let server: Server;
  let base: string;
  let archive: Buffer;
  let sha: string;

  before(async () => {
    work = tempDir('sync');
    // Like GitHub's archives: everything under one top-level folder.
    writeMiniRepo(join(work.path, 'src', 'NotEnoughUpdates-REPO-master'));
    const file = join(work.path, 'repo.tar.gz');
    await tar.c({ gzip: true, file, cwd: join(work.path, 'src') }, ['NotEnoughUpdates-REPO-master']);
    archive = readFileSync(file);
    sha = createHash('sha256').update(archive).digest('hex');
    server = createServer((req, res) => {
      if (req.url === '/repo.tar.gz') {
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.length });
        // In two chunks so progress is reported more than once.
        res.write(archive.subarray(0, 100));
        setTimeout(() => res.end(archive.subarray(100)), 5);
      } else if (req.url === '/redirect') {
        res.writeHead(302, { location: '/repo.tar.gz' }).end();
      } else if (req.url === '/plain') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('not an archive');
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    work.remove();
  });

  test('downloads (following redirects), verifies, unpacks into DATA_DIR and reports progress', async () => {
    const dataDir = join(work.path, 'data1');
    const progress: Array<[number, number | undefined]> = [];
    const result = await syncGameData({ url: `${base}/redirect`, dataDir, sha256: sha, onProgress: (r, t) => progress.push([r, t]) });
    assert.equal(result.path, syncedGameDataPath(dataDir));
    assert.equal(result.items, 9);
    assert.equal(result.sha256, sha);
    assert.equal(result.bytes, archive.length);
    assert.ok(progress.length >= 1);
    assert.deepEqual(progress.at(-1), [archive.length, archive.length]);
    const data = loadGameData({ dataDir });
    assert.equal(data.source.kind, 'synced');
    assert.ok(data.recipes.has('ENCHANTED_WHEAT'));
    // Nothing but the repository is left behind.
    assert.deepEqual(readdirSync(join(dataDir, 'gamedata')), ['neu-repo']);
  });

  test('a failed sync keeps the previous copy', async () => {
    const dataDir = join(work.path, 'data2');
    await syncGameData({ url: `${base}/repo.tar.gz`, dataDir });
    await assert.rejects(syncGameData({ url: `${base}/repo.tar.gz`, dataDir, sha256: '0'.repeat(64) }), /checksum mismatch/);
    await assert.rejects(syncGameData({ url: `${base}/missing`, dataDir }), /HTTP 404/);
    await assert.rejects(syncGameData({ url: `${base}/plain`, dataDir }), /not a gzip archive/);
    assert.ok(existsSync(join(syncedGameDataPath(dataDir), 'items', 'WHEAT.json')));
    assert.deepEqual(readdirSync(join(dataDir, 'gamedata')), ['neu-repo']);
  });

  test('the CLI: gamedata sync with progress, gamedata info, one-line errors', async () => {
    const dataDir = join(work.path, 'data-cli');
    const ok = await runCli(['gamedata', 'sync', '--url', `${base}/repo.tar.gz`, '--data-dir', dataDir, '--sha256', sha]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /game data synced to .*neu-repo: 9 items/);
    assert.match(ok.stderr, /100% /, 'progress is shown');
    const info = await runCli(['gamedata', 'info', '--data-dir', dataDir]);
    assert.equal(info.code, 0, info.stderr);
    assert.equal((JSON.parse(info.stdout) as { source: { kind: string } }).source.kind, 'synced');
    const bad = await runCli(['gamedata', 'sync', '--url', `${base}/repo.tar.gz`, '--data-dir', dataDir, '--sha256', 'f'.repeat(64), '--quiet']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr.trim(), /^skymarket: checksum mismatch/);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
  });

  test('a download that cannot start says which host failed and why, and how to work offline', async () => {
    const dataDir = join(work.path, 'data-offline');
    // A resolver that knows no host, as on a machine without network: the real fetch path, no DNS query sent.
    const offline = new Agent({
      connect: {
        lookup: (hostname, _options, callback) =>
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname }), '', 4),
      },
    });
    try {
      const err = await syncGameData({ url: 'https://neu-archive.example/repo.tar.gz', dataDir, dispatcher: offline }).then(
        () => assert.fail('the sync succeeded'),
        (e: unknown) => e as GameDataSyncError,
      );
      assert.ok(err instanceof GameDataSyncError, String(err));
      assert.equal(
        err.message,
        'could not download the game data archive from https://neu-archive.example/repo.tar.gz: the host neu-archive.example could not be resolved (ENOTFOUND): no network, no DNS, or a misspelt host name',
      );
      assert.match(err.hint ?? '', /set GAME_DATA_DIR to a NotEnoughUpdates repository checkout/);
      assert.deepEqual(readdirSync(join(dataDir, 'gamedata')), [], 'nothing is left behind');
    } finally {
      await offline.close();
    }
  });

  test('the CLI: a failed download is one line saying what failed, then a hint about GAME_DATA_DIR', async () => {
    // A port nothing listens on (the test's server, closed).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const res = await runCli(['gamedata', 'sync', '--url', `http://127.0.0.1:${port}/repo.tar.gz`, '--data-dir', join(work.path, 'data-refused'), '--quiet']);
    assert.equal(res.code, 1);
    const [line, hint, ...rest] = res.stderr.trim().split('\n');
    assert.equal(
      line,
      `skymarket: could not download the game data archive from http://127.0.0.1:${port}/repo.tar.gz: 127.0.0.1:${port} refused the connection (ECONNREFUSED): nothing listens there`,
    );
    assert.match(hint ?? '', /^hint: to work offline, set GAME_DATA_DIR to a NotEnoughUpdates repository checkout/);
    assert.deepEqual(rest, []);
    assert.doesNotMatch(res.stderr, /fetch failed/);
  });

  test('progress line', () => {
    assert.match(progressLine(512 * 1024, 1024 * 1024), /^\[#{15}-{15}\]  50% 0\.5\/1\.0 MB$/);
    assert.equal(progressLine(1_048_576, undefined), 'downloading 1.0 MB');
  });
});

const BIN = join(import.meta.dirname, '../../../bin/skymarket.js');

/** Runs the CLI without blocking this process (the test's HTTP server must keep answering). */
function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, GAME_DATA_DIR: '', GAME_DATA_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
