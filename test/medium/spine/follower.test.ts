/**
 * The spine in one process and a projection following it: changes numbered in order and handed
 * over synchronously; a follower applies them in order, buffers what arrives during its load, and
 * resynchronises from its source of truth on a hole (a jump, a `lost` change, a transport that was
 * away), saying so in its state (health, metrics).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InProcessSpine } from '../../../src/spine/in-process.ts';
import { Follower, Followers } from '../../../src/spine/follower.ts';
import type { ChangeSource, SpineEvent } from '../../../src/spine/index.ts';
import type { MarketChange, MarketChangeBody } from '../../../src/domain/market-change.ts';
import { HealthService } from '../../../src/services/health.ts';
import { Store } from '../../../src/store/index.ts';
import { ManualClock } from '../../../src/clock.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { waitUntil } from '../../helpers/wait.ts';

const resource = (lastUpdated: number): MarketChangeBody => ({ kind: 'resource', resource: 'items', lastUpdated });

/** A projection of the items resource's lastUpdated, whose store is a plain variable. */
function projection(store: { lastUpdated: number }) {
  const state = { lastUpdated: -1, loads: 0, applied: [] as number[], gate: undefined as Promise<void> | undefined };
  return {
    state,
    projection: {
      async load() {
        state.loads++;
        await state.gate;
        state.lastUpdated = store.lastUpdated;
      },
      apply(change: MarketChange) {
        if (change.kind !== 'resource') return;
        state.applied.push(change.seq);
        state.lastUpdated = change.lastUpdated;
      },
    },
  };
}

const until = (condition: () => boolean): Promise<void> => waitUntil(condition, 2000, 'the condition', 2);

describe('in-process spine', () => {
  it('numbers changes 1, 2, 3 and hands each to every subscriber at once, relays last', () => {
    const spine = new InProcessSpine();
    const seen: string[] = [];
    spine.relay((e) => e.type === 'change' && seen.push(`relay ${e.change.seq}`));
    const stop = spine.subscribe(0, (e) => e.type === 'change' && seen.push(`a ${e.change.seq}`));
    spine.publish(resource(1));
    spine.publish(resource(2));
    stop();
    spine.publish(resource(3));
    assert.deepEqual(seen, ['a 1', 'relay 1', 'a 2', 'relay 2', 'relay 3']);
    assert.equal(spine.last, 3);
  });
});

describe('a follower of the spine', () => {
  it('loads once, then applies every change in order without reading its store again', async () => {
    const spine = new InProcessSpine();
    const store = { lastUpdated: 10 };
    const { state, projection: p } = projection(store);
    const followers = new Followers();
    const follower = new Follower({ name: 'items', source: spine, projection: p, followers, now: () => 0 });
    await follower.start();
    assert.equal(state.lastUpdated, 10);
    for (const at of [11, 12, 13]) spine.publish(resource(at));
    assert.equal(state.lastUpdated, 13);
    assert.deepEqual(state.applied, [1, 2, 3]);
    assert.equal(state.loads, 1);
    assert.equal(follower.state.seq, 3);
    assert.deepEqual(followers.behind(), []);
  });

  it('changes published during the load are applied after it', async () => {
    const spine = new InProcessSpine();
    const store = { lastUpdated: 10 };
    const { state, projection: p } = projection(store);
    let open!: () => void;
    state.gate = new Promise((r) => (open = r));
    const followers = new Followers();
    const follower = new Follower({ name: 'items', source: spine, projection: p, followers, now: () => 0 });
    const started = follower.start();
    await until(() => state.loads === 1);
    spine.publish(resource(11));
    assert.equal(followers.behind().length, 1, 'behind while loading');
    open();
    await started;
    assert.equal(state.lastUpdated, 11);
    assert.deepEqual(followers.behind(), []);
  });

  it('resynchronises on a jump, on a lost change and after the transport was away; behind until reloaded', async () => {
    const inner = new InProcessSpine();
    // A transport that can lose a change on the way or go away, as a network one does.
    let dropNext = false;
    let handler: ((e: SpineEvent) => void) | undefined;
    const source: ChangeSource = {
      head: () => inner.head(),
      subscribe(from, h) {
        handler = h;
        return inner.subscribe(from, (e) => {
          if (dropNext) dropNext = false;
          else h(e);
        });
      },
    };
    const store = { lastUpdated: 10 };
    const { state, projection: p } = projection(store);
    const followers = new Followers();
    const logged: string[] = [];
    const logger = { warn: (_o: unknown, msg: string) => logged.push(msg), error: () => undefined, debug: () => undefined } as never;
    const follower = new Follower({ name: 'items', source, projection: p, followers, now: () => 0, logger });
    await follower.start();

    // 1: lost on the way; 2 shows the hole: reload (the store has both).
    dropNext = true;
    store.lastUpdated = 11;
    inner.publish(resource(11));
    store.lastUpdated = 12;
    inner.publish(resource(12));
    await until(() => state.loads === 2 && followers.behind().length === 0);
    assert.equal(state.lastUpdated, 12);
    assert.equal(follower.state.seq, 2);
    assert.deepEqual(follower.state.resyncs, { 'seq-jump': 1 });
    assert.equal(logged.filter((m) => m.includes('resynchronises')).length, 1, 'one log line per resync');

    // The writer says it lost changes.
    store.lastUpdated = 20;
    inner.publish({ kind: 'lost', count: 1 });
    await until(() => state.loads === 3 && followers.behind().length === 0);
    assert.equal(state.lastUpdated, 20);

    // The transport goes away: behind (health) until it is back and the reload is in.
    handler!({ type: 'unavailable', error: 'connection refused' });
    assert.match(followers.behind()[0]!.behind!, /unavailable/);
    handler!({ type: 'restored', reason: 'restarted' });
    await until(() => state.loads === 4 && followers.behind().length === 0);
    assert.deepEqual(follower.state.resyncs, { 'seq-jump': 1, 'writer-lost': 1, restarted: 1 });
    assert.equal(followers.resyncCount(), 3);

    // In order again.
    inner.publish(resource(21));
    assert.equal(state.lastUpdated, 21);
    assert.equal(state.loads, 4);
  });
});

