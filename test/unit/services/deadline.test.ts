import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DeadlineExceeded, withDeadline } from '../../../src/services/deadline.ts';

it('withDeadline cuts work that never finishes when its time is up, not before, and passes on work that does', async (t) => {
  // node:test's mock timers: the deadline is counted in ticks of a clock the test moves, not waited for.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let outcome: unknown = 'pending';
  const cut = withDeadline(new Promise(() => undefined), 50).catch((err: unknown) => (outcome = err));
  t.mock.timers.tick(49);
  await Promise.resolve();
  assert.equal(outcome, 'pending', 'still waiting 1 ms before the deadline');
  t.mock.timers.tick(1);
  const failed: unknown = await cut;
  assert.ok(failed instanceof DeadlineExceeded && failed.ms === 50, String(failed));
  assert.equal(await withDeadline(Promise.resolve(7), 1000), 7);
  await assert.rejects(withDeadline(Promise.reject(new Error('own')), 1000), /own/);
  await assert.rejects(withDeadline(Promise.resolve(7), 0), DeadlineExceeded);
});
