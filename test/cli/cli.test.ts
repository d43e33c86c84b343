/** The `skymarket` command as an operator runs it: a real process, real signals. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const BIN = join(import.meta.dirname, '../../bin/skymarket.js');
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'skymarket-cli-'));
  dirs.push(d);
  return d;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const cleanEnv = { ...process.env, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'info' };

describe('skymarket CLI', () => {
  it('migrate applies the migrations once, then reports up to date', () => {
    const dir = tempDir();
    const first = spawnSync(process.execPath, [BIN, 'migrate', '--data-dir', dir], { encoding: 'utf8', env: cleanEnv });
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /applied \d+ migration\(s\) to sqlite:.*001-initial/);
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

  it('serve answers health, then shuts down gracefully on SIGTERM', async () => {
    const dir = tempDir();
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'serve', '--data-dir', dir, '--port', String(port), '--host', '127.0.0.1'], {
      env: cleanEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 20_000;
      let health: Response | undefined;
      while (Date.now() < deadline) {
        health = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
        if (health) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(health, `server did not start: ${output}`);
      assert.equal(health.status, 503);
      assert.equal(((await health.json()) as { status: string }).status, 'unavailable');
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      assert.match(output, /shutting down gracefully/);
      assert.match(output, /skymarket stopped/);
      // Structured JSON logs, one object per line.
      for (const line of output.trim().split('\n').filter((l) => l.startsWith('{'))) JSON.parse(line);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
