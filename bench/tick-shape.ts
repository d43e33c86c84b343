/**
 * A check, run with the benchmarks (`npm run bench -- tick-shape`), not in `npm test`: it reads
 * V8's internals, which belong with the performance work, not with behaviour.
 *
 * src/tick-shape.ts: without a held tick object, full collections between ticks make the stores
 * in `process.nextTick` megamorphic; with one held, they stay monomorphic. The state is read from
 * V8 itself (%DebugPrint of nextTick's feedback), in a child process with natives syntax and gc().
 * Either expectation failing fails the run.
 */
import { spawnSync } from 'node:child_process';
import { strict as assert } from 'node:assert';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { BenchRow } from './lib.ts';

const MODULE = pathToFileURL(join(import.meta.dirname, '..', 'src', 'tick-shape.ts')).href;

/** The child: ticks, then full collections with no tick object alive, eight rounds; then nextTick's feedback. */
function child(hold: boolean): { states: string[]; held: { symbols: string[]; keys: string[] } | null; stdout: string } {
  const script = `
    const { keepTickObjectShape, heldTickObject } = await import(${JSON.stringify(MODULE)});
    if (${hold}) keepTickObjectShape();
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    for (let round = 0; round < 8; round++) {
      for (let i = 0; i < 10; i++) { process.nextTick(() => {}); await turn(); }
      await turn();
      for (let g = 0; g < 3; g++) globalThis.gc();
    }
    eval('%DebugPrint(process.nextTick)');
    const held = heldTickObject();
    process.stderr.write('HELD ' + JSON.stringify(held ? { symbols: Object.getOwnPropertySymbols(held).map(String), keys: Object.keys(held) } : null) + '\\n');
  `;
  // %DebugPrint writes through C's stdio, which drops output on a non-blocking pipe: stdout goes to a file.
  const dir = mkdtempSync(join(tmpdir(), 'skymarket-tick-'));
  const out = openSync(join(dir, 'stdout'), 'w');
  let run;
  try {
    run = spawnSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', out, 'pipe'], encoding: 'utf8', timeout: 60_000 });
  } finally {
    closeSync(out);
  }
  const stdout = readFileSync(join(dir, 'stdout'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  assert.equal(run.status, 0, run.stderr);
  const states = [...stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
  // The JSON line goes to stderr, where nothing of V8's interleaves with it.
  const heldLine = /^HELD (.*)$/m.exec(run.stderr);
  assert.ok(heldLine, run.stderr.slice(-500));
  return { states, held: JSON.parse(heldLine[1]!) as { symbols: string[]; keys: string[] } | null, stdout };
}

export async function run(): Promise<BenchRow[]> {
  // Without a held tick object, collections between ticks leave nextTick megamorphic.
  const bare = child(false);
  // The tick literal's four computed stores; if V8 stops showing them, this check needs revisiting.
  assert.equal(bare.states.length, 4, `nextTick's feedback: ${bare.states.join(', ')}; stdout ${bare.stdout.length} B: ${bare.stdout.slice(0, 300)}`);
  assert.ok(bare.states.includes('MEGAMORPHIC'), `expected the collapse to reproduce: ${bare.states.join(', ')}`);
  assert.equal(bare.held, null);

  // keepTickObjectShape holds a tick object and nextTick stays monomorphic.
  const kept = child(true);
  assert.deepEqual(kept.states, ['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
  assert.deepEqual(kept.held, { symbols: ['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)'], keys: ['callback', 'args'] });

  const megamorphic = (states: string[]) => states.filter((state) => state === 'MEGAMORPHIC').length;
  return [
    { name: 'nextTick stores megamorphic, no tick object held', figure: megamorphic(bare.states), unit: 'of 4', notes: bare.states.join(' ') },
    { name: 'nextTick stores megamorphic, keepTickObjectShape', figure: megamorphic(kept.states), unit: 'of 4', notes: 'check passed: all monomorphic' },
  ];
}
