import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DeadlineExceeded, withDeadline } from '../../../src/services/deadline.ts';

it('withDeadline cuts work that never finishes, and passes on work that does', async () => {
  const started = Date.now();
  await assert.rejects(withDeadline(new Promise(() => undefined), 50), (err) => err instanceof DeadlineExceeded && err.ms === 50);
  assert.ok(Date.now() - started < 5000);
  assert.equal(await withDeadline(Promise.resolve(7), 1000), 7);
  await assert.rejects(withDeadline(Promise.reject(new Error('own')), 1000), /own/);
  await assert.rejects(withDeadline(Promise.resolve(7), 0), DeadlineExceeded);
});