describe('a hole found while a load is under way', () => {
  it('loads again after it: a stream that restarted empty during a resync numbers from 1, below the head that load read', async () => {
    // A transport whose head and numbering the test sets, as a Redis that restarts without its data.
    let head = 0;
    let handler: ((e: SpineEvent) => void) | undefined;
    const source: ChangeSource = {
      head: async () => head,
      subscribe(_from, h) {
        handler = h;
        return () => undefined;
      },
    };
    const send = (seq: number, body: MarketChangeBody) => handler!({ type: 'change', change: { ...body, seq } as MarketChange });
    const store = { lastUpdated: 10 };
    const { state, projection: p } = projection(store);
    const followers = new Followers();
    const follower = new Follower({ name: 'items', source, projection: p, followers, now: () => 0 });
    await follower.start();
    head = 1;
    send(1, resource(11));
    assert.equal(follower.state.seq, 1);

    // A resync starts (the writer lost a change) and reads head 2; its load is slow.
    let release!: () => void;
    state.gate = new Promise((r) => (release = r));
    head = 2;
    store.lastUpdated = 12;
    send(2, { kind: 'lost', count: 1 });
    await until(() => state.loads === 2);
    // Meanwhile Redis goes away and comes back empty: the stream numbers from 1 again.
    handler!({ type: 'unavailable', error: 'connection refused' });
    handler!({ type: 'restored', reason: 'restarted' });
    head = 0;
    state.gate = undefined;
    release();
    await until(() => state.loads === 3 && followers.behind().length === 0);
    assert.equal(follower.state.seq, 0, 'the second load read the restarted stream\'s head');
    assert.deepEqual(follower.state.resyncs, { 'writer-lost': 1, restarted: 1 });

    // The restarted stream's first change is applied, not taken for one already in the state.
    store.lastUpdated = 30;
    send(1, resource(30));
    assert.equal(state.lastUpdated, 30);
    assert.equal(follower.state.seq, 1);
  });
});

describe('health while a view is behind', () => {
  it('/api/health\'s report warns while a follower knows it is behind, and stops once it has caught up', async () => {
    const dir = tempDir('spine-health');
    const store = await Store.open({ dataDir: dir.path });
    try {
      const followers = new Followers();
      const clock = new ManualClock(1_000_000);
      const health = new HealthService(store, clock, { config: { role: 'all' }, dataSource: 'upstream', followers });
      let open!: () => void;
      const gate = new Promise<void>((r) => (open = r));
      const follower = new Follower({
        name: 'active-auctions',
        source: store.changes,
        projection: { load: () => gate, apply: () => undefined },
        followers,
        now: () => clock.now(),
      });
      const started = follower.start();
      clock.advance(12_000);
      const during = await health.check();
      assert.deepEqual(during.warnings, ['the active-auctions view is behind the stored market for 12 s: loading']);
      open();
      await started;
      assert.deepEqual((await health.check()).warnings, []);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
