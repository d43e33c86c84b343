/** DataSourceService over a fake of the stored feeds (FeedStates) and the manual clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { DataSourceService, type FeedStates } from '../../../src/services/data-source.ts';
import type { FeedState } from '../../../src/store/repositories/feeds.ts';

function feeds(source: FeedState['source']): FeedState[] {
  return [{ name: 'auctions', lastUpdated: 1, storedAt: 2, records: 3, source }];
}

/** Feeds that answer what `now` holds; `reads` counts the reads, `down` makes them fail. */
function fakeFeeds() {
  const state = { now: feeds('upstream'), reads: 0, down: false };
  const store: FeedStates = {
    feeds: {
      all: async () => {
        state.reads++;
        if (state.down) throw new Error('database away');
        return state.now;
      },
    },
  };
  return { store, state };
}

describe('DataSourceService (unit, over fakes)', () => {
  it('configured as the simulator, it says so without reading the feeds', async () => {
    const { store, state } = fakeFeeds();
    assert.equal(await new DataSourceService(store, new ManualClock(), 'simulator').current(), 'simulator');
    assert.equal(state.reads, 0);
  });

  it('a feed stored from the simulator makes the data simulated; the feeds are read at most once per maxAgeMs', async () => {
    const { store, state } = fakeFeeds();
    const clock = new ManualClock(0);
    const service = new DataSourceService(store, clock, 'upstream', 10_000);
    assert.equal(await service.current(), 'upstream');
    state.now = feeds('simulator');
    clock.advance(9_999);
    assert.equal(await service.current(), 'upstream', 'still the answer read 9.999 s ago');
    assert.equal(state.reads, 1);
    clock.advance(1);
    assert.equal(await service.current(), 'simulator');
    assert.equal(state.reads, 2);
  });

  it('with the database away it keeps what it knew, or the configured source', async () => {
    const { store, state } = fakeFeeds();
    const clock = new ManualClock(0);
    state.down = true;
    const service = new DataSourceService(store, clock, 'upstream', 10_000);
    assert.equal(await service.current(), 'upstream');
    state.down = false;
    state.now = feeds('simulator');
    clock.advance(1);
    assert.equal(await service.current(), 'simulator', 'a failed read is not remembered');
    state.down = true;
    clock.advance(20_000);
    assert.equal(await service.current(), 'simulator');
  });
});
