/**
 * The registry of prepared answers (src/http/prepared-answers.ts): an answer is built from the
 * kind's data once per key and generation, kept until its generation moves or its validUntil
 * passes, served from memory only while the kind says it may be, and compressed once per encoding.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compressSync } from '../../../src/http/codecs.ts';
import { PreparedAnswer, PreparedAnswers, PreparedRegistry, preparedAnswerOf, type AnswerKind } from '../../../src/http/prepared-answers.ts';

function kindOf(over: Partial<AnswerKind<unknown>> & { data: Map<string, unknown> }): { answers: PreparedAnswers<unknown>; clock: { t: number }; state: { generation: number; servable: boolean; builds: string[] } } {
  const clock = { t: 1000 };
  const state = { generation: 1, servable: true, builds: [] as string[] };
  const answers = new PreparedAnswers<unknown>(
    {
      name: 'test',
      generation: () => state.generation,
      servable: () => state.servable,
      build: async (key) => {
        state.builds.push(key);
        return over.data.has(key) ? { value: over.data.get(key), validUntil: 5000 } : undefined;
      },
      ...over,
    },
    () => clock.t,
  );
  return { answers, clock, state };
}

describe('PreparedAnswers', () => {
  it('builds once per key and generation, serves the kept bytes while current, rebuilds after the generation moves', async () => {
    const data = new Map<string, unknown>([['A', [1, 2, 3]]]);
    const { answers, state } = kindOf({ data });
    assert.equal(answers.current('A'), undefined, 'nothing before a build');
    const first = await answers.get('A', undefined);
    assert.equal(first?.plain.toString(), '[1,2,3]');
    assert.equal(answers.current('A'), first, 'the same answer while current');
    assert.equal(await answers.get('A', undefined), first);
    assert.deepEqual(state.builds, ['A']);
    data.set('A', [4]);
    state.generation++;
    assert.equal(answers.current('A'), undefined, 'stale after the views moved');
    assert.equal((await answers.get('A', undefined))?.plain.toString(), '[4]');
    assert.deepEqual(state.builds, ['A', 'A']);
    assert.equal(answers.builds, 2);
  });

  it('a miss is not kept; validUntil and servable hold an answer back', async () => {
    const { answers, clock, state } = kindOf({ data: new Map([['A', { a: 1 }]]) });
    assert.equal(await answers.get('NONE', undefined), undefined);
    assert.equal(answers.size, 0);
    await answers.get('A', undefined);
    state.servable = false;
    assert.equal(answers.current('A'), undefined, 'not servable now');
    state.servable = true;
    assert.ok(answers.current('A'));
    clock.t = 5000;
    assert.equal(answers.current('A'), undefined, 'past validUntil');
  });

  it('concurrent requests share one build; a build that read an older generation leaves the answer stale', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const state = { generation: 1, builds: 0 };
    const answers = new PreparedAnswers<number>(
      {
        name: 'slow',
        generation: () => state.generation,
        build: async () => {
          state.builds++;
          await gate;
          return { value: state.generation };
        },
      },
      () => 0,
    );
    const a = answers.get('', undefined);
    const b = answers.get('', undefined);
    state.generation = 2; // a change applied while the first build runs
    const c = answers.get('', undefined);
    release();
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    assert.equal(ra, rb, 'one build for the same generation');
    assert.notEqual(ra, rc, 'a new build for the new generation');
    assert.equal(state.builds, 2);
    assert.equal(answers.current(''), rc, 'the answer of the current generation is kept');
  });

  it('keep: false sends but keeps nothing; a generation the build names is the one kept', async () => {
    const state = { file: { v: 1 } as object | undefined };
    const answers = new PreparedAnswers<string, object>(
      {
        name: 'named',
        generation: () => state.file,
        build: (key, given) => (key === 'skip' ? { value: 'x', keep: false } : { value: 'y', generation: given }),
      },
      () => 0,
    );
    await answers.get('skip', {});
    assert.equal(answers.current('skip'), undefined);
    state.file = undefined; // the view is between builds
    const file = { v: 2 };
    const built = await answers.get('f', file);
    assert.equal(answers.current('f'), undefined, 'kept under the file it was built from, not the current one');
    state.file = file;
    assert.equal(answers.current('f'), built);
    assert.equal(answers.prepare('f', file), built, 'prepare returns the kept answer');
  });
});

describe('PreparedAnswer', () => {
  it('compresses once per encoding with the codecs both paths use, and is found by its plain bytes', async () => {
    const plain = Buffer.from(JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ i, name: `item ${i}` }))));
    const answer = new PreparedAnswer(plain);
    assert.equal(preparedAnswerOf(plain), answer);
    assert.equal(preparedAnswerOf(Buffer.from(plain)), undefined, 'only the answer\u2019s own Buffer');
    assert.equal(answer.known('gzip'), undefined);
    const gzip = answer.variant('gzip');
    assert.equal(answer.variant('gzip'), gzip, 'kept');
    assert.deepEqual(gzip, compressSync(plain, 'gzip'));
    assert.deepEqual(gunzipSync(gzip), plain);
    const br = await new Promise<Buffer>((resolve, reject) => answer.variantAsync('br', (err, out) => (err ? reject(err) : resolve(out))));
    assert.deepEqual(br, compressSync(plain, 'br'), 'the thread pool gives the same bytes');
    assert.equal(answer.variant('br'), br, 'the first made is kept');
    assert.deepEqual(brotliDecompressSync(br), plain);
  });

  it('a registry refuses a kind defined twice and lists its kinds', () => {
    const registry = new PreparedRegistry({ now: () => 0 });
    registry.define({ name: 'one', generation: () => 0, build: () => ({ value: 1 }) });
    assert.throws(() => registry.define({ name: 'one', generation: () => 0, build: () => ({ value: 1 }) }), /defined twice/);
    assert.deepEqual(registry.names(), ['one']);
    assert.equal(registry.get('one')?.prepare('', undefined).plain.toString(), '1');
  });
});
