import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ManualClock } from '../../../src/clock.ts';
import { ClockWindow, GENERAL_LIMITS, MemoryWindowCounts } from '../../../src/http/limits.ts';

/** A full GC (the test runner starts node without --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('in-memory rate-limit windows', () => {
  it('count per client and window, refund, and keep only the current and the previous window', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const counts = new MemoryWindowCounts();
    const window = new ClockWindow({ id: '10s', points: 3, durationSec: 10 }, counts, clock);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await window.consume('ip:a'));
    assert.deepEqual(
      results.map((r) => [r.consumed, r.exceeded]),
      [
        [1, false],
        [2, false],
        [3, false],
        [4, true],
      ],
    );
    assert.equal(results[0]!.resetAt, Date.UTC(2026, 0, 1) + 10_000);
    await window.refund('ip:a', 1);
    assert.equal((await window.consume('ip:b')).consumed, 1, 'clients are counted apart');
    assert.equal((await window.consume('ip:a')).consumed, 4, 'the refund gave one point back');

    clock.advance(10_000);
    assert.equal((await window.consume('ip:a')).consumed, 1, 'a new window starts from zero');
    assert.equal(counts.size, 3, 'the previous window is kept while answers from it may be in flight');
    clock.advance(10_000);
    await window.consume('ip:c');
    assert.equal(counts.size, 2, 'windows older than the previous one are dropped');
  });

  it('hold little heap per client (regression: ~0.45 KB per client and window with rate-limiter-flexible)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 0, 0, 1));
    const windows = GENERAL_LIMITS.map((spec) => new ClockWindow(spec, new MemoryWindowCounts(), clock));
    const clients = 20_000;
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < clients; i++) {
      const key = `ip:10.${(i >> 16) & 0xff}.${(i >> 8) & 0xff}.${i & 0xff}`;
      for (const w of windows) await w.consume(key);
    }
    collectGarbage();
    const perClientAndWindow = (process.memoryUsage().heapUsed - before) / clients / windows.length;
    // ~100 bytes measured (key string + map entry); the threshold leaves room for V8 versions.
    assert.ok(perClientAndWindow < 250, `${Math.round(perClientAndWindow)} bytes per client and window`);
    assert.equal(windows.length, 2);
  });
});
