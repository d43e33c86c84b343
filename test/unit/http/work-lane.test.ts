import assert from 'node:assert/strict';
import { it } from 'node:test';
import { WorkLane } from '../../../src/http/work-lane.ts';

/** Work the test finishes by hand, noting when it starts. */
function held(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<string>((resolve) => (finish = () => resolve(name)));
  return {
    work: () => {
      started.push(name);
      return done;
    },
    finish,
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

it('runs at most `slots` at once, queues `queue` more in order, and refuses the rest without running them', async () => {
  const lane = new WorkLane(2, 2);
  const started: string[] = [];
  const jobs = ['a', 'b', 'c', 'd', 'e'].map((name) => held(started, name));
  const answers = jobs.map((j) => lane.run(j.work));
  await settle();
  assert.deepEqual(started, ['a', 'b']);
  assert.equal(lane.load, 4);
  assert.equal(await answers[4], undefined, 'the fifth is refused: two running, two waiting');
  jobs[1]!.finish();
  assert.deepEqual(await answers[1], { value: 'b' });
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c'], 'the first waiting takes the freed slot');
  // A newcomer while one still waits queues behind it (the slot passed on, not freed).
  const late = held(started, 'f');
  const lateAnswer = lane.run(late.work);
  jobs[0]!.finish();
  await settle();
  assert.deepEqual(started, ['a', 'b', 'c', 'd']);
  for (const j of [jobs[2]!, jobs[3]!, late]) j.finish();
  assert.deepEqual(await Promise.all([answers[2], answers[3], lateAnswer]), [{ value: 'c' }, { value: 'd' }, { value: 'f' }]);
  assert.equal(lane.load, 0);
});

it('frees the slot of work that fails', async () => {
  const lane = new WorkLane(1, 0);
  await assert.rejects(lane.run(() => Promise.reject(new Error('bad upload'))), /bad upload/);
  assert.equal(lane.load, 0);
  assert.deepEqual(await lane.run(async () => 1), { value: 1 });
});
