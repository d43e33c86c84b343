/** MayorsService over a fake of the stored elections (MayorsStore), the manual clock and the real SkyBlock year. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/clock.ts';
import { SKYBLOCK_YEAR_MS, termEnd, termStart, termYearAt } from '../../../src/domain/skyblock-calendar.ts';
import { MAX_PERIODS, MayorsService, type MayorsStore } from '../../../src/services/mayors.ts';
import type { ElectionRecord } from '../../../src/store/repositories/elections.ts';

const NOW = Date.UTC(2026, 10, 29, 12);
const YEAR_NOW = termYearAt(NOW, SKYBLOCK_YEAR_MS);

function election(year: number, mayorKey: string): ElectionRecord {
  return { year, mayorKey, mayorName: mayorKey, payload: { mayor: { key: mayorKey, name: mayorKey, election: { year, candidates: [{ key: mayorKey, name: mayorKey, perks: [], votes: 10 }] } } }, updatedAt: 0 };
}
const STORED = [election(YEAR_NOW - 2, 'diana'), election(YEAR_NOW - 1, 'paul'), election(YEAR_NOW, 'derpy')];

function setUp() {
  const asked: Array<[number, number, number]> = [];
  const store: MayorsStore = {
    elections: {
      byYear: async (year) => STORED.find((e) => e.year === year),
      inYears: async (from, to, limit) => {
        asked.push([from, to, limit]);
        return STORED.filter((e) => e.year >= from && e.year <= to).slice(0, limit);
      },
    },
  };
  return { service: new MayorsService(store, new ManualClock(NOW), SKYBLOCK_YEAR_MS), asked };
}

describe('MayorsService (unit, over fakes)', () => {
  it('without a range: the terms up to now, the newest MAX_PERIODS years at most, each with its start and end', async () => {
    const { service, asked } = setUp();
    const periods = await service.periods(undefined, undefined);
    assert.deepEqual(asked, [[YEAR_NOW - MAX_PERIODS + 1, YEAR_NOW, MAX_PERIODS]]);
    assert.deepEqual(
      periods.map((p) => [p.year, p.winner.key]),
      [
        [YEAR_NOW - 2, 'diana'],
        [YEAR_NOW - 1, 'paul'],
        [YEAR_NOW, 'derpy'],
      ],
    );
    assert.equal(periods[0]!.start, new Date(termStart(YEAR_NOW - 2, SKYBLOCK_YEAR_MS)).toISOString());
    assert.equal(periods[0]!.end, new Date(termEnd(YEAR_NOW - 2, SKYBLOCK_YEAR_MS)).toISOString());
  });

  it('a range reads the terms of the years it touches', async () => {
    const { service, asked } = setUp();
    const from = termStart(YEAR_NOW - 1, SKYBLOCK_YEAR_MS) + 1000;
    const periods = await service.periods(from, from + 1000);
    const year = termYearAt(from, SKYBLOCK_YEAR_MS);
    assert.deepEqual(asked, [[year, year, MAX_PERIODS]]);
    assert.equal(year, YEAR_NOW - 1, 'a moment after a term starts is in that term');
    assert.deepEqual(
      periods.map((p) => p.winner.key),
      ['paul'],
    );
  });

  it('one election by year; undefined when it was never stored', async () => {
    const { service } = setUp();
    assert.equal((await service.period(YEAR_NOW - 1))?.winner.key, 'paul');
    assert.equal(await service.period(YEAR_NOW - 10), undefined);
  });
});
