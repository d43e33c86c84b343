import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ALLOCATOR_TUNABLES, DEFAULT_HEAP_MB, YOUNG_GENERATION_MB, allocatorSetting, heapPlan as planFor } from '../../src/heap.ts';

/** The plan `serve` makes for this environment and node command line (cli.ts). */
const heapPlan = (env: Record<string, string>, execArgv: string[], compiled: boolean) => planFor(loadConfig(env).heapMb, execArgv, env.NODE_OPTIONS, compiled);

describe('the service heap plan', () => {
  const v8DefaultMb = Math.floor(getHeapStatistics().heap_size_limit / 1048576);

  it('runs the compiled service in a worker with a bounded old generation by default', () => {
    const young = YOUNG_GENERATION_MB;
    assert.deepEqual(heapPlan({}, [], true), { kind: 'worker', maxOldGenerationSizeMb: Math.min(DEFAULT_HEAP_MB, v8DefaultMb), maxYoungGenerationSizeMb: young });
    assert.deepEqual(heapPlan({ SKYMARKET_HEAP_MB: '768' }, [], true), { kind: 'worker', maxOldGenerationSizeMb: 768, maxYoungGenerationSizeMb: young });
  });

  it("leaves the heap to node when the operator sized it, opted out, or the code runs through tsx", () => {
    assert.equal(heapPlan({}, ['--max-old-space-size=384'], true).kind, 'in-process');
    assert.equal(heapPlan({ NODE_OPTIONS: '--max_old_space_size=384' }, [], true).kind, 'in-process');
    assert.equal(heapPlan({ SKYMARKET_HEAP_MB: '0' }, [], true).kind, 'in-process');
    assert.equal(heapPlan({}, [], false).kind, 'in-process');
  });

  it('rejects a limit that is not a whole number of MB or too small to start', () => {
    assert.throws(() => heapPlan({ SKYMARKET_HEAP_MB: '1.5' }, [], true), ConfigError);
    assert.throws(() => heapPlan({ SKYMARKET_HEAP_MB: 'lots' }, [], true), ConfigError);
    assert.throws(() => heapPlan({ SKYMARKET_HEAP_MB: '64' }, [], true), ConfigError);
  });
});

describe('the C allocator setting', () => {
  it('is fixed by `npm start`, and an operator\'s own GLIBC_TUNABLES wins', () => {
    const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const start = /^GLIBC_TUNABLES=\$\{GLIBC_TUNABLES:-([^}]+)\} node dist\/cli\.js serve$/.exec(scripts.start!);
    assert.ok(start, scripts.start);
    assert.equal(start[1], ALLOCATOR_TUNABLES);
  });

  it('tells a fixed mmap threshold from glibc\'s moving one, and other C libraries from both', () => {
    assert.deepEqual(allocatorSetting(ALLOCATOR_TUNABLES, '2.36'), { kind: 'fixed threshold', tunables: ALLOCATOR_TUNABLES });
    assert.deepEqual(allocatorSetting('glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536', '2.36').kind, 'fixed threshold');
    assert.deepEqual(allocatorSetting('glibc.malloc.arena_max=2', '2.36'), { kind: 'glibc default', tunables: 'glibc.malloc.arena_max=2' });
    assert.deepEqual(allocatorSetting(undefined, '2.36'), { kind: 'glibc default', tunables: undefined });
    assert.deepEqual(allocatorSetting('glibc.malloc.mmap_threshold=x', '2.36').kind, 'glibc default');
    assert.deepEqual(allocatorSetting(ALLOCATOR_TUNABLES, undefined), { kind: 'not glibc' });
  });
});
